// SPDX-License-Identifier: GPL-2.0
/*
 * testing/guest/switch-msrs: the PMU register accesses one context switch
 * costs, counted by the kernel's own tracepoints (issue 27, point 3).
 *
 *   switch-msrs [-m] [-s SLOTS] TRIPS
 *
 * Two threads of one process, both counting with pctr (instructions,
 * then cycles and branches on slots 1 and 2, SLOTS of them, at most 3),
 * pinned to CPU 0,
 * ping-pong a byte through two pipes TRIPS times: 2 TRIPS context
 * switches between them.  -m: both map their counter page and read
 * inline once a trip (so user-mode rdpmc is on for both).  After a
 * warm-up, histogram triggers on the msr/write_msr and msr/read_msr
 * tracepoints count every access while the threads ping-pong, and one
 * on sched_switch every switch of CPU 0; the accesses to counter
 * registers (Intel's and AMD's) are printed, and per switch:
 *
 *   switches 2TRIPS (cpu0 S) msr-writes W reads R per-switch W/2TRIPS R/2TRIPS
 *   msr 0x38f writes K          (one line per register written)
 *
 * (CR4 writes cannot be counted so: the kernel's CR4 accessors and the
 * module's inline hook are notrace.)
 *
 * Needs root, tracefs and pctr with a hardware backend: the emulated
 * PMU's guests (testing/guest/emu-msr.sh).  Exit status 0, or 1 when
 * something could not be set up (said on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pctr.h"

#define TRACEFS		"/sys/kernel/tracing"
#define WARMUP		200
#define MAX_MSRS	64

static int inline_reads;
static unsigned int nslots = 1;
static long trips;
static int ping[2], pong[2];
static pthread_barrier_t ready;

struct msr_count {
	unsigned int	msr;
	unsigned long	n;
};

/* The counter registers pctr drives, Intel's and AMD's. */
static int pmu_msr(unsigned int m)
{
	return (m >= 0xc1 && m <= 0xc8) ||		/* PMCx */
	       (m >= 0x186 && m <= 0x18d) ||		/* PERFEVTSELx */
	       (m >= 0x309 && m <= 0x30c) ||		/* fixed counters */
	       m == 0x329 ||					/* PERF_METRICS */
	       (m >= 0x38d && m <= 0x391) ||		/* fixed ctrl, global */
	       (m >= 0x4c1 && m <= 0x4c8) ||		/* A_PMCx */
	       (m >= 0xc0010000 && m <= 0xc0010007) ||	/* AMD legacy */
	       (m >= 0xc0010200 && m <= 0xc001020b) ||	/* PerfCtrExtCore */
	       (m >= 0xc0000300 && m <= 0xc0000303);	/* PerfMonV2 global */
}

static int put(const char *file, const char *s)
{
	char path[256];
	int fd, ok;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | (strchr(file, '/') ? 0 : O_APPEND));
	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* Sum a histogram keyed by msr (or by nothing: one hitcount). */
static unsigned long hist(const char *event, struct msr_count *by,
			  unsigned int *nby)
{
	char path[256], line[256];
	unsigned long total = 0, n;
	unsigned int msr;
	FILE *f;

	snprintf(path, sizeof(path), TRACEFS "/events/%s/hist", event);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (by && sscanf(line, "{ msr: %u } hitcount: %lu", &msr,
				 &n) == 2) {
			if (!pmu_msr(msr))
				continue;
			total += n;
			if (*nby < MAX_MSRS) {
				by[*nby].msr = msr;
				by[(*nby)++].n = n;
			}
		} else if (!by && sscanf(line, "{ common_cpu: %u } hitcount: %lu",
					 &msr, &n) == 2) {
			total += n;
		}
	}
	fclose(f);
	return total;
}

static void pin(void)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(0, &s);
	if (sched_setaffinity(0, sizeof(s), &s))
		perror("switch-msrs: sched_setaffinity");
}

