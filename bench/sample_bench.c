// SPDX-License-Identifier: GPL-2.0
/*
 * sample_bench: what sampling adds to a program's run time, pctr record
 * against perf record, at the same event and period, writing like
 * output (issues 12 and 27).
 *
 * The workload is sample_work count N (selftests/sample_work.c): one
 * loop retiring the same number of user instructions at every run.  It
 * runs alone (the baseline), then under
 *
 *   pctr record -e instructions:u -c PERIOD -o FILE -- WORKLOAD
 *   perf record -e instructions:u -c PERIOD --sample-cpu --no-buildid
 *               --no-bpf-event -o FILE -- WORKLOAD
 *
 * Like output: a sample of each is its pid and tid, CPU, time and
 * instruction pointer (perf's default with -c is all but the CPU:
 * --sample-cpu adds it), and what is mapped, to resolve the addresses
 * later (perf's mmap records, pctr's copies of /proc/PID/maps); neither
 * collects build ids (--no-buildid: perf's pass over its file at the
 * end) or anything for BPF programs (--no-bpf-event: about 0.9e9
 * instructions at each perf start under -icount, nothing to do with the
 * workload).
 *
 * Periods, in instructions retired: IDLE, which the workload never
 * reaches (no sample: what the recorder costs to start, write its file
 * and end), SLOW = 1000000 (under QEMU's -icount shift=0, where one ns
 * of the guest's clock is one instruction, about 1000 samples a second
 * of a workload that runs all the time: 1 kHz) and FAST = 20000.  Each
 * run is timed from fork to wait; added: the median over the rounds of
 * (the run - that round's baseline).  Start-up: IDLE's added time.  One
 * sample: (FAST's added time - IDLE's) / FAST's samples.
 *
 * perf's throttling is turned off (perf_cpu_time_max_percent 0): under
 * emulation its interrupts look long and it would lower its sample
 * rate, taking fewer samples than pctr.  Before the timed rounds, IDLE
 * and FAST run once more for each recorder
 * with the kernel's MSR accesses counted (bench.h): (FAST's - IDLE's) /
 * FAST's samples is a sample's.  Verdicts: one sample's cost <= 0.3x
 * perf record's and <= 5 MSR accesses a sample for pctr (issue 27), the
 * added run time at SLOW <= perf's (issue 12).
 *
 *   sample_bench [-i] [N] [rounds]
 *
 * Needs /pctr/tools/pctr, /pctr/selftests/sample_work and perf in PATH
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
#define IDLE		1000000000000UL
#define SLOW		1000000UL
#define FAST		20000UL
#define PCTR_TOOL	"/pctr/tools/pctr"
#define WORK		"/pctr/selftests/sample_work"

enum mode { BASELINE, PCTR_IDLE, PERF_IDLE, PCTR_SLOW, PERF_SLOW, PCTR_FAST,
	PERF_FAST, NMODES };

static const struct {
	const char *key;
	const char *tool;	/* NULL: the workload alone */
	unsigned long period;
} modes[NMODES] = {
	[BASELINE]	= { "base", NULL, 0 },
	[PCTR_IDLE]	= { "pctr_idle", "pctr", IDLE },
	[PERF_IDLE]	= { "perf_idle", "perf", IDLE },
	[PCTR_SLOW]	= { "pctr_1k", "pctr", SLOW },
	[PERF_SLOW]	= { "perf_1k", "perf", SLOW },
	[PCTR_FAST]	= { "pctr_fast", "pctr", FAST },
	[PERF_FAST]	= { "perf_fast", "perf", FAST },
};

static char count_arg[32];

static const char *mode_name(enum mode m)
{
	static char buf[NMODES][64];

	if (!modes[m].tool)
		return "workload alone";
	if (modes[m].period == IDLE)
		snprintf(buf[m], sizeof(buf[m]), "%s record, no sample",
			 modes[m].tool);
	else
		snprintf(buf[m], sizeof(buf[m]), "%s record -c %lu",
			 modes[m].tool, modes[m].period);
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
	char period[32], log[64], out[64];
	struct bench_counts c0, c1;
	double t0, t1;
	int status, fd;
	pid_t pid;

	snprintf(period, sizeof(period), "%lu", modes[m].period);
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
		if (!modes[m].tool)
			execl(WORK, WORK, "count", count_arg, (char *)NULL);
		else if (!strcmp(modes[m].tool, "pctr"))
			execl(PCTR_TOOL, PCTR_TOOL, "record", "-e",
			      "instructions:u", "-c", period, "-o", out, "--",
			      WORK, "count", count_arg, (char *)NULL);
		else
			execlp("perf", "perf", "record", "-e", "instructions:u",
			       "-c", period, "--sample-cpu", "--no-buildid",
			       "--no-bpf-event", "-o", out, "--",
			       WORK, "count", count_arg, (char *)NULL);
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
	long n = -1;
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
		if (!strncmp(line, "pctr record: ", 13) &&
		    strstr(line, " samples ("))
			n = strtol(line + 13, NULL, 10);
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
 * caches): IDLE and FAST for each recorder, once, their MSR accesses
 * in @cnt and FAST's per sample in @per; -1 where not counted.
 */
