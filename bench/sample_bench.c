// SPDX-License-Identifier: GPL-2.0
/*
 * sample_bench: what sampling adds to a program's run time, pctr record
 * against perf record, at the same event and period (issue 12, point 5).
 *
 * The workload is sample_work count N (selftests/sample_work.c): one
 * loop retiring the same number of user instructions at every run.  It
 * runs alone (the baseline), then under
 *
 *   pctr record -e instructions:u -c PERIOD -o FILE -- WORKLOAD
 *   perf record -e instructions:u -c PERIOD --no-bpf-event -o FILE -- WORKLOAD
 *
 * (--no-bpf-event: the BPF programs' events, which have nothing to do
 * with the workload, cost perf about 0.9e9 instructions at each start
 * under -icount; without them perf is compared at its lightest), at
 * periods SLOW, SLOW / 10 and SLOW / 50, in interleaved rounds; each
 * run's time is from fork to wait, the recorder's start, its writing and its
 * end included.  Added: the median over the rounds of (the run - that
 * round's baseline).  The verdicts: pctr's added time / perf's <= 1.0 at
 * the first two periods, and the same for the cost of one sample: the
 * difference of the added times at SLOW / 50 and SLOW over the
 * difference of their samples (what the recorders cost once, at their
 * start and end, cancels; SLOW / 10 against SLOW gave too few samples
 * more to rise above perf's run-to-run spread of about 10^7
 * instructions).
 *
 * The periods are in instructions retired.  SLOW is 1000000: under
 * QEMU's -icount shift=0 (-i), where one ns of the guest's clock is one
 * instruction executed, a workload that runs all the time is sampled
 * about 1000 times a second of the guest's clock (1 kHz), and 10000
 * times at SLOW / 10 (10 kHz); the rates reached are printed.  On other
 * clocks the rate follows the CPU's speed: printed too.
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

#define TARGET		1.0
#define SLOW		1000000UL
#define PCTR_TOOL	"/pctr/tools/pctr"
#define WORK		"/pctr/selftests/sample_work"

enum mode { BASELINE, PCTR_SLOW, PERF_SLOW, PCTR_FAST, PERF_FAST,
	PCTR_RATE, PERF_RATE, NMODES };

static const struct {
	const char *key;
	const char *tool;	/* NULL: the workload alone */
	unsigned long period;
} modes[NMODES] = {
	[BASELINE]	= { "base", NULL, 0 },
	[PCTR_SLOW]	= { "pctr_1k", "pctr", SLOW },
	[PERF_SLOW]	= { "perf_1k", "perf", SLOW },
	[PCTR_FAST]	= { "pctr_10k", "pctr", SLOW / 10 },
	[PERF_FAST]	= { "perf_10k", "perf", SLOW / 10 },
	[PCTR_RATE]	= { "pctr_50k", "pctr", SLOW / 50 },
	[PERF_RATE]	= { "perf_50k", "perf", SLOW / 50 },
};

static char count_arg[32];

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
 * failed (the log says why).
 */
static double run(enum mode m)
{
	char period[32], log[64], out[64];
	double t0, t1;
	int status, fd;
	pid_t pid;

	snprintf(period, sizeof(period), "%lu", modes[m].period);
	log_path(m, log, sizeof(log));
	snprintf(out, sizeof(out), "/tmp/sample_bench.%s.data", modes[m].key);
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
			       "-c", period, "--no-bpf-event", "-o", out, "--",
			       WORK, "count", count_arg, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	t1 = bench_now_ns();
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return t1 - t0;
}

