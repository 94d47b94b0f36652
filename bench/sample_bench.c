// SPDX-License-Identifier: GPL-2.0
/*
 * sample_bench: what sampling adds to a program's run time, pctr record
 * against perf record, at the same event and period, writing like
 * output (issues 12 and 27).
 *
 * The workload is this program run as "sample_bench --work N FILE": one
 * loop of N iterations, the same user instructions at every run, timed
 * from inside (its first to its last iteration) and the time written to
 * FILE.  It runs alone (the baseline), then under
 *
 *   pctr record -e instructions:u -c PERIOD -m 16 -o FILE -- WORKLOAD
 *   perf record -e instructions:u -c PERIOD -m 16 --sample-cpu
 *               --no-buildid --no-bpf-event -o FILE -- WORKLOAD
 *
 * each run pinned to CPU 0, recorder and workload (so the recorder's
 * reading and writing of samples takes the workload's CPU, as the
 * samples' interrupts do: a sample's whole cost shows in the workload's
 * time).
 *
 * Like output: a sample of each is its pid and tid, CPU, time and
 * instruction pointer (perf's default with -c is all but the CPU:
 * --sample-cpu adds it), and what is mapped, to resolve the addresses
 * later (perf's mmap records, pctr's copies of /proc/PID/maps); neither
 * collects build ids (--no-buildid: perf's pass over its file at the
 * end) or anything for BPF programs (--no-bpf-event: about 0.9e9
 * instructions at each perf start under -icount, nothing to do with the
 * workload).  Each has a ring of 16 pages (64 KiB), read when half
 * full: the recorders' defaults differ (pctr 64 pages, perf 128), and
 * with the same small ring both read their samples as they come, mostly
 * while the workload runs.
 *
 * Periods, in instructions retired: SLOW = 1000000 (under QEMU's
 * -icount shift=0, where one ns of the guest's clock is one instruction,
 * about 1000 samples a second of a workload that runs all the time:
 * 1 kHz) and FAST = 20000.  Each run is timed from fork to wait, and the
 * workload times itself; added: the median over the rounds of (the run,
 * or the workload's time, less that round's baseline's).
 *
 * Start-up and end: what SLOW added to the run less what it added to the
 * workload (a recorder's start, its last reading and writing, its end).
 * One sample, two ways, each a slope between the two periods, so that
 * what a run costs whatever its samples drops out.  In the workload, the
 * verdict's: the median over the rounds of (FAST's workload time -
 * SLOW's), over the samples more: the interrupt, the record, and the
 * recorder's reading and writing of the samples that fell in the loop
 * (all but the last half ring's, the same for both); exact run to run
 * under -icount.  In the whole run: the same of the runs' times, fork to
 * wait: every reading and writing included, but the recorders' start-up
 * varies by 10^7 instructions and more from run to run under -icount,
 * hundreds of instructions a sample with 10^4 samples: printed, not
 * judged.  (A run with a period never reached, for the start-up alone,
 * was tried: pctr record took 2e7 instructions more there than at SLOW,
 * not understood, and left out.)
 *
 * perf's throttling is turned off (perf_cpu_time_max_percent 0, and a
 * maximum rate of 10^6 a second): under emulation its interrupts look
 * long and it would lower its sample rate, taking fewer samples than
 * pctr.  Before the timed rounds, SLOW and FAST run once more for each
 * recorder with the kernel's MSR accesses counted (bench.h): FAST's less
 * SLOW's over the samples more is a sample's.  Verdicts: one sample's
 * cost <= 0.3x perf record's and <= 5 MSR accesses a sample for pctr
 * (issue 27), the added run time at SLOW <= perf's (issue 12).
 *
 *   sample_bench [-i] [N] [rounds]
 *
 * Needs /pctr/tools/pctr and perf in PATH
 * (testing/vm/run --perf), pctr on a hardware (or emulated) PMU; on the
 * simulated PMU perf has no instructions event: the verdicts are n/a.
 * Lines starting "@" are for bench/bench.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pctr.h"
#include "bench.h"

#define TARGET_ONE	0.3	/* one sample, pctr / perf */
#define TARGET_RUN	1.0	/* added run time at SLOW, pctr / perf */
#define TARGET_MSR	5	/* MSR accesses a sample, pctr */
#define SLOW		1000000UL
#define FAST		20000UL
#define PCTR_TOOL	"/pctr/tools/pctr"
#define RING_PAGES	"16"	/* both recorders' ring, in pages */

enum mode { BASELINE, PCTR_SLOW, PERF_SLOW, PCTR_FAST, PERF_FAST, NMODES };

