// SPDX-License-Identifier: GPL-2.0
/*
 * read_bench: what ONE counter read costs, by each way there is to read,
 * pctr's beside perf's in the same loop.
 *
 * The calling thread, pinned to CPU 0, times a loop of reads by each
 * method, interleaved round by round so drift in the machine hits them
 * alike.  pctr and perf cannot hold the PMU at once (each gets EBUSY
 * while the other counts), so every round has four parts, each giving
 * the PMU back when it ends: pctr with NSLOTS general slots programmed
 * with one event (instructions with a hardware PMU, else the backend's
 * first named event), then with slot 0 alone; perf with one per-thread
 * hardware instructions event, its user page mapped; perf with a group
 * of NSLOTS such events (PERF_FORMAT_GROUP).  The rows are methods[]:
 * each names its loop and the part it runs in, so a row is one line.
 *
 * perf's self-monitoring read is measured in two forms, both written
 * from the fields perf_event_open(2) documents for the user page:
 * minimal (lock, index, offset, rdpmc, sign extension by pmc_width: what
 * a program reading a pinned event needs) and with time scaling
 * (time_enabled, time_running and, when they differ, the TSC fields),
 * labelled.  A null ioctl and a null read() (both on /dev/null) are the
 * floor every system call pays here, so what PCIOCRD and perf's read()
 * add above it shows.
 *
 * After the timed rounds, one more pass of each method counts the MSR
 * accesses a read makes (bench.h: the guest's msr tracepoints), printed
 * beside the time.  Each part checks its reads against each other (inline
 * against PCIOCRD, perf's page against read()): a read that disagrees
 * fails the run.  Verdicts for the targets of issue 27; lines starting
 * "@" are for bench/bench.
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

#define NSLOTS	4	/* pctr's slots read at once, perf's group */

enum method {
	M_RDTSC, M_RDPMC, M_VTSC, M_VTSC_NC, M_READ, M_READ_NC, M_READ_N,
	M_READ_ALL, M_IOCTL, M_IOCTL1, M_NULL_IOCTL, M_NULL_READ,
	M_HW_RDPMC, M_HW_MIN, M_HW_SCALED, M_HW_READ, M_HW_GROUP, M_PERF_READ,
	NMETHODS
};

struct bench {
	pctr_t		*p;
	unsigned int	nslots;		/* general slots programmed, from 0 */
	uint32_t	pmc;		/* rdpmc index of slot 0 */
	int		null_fd;	/* /dev/null */
	int		perf_fd;	/* task-clock */
	int		hw_fd;		/* the hardware event, in perf's part */
	const volatile struct perf_event_mmap_page *hw_pc;
	uint32_t	hw_pmc;		/* its rdpmc index */
	int		grp_fd[NSLOTS];	/* the group, in its part; [0] leads */
	int		err;		/* errno of a failed read */
};

typedef uint64_t (*loop_fn)(struct bench *b, long n);

/* Where every loop's sum of the values it read ends up. */
static volatile uint64_t sink;

/*
 * Each method's loop is a function of its own, not inlined into run(), so
 * the figures are the loop's alone (-icount checks its instructions per
 * read).  SUM_LOOP sums @expr over @n reads; READ_LOOP sums @n read(2)s
 * of b->@fd of @len bytes, stopping at the first that fails; PCTRST_LOOP
 * sums slot 0 of @n reads of a struct pctrst by @call (0, or -1 with
 * errno), stopping likewise.
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

#define READ_LOOP(name, fd, len)					\
static __attribute__((noinline)) uint64_t name(struct bench *b, long n)	\
{									\
	uint64_t v[1 + NSLOTS], sum = 0;				\
	long i;								\
									\
	for (i = 0; i < n; i++) {					\
		if (read(b->fd, v, (len)) != (ssize_t)(len)) {		\
			b->err = errno ? errno : EIO;			\
			break;						\
		}							\
		sum += v[0];						\
	}								\
	return sum;							\
}

#define PCTRST_LOOP(name, call)						\
static __attribute__((noinline)) uint64_t name(struct bench *b, long n)	\
{									\
	struct pctrst st;						\
	uint64_t sum = 0;						\
	long i;								\
									\
	for (i = 0; i < n; i++) {					\
		if (call) {						\
			b->err = errno;					\
			break;						\
		}							\
		sum += st.pctr_hwc[0];					\
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

/* pctr_read_all(), the library's; loop_ioctl: PCIOCRD itself. */
PCTRST_LOOP(loop_read_all, pctr_read_all(b->p, &st))
PCTRST_LOOP(loop_ioctl, ioctl(b->p->fd, PCIOCRD, &st))

