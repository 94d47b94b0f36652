// SPDX-License-Identifier: GPL-2.0
/*
 * read_bench: what ONE counter read costs, by each way there is to read.
 *
 * The calling thread, pinned to CPU 0, times a loop of reads by each
 * method, interleaved round by round so drift in the machine hits them
 * alike.  pctr and perf cannot hold the PMU at once (each gets EBUSY
 * while the other counts), so every round has two halves, each giving
 * the PMU back when it ends:
 *
 * pctr's half: every general slot programmed with one event
 * (instructions with a hardware PMU, else the backend's first named
 * event), the counter page mapped; then released (PCIOCRELEASE):
 *   bare rdtsc                the floor an inline virtual read builds on
 *   pctr_vtsc                 inline virtual TSC from the counter page
 *   pctr_vtsc, no check       the same without the thread check: page
 *                             version 2 has none, so the same read
 *   pctr_read slot 0          inline 64-bit virtual counter
 *   pctr_read, no check       the same, likewise
 *   pctr_read_n               inline, every programmed slot at once
 *   PCIOCRD                   the ioctl itself, every slot
 *                             programmed, then slot 0 alone (as perf's
 *                             read() reads one event)
 *   bare rdpmc                of pctr's slot 0, when the page allows it
 *   perf read(), perf mmap    of a perf task-clock event (software: no
 *                             PMU, open the whole time)
 * perf's half, with a hardware PMU: a per-thread PERF_TYPE_HARDWARE
 * instructions event (pinned), its user page mapped; then closed:
 *   perf read()               read(2) of the hardware event
 *   perf mmap rdpmc read      perf's self-monitoring read: the page's
 *                             seqlock, index, offset and rdpmc
 *   bare rdpmc                of perf's counter
 *
 * Prints the median cost of one read of each, its ratios to bare rdtsc
 * and bare rdpmc, and the issue's targets with verdicts.  Each half
 * checks its reads against each other (inline against PCIOCRD, the
 * mmap read against read()): a read that disagrees fails the run.
 * Lines starting "@" are for bench/bench.
 *
 *   read_bench [-i] [reads-per-round] [rounds]
 *
 * -i: the guest runs under QEMU's -icount shift=0, where one nanosecond
 * of the guest's clock is one instruction: the figures are instructions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pctr.h"
#include "bench.h"

enum method {
	M_RDTSC, M_VTSC, M_VTSC_NC, M_READ, M_READ_NC, M_READ_N, M_IOCTL,
	M_IOCTL1, M_RDPMC, M_PERF_READ, M_PERF_MMAP, M_HW_READ, M_HW_MMAP, M_HW_RDPMC,
	NMETHODS
};

struct bench {
	pctr_t		*p;
	uint64_t	fn;		/* what the slots count */
	unsigned int	nslots;		/* general slots programmed, from 0 */
	uint32_t	pmc;		/* rdpmc index of slot 0 */
	int		perf_fd;	/* task-clock */
	const volatile struct perf_event_mmap_page *pc;
	int		hw_fd;		/* the hardware event, in perf's half */
	const volatile struct perf_event_mmap_page *hw_pc;
	uint32_t	hw_pmc;		/* its rdpmc index */
	int		err;		/* errno of a failed read */
};

typedef uint64_t (*loop_fn)(struct bench *b, long n);

/* Where every loop's sum of the values it read ends up. */
static volatile uint64_t sink;

/*
 * Each method's loop is a function of its own, not inlined into run(), so
 * the figures are the loop's alone (-icount checks its instructions per
 * read).  SUM_LOOP sums @expr over @n reads; READ_LOOP sums @n read(2)s
 * of b->@fd, stopping at the first that fails.
 */
#define SUM_LOOP(name, expr)						\
static __attribute__((noinline)) uint64_t name(struct bench *b, long n)	\
{									\
	uint64_t sum = 0;						\
	long i;								\
									\
	for (i = 0; i < n; i++)						\
		sum += expr;						\
	return sum;							\
}

#define READ_LOOP(name, fd)						\
static __attribute__((noinline)) uint64_t name(struct bench *b, long n)	\
{									\
	uint64_t v, sum = 0;						\
	long i;								\
									\
	for (i = 0; i < n; i++) {					\
		if (read(b->fd, &v, sizeof(v)) != sizeof(v)) {		\
			b->err = errno ? errno : EIO;			\
			break;						\
		}							\
		sum += v;						\
	}								\
	return sum;							\
}