static void counted_pass(struct bench_counts *cnt, double *per, bool counting)
{
	enum mode m;
	long n;
	int i;

	for (m = PCTR_IDLE; m < NMODES; m++) {
		per[m] = -1;
		for (i = 0; i < BENCH_NCNT; i++)
			cnt[m].n[i] = -1;
		if (m == PCTR_SLOW || m == PERF_SLOW)
			continue;
		if (run(m, counting ? &cnt[m] : NULL) < 0 || !counting)
			continue;
		n = samples_of(m);
		if ((m == PCTR_FAST || m == PERF_FAST) && n > 0 &&
		    msr_sum(&cnt[m]) >= 0 && msr_sum(&cnt[m - (PCTR_FAST - PCTR_IDLE)]) >= 0)
			per[m] = (msr_sum(&cnt[m]) - msr_sum(&cnt[m - (PCTR_FAST - PCTR_IDLE)])) / n;
		for (i = 0; i < BENCH_NCNT && n > 0 && m >= PCTR_FAST; i++)
			if (cnt[m].n[i] >= 0 && cnt[m - (PCTR_FAST - PCTR_IDLE)].n[i] >= 0)
				cnt[m].n[i] = (cnt[m].n[i] - cnt[m - (PCTR_FAST - PCTR_IDLE)].n[i]) / n;
	}
}