/* FAST's mode from SLOW's, and back. */
#define TO_FAST		(PCTR_FAST - PCTR_SLOW)

static const struct {
	const char *key;
	const char *tool;	/* NULL: the workload alone */
	unsigned long period;
} modes[NMODES] = {
	[BASELINE]	= { "base", NULL, 0 },
	[PCTR_SLOW]	= { "pctr_1k", "pctr", SLOW },
	[PERF_SLOW]	= { "perf_1k", "perf", SLOW },
	[PCTR_FAST]	= { "pctr_fast", "pctr", FAST },
	[PERF_FAST]	= { "perf_fast", "perf", FAST },
};

static char count_arg[32], self[256];

/* The workload's loop: N iterations of the same few instructions. */
static volatile unsigned long work_sink;

static __attribute__((noinline)) void work_loop(unsigned long n)
{
	unsigned long i, x = 1;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		work_sink = x >> 33;
	}
}

/* sample_bench --work N FILE: the loop, its time in ns written to FILE. */
static int work(const char *n, const char *file)
{
	double t0, t1;
	FILE *f;

	t0 = bench_now_ns();
	work_loop(strtoul(n, NULL, 0));
	t1 = bench_now_ns();
	f = fopen(file, "w");
	if (!f)
		return 1;
	fprintf(f, "%.0f\n", t1 - t0);
	return fclose(f) ? 1 : 0;
}

/* The time mode @m's workload took in its last run, or -1. */
static double work_time(enum mode m)
{
	char path[64];
	double t = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/sample_bench.%s.work", modes[m].key);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lf", &t) != 1)
		t = -1;
	fclose(f);
	return t;
}

static const char *mode_name(enum mode m)
{
	static char buf[NMODES][64];

	if (!modes[m].tool)
		return "workload alone";
	snprintf(buf[m], sizeof(buf[m]), "%s record -c %lu", modes[m].tool,
		 modes[m].period);
	return buf[m];
}

/* The log of mode @m's last run: the recorder's messages. */
static void log_path(enum mode m, char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/sample_bench.%s.log", modes[m].key);
}

/*
 * One run of mode @m: its time in ns of the guest's clock, or -1 if it
 * failed (the log says why).  With @cnt: the run's MSR accesses too.
 */
