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
 *
 * This file has the loops, the rows and the table; the parts of a round,
 * what each offers and the checks that its reads agree are in
 * read_bench_parts.c (read_bench.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pctr.h"
#include "read_bench.h"

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

/* The value and its two times (pctr_read_times()): all three summed. */
static __attribute__((noinline)) uint64_t loop_read_times(struct bench *b,
							  long n)
{
	uint64_t e, r, sum = 0;
	long i;

	for (i = 0; i < n; i++) {
		sum += pctr_read_times(b->p, 0, &e, &r);
		sum += e + r;
	}
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

SUM_LOOP(loop_rdpmc, rdpmc(b->pmc))
SUM_LOOP(loop_hw_rdpmc, rdpmc(b->hw_pmc))
SUM_LOOP(loop_hw_min, bench_perf_min_read(b->hw_pc))
SUM_LOOP(loop_hw_scaled, perf_scaled_read(b->hw_pc))


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
	[M_READ_TIMES]	= { "pctr_read_times slot 0 (inline)", "pctr_read_times",
			    loop_read_times, PCTR_PART },
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
