/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmarks (ctxsw_bench, read_bench, sample_bench) share:
 * their command line, the device, the clock and the median they measure
 * with, the retries while perf or pctr gives the PMU back, the lines
 * they leave for bench/bench at the end of a run, the kernel command line
 * printed with every table, the counts of MSR accesses the guest's
 * tracefs gives, and the verdict on one target, printed the same way by
 * each.
 */
#ifndef PCTR_TOOLS_BENCH_H
#define PCTR_TOOLS_BENCH_H

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>		/* CPU_SET: the includer defines _GNU_SOURCE */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pctr.h"

/*
 * The command line each takes: [-i] [COUNT] [ROUNDS], -i first.  -i (the
 * guest runs under -icount: the figures are instructions) sets *@icount;
 * COUNT and ROUNDS, if given, replace *@count and *@rounds.  0, or 2
 * after "usage: @usage" if either is below 1.
 */
static inline int bench_args(int argc, char **argv, int *icount, long *count,
			     int *rounds, const char *usage)
{
	if (argc > 1 && !strcmp(argv[1], "-i")) {
		*icount = 1;
		argc--;
		argv++;
	}
	if (argc > 1)
		*count = atol(argv[1]);
	if (argc > 2)
		*rounds = atoi(argv[2]);
	if (*count < 1 || *rounds < 1) {
		fprintf(stderr, "usage: %s\n", usage);
		return 2;
	}
	return 0;
}

/* Run on CPU 0 only: 0, or -1 after perror(). */
static inline int bench_pin_cpu0(void)
{
	cpu_set_t cpu0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0)) {
		perror("sched_setaffinity");
		return -1;
	}
	return 0;
}

/*
 * /dev/pctr opened with @flags, or NULL after "open /dev/pctr: reason";
 * *@hw: whether the backend is a hardware PMU's (intel or amd).
 */
static inline pctr_t *bench_open(int flags, int *hw)
{
	pctr_t *p = pctr_open(flags);

	if (!p) {
		fprintf(stderr, "open /dev/pctr: %s\n", pctr_strerror(errno));
		return NULL;
	}
	*hw = p->info.pi_backend_id == PCTR_BACKEND_INTEL ||
	      p->info.pi_backend_id == PCTR_BACKEND_AMD;
	return p;
}

/*
 * How the timing benches (ctxsw_bench, read_bench) begin: their command
 * line (bench_args), CPU 0 (bench_pin_cpu0), and /dev/pctr open for
 * writing in *@p (bench_open).  0, or the status main returns: 2 for a
 * bad command line, 1 when the rest failed (said on stderr).
 */
static inline int bench_start(int argc, char **argv, int *icount, long *count,
			      int *rounds, const char *usage, pctr_t **p,
			      int *hw)
{
	if (bench_args(argc, argv, icount, count, rounds, usage))
		return 2;
	if (bench_pin_cpu0())
		return 1;
	*p = bench_open(O_RDWR, hw);
	return *p ? 0 : 1;
}

/* The kernel command line (mitigations), printed with every table. */
static inline void bench_cmdline(void)
{
	char line[512] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
	}
	line[strcspn(line, "\n")] = 0;
	printf("kernel %s", line[0] ? "command line: " : "command line unknown\n");
	if (line[0])
		printf("%s\n", line);
}

/*
 * Counting what the instruction counts weigh like an add: the kernel's
 * MSR accesses, by its tracepoints msr/read_msr, msr/write_msr and
 * msr/rdpmc, which fire for every rdmsr, wrmsr and in-kernel rdpmc made
 * through the kernel's accessors, pctr's and perf's alike.  A hist
 * trigger on each counts its hits on every CPU without the event being
 * enabled; a count is the difference of two snapshots.  Not to be run
 * with the timing: a hit costs hundreds of instructions.  What cannot be
 * counted this way (Documentation/benchmarks.rst): CR4 writes and the
 * local APIC's registers (the guests have no x2APIC, so LVTPC and EOI
 * are memory writes), whose functions (native_write_cr4,
 * native_apic_mem_write) refuse kprobes.
 */
enum bench_cnt { BENCH_RDMSR, BENCH_WRMSR, BENCH_RDPMC, BENCH_NCNT };

static const struct {
	const char	*name;		/* the tables' */
	const char	*event;		/* under events/ */
} bench_cnt_def[BENCH_NCNT] = {
	[BENCH_RDMSR]	= { "rdmsr", "msr/read_msr" },
	[BENCH_WRMSR]	= { "wrmsr", "msr/write_msr" },
	[BENCH_RDPMC]	= { "rdpmc", "msr/rdpmc" },
};

#define BENCH_TRACEFS	"/sys/kernel/tracing"

/* Hits of each event, -1 where it cannot be counted. */
struct bench_counts {
	double	n[BENCH_NCNT];
};

static bool bench_cnt_on[BENCH_NCNT];