/* This thread's counters: instructions, cycles, and so on. */
static pctr_t *count(void)
{
	static const char *const names[][2] = {
		{ "INSTRUCTION_RETIRED", "RETIRED_INSTRUCTIONS" },
		{ "UNHALTED_CORE_CYCLES", "CYCLES_NOT_IN_HALT" },
		{ "BRANCH_INSTRUCTIONS_RETIRED", "RETIRED_BRANCH_INSTRUCTIONS" },
	};
	pctr_t *p = pctr_open(O_RDWR);
	unsigned int s;

	if (!p) {
		perror("switch-msrs: pctr_open");
		exit(1);
	}
	for (s = 0; s < nslots && s < 3; s++)
		if (pctr_set_event(p, s, names[s][0], PCTR_U | PCTR_K | PCTR_EN) &&
		    pctr_set_event(p, s, names[s][1], PCTR_U | PCTR_K | PCTR_EN)) {
			perror("switch-msrs: pctr_set_event");
			exit(1);
		}
	if (inline_reads && pctr_map(p) < 0) {
		perror("switch-msrs: pctr_map");
		exit(1);
	}
	return p;
}

static volatile uint64_t sink;

static void *pong_thread(void *arg)
{
	pctr_t *p;
	char c;

	(void)arg;
	pin();
	p = count();
	pthread_barrier_wait(&ready);
	while (read(ping[0], &c, 1) == 1) {
		if (inline_reads)
			sink += pctr_read(p, 0);
		if (write(pong[1], &c, 1) != 1)
			break;
	}
	pctr_close(p);
	return NULL;
}

static void trips_of(pctr_t *p, long n)
{
	char c = 'x';
	long i;

	/*
	 * Each read follows a switch-in: this thread's own write to tracefs
	 * patches kernel text, whose temporary mm switch turns user rdpmc
	 * off until the next switch-in (the kernel's cr4_update_pce()).
	 */
	for (i = 0; i < n; i++) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			perror("switch-msrs: ping-pong");
			exit(1);
		}
		if (inline_reads)
			sink += pctr_read(p, 0);
	}
}

int main(int argc, char **argv)
{
	struct msr_count by[MAX_MSRS], rby[MAX_MSRS];
	unsigned int nr = 0;
	unsigned long w, r, sw;
	unsigned int nby = 0, i;
	int opt;
	pthread_t t;
	pctr_t *p;

	while ((opt = getopt(argc, argv, "ms:")) != -1) {
		if (opt == 'm')
			inline_reads = 1;
		else if (opt == 's')
			nslots = strtoul(optarg, NULL, 0);
		else
			goto usage;
	}
	if (optind != argc - 1 || (trips = strtol(argv[optind], NULL, 0)) <= 0)
		goto usage;
	if (pipe(ping) || pipe(pong)) {
		perror("switch-msrs: pipe");
		return 1;
	}
	pin();
	p = count();
	pthread_barrier_init(&ready, NULL, 2);
	if (pthread_create(&t, NULL, pong_thread, NULL))
		return 1;
	pthread_barrier_wait(&ready);
	trips_of(p, WARMUP);

	if (put("events/msr/write_msr/trigger", "hist:keys=msr") ||
	    put("events/msr/read_msr/trigger", "hist:keys=msr")) {
		perror("switch-msrs: msr tracepoint histograms");
		return 1;
	}
	put("events/sched/sched_switch/trigger", "hist:keys=common_cpu if common_cpu == 0");
	trips_of(p, trips);
	w = hist("msr/write_msr", by, &nby);
	r = hist("msr/read_msr", rby, &nr);
	sw = hist("sched/sched_switch", NULL, NULL);
	put("events/msr/write_msr/trigger", "!hist:keys=msr");
	put("events/msr/read_msr/trigger", "!hist:keys=msr");
	put("events/sched/sched_switch/trigger", "!hist:keys=common_cpu if common_cpu == 0");
	close(ping[1]);
	pthread_join(t, NULL);
	pctr_close(p);

	printf("switches %ld (cpu0 %lu) msr-writes %lu reads %lu per-switch %.2f %.2f\n",
	       2 * trips, sw, w, r, (double)w / (2 * trips),
	       (double)r / (2 * trips));
	for (i = 0; i < nby; i++)
		printf("msr %#x writes %lu\n", by[i].msr, by[i].n);
	return 0;

usage:
	fprintf(stderr, "usage: switch-msrs [-m] [-s SLOTS] TRIPS\n");
	return 2;
}