int main(int argc, char **argv)
{
	double *t[NMODES], *diff[NMODES], med[NMODES], add[NMODES], v;
	double per[NMODES], msr_per[NMODES];
	struct bench_counts cnt[NMODES];
	int r, m, icount = 0, rounds = 5, ok[NMODES], okp[NMODES], hw;
	const char *unit, *na = NULL;
	long n = 30000000;
	long ns[NMODES];
	char cs[64];
	bool counting;
	pctr_t *p;

	if (bench_args(argc, argv, &icount, &n, &rounds,
		       "sample_bench [-i] [iterations] [rounds]"))
		return 2;
	snprintf(count_arg, sizeof(count_arg), "%ld", n);
	unit = icount ? "insns" : "ns";
	p = bench_open(O_RDONLY, &hw);
	if (!p)
		return 1;
	printf("sampling overhead: sample_work count %ld, alone and sampled on instructions:u\n"
	       "by pctr record and perf record --sample-cpu --no-buildid --no-bpf-event\n"
	       "(each writing pid, tid, CPU, time and ip a sample, and the maps, to a file\n"
	       "in /tmp), with no sample and at periods %lu and %lu instructions;\n"
	       "pctr backend %s; median of %d interleaved rounds\n",
	       n, SLOW, FAST, p->info.pi_backend, rounds);
	bench_cmdline();
	pctr_close(p);
	if (!hw) {
		na = "no hardware PMU: perf has no instructions event";
		printf("\n");
		bench_verdict("sample_one", "the cost of one sample, pctr / perf",
			      0, 0, TARGET_ONE, na, true, unit, "a sample");
		bench_verdict_abs("sample_msr", "MSR accesses a sample, pctr",
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
	}
	/*
	 * Every sample taken by both: perf lowers its sample rate when its
	 * interrupts seem long (they do, emulated), pctr does not.
	 */
	if (bench_write_file("/proc/sys/kernel/perf_cpu_time_max_percent", "0", "w") ||
	    bench_write_file("/proc/sys/kernel/perf_event_max_sample_rate", "100000", "w"))
		printf("perf's throttling left on (%s): it may take fewer samples\n",
		       strerror(errno));
	else
		printf("perf's throttling off (perf_cpu_time_max_percent 0, max sample rate 100000)\n");
	counting = bench_count_setup() > 0;
	counted_pass(cnt, msr_per, counting);
	bench_count_stop();
	for (r = 0; r < rounds; r++) {
		for (m = 0; m < NMODES; m++) {
			if (!ok[m])
				continue;
			v = run(m, NULL);
			if (v < 0) {
				fprintf(stderr, "sample_bench: %s failed:\n",
					mode_name(m));
				show_log(m);
				ok[m] = 0;
			}
			t[m][r] = v;
		}
		for (m = 1; m < NMODES; m++)
			diff[m][r] = t[m][r] - t[BASELINE][r];
	}
	if (icount)
		printf("under -icount shift=0: 1 ns of the guest's clock = 1 instruction;\n"
		       "figures are instructions executed by the whole guest (exact, repeatable)\n");
	printf("added: median over the rounds of (mode - that round's baseline);\n"
	       "rate: samples per second of the baseline's run time%s\n\n",
	       icount ? " (the guest's clock)" : "");
	printf("%-26s %14s %14s %8s %8s %12s\n", "mode",
	       icount ? "insns/run" : "ns/run", icount ? "added insns" : "added ns",
	       "samples", "rate", "added/sample");
	for (m = 0; m < NMODES; m++) {
		if (!ok[m]) {
			printf("%-26s %14s\n", mode_name(m), "failed");
			continue;
		}
		med[m] = bench_median(t[m], rounds);
		add[m] = m == BASELINE ? 0 : bench_median(diff[m], rounds);
		ns[m] = m == BASELINE ? 0 : samples_of(m);
		if (m == BASELINE) {
			printf("%-26s %14.0f %14s\n", mode_name(m), med[m], "-");
		} else {
			printf("%-26s %14.0f %+14.0f %8ld %7.0f/s %12.0f\n",
			       mode_name(m), med[m], add[m], ns[m],
			       ns[m] > 0 ? ns[m] / (med[BASELINE] / 1e9) : 0,
			       ns[m] > 0 ? add[m] / ns[m] : 0);
			bench_at("@fig sample.add.%s %.0f %s added per run: %s\n",
				 modes[m].key, add[m], unit, mode_name(m));
		}
		bench_at("@fig sample.%s %.0f %s per run: %s\n", modes[m].key,
			 med[m], unit, mode_name(m));
	}
	/* Start-up, and one sample: FAST's added time less IDLE's. */
	printf("\n%-26s %14s %14s %8s %12s\n", "", "start-up", "per sample",
	       "samples", "MSR/sample");
	for (m = PCTR_FAST; m <= PERF_FAST; m++) {
		enum mode i = m - (PCTR_FAST - PCTR_IDLE);

		okp[m] = ok[m] && ok[i] && ns[m] > 0 && !ns[i];
		per[m] = okp[m] ? (add[m] - add[i]) / ns[m] : 0;
		snprintf(cs, sizeof(cs), "-");
		if (msr_per[m] >= 0)
			snprintf(cs, sizeof(cs), "%.2f", msr_per[m]);
		if (!okp[m]) {
			printf("%-26s %14s\n", modes[m].tool, "failed (or IDLE sampled)");
			continue;
		}
		printf("%-26s %+14.0f %14.0f %8ld %12s\n",
		       m == PCTR_FAST ? "pctr record" : "perf record", add[i],
		       per[m], ns[m], cs);
		bench_at("@fig sample.start.%s %.0f %s added per run: %s record, no sample\n",
			 modes[m].tool, add[i], unit, modes[m].tool);
		bench_at("@fig sample.one.%s %.0f %s per sample: %s record, -c 20000 less no sample\n",
			 modes[m].tool, per[m], unit, modes[m].tool);
		bench_at("@cnt sample.one.%s %.2f %.2f %.2f\n", modes[m].tool,
			 cnt[m].n[BENCH_RDMSR], cnt[m].n[BENCH_WRMSR],
			 cnt[m].n[BENCH_RDPMC]);
	}
	printf("(per sample: (-c %lu's added - no sample's added) / its samples;\n"
	       " MSR/sample: the kernel's rdmsr, wrmsr and rdpmc a sample, in a counted\n"
	       " run of each; local APIC writes (LVTPC, EOI: memory-mapped here) not counted)\n",
	       FAST);
	for (m = PCTR_FAST; m <= PERF_FAST && counting; m++)
		printf("%s record: %s a sample\n", modes[m].tool,
		       bench_count_str(&cnt[m], cs, sizeof(cs)));
	printf("\n");
	bench_added_verdict("sample_one", "the cost of one sample, pctr / perf",
			    okp, per, PCTR_FAST, PERF_FAST, TARGET_ONE, unit,
			    "a sample");
	bench_verdict_abs("sample_msr", "MSR accesses a sample, pctr (APIC not counted)",
			  msr_per[PCTR_FAST], TARGET_MSR,
			  msr_per[PCTR_FAST] < 0 ? "no MSR counts here" : NULL,
			  "accesses", "a sample");
	bench_added_verdict("sample_1k", "added run time sampled every 1000000 instructions, pctr / perf",
			    ok, add, PCTR_SLOW, PERF_SLOW, TARGET_RUN, unit,
			    "a run");
	bench_at_flush();
	for (m = 0; m < NMODES; m++)
		if (!ok[m])
			return 1;
	return 0;
}
