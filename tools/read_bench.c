// SPDX-License-Identifier: GPL-2.0
/*
 * read_bench: what ONE counter read costs, by each way there is to read.
 *
 * The calling thread, pinned to CPU 0, programs every general slot with
 * the backend's first named event, maps its counter page, opens a perf
 * task-clock event and maps that event's user page.  Then, interleaved
 * round by round so drift in the machine hits them alike, it times a
 * loop of reads by each method:
 *   bare rdtsc                the floor an inline virtual read builds on
 *   pctr_vtsc                 inline virtual TSC from the counter page
 *   pctr_vtsc, no check       the same without the thread check (the
 *                             header's pctr_vtsc_view_), to show its cost
 *   pctr_read slot 0          inline 64-bit virtual counter
 *   pctr_read, no check       the same without the thread check
 *                             (pctr_view_)
 *   pctr_read_n               inline, every programmed slot at once
 *   PCIOCRD                   the ioctl (pctr_read_all)
 *   perf read()               read(2) of a perf task-clock event
 *   perf mmap page            perf's self-monitoring seqlock read
 *   bare rdpmc                when the page lets this thread use it
 * Prints the median cost of one read of each, its ratio to bare rdtsc,
 * and the targets as figures.  A benchmark: it prints figures.
 *
 *   read_bench [reads-per-round] [rounds]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pctr.h"

enum method {
	M_RDTSC, M_VTSC, M_VTSC_NC, M_READ, M_READ_NC, M_READ_N, M_IOCTL,
	M_PERF_READ, M_PERF_MMAP, M_RDPMC, NMETHODS
};

struct bench {
	pctr_t		*p;
	unsigned int	nslots;		/* general slots programmed, from 0 */
	uint32_t	pmc;		/* rdpmc index of slot 0 */
	int		perf_fd;
	const volatile struct perf_event_mmap_page *pc;
	int		err;		/* errno of a failed read */
};

typedef uint64_t (*loop_fn)(struct bench *b, long n);

/* Where every loop's sum of the values it read ends up. */
static volatile uint64_t sink;

static __attribute__((noinline)) uint64_t loop_rdtsc(struct bench *b, long n)
{
	uint64_t sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum += rdtsc();
	return sum;
}

static __attribute__((noinline)) uint64_t loop_vtsc(struct bench *b, long n)
{
	uint64_t sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum += pctr_vtsc(b->p);
	return sum;
}

/*
 * The two inline reads without their check that the caller mapped the
 * page (one thread-local load and a compare): what the check costs.
 */
static __attribute__((noinline)) uint64_t loop_vtsc_nc(struct bench *b,
						       long n)
{
	uint64_t sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum += pctr_vtsc_view_(b->p, b->p->page);
	return sum;
}

static __attribute__((noinline)) uint64_t loop_read_nc(struct bench *b,
						       long n)
{
	uint64_t v, sum = 0;
	long i;

	for (i = 0; i < n; i++) {
		if (!pctr_view_(b->p, b->p->page, &v, 0, 1) &&
		    pctr_read_slow_(b->p, &v, 0, 1))
			v = 0;
		sum += v;
	}
	return sum;
}

static __attribute__((noinline)) uint64_t loop_read(struct bench *b, long n)
{
	uint64_t sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum += pctr_read(b->p, 0);
	return sum;
}

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

	for (i = 0; i < n; i++) {
		if (pctr_read_all(b->p, &st)) {
			b->err = errno;
			break;
		}
		sum += st.pctr_hwc[0];
	}
	return sum;
}

static __attribute__((noinline)) uint64_t loop_perf_read(struct bench *b,
							 long n)
{
	uint64_t v, sum = 0;
	long i;

	for (i = 0; i < n; i++) {
		if (read(b->perf_fd, &v, sizeof(v)) != sizeof(v)) {
			b->err = errno ? errno : EIO;
			break;
		}
		sum += v;
	}
	return sum;
}

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

static __attribute__((noinline)) uint64_t loop_perf_mmap(struct bench *b,
							 long n)
{
	uint64_t sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum += perf_mmap_read(b->pc);
	return sum;
}

static __attribute__((noinline)) uint64_t loop_rdpmc(struct bench *b, long n)
{
	uint64_t sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum += rdpmc(b->pmc);
	return sum;
}