static inline int bench_write_file(const char *path, const char *text,
				   const char *mode)
{
	FILE *f = fopen(path, mode);
	int rc;

	if (!f)
		return -1;
	rc = fputs(text, f) < 0;
	rc |= fclose(f) != 0;
	return rc ? -1 : 0;
}

/*
 * Set the counting up: tracefs mounted if it is not, a hist trigger on
 * each event.  The number of events counted.
 */
static inline int bench_count_setup(void)
{
	char path[160];
	int i, done = 0;

	if (access(BENCH_TRACEFS "/events", F_OK))
		mount("nodev", BENCH_TRACEFS, "tracefs", 0, NULL);
	for (i = 0; i < BENCH_NCNT; i++) {
		snprintf(path, sizeof(path), BENCH_TRACEFS "/events/%s/trigger",
			 bench_cnt_def[i].event);
		if (bench_write_file(path, "hist:keys=common_cpu", "w"))
			continue;
		bench_cnt_on[i] = true;
		done++;
	}
	return done;
}

/*
 * The counting off: the triggers removed, so the MSR accesses cost what
 * they did before (a timed run must not follow a counted one without).
 * Set up again by bench_count_setup().
 */
static inline void bench_count_stop(void)
{
	char path[160];
	int i;

	for (i = 0; i < BENCH_NCNT; i++) {
		if (!bench_cnt_on[i])
			continue;
		snprintf(path, sizeof(path), BENCH_TRACEFS "/events/%s/trigger",
			 bench_cnt_def[i].event);
		bench_write_file(path, "!hist:keys=common_cpu", "w");
		bench_cnt_on[i] = false;
	}
}

/* A snapshot of every count, each -1 if it is not counted. */
static inline void bench_count_read(struct bench_counts *c)
{
	char path[160], line[256];
	FILE *f;
	int i;

	for (i = 0; i < BENCH_NCNT; i++) {
		c->n[i] = -1;
		if (!bench_cnt_on[i])
			continue;
		snprintf(path, sizeof(path), BENCH_TRACEFS "/events/%s/hist",
			 bench_cnt_def[i].event);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, " Hits: %lf", &c->n[i]) == 1)
				break;
		fclose(f);
	}
}

/* Per operation: (@b - @a) / @ops into @d, -1 where either is. */
static inline void bench_count_diff(const struct bench_counts *a,
				    const struct bench_counts *b, double ops,
				    struct bench_counts *d)
{
	int i;

	for (i = 0; i < BENCH_NCNT; i++)
		d->n[i] = a->n[i] < 0 || b->n[i] < 0 ? -1 :
			  (b->n[i] - a->n[i]) / ops;
}

/* "rdmsr 1.00 wrmsr 2.00 rdpmc 0.00" of @c in @buf; "-": not counted. */
static inline const char *bench_count_str(const struct bench_counts *c,
					  char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < BENCH_NCNT && at < len; i++) {
		if (c->n[i] < 0)
			at += snprintf(buf + at, len - at, "%s%s -", i ? " " : "",
				       bench_cnt_def[i].name);
		else
			at += snprintf(buf + at, len - at, "%s%s %.2f", i ? " " : "",
				       bench_cnt_def[i].name, c->n[i]);
	}
	return buf;
}

/* Tries while the other user of the PMU has not given it back yet. */
#define BENCH_BUSY_TRIES	2000	/* 1 ms apart */

/*
 * After a failure: whether to try again, 1 ms later.  Yes while errno
 * is EBUSY (any error, if @any) and *@tries, counted here, are fewer
 * than BENCH_BUSY_TRIES.  errno stays.
 */
static inline bool bench_again(int *tries, bool any)
{
	int err = errno;

	if ((!any && err != EBUSY) || ++*tries >= BENCH_BUSY_TRIES)
		return false;
	usleep(1000);
	errno = err;
	return true;
}

/*
 * perf_event_open(@attr) for this thread on any CPU, in @group (-1:
 * none), tried again as bench_again() says.  The descriptor, or -1 with
 * errno set.
 */
static inline int bench_perf_open(struct perf_event_attr *attr, int group,
				  bool any)
{
	int tries = 0, fd;

	while ((fd = syscall(SYS_perf_event_open, attr, 0, -1, group, 0)) < 0 &&
	       bench_again(&tries, any))
		;
	return fd;
}

/* @attr zeroed, then of @type and @config. */
static inline void bench_perf_attr(struct perf_event_attr *attr,
				   uint32_t type, uint64_t config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
}

/*
 * The count of perf's event, read inside its user page's lock: offset
 * plus, when the event is on a counter (*@idx, the page's index: rdpmc's
 * plus one, 0 when it is not), the counter sign-extended from pmc_width
 * bits, as perf_event_open(2) shows it.
 */