SUM_LOOP(loop_rdtsc, rdtsc())
SUM_LOOP(loop_vtsc, pctr_vtsc(b->p))

/*
 * The two inline reads without their check that the caller mapped the
 * page: page version 2 (the thread's own page, through a thread-local
 * pointer) has no such check to leave out, so these are the same reads.
 */
SUM_LOOP(loop_vtsc_nc, pctr_vtsc(b->p))
SUM_LOOP(loop_read_nc, pctr_read(b->p, 0))

SUM_LOOP(loop_read, pctr_read(b->p, 0))

static __attribute__((noinline)) uint64_t loop_read_n(struct bench *b, long n)
{
	uint64_t vals[PCTR_NUM], sum = 0;
	unsigned int j;
	long i;

	for (i = 0; i < n; i++) {
		if (pctr_read_n(b->p, vals, b->nslots)) {
			b->err = errno;
			break;
		}
		for (j = 0; j < b->nslots; j++)
			sum += vals[j];
	}
	return sum;
}

static __attribute__((noinline)) uint64_t loop_ioctl(struct bench *b, long n)
{
	struct pctrst st;
	uint64_t sum = 0;
	long i;

	/* The ioctl itself: pctr_read_all() reads page version 2 if it can. */
	for (i = 0; i < n; i++) {
		if (ioctl(b->p->fd, PCIOCRD, &st)) {
			b->err = errno;
			break;
		}
		sum += st.pctr_hwc[0];
	}
	return sum;
}

READ_LOOP(loop_perf_read, perf_fd)

/* Count scaled by enabled/running time, as perf_event.h shows it. */
static uint64_t perf_scale(const volatile struct perf_event_mmap_page *pc,
			   uint64_t count, uint64_t enabled, uint64_t running,
			   uint32_t idx, uint64_t cyc, uint64_t toff,
			   uint32_t mult, uint16_t shift)
{
	uint64_t quot, rem, delta;

	if (pc->cap_user_time_short)
		cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
	quot = cyc >> shift;
	rem = cyc & (((uint64_t)1 << shift) - 1);
	delta = toff + quot * mult + ((rem * mult) >> shift);
	enabled += delta;
	if (idx)
		running += delta;
	if (!running)
		return count;
	quot = count / running;
	rem = count % running;
	return quot * enabled + (rem * enabled) / running;
}

/*
 * One self-monitoring read of a perf event through its user page, by the
 * seqlock protocol documented in <linux/perf_event.h>.
 */
static inline uint64_t perf_mmap_read(const volatile struct perf_event_mmap_page *pc)
{
	uint64_t count, enabled, running, cyc = 0, toff = 0, raw;
	uint32_t seq, idx, mult = 0;
	uint16_t shift = 0, width;
	int timed;

	do {
		seq = pc->lock;
		pctr_barrier();
		enabled = pc->time_enabled;
		running = pc->time_running;
		timed = pc->cap_user_time && enabled != running;
		if (timed) {
			cyc = rdtsc();
			toff = pc->time_offset;
			mult = pc->time_mult;
			shift = pc->time_shift;
		}
		idx = pc->index;
		count = pc->offset;
		if (pc->cap_user_rdpmc && idx) {
			width = pc->pmc_width;
			raw = rdpmc(idx - 1);
			if (width && width < 64)
				raw = (uint64_t)((int64_t)(raw << (64 - width)) >>
						 (64 - width));
			count += raw;
		}
		pctr_barrier();
	} while (pc->lock != seq);
	if (timed)
		count = perf_scale(pc, count, enabled, running, idx, cyc, toff,
				   mult, shift);
	return count;
}

SUM_LOOP(loop_perf_mmap, perf_mmap_read(b->pc))
SUM_LOOP(loop_rdpmc, rdpmc(b->pmc))
READ_LOOP(loop_hw_read, hw_fd)
SUM_LOOP(loop_hw_mmap, perf_mmap_read(b->hw_pc))
SUM_LOOP(loop_hw_rdpmc, rdpmc(b->hw_pmc))

/* pctr's half ends with slot 0 alone programmed (PCTR1), for PCIOCRD. */
enum half { PCTR_HALF, PCTR1_HALF, PERF_HALF };