/* The floor: an ioctl /dev/null refuses (ENOTTY), a read() of nothing. */
static __attribute__((noinline)) uint64_t loop_null_ioctl(struct bench *b,
							  long n)
{
	struct pctrst st;
	uint64_t sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum += ioctl(b->null_fd, PCIOCRD, &st);
	return sum;
}

static __attribute__((noinline)) uint64_t loop_null_read(struct bench *b,
							 long n)
{
	uint64_t v, sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum += read(b->null_fd, &v, sizeof(v));
	return sum;
}

READ_LOOP(loop_perf_read, perf_fd, sizeof(uint64_t))
READ_LOOP(loop_hw_read, hw_fd, sizeof(uint64_t))
READ_LOOP(loop_hw_group, grp_fd[0], (1 + b->nslots) * sizeof(uint64_t))

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
 * The same with time scaling, for an event that may be multiplexed: the
 * enabled and running times too, and when they differ the time since
 * the page was written, from the TSC by time_mult, time_shift and
 * time_offset, the count scaled by enabled / running.
 */
static inline uint64_t perf_scaled_read(const volatile struct perf_event_mmap_page *pc)
{
	uint64_t count, enabled, running, cyc = 0, toff = 0;
	uint32_t seq, idx, mult = 0;
	uint16_t shift = 0;
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
		count = bench_perf_count(pc, &idx);
		pctr_barrier();
	} while (pc->lock != seq);
	if (timed)
		count = perf_scale(pc, count, enabled, running, idx, cyc, toff,
				   mult, shift);
	return count;
}

SUM_LOOP(loop_rdpmc, rdpmc(b->pmc))
SUM_LOOP(loop_hw_rdpmc, rdpmc(b->hw_pmc))
SUM_LOOP(loop_hw_min, bench_perf_min_read(b->hw_pc))
SUM_LOOP(loop_hw_scaled, perf_scaled_read(b->hw_pc))

/*
 * The parts of a round: pctr with NSLOTS slots, then slot 0 alone;
 * perf's one event and its page; perf's group.
 */
enum part { PCTR_PART, PCTR1_PART, PERF_PART, GROUP_PART, NPARTS };