static inline uint64_t
bench_perf_count(const volatile struct perf_event_mmap_page *pc, uint32_t *idx)
{
	uint64_t count;
	uint32_t shift;

	*idx = pc->index;
	count = pc->offset;
	if (pc->cap_user_rdpmc && *idx) {
		shift = 64 - pc->pmc_width;
		count += (int64_t)(rdpmc(*idx - 1) << shift) >> shift;
	}
	return count;
}

/*
 * perf's minimal self-monitoring read of a pinned event, from the user
 * page's fields as perf_event_open(2) documents them: the lock is a
 * sequence count, re-read until it did not change; index is 0 when the
 * event is not on a counter, else the rdpmc index plus one; the count
 * is offset plus the counter's value sign-extended from pmc_width bits.
 * No time scaling: a pinned event runs whenever its thread does.
 */
static inline uint64_t
bench_perf_min_read(const volatile struct perf_event_mmap_page *pc)
{
	uint32_t seq, idx;
	uint64_t count;

	do {
		seq = pc->lock;
		pctr_barrier();
		count = bench_perf_count(pc, &idx);
		pctr_barrier();
	} while (pc->lock != seq);
	return count;
}

static inline double bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the @n values in @v, which it sorts. */
static inline double bench_median(double *v, int n)
{
	qsort(v, n, sizeof(double), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Lines for bench/bench ("@target", "@status", ...), printed at the end. */
static char bench_at_buf[8192];

static inline __attribute__((format(printf, 1, 2))) void
bench_at(const char *fmt, ...)
{
	size_t len = strlen(bench_at_buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(bench_at_buf + len, sizeof(bench_at_buf) - len, fmt, ap);
	va_end(ap);
}

static inline void bench_at_flush(void)
{
	printf("\n%s", bench_at_buf);
}

/*
 * "verdict: WHAT = A / B = R (target <= T): met", or by how much it is
 * not, and the "@target KEY R T x WHAT" line for bench/bench.  @why says
 * why the target cannot be judged here (n/a), or is NULL.  @added: A and
 * B are costs added to a baseline, printed with their sign.  @per: what
 * one unit is counted per ("a read"), for the miss.
 */
static inline void bench_verdict(const char *key, const char *what, double a,
				 double b, double target, const char *why,
				 bool added, const char *unit, const char *per)
{
	double r;

	if (why) {
		printf("verdict: %s: n/a (%s)\n", what, why);
		bench_at("@target %s n/a %.2f x %s\n", key, target, what);
		return;
	}
	r = a / b;
	if (added)
		printf("verdict: %s = %+.1f / %+.1f = %.2f (target <= %.2g): ",
		       what, a, b, r, target);
	else
		printf("verdict: %s = %.1f / %.1f = %.2f (target <= %.2g): ",
		       what, a, b, r, target);
	if (r <= target)
		printf("met\n");
	else
		printf("NOT met, by %.2f (%.0f%% over the target; %.1f %s %s too many)\n",
		       r - target, (r / target - 1) * 100, a - target * b,
		       unit, per);
	bench_at("@target %s %.4f %.2f x %s\n", key, r, target, what);
}

/*
 * The same for a target on a figure of its own: "verdict: WHAT = V UNIT
 * (target <= T): met", or by how much it is not; "@target KEY V T UNIT
 * WHAT".
 */
static inline void bench_verdict_abs(const char *key, const char *what,
				     double v, double target, const char *why,
				     const char *unit, const char *per)
{
	if (why) {
		printf("verdict: %s: n/a (%s)\n", what, why);
		bench_at("@target %s n/a %.2f %s %s\n", key, target, unit, what);
		return;
	}
	printf("verdict: %s = %.2f %s %s (target <= %.2g): ", what, v, unit,
	       per, target);
	if (v <= target)
		printf("met\n");
	else
		printf("NOT met, by %.2f %s %s (%.0f%% over the target)\n",
		       v - target, unit, per, (v / target - 1) * 100);
	bench_at("@target %s %.4f %.2f %s %s\n", key, v, target, unit, what);
}

/*
 * bench_verdict() on what mode @a added against what mode @b (perf's)
 * added, @add[] over the baseline; n/a if either did not run (@ok[]) or
 * perf added nothing.
 */
static inline void bench_added_verdict(const char *key, const char *what,
				       const int *ok, const double *add,
				       int a, int b, double target,
				       const char *unit, const char *per)
{
	char why[96];

	if (!ok[a] || !ok[b]) {
		bench_verdict(key, what, 0, 0, target, "a mode did not run",
			      true, unit, per);
		return;
	}
	if (add[b] <= 0) {
		snprintf(why, sizeof(why),
			 "perf added %.1f %s: nothing to compare with",
			 add[b], unit);
		bench_verdict(key, what, 0, 0, target, why, true, unit, per);
		return;
	}
	bench_verdict(key, what, add[a], add[b], target, NULL, true, unit,
		      per);
}

#endif /* PCTR_TOOLS_BENCH_H */