/* The samples mode @m's last run wrote, as its recorder says; -1 if not. */
static long samples_of(enum mode m)
{
	char log[64], line[512], *s;
	long n = -1;
	FILE *f;

	log_path(m, log, sizeof(log));
	f = fopen(log, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* "pctr record: N samples (L lost) of ..." */
		if (!strncmp(line, "pctr record: ", 13) &&
		    strstr(line, " samples ("))
			n = strtol(line + 13, NULL, 10);
		/* "[ perf record: Captured and wrote X MB FILE (N samples) ]" */
		s = strstr(line, "(");
		if (!strncmp(line, "[ perf record: Captured", 23) && s)
			n = strtol(s + 1, NULL, 10);
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

static void verdict(const char *key, const char *what, const int *ok,
		    const double *add, enum mode a, enum mode b,
		    const char *unit, const char *na)
{
	if (na)
		bench_verdict(key, what, 0, 0, TARGET, na, true, unit, "a run");
	else
		bench_added_verdict(key, what, ok, add, a, b, TARGET, unit,
				    "a run");
}

int main(int argc, char **argv)
{
	double *t[NMODES], *diff[NMODES], med[NMODES], add[NMODES], v;
	double per[NMODES];
	int okp[NMODES];
	int r, m, e, icount = 0, rounds = 5, ok[NMODES], hw;
	long n = 30000000;
	long ns[NMODES];
	const char *unit, *na = NULL;
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
	       "by pctr record and perf record --no-bpf-event (each writing a file in /tmp), at periods\n"
	       "%lu, %lu and %lu instructions; pctr backend %s; median of %d interleaved rounds\n",
	       n, SLOW, SLOW / 10, SLOW / 50, p->info.pi_backend, rounds);
	pctr_close(p);
	if (!hw) {
		na = "no hardware PMU: perf has no instructions event";
		printf("\n");
		verdict("sample_1k", "added run time sampled every 1000000 instructions, pctr / perf",
			NULL, NULL, 0, 0, unit, na);
		verdict("sample_10k", "added run time sampled every 100000 instructions, pctr / perf",
			NULL, NULL, 0, 0, unit, na);
		verdict("sample_one", "the cost of one sample, pctr / perf",
			NULL, NULL, 0, 0, unit, na);
		bench_at_flush();
		return 0;
	}
	for (m = 0; m < NMODES; m++) {
		ok[m] = 1;
		t[m] = calloc(rounds, sizeof(double));
		diff[m] = calloc(rounds, sizeof(double));
	}
	/* Warm up perf's first start (it makes its build-id cache). */
	run(PERF_FAST);
	for (r = 0; r < rounds; r++) {
		for (m = 0; m < NMODES; m++) {
			if (!ok[m])
				continue;
			v = run(m);
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
	/* One sample's cost: what the tenfold rate added, per sample. */
	for (m = PCTR_SLOW; m <= PERF_SLOW; m++) {
		e = m + PCTR_RATE - PCTR_SLOW;
		per[m] = 0;
		okp[m] = ok[m] && ok[e] && ns[e] > ns[m];
		if (!okp[m])
			continue;
		per[m] = (add[e] - add[m]) / (ns[e] - ns[m]);
		printf("%-26s %14s %+14.0f %8ld %8s %12.0f\n", m == PCTR_SLOW ?
		       "pctr, one sample" : "perf, one sample", "-",
		       add[e] - add[m], ns[e] - ns[m], "-", per[m]);
		bench_at("@fig sample.one.%s %.0f %s per sample: %s record, 20000 - 1000000\n",
			 modes[m].tool, per[m], unit, modes[m].tool);
	}
	printf("(one sample: what sampling 50 times as often added, per sample added)\n\n");
	verdict("sample_1k", "added run time sampled every 1000000 instructions, pctr / perf",
		ok, add, PCTR_SLOW, PERF_SLOW, unit, NULL);
	verdict("sample_10k", "added run time sampled every 100000 instructions, pctr / perf",
		ok, add, PCTR_FAST, PERF_FAST, unit, NULL);
	verdict("sample_one", "the cost of one sample, pctr / perf", okp, per,
		PCTR_SLOW, PERF_SLOW, unit, NULL);
	bench_at_flush();
	for (m = 0; m < NMODES; m++)
		if (!ok[m])
			return 1;
	return 0;
}