/* The table's rows, in its order. */
static const struct {
	const char	*name;
	const char	*key;		/* the "@" lines' */
	loop_fn		loop;
	enum part	part;
} methods[NMETHODS] = {
	[M_RDTSC]	= { "bare rdtsc", "rdtsc", loop_rdtsc, PCTR_PART },
	[M_RDPMC]	= { "bare rdpmc (pctr's counter)", "rdpmc",
			    loop_rdpmc, PCTR_PART },
	[M_VTSC]	= { "pctr_vtsc (inline virtual TSC)", "pctr_vtsc",
			    loop_vtsc, PCTR_PART },
	[M_VTSC_NC]	= { "pctr_vtsc without thread check", "pctr_vtsc_nc",
			    loop_vtsc_nc, PCTR_PART },
	[M_READ]	= { "pctr_read slot 0 (inline)", "pctr_read",
			    loop_read, PCTR_PART },
	[M_READ_NC]	= { "pctr_read without thread check", "pctr_read_nc",
			    loop_read_nc, PCTR_PART },
	[M_READ_N]	= { "pctr_read_n, N slots (inline)", "pctr_read_n",
			    loop_read_n, PCTR_PART },
	[M_READ_ALL]	= { "pctr_read_all, N slots", "pctr_read_all",
			    loop_read_all, PCTR_PART },
	[M_IOCTL]	= { "PCIOCRD ioctl, N slots", "pcioc_rd",
			    loop_ioctl, PCTR_PART },
	[M_IOCTL1]	= { "PCIOCRD ioctl, 1 slot", "pcioc_rd_1",
			    loop_ioctl, PCTR1_PART },
	[M_NULL_IOCTL]	= { "null ioctl (ENOTTY, /dev/null)", "null_ioctl",
			    loop_null_ioctl, PCTR_PART },
	[M_NULL_READ]	= { "null read() (/dev/null)", "null_read",
			    loop_null_read, PCTR_PART },
	[M_HW_RDPMC]	= { "bare rdpmc (perf's counter)", "rdpmc_perf",
			    loop_hw_rdpmc, PERF_PART },
	[M_HW_MIN]	= { "perf page read, minimal", "perf_mmap_min",
			    loop_hw_min, PERF_PART },
	[M_HW_SCALED]	= { "perf page read, time-scaling form", "perf_mmap_scaled",
			    loop_hw_scaled, PERF_PART },
	[M_HW_READ]	= { "perf read(), 1 hardware event", "perf_read_hw",
			    loop_hw_read, PERF_PART },
	[M_HW_GROUP]	= { "perf read(), group of N (FORMAT_GROUP)", "perf_read_group",
			    loop_hw_group, GROUP_PART },
	[M_PERF_READ]	= { "perf read(), task-clock (software)", "perf_read_clock",
			    loop_perf_read, PCTR_PART },
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
 * pctr's part begins: slot 0 with @ev, and slots 1..NSLOTS-1 with it too
 * while they take it, so pctr_read_n and PCIOCRD have NSLOTS to read;
 * then the page (it comes after the slots are programmed).  The number
 * of slots programmed, 0 on failure (errno set).
 */
static unsigned int pctr_part_on(struct bench *b, const struct pctr_event *ev,
				 int *map_err)
{
	uint64_t fn = ev->pe_fn | PCTR_U | PCTR_K | PCTR_EN;
	unsigned int i;
	int tries = 0;

	while (pctr_set(b->p, 0, fn))
		if (!bench_again(&tries, false))
			return 0;
	for (i = 1; i < b->p->info.pi_ngeneral && i < NSLOTS; i++) {
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
static void pctr_part_off(struct bench *b)
{
	pctr_release(b->p);
}

/* The floor's /dev/null and perf's task-clock, open the whole run. */
static int floor_open(struct bench *b)
{
	struct perf_event_attr attr;

	b->null_fd = open("/dev/null", O_RDWR);
	if (b->null_fd < 0)
		return -errno;
	bench_perf_attr(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	b->perf_fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	return b->perf_fd < 0 ? -errno : 0;
}

/*
 * perf's part begins: a per-thread hardware instructions event, U|K,
 * pinned (on the PMU the whole time, or in error), and its user page.
 * 0 or a negative errno.
 */
static int perf_part_on(struct bench *b)
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

static void perf_part_off(struct bench *b)
{
	if (b->hw_pc)
		munmap((void *)b->hw_pc, sysconf(_SC_PAGESIZE));
	b->hw_pc = NULL;
	if (b->hw_fd >= 0)
		close(b->hw_fd);
	b->hw_fd = -1;
}

static void group_off(struct bench *b)
{
	unsigned int i;

	for (i = NSLOTS; i-- > 0; ) {
		if (b->grp_fd[i] >= 0)
			close(b->grp_fd[i]);
		b->grp_fd[i] = -1;
	}
}

/*
 * The group's part begins: b->nslots hardware instructions events, the
 * first pinned and leading, read together (PERF_FORMAT_GROUP), as
 * pctr's NSLOTS slots count.  0 or a negative errno.
 */
static int group_on(struct bench *b)
{
	struct perf_event_attr attr;
	unsigned int i;
	int err;

	for (i = 0; i < b->nslots; i++) {
		bench_perf_attr(&attr, PERF_TYPE_HARDWARE,
				PERF_COUNT_HW_INSTRUCTIONS);
		attr.pinned = !i;
		attr.read_format = PERF_FORMAT_GROUP;
		b->grp_fd[i] = bench_perf_open(&attr, i ? b->grp_fd[0] : -1,
					       false);
		if (b->grp_fd[i] < 0) {
			err = -errno;
			group_off(b);
			return err;
		}
	}
	return 0;
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
 * give non-decreasing slot 0 values; so do perf's two page reads around
 * its read() (and the group's leader, read after them).  0, or -1 with
 * what disagreed printed.
 */
static int pctr_agrees(struct bench *b)
{
	uint64_t a, c;
	struct pctrst st;

	a = pctr_read(b->p, 0);
	/* The ioctl itself: pctr_read_all() reads page version 2 if it can. */
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
	uint64_t a, v, c, d;

	a = bench_perf_min_read(b->hw_pc);
	if (read(b->hw_fd, &v, sizeof(v)) != sizeof(v)) {
		fprintf(stderr, "error: perf read() of the hardware event: %s\n",
			errno ? strerror(errno) : "in error (not on the PMU)");
		return -1;
	}
	c = bench_perf_min_read(b->hw_pc);
	d = perf_scaled_read(b->hw_pc);
	if (!v || a > v || v > c || c > d) {
		fprintf(stderr, "error: perf page read %llu, read() %llu, page read %llu, scaled %llu: not in order\n",
			(unsigned long long)a, (unsigned long long)v,
			(unsigned long long)c, (unsigned long long)d);
		return -1;
	}
	return 0;
}

static int group_agrees(struct bench *b)
{
	uint64_t v[1 + NSLOTS];
	size_t len = (1 + b->nslots) * sizeof(uint64_t);

	if (read(b->grp_fd[0], v, len) != (ssize_t)len || v[0] != b->nslots ||
	    !v[1] || !v[b->nslots]) {
		fprintf(stderr, "error: perf group read(): %s\n",
			errno ? strerror(errno) : "not every event counted");
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

/*
 * A part begins (@on) or ends.  Failures are said; the status main
 * returns, 0 when the part is on.
 */
static int part(struct bench *b, enum part h, bool on,
		const struct pctr_event *ev, const char **why, int r)
{
	int err = 0, m;

	switch (h) {
	case PCTR_PART:
		if (!on)
			return 0;	/* PCTR1_PART goes on from here */
		if (!pctr_part_on(b, ev, &err)) {
			fprintf(stderr, "error: round %d: PCIOCS0: %s\n", r,
				pctr_strerror(errno));
			return 1;
		}
		return !err && slot0_inline(b) && pctr_agrees(b);
	case PCTR1_PART:
		if (!on) {
			pctr_part_off(b);
			return 0;
		}
		/* Slot 0 alone, as perf's read() reads one. */
		for (m = 1; m < (int)b->nslots; m++)
			pctr_set(b->p, m, 0);
		return 0;
	case PERF_PART:
		if (!on) {
			perf_part_off(b);
			return 0;
		}
		err = perf_part_on(b);
		if (err < 0) {
			fprintf(stderr, "error: round %d: perf hardware event: %s\n",
				r, strerror(-err));
			return 1;
		}
		if (!why[M_HW_MIN] && !hw_rdpmc_ok(b)) {
			fprintf(stderr, "error: round %d: perf's page lost rdpmc\n", r);
			return 1;
		}
		return !why[M_HW_MIN] && perf_agrees(b);
	default:
		if (!on) {
			group_off(b);
			return 0;
		}
		err = group_on(b);
		if (err < 0) {
			fprintf(stderr, "error: round %d: perf group: %s\n", r,
				strerror(-err));
			return 1;
		}
		return group_agrees(b);
	}
}

/* Does part @h have a row to run?  (perf's parts need a hardware PMU.) */
static bool part_used(enum part h, const char **why)
{
	int m;

	for (m = 0; m < NMETHODS; m++)
		if (methods[m].part == h && !why[m])
			return true;
	return h == PCTR_PART;	/* PCTR1_PART's way on */
}

/*
 * The rounds: each part on, its rows timed (or counted, @cnt: one more
 * pass with the MSR counts, into @c), the part off.  0 or main's status.
 */
static int rounds_run(struct bench *b, const struct pctr_event *ev,
		      const char **why, double **ns, int rounds, long n,
		      struct bench_counts *c)
{
	struct bench_counts c0, c1;
	enum part h;
	int r, m, rc = 0;
	double v;

	for (r = 0; r < rounds && !rc; r++) {
		for (h = PCTR_PART; h < NPARTS && !rc; h++) {
			if (!part_used(h, why))
				continue;
			rc = part(b, h, true, ev, why, r);
			for (m = 0; m < NMETHODS && !rc; m++) {
				if (why[m] || methods[m].part != h)
					continue;
				if (c) {
					bench_count_read(&c0);
					methods[m].loop(b, n);
					bench_count_read(&c1);
					bench_count_diff(&c0, &c1, n, &c[m]);
					continue;
				}
				if (!r)
					run(b, m, n / 10 + 1);	/* warm up */
				v = run(b, m, n);
				if (v < 0) {
					fprintf(stderr, "%s: %s\n", methods[m].name,
						strerror((int)-v));
					why[m] = "read failed";
				}
				ns[m][r] = v;
			}
			part(b, h, false, ev, why, r);
		}
	}
	return rc;
}

/* What each part offers, found once: why[m] for each row that cannot run. */
static int what_runs(struct bench *b, int hw, int sim,
		     const struct pctr_event *ev, const char **why,
		     int *page_err, int *inline0)
{
	static char why_page[64], why_perf[96], why_hw[96], why_grp[96];
	int err;

	b->nslots = pctr_part_on(b, ev, &err);
	if (!b->nslots) {
		fprintf(stderr, "PCIOCS0: %s\n", pctr_strerror(errno));
		return 1;
	}
	*page_err = err;
	*inline0 = slot0_inline(b);
	if (err) {
		snprintf(why_page, sizeof(why_page), "pctr page not available");
		why[M_VTSC] = why[M_READ] = why[M_READ_N] = why_page;
		why[M_VTSC_NC] = why[M_READ_NC] = why_page;
	}
	if (!slot0_rdpmc(b))
		why[M_RDPMC] = sim ? "no rdpmc: the sim computes slots from the TSC" :
			       "no user rdpmc here";
	else if (!rdpmc_works(b->pmc))
		why[M_RDPMC] = "rdpmc faulted though the page offers it";
	pctr_part_off(b);
	if (floor_open(b) < 0) {
		snprintf(why_perf, sizeof(why_perf), "%s: %s",
			 b->null_fd < 0 ? "/dev/null" : "perf", strerror(errno));
		why[M_PERF_READ] = why_perf;
		if (b->null_fd < 0)
			why[M_NULL_IOCTL] = why[M_NULL_READ] = why_perf;
	}
	if (!hw) {
		why[M_HW_READ] = why[M_HW_MIN] = why[M_HW_SCALED] =
			why[M_HW_RDPMC] = why[M_HW_GROUP] = "no hardware PMU";
		return 0;
	}
	err = perf_part_on(b);
	if (err < 0) {
		snprintf(why_hw, sizeof(why_hw), "perf hardware event: %s",
			 strerror(-err));
		why[M_HW_READ] = why[M_HW_MIN] = why[M_HW_SCALED] =
			why[M_HW_RDPMC] = why_hw;
	} else {
		if (!hw_rdpmc_ok(b))
			why[M_HW_MIN] = why[M_HW_SCALED] = why[M_HW_RDPMC] =
				"perf's page offers no rdpmc (cap_user_rdpmc, index)";
		else if (!rdpmc_works(b->hw_pmc))
			why[M_HW_MIN] = why[M_HW_SCALED] = why[M_HW_RDPMC] =
				"rdpmc of perf's counter faulted";
		perf_part_off(b);
	}
	err = group_on(b);
	if (err < 0) {
		snprintf(why_grp, sizeof(why_grp), "perf group of %u: %s",
			 b->nslots, strerror(-err));
		why[M_HW_GROUP] = why_grp;
	}
	group_off(b);
	return 0;
}

static void print_header(struct bench *b, const struct pctr_event *ev,
			 int hw, int sim, int icount, long n, int rounds,
			 int page_err, const char **why)
{
	printf("counter read cost: one read by each method, thread pinned to CPU 0\n");
	bench_cmdline();
	printf("pctr backend %s, TSC %llu kHz; pctr's slots count %s (U|K)%s;\n",
	       b->p->info.pi_backend, (unsigned long long)b->p->info.pi_tsc_khz,
	       ev->pe_name, hw ? ", perf's hardware events instructions (U|K)" : "");
	printf("N = %u slots (pctr) and events (perf's group); %ld reads a round,\n"
	       "median of %d interleaved rounds; pctr and perf take the PMU in turn\n",
	       b->nslots, n, rounds);
	if (page_err)
		printf("pctr page: not available (%s)\n", strerror(page_err));
	else
		printf("pctr page: slot 0 %s\n",
		       !why[M_RDPMC] ? "by rdpmc" :
		       sim ? "computed from the TSC (sim)" :
		       "not inline: pctr_read falls back to PCIOCRD");
	if (hw)
		printf("perf page: %s\n", !why[M_HW_MIN] ?
		       "cap_user_rdpmc, read by rdpmc" : why[M_HW_MIN]);
	if (sim)
		printf("note: simulated PMU: these figures are the read protocol's cost\n"
		       "      under emulation (QEMU TCG in make bench), not hardware's\n");
	else if (hypervisor())
		printf("note: under a hypervisor (CPUID): with QEMU's emulated PMU these are\n"
		       "      ratios under emulation, not hardware figures\n");
	if (icount)
		printf("under -icount shift=0: 1 ns of the guest's clock = 1 instruction;\n"
		       "figures are instructions executed (exact, repeatable)\n");
	printf("rdmsr, wrmsr, rdpmc: the kernel's MSR accesses a read made (msr\n"
	       "tracepoints, a pass of its own), user rdpmc not included\n");
}

int main(int argc, char **argv)
{
	const char *why[NMETHODS] = { NULL }, *unit;
	struct bench_counts cnt[NMETHODS];
	struct bench b = { .perf_fd = -1, .hw_fd = -1, .null_fd = -1,
			   .grp_fd = { -1, -1, -1, -1 } };
	double *ns[NMETHODS], med[NMETHODS];
	int r, m, sim, hw, icount = 0, rc = 0, inline0, page_err, counting;
	char name[64], xr[16], cs[64];
	enum method rdpmc_of[NPARTS];
	struct pctr_event ev;
	const char *no_perf;
	long n = 200000;
	int rounds = 7;

	rc = bench_start(argc, argv, &icount, &n, &rounds,
			 "read_bench [-i] [reads-per-round] [rounds]", &b.p, &hw);
	if (rc)
		return rc;
	unit = icount ? "insns" : "ns";
	sim = b.p->info.pi_backend_id == PCTR_BACKEND_SIM;
	if (choose_event(&b, hw, &ev) ||
	    what_runs(&b, hw, sim, &ev, why, &page_err, &inline0))
		return 1;
	for (m = 0; m < NMETHODS; m++)
		ns[m] = calloc(rounds, sizeof(double));
	rc = rounds_run(&b, &ev, why, ns, rounds, n, NULL);
	counting = !rc && bench_count_setup() > 0;
	for (m = 0; m < NMETHODS; m++)
		for (r = 0; r < BENCH_NCNT; r++)
			cnt[m].n[r] = -1;
	if (counting)
		rc = rounds_run(&b, &ev, why, ns, 1, n, cnt);
	bench_count_stop();
	if (rc) {
		fprintf(stderr, "read_bench: the reads disagree or a part failed: no figures\n");
		return rc;
	}

	print_header(&b, &ev, hw, sim, icount, n, rounds, page_err, why);
	printf("\n%-40s %10s %8s %5s %5s %5s\n", "method",
	       icount ? "insns/read" : "ns/read", "x rdpmc", "rdmsr", "wrmsr",
	       "rdpmc");
	rdpmc_of[PCTR_PART] = rdpmc_of[PCTR1_PART] = M_RDPMC;
	rdpmc_of[PERF_PART] = rdpmc_of[GROUP_PART] = M_HW_RDPMC;
	for (m = 0; m < NMETHODS; m++) {
		enum method rp = rdpmc_of[methods[m].part];
		const char *nm = methods[m].name, *at = strstr(nm, ", N ");

		/* "N": the slots and events read at once. */
		if (at)
			snprintf(name, sizeof(name), "%.*s, %u%s", (int)(at - nm),
				 nm, b.nslots, at + 3);
		else
			snprintf(name, sizeof(name), "%s", nm);
		at = strstr(nm, "of N ");
		if (at)
			snprintf(name, sizeof(name), "%.*sof %u%s", (int)(at - nm),
				 nm, b.nslots, at + 4);
		if (why[m]) {
			printf("%-40s n/a (%s)\n", name, why[m]);
			continue;
		}
		med[m] = bench_median(ns[m], rounds);
		snprintf(xr, sizeof(xr), "-");
		if (!why[rp])
			snprintf(xr, sizeof(xr), "%.2f", med[m] / med[rp]);
		for (r = 0; r < BENCH_NCNT; r++) {
			if (cnt[m].n[r] < 0)
				snprintf(cs + 6 * r, sizeof(cs) - 6 * r, " %5s", "-");
			else
				snprintf(cs + 6 * r, sizeof(cs) - 6 * r, " %5.2f",
					 cnt[m].n[r]);
		}
		printf("%-40s %10.1f %8s%s\n", name, med[m], xr, cs);
		bench_at("@fig read.%s %.1f %s per read: %s\n", methods[m].key,
			 med[m], unit, name);
		bench_at("@cnt read.%s %.2f %.2f %.2f\n", methods[m].key,
			 cnt[m].n[BENCH_RDMSR], cnt[m].n[BENCH_WRMSR],
			 cnt[m].n[BENCH_RDPMC]);
	}
	printf("\nx rdpmc: against the bare rdpmc of the same part (pctr's or perf's counter)\n");
	if (!counting)
		printf("MSR counts: not available (no tracefs msr events)\n");
	if (!why[M_VTSC] && !why[M_VTSC_NC] && !why[M_READ] && !why[M_READ_NC])
		printf("the thread check (one TLS load and a compare): pctr_vtsc %+.1f %s,\n"
		       "pctr_read %+.1f %s a read\n", med[M_VTSC] - med[M_VTSC_NC],
		       unit, med[M_READ] - med[M_READ_NC], unit);
	if (!why[M_NULL_IOCTL] && !why[M_IOCTL] && !why[M_HW_READ] &&
	    !why[M_HW_GROUP] && !why[M_NULL_READ])
		printf("above the system call's floor: PCIOCRD %u slots %+.1f, 1 slot %+.1f;\n"
		       "perf read() 1 event %+.1f, group of %u %+.1f %s\n",
		       b.nslots, med[M_IOCTL] - med[M_NULL_IOCTL],
		       med[M_IOCTL1] - med[M_NULL_IOCTL],
		       med[M_HW_READ] - med[M_NULL_READ], b.nslots,
		       med[M_HW_GROUP] - med[M_NULL_READ], unit);

	/* The targets of issue 27. */
	printf("\n");
	no_perf = hw ? NULL : "no hardware PMU: perf has no hardware events";
	/*
	 * A read's path length: the fewest instructions a round took per
	 * read (ns[] is sorted by now).  A timer interrupt, the fold or
	 * another guest's disturbance of -icount only adds to a round (a
	 * median of three rounds once read 17.8 where the path is 17),
	 * and a path is whole instructions: to the first decimal.
	 */
	bench_verdict_abs("read_insns", "inline counter read (pctr_read)",
			  (double)(long)(ns[M_READ][0] * 10 + 0.5) / 10, 17,
			  why[M_READ] ? why[M_READ] :
			  !icount ? "instructions: -icount only" : NULL,
			  unit, "a read");
	bench_verdict_abs("vtsc_insns", "inline virtual TSC read (pctr_vtsc)",
			  (double)(long)(ns[M_VTSC][0] * 10 + 0.5) / 10, 14,
			  why[M_VTSC] ? why[M_VTSC] :
			  !icount ? "instructions: -icount only" : NULL,
			  unit, "a read");
	bench_verdict("read_vs_perf", "pctr_read / perf's minimal page read",
		      med[M_READ], med[M_HW_MIN], 0.6,
		      why[M_READ] ? why[M_READ] : no_perf ? no_perf : why[M_HW_MIN],
		      false, unit, "a read");
	snprintf(name, sizeof(name), "pctr_read_all, %u slots / perf read() of 1 event",
		 b.nslots);
	bench_verdict("read_all", name, med[M_READ_ALL], med[M_HW_READ], 0.2,
		      why[M_READ_ALL] ? why[M_READ_ALL] :
		      no_perf ? no_perf : why[M_HW_READ], false, unit, "a read");
	snprintf(name, sizeof(name), "PCIOCRD, %u slots / perf group read() of %u",
		 b.nslots, b.nslots);
	bench_verdict("pciocrd_group", name, med[M_IOCTL], med[M_HW_GROUP], 0.8,
		      why[M_IOCTL] ? why[M_IOCTL] :
		      no_perf ? no_perf : why[M_HW_GROUP], false, unit, "a read");

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