static const struct {
	const char	*name;
	loop_fn		loop;
} methods[NMETHODS] = {
	[M_RDTSC]	= { "bare rdtsc",			loop_rdtsc },
	[M_VTSC]	= { "pctr_vtsc (inline virtual TSC)",	loop_vtsc },
	[M_VTSC_NC]	= { "pctr_vtsc without thread check",	loop_vtsc_nc },
	[M_READ]	= { "pctr_read slot 0 (inline)",	loop_read },
	[M_READ_NC]	= { "pctr_read without thread check",	loop_read_nc },
	[M_READ_N]	= { "pctr_read_n",			loop_read_n },
	[M_IOCTL]	= { "PCIOCRD ioctl (pctr_read_all)",	loop_ioctl },
	[M_PERF_READ]	= { "perf read() task-clock",		loop_perf_read },
	[M_PERF_MMAP]	= { "perf mmap page read [1]",		loop_perf_mmap },
	[M_RDPMC]	= { "bare rdpmc",			loop_rdpmc },
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per read by method @m over @n reads, or a negative errno. */
static double run(struct bench *b, enum method m, long n)
{
	double t0, t1;
	uint64_t sum;

	b->err = 0;
	t0 = now_ns();
	sum = methods[m].loop(b, n);
	t1 = now_ns();
	sink += sum;
	if (b->err)
		return -b->err;
	return (t1 - t0) / n;
}

/*
 * Program slot 0 with the backend's first named event, and the other
 * general slots with it too while they take it, so pctr_read_n has every
 * slot to read.  Returns the number of slots programmed, 0 on failure.
 */
static unsigned int program_slots(pctr_t *p, char *name, size_t len)
{
	struct pctr_event ev = { .pe_index = 0 };
	unsigned int i;
	uint64_t fn;

	if (ioctl(p->fd, PCIOCEVENT, &ev)) {
		fprintf(stderr, "PCIOCEVENT 0: %s\n", pctr_strerror(errno));
		return 0;
	}
	snprintf(name, len, "%s", ev.pe_name);
	fn = ev.pe_fn | PCTR_U | PCTR_K | PCTR_EN;
	for (i = 0; i < p->info.pi_ngeneral && i < PCTR_MAX_GENERAL; i++) {
		if (ev.pe_slots && !(ev.pe_slots & (1ULL << i)))
			break;
		if (pctr_set(p, i, fn)) {
			if (!i)
				fprintf(stderr, "PCIOCS64(0): %s\n",
					pctr_strerror(errno));
			break;
		}
	}
	return i;
}

static int perf_open(struct bench *b)
{
	struct perf_event_attr attr;
	void *pc;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
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

/* Can slot 0 be read without a system call, and by rdpmc? */
static int slot0_inline(const struct bench *b)
{
	const volatile struct pctr_page *pg = b->p->page;

	return pg && (pg->pg_slot[0].ps_rdpmc || pg->pg_slot[0].ps_sim_period);
}

static int slot0_rdpmc(const struct bench *b)
{
	const volatile struct pctr_page *pg = b->p->page;

	return pg && pg->pg_slot[0].ps_rdpmc && (pg->pg_flags & PCTR_PG_RDPMC);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void print_row(const char *name, double ns, double khz, double base)
{
	if (khz)
		printf("%-36s %10.1f %12.1f %9.2f\n", name, ns,
		       ns * khz / 1e6, ns / base);
	else
		printf("%-36s %10.1f %12s %9.2f\n", name, ns, "-", ns / base);
}

/* "a / b = X (target <= T): met", or why it cannot be said. */
static void print_target(const char *what, const double *med, enum method a,
			 enum method b, double target, const char *why)
{
	double r;

	if (why) {
		printf("%s = n/a (%s)\n", what, why);
		return;
	}
	r = med[a] / med[b];
	printf("%s = %.2f (target <= %.1f): %s\n", what, r, target,
	       r <= target ? "met" : "NOT met");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	int rounds = argc > 2 ? atoi(argv[2]) : 7;
	const char *why[NMETHODS] = { NULL };
	char why_page[160], why_perf[160], ev[48], label[64];
	double *ns[NMETHODS], med[NMETHODS], v, khz;
	struct bench b = { .perf_fd = -1 };
	int r, m, err, sim, rc = 0;
	cpu_set_t cpu0;

	if (n < 1 || rounds < 1) {
		fprintf(stderr, "usage: read_bench [reads-per-round] [rounds]\n");
		return 2;
	}
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0)) {
		perror("sched_setaffinity");
		return 1;
	}
	b.p = pctr_open(O_RDWR);
	if (!b.p) {
		fprintf(stderr, "open /dev/pctr: %s\n", pctr_strerror(errno));
		return 1;
	}
	khz = b.p->info.pi_tsc_khz;
	sim = b.p->info.pi_backend_id == PCTR_BACKEND_SIM;
	b.nslots = program_slots(b.p, ev, sizeof(ev));
	if (!b.nslots)
		return 1;

	/* The page comes after the slots are programmed. */
	if (pctr_map(b.p)) {
		snprintf(why_page, sizeof(why_page), "pctr page not available");
		why[M_VTSC] = why[M_READ] = why[M_READ_N] = why_page;
		why[M_VTSC_NC] = why[M_READ_NC] = why_page;
		err = errno;
	} else {
		err = 0;
	}
	if (!slot0_rdpmc(&b))
		why[M_RDPMC] = "no user rdpmc here";
	else
		b.pmc = b.p->page->pg_slot[0].ps_rdpmc - 1;
	if (perf_open(&b) < 0) {
		snprintf(why_perf, sizeof(why_perf), "perf: %s",
			 strerror(errno));
		why[M_PERF_MMAP] = why_perf;
		if (b.perf_fd < 0)
			why[M_PERF_READ] = why_perf;
	}

	for (m = 0; m < NMETHODS; m++) {
		ns[m] = calloc(rounds, sizeof(double));
		if (!why[m])
			run(&b, m, n / 10 + 1);	/* warm up */
	}
	for (r = 0; r < rounds; r++) {
		for (m = 0; m < NMETHODS; m++) {
			if (why[m])
				continue;
			v = run(&b, m, n);
			if (v < 0) {
				fprintf(stderr, "%s: %s\n", methods[m].name,
					strerror((int)-v));
				why[m] = "read failed";
			}
			ns[m][r] = v;
		}
	}

	printf("counter read cost: one read by each method, thread pinned to CPU 0\n");
	printf("pctr backend %s, TSC %llu kHz; slot 0 counts %s (U|K);\n",
	       b.p->info.pi_backend, (unsigned long long)b.p->info.pi_tsc_khz,
	       ev);
	printf("%ld reads a round, median of %d interleaved rounds\n", n,
	       rounds);
	if (err)
		printf("pctr page: not available (%s)\n", strerror(err));
	else
		printf("pctr page: mapped, slot 0 %s\n",
		       slot0_rdpmc(&b) ? "by rdpmc" :
		       slot0_inline(&b) ? "computed from the TSC (sim)" :
		       "not inline: pctr_read falls back to PCIOCRD");
	if (sim)
		printf("note: simulated PMU: these figures are the read protocol's cost\n"
		       "      under emulation (QEMU TCG in make bench), not hardware's\n");
	printf("\n%-36s %10s %12s %9s\n", "method", "ns/read", "cycles/read",
	       "x rdtsc");
	for (m = 0; m < NMETHODS; m++) {
		const char *name = methods[m].name;

		if (m == M_READ_N) {
			snprintf(label, sizeof(label), "pctr_read_n, %u slot%s (inline)",
				 b.nslots, b.nslots == 1 ? "" : "s");
			name = label;
		}
		if (why[m]) {
			printf("%-36s n/a (%s)\n", name, why[m]);
			continue;
		}
		qsort(ns[m], rounds, sizeof(double), cmp_double);
		med[m] = ns[m][rounds / 2];
		print_row(name, med[m], khz, med[M_RDTSC]);
	}
	printf("\n[1] task-clock is a software event: its page's index is 0, so this is\n"
	       "    the seqlock read of offset and time_enabled/time_running, no rdpmc\n");

	if (!why[M_VTSC] && !why[M_VTSC_NC] && !why[M_READ] && !why[M_READ_NC])
		printf("\nthe thread check (one TLS load and a compare): pctr_vtsc %+.1f ns,\n"
		       "pctr_read %+.1f ns a read\n", med[M_VTSC] - med[M_VTSC_NC],
		       med[M_READ] - med[M_READ_NC]);

	printf("\ntargets:\n");
	print_target("inline virtual read / bare rdtsc", med, M_VTSC, M_RDTSC,
		     1.5, why[M_VTSC]);
	print_target("PCIOCRD / perf read()", med, M_IOCTL, M_PERF_READ, 1.0,
		     why[M_IOCTL] ? why[M_IOCTL] : why[M_PERF_READ]);
	if (!why[M_RDPMC])
		print_target("inline counter read / bare rdpmc", med, M_READ,
			     M_RDPMC, 1.3, why[M_READ]);

	printf("\ninline reads: %lu retries, %lu fallbacks to PCIOCRD\n",
	       b.p->retries, b.p->fallbacks);
	if (slot0_inline(&b) && b.p->fallbacks) {
		printf("error: fallbacks where the page allows inline reads\n");
		rc = 1;
	}
	pctr_close(b.p);
	return rc;
}
