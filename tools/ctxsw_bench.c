// SPDX-License-Identifier: GPL-2.0
/*
 * ctxsw_bench: what a context switch costs with per-thread counters.
 *
 * Two threads pinned to one CPU ping-pong a byte through two pipes, so
 * every round trip is two context switches.  Three modes, interleaved
 * round by round so drift in the machine hits them alike:
 *   baseline   no counters
 *   pctr       each thread has pctr counters programmed (two slots)
 *   perf       each thread has a perf_event task-clock counter
 * Prints the median ns per switch of each mode and what pctr and perf
 * add to the baseline.  A benchmark: it prints figures, it does not judge.
 *
 *   ctxsw_bench [round-trips] [rounds]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pctr.h"

enum mode { BASELINE, PCTR, PERF, NMODES };
static const char *const mode_name[NMODES] = {
	"baseline", "pctr", "perf task-clock",
};

struct side {
	int		rfd, wfd;
	long		trips;
	enum mode	mode;
	int		pctr_fd;
	int		err;
	pthread_barrier_t *go;
};

static int counters_on(struct side *s, int *perf_fd)
{
	struct perf_event_attr attr;
	uint64_t fn;

	*perf_fd = -1;
	if (s->mode == PCTR) {
		/* Slot 0: the backend's first named event, or event 0x3c. */
		struct pctr_event ev = { .pe_index = 0 };

		fn = ioctl(s->pctr_fd, PCIOCEVENT, &ev) ? 0x3c : ev.pe_fn;
		fn |= PCTR_U | PCTR_K | PCTR_EN;
		if (ioctl(s->pctr_fd, PCIOCS64(0), &fn))
			return -errno;
		fn = PCTR_U | PCTR_K | PCTR_EN;
		ioctl(s->pctr_fd, PCIOCSF64(0), &fn);	/* if there is one */
	} else if (s->mode == PERF) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_TASK_CLOCK;
		*perf_fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
		if (*perf_fd < 0)
			return -errno;
	}
	return 0;
}

static void counters_off(struct side *s, int perf_fd)
{
	uint64_t zero = 0;

	if (s->mode == PCTR) {
		ioctl(s->pctr_fd, PCIOCS64(0), &zero);
		ioctl(s->pctr_fd, PCIOCSF64(0), &zero);
	}
	if (perf_fd >= 0)
		close(perf_fd);
}

static void *pong(void *arg)
{
	struct side *s = arg;
	int perf_fd;
	char c;
	long i;

	s->err = counters_on(s, &perf_fd);
	pthread_barrier_wait(s->go);
	for (i = 0; i < s->trips; i++) {
		if (read(s->rfd, &c, 1) != 1 || write(s->wfd, &c, 1) != 1)
			break;
	}
	counters_off(s, perf_fd);
	return NULL;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One run: ns per context switch, or a negative errno. */
static double run(enum mode mode, long trips, int pctr_fd)
{
	int ab[2], ba[2], perf_fd, err;
	pthread_barrier_t go;
	struct side other;
	struct side me;
	pthread_t t;
	double t0, t1;
	char c = 'x';
	long i;

	if (pipe(ab) || pipe(ba))
		return -errno;
	pthread_barrier_init(&go, NULL, 2);
	other = (struct side){ .rfd = ab[0], .wfd = ba[1], .trips = trips,
			       .mode = mode, .pctr_fd = pctr_fd, .go = &go };
	me = (struct side){ .mode = mode, .pctr_fd = pctr_fd };
	pthread_create(&t, NULL, pong, &other);
	err = counters_on(&me, &perf_fd);
	pthread_barrier_wait(&go);
	t0 = now_ns();
	for (i = 0; i < trips && !err && !other.err; i++) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			break;
	}
	t1 = now_ns();
	if (err || other.err) {
		/* Let the other side go if it is waiting. */
		close(ab[1]);
	}
	pthread_join(t, NULL);
	counters_off(&me, perf_fd);
	close(ab[0]);
	close(ba[0]);
	close(ba[1]);
	if (!err && !other.err)
		close(ab[1]);
	pthread_barrier_destroy(&go);
	if (err || other.err)
		return err ? err : other.err;
	return (t1 - t0) / (2.0 * trips);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long trips = argc > 1 ? atol(argv[1]) : 20000;
	int rounds = argc > 2 ? atoi(argv[2]) : 7;
	double *ns[NMODES], med[NMODES], v;
	int pctr_fd, r, m, ok[NMODES] = { 1, 1, 1 };
	struct pctr_info info;
	cpu_set_t cpu0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0)) {
		perror("sched_setaffinity");
		return 1;
	}
	pctr_fd = open(getenv("PCTR_DEVICE") ? getenv("PCTR_DEVICE") :
		       PCTR_DEVICE, O_RDWR);
	if (pctr_fd < 0 || ioctl(pctr_fd, PCIOCINFO, &info)) {
		perror("open /dev/pctr");
		return 1;
	}
	for (m = 0; m < NMODES; m++)
		ns[m] = calloc(rounds, sizeof(double));
	run(BASELINE, trips / 10, pctr_fd);	/* warm up */
	for (r = 0; r < rounds; r++) {
		for (m = 0; m < NMODES; m++) {
			v = run(m, trips, pctr_fd);
			if (v < 0) {
				if (ok[m])
					fprintf(stderr, "%s: %s\n", mode_name[m],
						strerror((int)-v));
				ok[m] = 0;
			}
			ns[m][r] = v;
		}
	}
	printf("context switch cost: pipe ping-pong, 2 threads pinned to CPU 0\n");
	printf("pctr backend %s; %ld round trips a run, median of %d runs\n\n",
	       info.pi_backend, trips, rounds);
	printf("%-18s %12s %12s\n", "mode", "ns/switch", "added ns");
	for (m = 0; m < NMODES; m++) {
		if (!ok[m]) {
			printf("%-18s %12s\n", mode_name[m], "unavailable");
			continue;
		}
		qsort(ns[m], rounds, sizeof(double), cmp_double);
		med[m] = ns[m][rounds / 2];
		if (m == BASELINE)
			printf("%-18s %12.1f %12s\n", mode_name[m], med[m], "-");
		else
			printf("%-18s %12.1f %+12.1f\n", mode_name[m], med[m],
			       med[m] - med[BASELINE]);
	}
	return 0;
}