/* The table's order: pctr's reads, then perf's. */
static const enum method order[NMETHODS] = {
	M_RDTSC, M_RDPMC, M_VTSC, M_VTSC_NC, M_READ, M_READ_NC, M_READ_N,
	M_IOCTL, M_IOCTL1, M_HW_RDPMC, M_HW_MMAP, M_HW_READ, M_PERF_MMAP, M_PERF_READ,
};

static const struct {
	const char	*name;
	const char	*key;		/* the "@" lines' */
	loop_fn		loop;
	enum half	half;
} methods[NMETHODS] = {
	[M_RDTSC]	= { "bare rdtsc", "rdtsc", loop_rdtsc, PCTR_HALF },
	[M_VTSC]	= { "pctr_vtsc (inline virtual TSC)", "pctr_vtsc",
			    loop_vtsc, PCTR_HALF },
	[M_VTSC_NC]	= { "pctr_vtsc without thread check", "pctr_vtsc_nc",
			    loop_vtsc_nc, PCTR_HALF },
	[M_READ]	= { "pctr_read slot 0 (inline)", "pctr_read",
			    loop_read, PCTR_HALF },
	[M_READ_NC]	= { "pctr_read without thread check", "pctr_read_nc",
			    loop_read_nc, PCTR_HALF },
	[M_READ_N]	= { "pctr_read_n", "pctr_read_n", loop_read_n,
			    PCTR_HALF },
	[M_IOCTL]	= { "PCIOCRD (the ioctl), all slots", "pcioc_rd",
			    loop_ioctl, PCTR_HALF },
	[M_IOCTL1]	= { "PCIOCRD (the ioctl), 1 slot", "pcioc_rd_1",
			    loop_ioctl, PCTR1_HALF },
	[M_RDPMC]	= { "bare rdpmc (pctr's counter)", "rdpmc",
			    loop_rdpmc, PCTR_HALF },
	[M_PERF_READ]	= { "perf read() task-clock", "perf_read_clock",
			    loop_perf_read, PCTR_HALF },
	[M_PERF_MMAP]	= { "perf mmap read task-clock [1]", "perf_mmap_clock",
			    loop_perf_mmap, PCTR_HALF },
	[M_HW_READ]	= { "perf read() hardware insns", "perf_read_hw",
			    loop_hw_read, PERF_HALF },
	[M_HW_MMAP]	= { "perf mmap rdpmc read (hw insns)", "perf_mmap_hw",
			    loop_hw_mmap, PERF_HALF },
	[M_HW_RDPMC]	= { "bare rdpmc (perf's counter)", "rdpmc_perf",
			    loop_hw_rdpmc, PERF_HALF },
};

/* ns per read by method @m over @n reads, or a negative errno. */
static double run(struct bench *b, enum method m, long n)
{
	double t0, t1;
	uint64_t sum;

	b->err = 0;
	t0 = bench_now_ns();
	sum = methods[m].loop(b, n);
	t1 = bench_now_ns();
	sink += sum;
	if (b->err)
		return -b->err;
	return (t1 - t0) / n;
}

/*
 * The event every general slot counts: instructions with a hardware PMU
 * (what perf's hardware event counts), else the backend's first named
 * event.  Its name in @name; -1 when there is none.
 */