static double run(enum mode m, struct bench_counts *cnt)
{
	char period[32], log[64], out[64], wt[64];
	struct bench_counts c0, c1;
	double t0, t1;
	int status, fd;
	pid_t pid;

	snprintf(period, sizeof(period), "%lu", modes[m].period);
	snprintf(wt, sizeof(wt), "/tmp/sample_bench.%s.work", modes[m].key);
	unlink(wt);
	log_path(m, log, sizeof(log));
	snprintf(out, sizeof(out), "/tmp/sample_bench.%s.data", modes[m].key);
	if (cnt)
		bench_count_read(&c0);
	t0 = bench_now_ns();
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		if (bench_pin_cpu0())
			_exit(126);
		if (!modes[m].tool)
			execl(self, self, "--work", count_arg, wt, (char *)NULL);
		else if (!strcmp(modes[m].tool, "pctr"))
			execl(PCTR_TOOL, PCTR_TOOL, "record", "-e",
			      "instructions:u", "-c", period, "-m", RING_PAGES,
			      "-o", out, "--", self, "--work", count_arg, wt,
			      (char *)NULL);
		else
			execlp("perf", "perf", "record", "-e", "instructions:u",
			       "-c", period, "-m", RING_PAGES, "--sample-cpu",
			       "--no-buildid", "--no-bpf-event", "-o", out, "--",
			       self, "--work", count_arg, wt, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	t1 = bench_now_ns();
	if (cnt) {
		bench_count_read(&c1);
		bench_count_diff(&c0, &c1, 1, cnt);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return t1 - t0;
}

/*
 * The samples mode @m's last run wrote: as pctr record says, or as perf
 * script finds in perf's file (with --no-buildid perf record does not
 * read its file back, so it does not say); -1 if not known.
 */
static long samples_of(enum mode m)
{
	char log[64], line[512];
	long n = -1, lost;
	FILE *f;

	if (modes[m].tool && !strcmp(modes[m].tool, "perf")) {
		snprintf(line, sizeof(line),
			 "perf script -i /tmp/sample_bench.%s.data -F ip 2>/dev/null | wc -l",
			 modes[m].key);
		f = popen(line, "r");
		if (!f)
			return -1;
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		pclose(f);
		return n;
	}
	log_path(m, log, sizeof(log));
	f = fopen(log, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* "pctr record: N samples (L lost) of ..." */
		if (sscanf(line, "pctr record: %ld samples (%ld lost)", &n,
			   &lost) == 2 && lost)
			printf("%s: %ld samples lost (the ring was full)\n",
			       mode_name(m), lost);
	}
	fclose(f);
	return n;
}

static void show_log(enum mode m)
{
	char log[64], line[512];
	FILE *f;

	log_path(m, log, sizeof(log));
	f = fopen(log, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "    %s", line);
	fclose(f);
}

#define MAX_RATE	"/proc/sys/kernel/perf_event_max_sample_rate"
#define MAX_PERCENT	"/proc/sys/kernel/perf_cpu_time_max_percent"

/*
 * perf's throttling settings kept (@back false) before they change, and
 * put back (@back true): on a machine of one's own they outlive the run.
 * The percentage first, as the kernel refuses a rate with it at 0.
 */
static void throttle(bool back)
{
	static char rate[32], percent[32];
	FILE *f;

	if (back) {
		if (percent[0])
			bench_write_file(MAX_PERCENT, percent, "w");
		if (rate[0])
			bench_write_file(MAX_RATE, rate, "w");
		return;
	}
	f = fopen(MAX_RATE, "r");
	if (f && !fgets(rate, sizeof(rate), f))
		rate[0] = 0;
	if (f)
		fclose(f);
	f = fopen(MAX_PERCENT, "r");
	if (f && !fgets(percent, sizeof(percent), f))
		percent[0] = 0;
	if (f)
		fclose(f);
}

/* MSR accesses of all kinds in @c, -1 if any kind is not counted. */
static double msr_sum(const struct bench_counts *c)
{
	double sum = 0;
	int i;

	for (i = 0; i < BENCH_NCNT; i++) {
		if (c->n[i] < 0)
			return -1;
		sum += c->n[i];
	}
	return sum;
}

/*
 * The counted pass (and the warm-up: perf's first start makes its
 * caches): SLOW and FAST for each recorder, once, their MSR accesses;
 * in @cnt[FAST] and @per[FAST] a sample's, FAST's less SLOW's over the
 * samples more; -1 where not counted.
 */
static void counted_pass(struct bench_counts *cnt, double *per, bool counting)
{
	long n[NMODES];
	enum mode m;
	int i;

	for (m = PCTR_SLOW; m < NMODES; m++) {
		per[m] = -1;
		n[m] = -1;
		for (i = 0; i < BENCH_NCNT; i++)
			cnt[m].n[i] = -1;
		if (run(m, counting ? &cnt[m] : NULL) >= 0 && counting)
			n[m] = samples_of(m);
	}
	for (m = PCTR_FAST; m < NMODES; m++) {
		if (n[m] < 0 || n[m - TO_FAST] < 0 || n[m] <= n[m - TO_FAST])
			continue;
		if (msr_sum(&cnt[m]) >= 0 && msr_sum(&cnt[m - TO_FAST]) >= 0)
			per[m] = (msr_sum(&cnt[m]) - msr_sum(&cnt[m - TO_FAST])) /
				 (n[m] - n[m - TO_FAST]);
		for (i = 0; i < BENCH_NCNT; i++)
			if (cnt[m].n[i] >= 0 && cnt[m - TO_FAST].n[i] >= 0)
				cnt[m].n[i] = (cnt[m].n[i] - cnt[m - TO_FAST].n[i]) /
					      (n[m] - n[m - TO_FAST]);
	}
}

int main(int argc, char **argv)
{
	double *t[NMODES], *diff[NMODES], *w[NMODES], *wdiff[NMODES];
	double *pdiff[NMODES], *pwdiff[NMODES], inw[NMODES];
	double med[NMODES], add[NMODES], wmed[NMODES], wadd[NMODES], v;
	double per[NMODES], msr_per[NMODES];
	struct bench_counts cnt[NMODES];
	int r, m, icount = 0, rounds = 5, ok[NMODES], okp[NMODES], hw;
	const char *unit, *na = NULL;
	long n = 30000000;
	long ns[NMODES];
	char cs[64];
	bool counting;
	ssize_t len;
	pctr_t *p;

	if (argc == 4 && !strcmp(argv[1], "--work"))
		return work(argv[2], argv[3]);
	if (bench_args(argc, argv, &icount, &n, &rounds,
		       "sample_bench [-i] [iterations] [rounds]"))
		return 2;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0) {
		perror("/proc/self/exe");
		return 1;
	}
	self[len] = 0;
	snprintf(count_arg, sizeof(count_arg), "%ld", n);
	unit = icount ? "insns" : "ns";
	p = bench_open(O_RDONLY, &hw);
	if (!p)
		return 1;
	printf("sampling overhead: a loop of %ld iterations, alone and sampled on\n"
	       "instructions:u by pctr record and perf record --sample-cpu --no-buildid\n"
	       "--no-bpf-event (each writing pid, tid, CPU, time and ip a sample, and the\n"
	       "maps, to a file in /tmp; each with a ring of %s pages, read when half\n"
	       "full), at periods %lu and %lu instructions,\n"
	       "recorder and workload pinned to CPU 0; pctr backend %s;\n"
	       "median of %d interleaved rounds\n",
	       n, RING_PAGES, SLOW, FAST, p->info.pi_backend, rounds);
	bench_cmdline();
	pctr_close(p);
	if (!hw) {
		na = "no hardware PMU: perf has no instructions event";
		printf("\n");
		bench_verdict("sample_one", "the cost of one sample, pctr / perf",
			      0, 0, TARGET_ONE, na, true, unit, "a sample");
		bench_verdict_abs("sample_msr", "MSR accesses a sample, pctr (APIC not counted)",
				  0, TARGET_MSR, na, "accesses", "a sample");
		bench_verdict("sample_1k", "added run time sampled every 1000000 instructions, pctr / perf",
			      0, 0, TARGET_RUN, na, true, unit, "a run");
		bench_at_flush();
		return 0;
	}
	for (m = 0; m < NMODES; m++) {
		ok[m] = 1;
		t[m] = calloc(rounds, sizeof(double));
		diff[m] = calloc(rounds, sizeof(double));
		w[m] = calloc(rounds, sizeof(double));
		wdiff[m] = calloc(rounds, sizeof(double));
		pdiff[m] = calloc(rounds, sizeof(double));
		pwdiff[m] = calloc(rounds, sizeof(double));
	}
	/*
	 * Every sample taken by both: perf lowers its sample rate when its
	 * interrupts seem long (they do, emulated), pctr does not.  The
	 * rate first: the kernel refuses it once throttling is off.
	 */
	throttle(false);
	if (bench_write_file(MAX_RATE, "1000000", "w") ||
	    bench_write_file(MAX_PERCENT, "0", "w"))
		printf("perf's throttling left on (%s): it may take fewer samples\n",
		       strerror(errno));
	else
		printf("perf's throttling off (perf_cpu_time_max_percent 0, max sample rate 1000000)\n");
	counting = bench_count_setup() > 0;
	counted_pass(cnt, msr_per, counting);
	bench_count_stop();
	for (r = 0; r < rounds; r++) {
		for (m = 0; m < NMODES; m++) {
			if (!ok[m])
				continue;
			v = run(m, NULL);
			w[m][r] = work_time(m);
			if (v < 0 || w[m][r] < 0) {
				fprintf(stderr, "sample_bench: %s failed:\n",
					mode_name(m));
				show_log(m);
				ok[m] = 0;
			}
			t[m][r] = v;
		}
		for (m = 1; m < NMODES; m++) {
			diff[m][r] = t[m][r] - t[BASELINE][r];
			wdiff[m][r] = w[m][r] - w[BASELINE][r];
			/* FAST's less SLOW's, paired by round */
			if (m >= PCTR_FAST) {
				pdiff[m][r] = t[m][r] - t[m - TO_FAST][r];
				pwdiff[m][r] = w[m][r] - w[m - TO_FAST][r];
			}
		}
	}
	if (icount)
		printf("under -icount shift=0: 1 ns of the guest's clock = 1 instruction;\n"
		       "figures are instructions executed by the whole guest (exact, repeatable)\n");
	printf("run: fork to wait; workload: the loop's own time; added: median over the\n"
	       "rounds of (mode - that round's baseline); rate: samples per second of\n"
	       "the baseline's workload time%s\n\n", icount ? " (the guest's clock)" : "");
	printf("%-24s %12s %12s %11s %11s %7s %9s\n", "mode",
	       icount ? "insns/run" : "ns/run", "added", "workload",
	       "added", "samples", "rate");
	for (m = 0; m < NMODES; m++) {
		if (!ok[m]) {
			printf("%-24s %12s\n", mode_name(m), "failed");
			continue;
		}
		med[m] = bench_median(t[m], rounds);
		wmed[m] = bench_median(w[m], rounds);
		add[m] = m == BASELINE ? 0 : bench_median(diff[m], rounds);
		wadd[m] = m == BASELINE ? 0 : bench_median(wdiff[m], rounds);
		ns[m] = m == BASELINE ? 0 : samples_of(m);
		if (m == BASELINE) {
			printf("%-24s %12.0f %12s %11.0f %11s\n", mode_name(m),
			       med[m], "-", wmed[m], "-");
		} else {
			printf("%-24s %12.0f %+12.0f %11.0f %+11.0f %7ld %7.0f/s\n",
			       mode_name(m), med[m], add[m], wmed[m], wadd[m],
			       ns[m], ns[m] > 0 ? ns[m] / (wmed[BASELINE] / 1e9) : 0);
			bench_at("@fig sample.add.%s %.0f %s added per run: %s\n",
				 modes[m].key, add[m], unit, mode_name(m));
		}
		bench_at("@fig sample.%s %.0f %s per run: %s\n", modes[m].key,
			 med[m], unit, mode_name(m));
	}
	/*
	 * Start-up and end, and one sample: in the workload (the verdict's:
	 * the median over the rounds of FAST's workload time less SLOW's,
	 * over the samples more), and the same of the whole runs.
	 */
	printf("\n%-24s %12s %12s %12s %7s %11s\n", "", "start+end",
	       "in workload", "whole run", "samples", "MSR/sample");
	for (m = PCTR_FAST; m <= PERF_FAST; m++) {
		enum mode sl = m - TO_FAST;

		okp[m] = ok[m] && ok[sl] && ns[m] > ns[sl] && ns[sl] >= 0;
		per[m] = okp[m] ? bench_median(pdiff[m], rounds) /
				  (ns[m] - ns[sl]) : 0;
		inw[m] = okp[m] ? bench_median(pwdiff[m], rounds) /
				  (ns[m] - ns[sl]) : 0;
		snprintf(cs, sizeof(cs), "-");
		if (msr_per[m] >= 0)
			snprintf(cs, sizeof(cs), "%.2f", msr_per[m]);
		if (!okp[m]) {
			printf("%-24s %12s\n", modes[m].tool, "failed");
			continue;
		}
		printf("%-24s %+12.0f %12.0f %12.0f %7ld %11s\n",
		       m == PCTR_FAST ? "pctr record" : "perf record",
		       add[sl] - wadd[sl], inw[m], per[m], ns[m], cs);
		bench_at("@fig sample.start.%s %.0f %s per run: %s record, start-up and end\n",
			 modes[m].tool, add[sl] - wadd[sl], unit, modes[m].tool);
		bench_at("@fig sample.inwork.%s %.0f %s per sample: %s record, one sample, in the workload\n",
			 modes[m].tool, inw[m], unit, modes[m].tool);
		bench_at("@fig sample.one.%s %.0f %s per sample: %s record, one sample, whole run\n",
			 modes[m].tool, per[m], unit, modes[m].tool);
		bench_at("@cnt sample.one.%s %.2f %.2f %.2f\n", modes[m].tool,
			 cnt[m].n[BENCH_RDMSR], cnt[m].n[BENCH_WRMSR],
			 cnt[m].n[BENCH_RDPMC]);
	}
	printf("(start+end: what -c %lu added to the run less what it added to the\n"
	       " workload; in workload, the verdict's: the median of (-c %lu's workload\n"
	       " time - -c %lu's) over the rounds, over the samples more: the interrupt,\n"
	       " the record, and the recorder's reading and writing of the samples that\n"
	       " fell in the loop (all but the last half ring's); whole run: the same of\n"
	       " the runs' times, fork to wait, with the start-up's spread (1e7 insns a\n"
	       " run): not judged;\n"
	       " MSR/sample: the kernel's rdmsr, wrmsr and rdpmc a sample, from a counted\n"
	       " run of each; local APIC writes (LVTPC, EOI: memory-mapped here) not counted)\n",
	       SLOW, FAST, SLOW);
	for (m = PCTR_FAST; m <= PERF_FAST && counting; m++)
		printf("%s record: %s a sample\n", modes[m].tool,
		       bench_count_str(&cnt[m], cs, sizeof(cs)));
	printf("\n");
	bench_added_verdict("sample_one", "the cost of one sample, pctr / perf",
			    okp, inw, PCTR_FAST, PERF_FAST, TARGET_ONE, unit,
			    "a sample");
	bench_verdict_abs("sample_msr", "MSR accesses a sample, pctr (APIC not counted)",
			  msr_per[PCTR_FAST], TARGET_MSR,
			  msr_per[PCTR_FAST] < 0 ? "no MSR counts here" : NULL,
			  "accesses", "a sample");
	bench_added_verdict("sample_1k", "added run time sampled every 1000000 instructions, pctr / perf",
			    ok, add, PCTR_SLOW, PERF_SLOW, TARGET_RUN, unit,
			    "a run");
	throttle(true);
	bench_at_flush();
	for (m = 0; m < NMODES; m++)
		if (!ok[m])
			return 1;
	return 0;
}
