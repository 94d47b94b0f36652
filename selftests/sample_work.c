// SPDX-License-Identifier: GPL-2.0
/*
 * A workload for pctr record's tests (testing/check, testing.rst), built
 * with frame pointers and no inlining:
 *
 *   sample_work ratio SECONDS   work_a() runs twice as long as work_b(),
 *                               interleaved: a 67%/33% profile
 *   sample_work family SECONDS  a thread in thread_work(), a child
 *                               process in child_work(), and a child
 *                               that execs "sample_work leaf" (leaf_work())
 *   sample_work leaf SECONDS    leaf_work() alone
 *   sample_work count N         work_a(N) once: a known number of
 *                               instructions, the same at every run
 *   sample_work countb N        work_b(N) once (two processes at once
 *                               for pctr record -a: count 2N, countb N)
 *
 * With PCTR_WORK_CPU=C in its environment it runs on CPU C alone: two
 * processes sharing one CPU split its time as their work (a guest's
 * vCPUs share one host thread, so two running side by side each take
 * twice as long in the guest's time as one running alone).
 *   sample_work pair SECONDS    two threads, each as ratio does, for
 *                               pctr record -p; then the main thread
 *                               counts for itself (prints "own counters:
 *                               ok", exit 0, or why not, exit 3)
 *   sample_work selfcount SECONDS  counts for itself first, then works
 *                               as ratio does (a target -p cannot bind)
 *   sample_work flush SECONDS   PCIOCFLUSH again and again: its time in
 *                               pctr.ko's own code, for kernel samples
 *                               named in [pctr]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../uapi/linux/pctr.h"

static volatile unsigned long sink;
static double secs;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The same loop in each: the time each takes is its iterations'. */
__attribute__((noinline)) static void loop(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i * 7;
}

__attribute__((noinline)) void work_a(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i * 7;
}

__attribute__((noinline)) void work_b(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i * 7;
}

__attribute__((noinline)) void thread_work(void)
{
	double end = now() + secs;

	while (now() < end)
		loop(100000);
}

__attribute__((noinline)) void child_work(void)
{
	double end = now() + secs;

	while (now() < end)
		loop(100000);
}

__attribute__((noinline)) void leaf_work(void)
{
	double end = now() + secs;

	while (now() < end)
		loop(100000);
}

static void ratio_work(void)
{
	double end = now() + secs;

	while (now() < end) {
		work_a(2000000);
		work_b(1000000);
	}
}

static void *ratio_main(void *arg)
{
	ratio_work();
	return arg;
}

/* Count the first event of the backend's list on the calling thread. */
static int count_self(void)
{
	struct pctr_event ev = { .pe_index = 0 };
	unsigned int slot;
	__u64 fn;
	int fd;

	fd = open("/dev/pctr", O_RDWR);
	if (fd < 0 || ioctl(fd, PCIOCEVENT, &ev))
		return errno;
	slot = ev.pe_slots ? __builtin_ctzll(ev.pe_slots) : 0;
	fn = ev.pe_fn | PCTR_U | PCTR_EN;
	if (ioctl(fd, PCIOCS64(slot), &fn))
		return errno;
	return 0;
}

static void *thread_main(void *arg)
{
	thread_work();
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	pid_t c1, c2;
	char arg[32];
	double end;

	if (argc != 3)
		return 2;
	if (getenv("PCTR_WORK_CPU")) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(getenv("PCTR_WORK_CPU")), &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			return 1;
	}
	secs = atof(argv[2]);
	if (!strcmp(argv[1], "ratio")) {
		end = now() + secs;
		while (now() < end) {
			work_a(2000000);
			work_b(1000000);
		}
		return 0;
	}
	if (!strcmp(argv[1], "pair") || !strcmp(argv[1], "selfcount")) {
		int err = 0;

		if (argv[1][0] == 's') {
			err = count_self();
			if (err)
				printf("own counters: %s\n", strerror(err));
		}
		if (pthread_create(&t, NULL, ratio_main, NULL))
			return 1;
		ratio_work();
		pthread_join(t, NULL);
		if (argv[1][0] == 'p') {
			err = count_self();
			printf("own counters: %s\n", err ? strerror(err) : "ok");
		}
		return err ? 3 : 0;
	}
	if (!strcmp(argv[1], "flush")) {
		int fd = open("/dev/pctr", O_RDWR);

		end = now() + secs;
		while (fd >= 0 && now() < end)
			if (ioctl(fd, PCIOCFLUSH))
				return 1;
		return fd < 0;
	}
	if (!strcmp(argv[1], "count")) {
		work_a(strtoul(argv[2], NULL, 0));
		return 0;
	}
	if (!strcmp(argv[1], "countb")) {
		work_b(strtoul(argv[2], NULL, 0));
		return 0;
	}
	if (!strcmp(argv[1], "leaf")) {
		leaf_work();
		return 0;
	}
	if (strcmp(argv[1], "family"))
		return 2;
	if (pthread_create(&t, NULL, thread_main, NULL))
		return 1;
	c1 = fork();
	if (!c1) {
		child_work();
		_exit(0);
	}
	c2 = fork();
	if (!c2) {
		snprintf(arg, sizeof(arg), "%g", secs);
		execl("/proc/self/exe", "sample_work", "leaf", arg, (char *)NULL);
		_exit(127);
	}
	loop(1000);
	pthread_join(t, NULL);
	waitpid(c1, NULL, 0);
	waitpid(c2, NULL, 0);
	return 0;
}