static int choose_event(struct bench *b, int hw, struct pctr_event *ev)
{
	static const char *const insns[] = { "INSTRUCTION_RETIRED",
		"RETIRED_INSTRUCTIONS" };
	unsigned int i, k;

	for (i = 0; hw; i++) {
		memset(ev, 0, sizeof(*ev));
		ev->pe_index = i;
		if (ioctl(b->p->fd, PCIOCEVENT, ev))
			break;
		for (k = 0; k < 2; k++)
			if (!strcmp(ev->pe_name, insns[k]))
				return 0;
	}
	memset(ev, 0, sizeof(*ev));
	if (ioctl(b->p->fd, PCIOCEVENT, ev)) {
		fprintf(stderr, "PCIOCEVENT 0: %s\n", pctr_strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * pctr's half begins: slot 0 with @ev, and the other general slots with
 * it too while they take it, so pctr_read_n has every slot to read; then
 * the page (it comes after the slots are programmed).  The number of
 * slots programmed, 0 on failure (errno set).
 */
static unsigned int pctr_half_on(struct bench *b, const struct pctr_event *ev,
				 int *map_err)
{
	uint64_t fn = ev->pe_fn | PCTR_U | PCTR_K | PCTR_EN;
	unsigned int i;
	int tries = 0;

	while (pctr_set(b->p, 0, fn))
		if (!bench_again(&tries, false))
			return 0;
	for (i = 1; i < b->p->info.pi_ngeneral && i < PCTR_MAX_GENERAL; i++) {
		if (ev->pe_slots && !(ev->pe_slots & (1ULL << i)))
			break;
		if (pctr_set(b->p, i, fn))
			break;
	}
	*map_err = pctr_map(b->p) ? errno : 0;
	if (!*map_err && pctr_page2_->p2_slot[0].p2s_index >= 0)
		b->pmc = pctr_page2_->p2_slot[0].p2s_index;
	return i;
}

/* ...and ends: the context, its page and its hold on the PMU go. */
static void pctr_half_off(struct bench *b)
{
	pctr_release(b->p);
}

static int perf_open(struct bench *b)
{
	struct perf_event_attr attr;
	void *pc;

	bench_perf_attr(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	b->perf_fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (b->perf_fd < 0)
		return -errno;
	pc = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
		  b->perf_fd, 0);
	if (pc == MAP_FAILED)
		return -errno;
	b->pc = pc;
	return 0;
}

/*
 * perf's half begins: a per-thread hardware instructions event, U|K,
 * pinned (on the PMU the whole time, or in error), and its user page.
 * 0 or a negative errno.
 */
static int perf_half_on(struct bench *b)
{
	struct perf_event_attr attr;
	void *pc;
	int err;

	bench_perf_attr(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	attr.pinned = 1;
	b->hw_fd = bench_perf_open(&attr, -1, false);
	if (b->hw_fd < 0)
		return -errno;
	pc = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
		  b->hw_fd, 0);
	if (pc == MAP_FAILED) {
		err = -errno;
		close(b->hw_fd);
		b->hw_fd = -1;
		return err;
	}
	b->hw_pc = pc;
	/* The page is brought up to date when the event is scheduled. */
	sched_yield();
	if (b->hw_pc->cap_user_rdpmc && b->hw_pc->index)
		b->hw_pmc = b->hw_pc->index - 1;
	return 0;
}

static void perf_half_off(struct bench *b)
{
	if (b->hw_pc)
		munmap((void *)b->hw_pc, sysconf(_SC_PAGESIZE));
	b->hw_pc = NULL;
	if (b->hw_fd >= 0)
		close(b->hw_fd);
	b->hw_fd = -1;
}

static int hw_rdpmc_ok(const struct bench *b)
{
	return b->hw_pc && b->hw_pc->cap_user_rdpmc && b->hw_pc->index;
}

/* Can slot 0 be read without a system call, and by rdpmc? */
static int slot0_inline(const struct bench *b)
{
	return b->p->page && pctr_page2_->p2_slot[0].p2s_index >= 0;
}

static int slot0_rdpmc(const struct bench *b)
{
	const volatile struct pctr_page2 *pg = pctr_page2_;

	return b->p->page && pg->p2_slot[0].p2s_index >= 0 &&
	       (pg->p2_flags & PCTR_PG_RDPMC);
}

/* Does rdpmc @idx work for this thread, or fault? */
static sigjmp_buf probe_env;

static void probe_fault(int sig)
{
	siglongjmp(probe_env, 1);
}

static int rdpmc_works(uint32_t idx)
{
	struct sigaction sa, old_segv, old_bus;
	volatile int ok = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_fault;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	if (!sigsetjmp(probe_env, 1)) {
		sink += rdpmc(idx);
		ok = 1;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return ok;
}

/*
 * The reads must agree: an inline read, PCIOCRD and an inline read again
 * give non-decreasing slot 0 values; so do perf's mmap read, read() and
 * the mmap read again.  0, or -1 with what disagreed printed.
 */
static int pctr_agrees(struct bench *b)
{
	uint64_t a, c;
	struct pctrst st;

	a = pctr_read(b->p, 0);
	if (ioctl(b->p->fd, PCIOCRD, &st)) {
		fprintf(stderr, "error: PCIOCRD: %s\n", pctr_strerror(errno));
		return -1;
	}
	c = pctr_read(b->p, 0);
	if (a == (uint64_t)-1 || c == (uint64_t)-1 || a > st.pctr_hwc[0] ||
	    st.pctr_hwc[0] > c) {
		fprintf(stderr, "error: pctr_read %llu, PCIOCRD %llu, pctr_read %llu: not in order\n",
			(unsigned long long)a,
			(unsigned long long)st.pctr_hwc[0],
			(unsigned long long)c);
		return -1;
	}
	return 0;
}

static int perf_agrees(struct bench *b)
{
	uint64_t a, v, c;

	a = perf_mmap_read(b->hw_pc);
	if (read(b->hw_fd, &v, sizeof(v)) != sizeof(v)) {
		fprintf(stderr, "error: perf read() of the hardware event: %s\n",
			errno ? strerror(errno) : "in error (not on the PMU)");
		return -1;
	}
	c = perf_mmap_read(b->hw_pc);
	if (!v || a > v || v > c) {
		fprintf(stderr, "error: perf mmap read %llu, read() %llu, mmap read %llu: not in order\n",
			(unsigned long long)a, (unsigned long long)v,
			(unsigned long long)c);
		return -1;
	}
	return 0;
}

/* Under a hypervisor (CPUID.1:ECX bit 31): emulated or virtual. */
static int hypervisor(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t a = 1, b, c = 0, d;

	__asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return (c >> 31) & 1;
#else
	return 0;
#endif
}

/* "what = a / b = R (target <= T): met", or by how much it is not. */
static void print_verdict(const char *key, const char *what, const double *med,
			  enum method a, enum method b, double target,
			  const char *why, const char *unit)
{
	bench_verdict(key, what, med[a], med[b], target, why, false, unit,
		      "a read");
}

int main(int argc, char **argv)
{
	const char *why[NMETHODS] = { NULL };
	char why_page[160], why_perf[160], why_hw[160], label[64];
	double *ns[NMETHODS], med[NMETHODS], v, khz;
	struct bench b = { .perf_fd = -1, .hw_fd = -1 };
	int r, m, err, sim, hw, icount = 0, rc = 0, inline0, page_err;
	const char *unit, *ioctl_what;
	enum method rdpmc_of[3];
	char label_ioctl[64];
	struct pctr_event ev;
	long n = 200000;
	int rounds = 7;

	rc = bench_start(argc, argv, &icount, &n, &rounds,
			 "read_bench [-i] [reads-per-round] [rounds]", &b.p, &hw);
	if (rc)
		return rc;
	unit = icount ? "insns" : "ns";
	khz = icount ? 0 : b.p->info.pi_tsc_khz;
	sim = b.p->info.pi_backend_id == PCTR_BACKEND_SIM;
	if (choose_event(&b, hw, &ev))
		return 1;

	/* What each half offers, found once. */
	b.nslots = pctr_half_on(&b, &ev, &err);
	if (!b.nslots) {
		fprintf(stderr, "PCIOCS0: %s\n", pctr_strerror(errno));
		return 1;
	}
	page_err = err;
	inline0 = slot0_inline(&b);
	if (err) {
		snprintf(why_page, sizeof(why_page), "pctr page not available");
		why[M_VTSC] = why[M_READ] = why[M_READ_N] = why_page;
		why[M_VTSC_NC] = why[M_READ_NC] = why_page;
	}
	if (!slot0_rdpmc(&b))
		why[M_RDPMC] = sim ? "no rdpmc: the sim computes slots from the TSC" :
			       "no user rdpmc here";
	else if (!rdpmc_works(b.pmc))
		why[M_RDPMC] = "rdpmc faulted though the page offers it";
	pctr_half_off(&b);
	if (perf_open(&b) < 0) {
		snprintf(why_perf, sizeof(why_perf), "perf: %s",
			 strerror(errno));
		why[M_PERF_MMAP] = why_perf;
		if (b.perf_fd < 0)
			why[M_PERF_READ] = why_perf;
	}
	err = hw ? perf_half_on(&b) : 0;
	if (!hw) {
		why[M_HW_READ] = why[M_HW_MMAP] = why[M_HW_RDPMC] =
			"no hardware PMU";
	} else if (err < 0) {
		snprintf(why_hw, sizeof(why_hw), "perf hardware event: %s",
			 strerror(-err));
		why[M_HW_READ] = why[M_HW_MMAP] = why[M_HW_RDPMC] = why_hw;
	} else {
		if (!hw_rdpmc_ok(&b))
			why[M_HW_MMAP] = why[M_HW_RDPMC] =
				"perf's page offers no rdpmc (cap_user_rdpmc, index)";
		else if (!rdpmc_works(b.hw_pmc))
			why[M_HW_MMAP] = why[M_HW_RDPMC] =
				"rdpmc of perf's counter faulted";
		perf_half_off(&b);
	}

	for (m = 0; m < NMETHODS; m++)
		ns[m] = calloc(rounds, sizeof(double));
	for (r = 0; r < rounds && !rc; r++) {
		enum half h;

		for (h = PCTR_HALF; h <= PERF_HALF && !rc; h++) {
			if (h == PCTR1_HALF) {
				/* Slot 0 alone, as perf's read() reads one. */
				for (m = 1; m < (int)b.nslots; m++)
					pctr_set(b.p, m, 0);
			} else if (h == PCTR_HALF) {
				if (!pctr_half_on(&b, &ev, &err)) {
					fprintf(stderr, "error: round %d: PCIOCS0: %s\n",
						r, pctr_strerror(errno));
					rc = 1;
					break;
				}
				if (!err && slot0_inline(&b) && pctr_agrees(&b))
					rc = 1;
			} else {
				if (why[M_HW_READ])
					break;
				err = perf_half_on(&b);
				if (err < 0) {
					fprintf(stderr, "error: round %d: perf hardware event: %s\n",
						r, strerror(-err));
					rc = 1;
					break;
				}
				if (!why[M_HW_MMAP] && !hw_rdpmc_ok(&b)) {
					fprintf(stderr, "error: round %d: perf's page lost rdpmc\n",
						r);
					rc = 1;
				} else if (!why[M_HW_MMAP] && perf_agrees(&b)) {
					rc = 1;
				}
			}
			for (m = 0; m < NMETHODS && !rc; m++) {
				if (why[m] || methods[m].half != h)
					continue;
				if (!r)
					run(&b, m, n / 10 + 1);	/* warm up */
				v = run(&b, m, n);
				if (v < 0) {
					fprintf(stderr, "%s: %s\n", methods[m].name,
						strerror((int)-v));
					why[m] = "read failed";
				}
				ns[m][r] = v;
			}
			if (h == PCTR1_HALF)
				pctr_half_off(&b);
			else if (h == PERF_HALF)
				perf_half_off(&b);
		}
	}
	if (rc) {
		fprintf(stderr, "read_bench: the reads disagree or a half failed: no figures\n");
		return rc;
	}

	printf("counter read cost: one read by each method, thread pinned to CPU 0\n");
	printf("pctr backend %s, TSC %llu kHz; pctr's slots count %s (U|K)%s;\n",
	       b.p->info.pi_backend, (unsigned long long)b.p->info.pi_tsc_khz,
	       ev.pe_name, hw ? ", perf's hardware event instructions (U|K)" : "");
	printf("%ld reads a round, median of %d interleaved rounds; pctr and perf\n"
	       "take the PMU in turn within each round\n", n, rounds);
	if (page_err)
		printf("pctr page: not available (%s)\n", strerror(page_err));
	else
		printf("pctr page: slot 0 %s\n",
		       !why[M_RDPMC] ? "by rdpmc" :
		       sim ? "computed from the TSC (sim)" :
		       "not inline: pctr_read falls back to PCIOCRD");
	if (hw)
		printf("perf page: %s\n", !why[M_HW_MMAP] ?
		       "cap_user_rdpmc, read by rdpmc" : why[M_HW_MMAP]);
	if (sim)
		printf("note: simulated PMU: these figures are the read protocol's cost\n"
		       "      under emulation (QEMU TCG in make bench), not hardware's\n");
	else if (hypervisor())
		printf("note: under a hypervisor (CPUID): with QEMU's emulated PMU these are\n"
		       "      ratios under emulation, not hardware figures\n");
	if (icount)
		printf("under -icount shift=0: 1 ns of the guest's clock = 1 instruction;\n"
		       "figures are instructions executed (exact, repeatable)\n");
	printf("\n%-36s %10s %12s %8s %8s\n", "method",
	       icount ? "insns/read" : "ns/read", "cycles/read", "x rdtsc",
	       "x rdpmc");
	rdpmc_of[PCTR_HALF] = rdpmc_of[PCTR1_HALF] = M_RDPMC;
	rdpmc_of[PERF_HALF] = M_HW_RDPMC;
	snprintf(label, sizeof(label), "pctr_read_n, %u slot%s (inline)",
		 b.nslots, b.nslots == 1 ? "" : "s");
	snprintf(label_ioctl, sizeof(label_ioctl), "PCIOCRD (the ioctl), %u slot%s",
		 b.nslots, b.nslots == 1 ? "" : "s");
	for (m = 0; m < NMETHODS; m++)
		if (!why[m])
			med[m] = bench_median(ns[m], rounds);
	for (r = 0; r < NMETHODS; r++) {
		enum method rp;
		char cyc[16], xr[16];
		const char *name;

		m = order[r];
		rp = rdpmc_of[methods[m].half];
		name = m == M_READ_N ? label : m == M_IOCTL ? label_ioctl :
		       methods[m].name;
		if (why[m]) {
			printf("%-36s n/a (%s)\n", name, why[m]);
			continue;
		}
		snprintf(cyc, sizeof(cyc), "-");
		if (khz)
			snprintf(cyc, sizeof(cyc), "%.1f", med[m] * khz / 1e6);
		snprintf(xr, sizeof(xr), "-");
		if (!why[rp])
			snprintf(xr, sizeof(xr), "%.2f", med[m] / med[rp]);
		printf("%-36s %10.1f %12s %8.2f %8s\n", name, med[m], cyc,
		       med[m] / med[M_RDTSC], xr);
		bench_at("@fig read.%s %.1f %s per read: %s\n", methods[m].key,
		   med[m], unit, name);
	}
	printf("\n[1] task-clock is a software event: its page's index is 0, so this is\n"
	       "    the seqlock read of offset and time_enabled/time_running, no rdpmc\n");
	printf("x rdpmc: against the bare rdpmc of the same half (pctr's or perf's counter)\n");

	if (!why[M_VTSC] && !why[M_VTSC_NC] && !why[M_READ] && !why[M_READ_NC])
		printf("\nthe thread check (one TLS load and a compare): pctr_vtsc %+.1f %s,\n"
		       "pctr_read %+.1f %s a read\n", med[M_VTSC] - med[M_VTSC_NC],
		       unit, med[M_READ] - med[M_READ_NC], unit);
	if (!why[M_READ] && !why[M_HW_MMAP] && !why[M_RDPMC])
		printf("\ninline rdpmc reads side by side: pctr_read %.1f, perf's mmap read %.1f %s\n"
		       "(pctr / perf = %.2f; no target)\n", med[M_READ],
		       med[M_HW_MMAP], unit, med[M_READ] / med[M_HW_MMAP]);

	printf("\n");
	print_verdict("read_vtsc", "inline virtual TSC read (pctr_vtsc) / bare rdtsc",
		med, M_VTSC, M_RDTSC, 1.5, why[M_VTSC], unit);
	print_verdict("read_rdpmc", "inline counter read (pctr_read) / bare rdpmc",
		med, M_READ, M_RDPMC, 1.3,
		why[M_READ] ? why[M_READ] : why[M_RDPMC], unit);
	ioctl_what = hw ? "PCIOCRD, 1 slot / perf read() of a hardware event" :
		     "PCIOCRD, 1 slot / perf read() of task-clock (no hardware event here)";
	print_verdict("read_ioctl", ioctl_what, med, M_IOCTL1,
		hw ? M_HW_READ : M_PERF_READ, 1.0,
		why[M_IOCTL1] ? why[M_IOCTL1] :
		why[hw ? M_HW_READ : M_PERF_READ], unit);
	snprintf(label, sizeof(label), "PCIOCRD, %u slots / perf read() of %s",
		 b.nslots, hw ? "a hardware event" : "task-clock");
	print_verdict("read_ioctl_all", label, med, M_IOCTL,
		hw ? M_HW_READ : M_PERF_READ, 1.0,
		why[M_IOCTL] ? why[M_IOCTL] :
		why[hw ? M_HW_READ : M_PERF_READ], unit);

	printf("\ninline reads: %lu retries, %lu fallbacks to PCIOCRD\n",
	       b.p->retries, b.p->fallbacks);
	/* pctr_agrees() reads through PCIOCRD itself: not a fallback */
	if (inline0 && b.p->fallbacks) {
		printf("error: fallbacks where the page allows inline reads\n");
		rc = 1;
	}
	/* For bench/bench: every figure and target, one a line. */
	bench_at_flush();
	pctr_close(b.p);
	return rc;
}
