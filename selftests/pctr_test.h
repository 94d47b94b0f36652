/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the pctr selftests.  The tests use the kernel's own
 * kselftest harness, taken from the installed Linux source at build time.
 */
#ifndef _PCTR_TEST_H
#define _PCTR_TEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/pctr.h>
#include "pctr.h"

#define PCTR_DEV	"/dev/pctr"
#define PCTR_SYSFS	"/sys/class/misc/pctr"

/* Read a small text file into buf, without the trailing newline. */
static inline int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static inline long read_long(const char *path)
{
	char buf[64];

	if (read_text(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 0);
}

/* The whole kernel log (needs root or dmesg_restrict=0), malloc'd. */
static inline char *kernel_log(void)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf;
	int n;

	if (len <= 0)
		return NULL;
	buf = calloc(1, len + 1);
	if (!buf)
		return NULL;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* The last kernel log line containing needle, copied to out. */
static inline int last_log_line(const char *needle, char *out, size_t len)
{
	char *log = kernel_log(), *p, *hit = NULL, *end;

	if (!log)
		return -1;
	for (p = strstr(log, needle); p; p = strstr(p + 1, needle))
		hit = p;
	if (hit) {
		while (hit > log && hit[-1] != '\n')
			hit--;
		end = strchr(hit, '\n');
		if (end)
			*end = '\0';
		snprintf(out, len, "%s", hit);
	}
	free(log);
	return hit ? 0 : -1;
}

/* Does this (virtual) CPU offer architectural perfmon or AMD counters? */
static inline int cpu_has_flag(const char *flag)
{
	char *line = NULL, pat[64];
	size_t cap = 0;
	int found = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	snprintf(pat, sizeof(pat), " %s", flag);
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5))
			continue;
		found = strstr(line, pat) != NULL;
		break;
	}
	free(line);
	fclose(f);
	return found;
}

static inline void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Wait up to 2 s for a number in sysfs to drop to 0 (work runs late). */
static inline long wait_zero(const char *path)
{
	long v = read_long(path);
	int i;

	for (i = 0; i < 200 && v != 0; i++) {
		usleep(10000);
		v = read_long(path);
	}
	return v;
}

/* --- loading and unloading the module (root) ------------------------ */

/* The module file: $PCTR_KO, else where the VM bench puts it. */
static inline const char *module_path(void)
{
	const char *p = getenv("PCTR_KO");

	return p && *p ? p : "/pctr/pctr.ko";
}

static inline int load(const char *params)
{
	int fd = open(module_path(), O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

static inline int unload(void)
{
	return syscall(SYS_delete_module, "pctr", O_NONBLOCK);
}

static inline int loaded(void)
{
	return access("/sys/module/pctr", F_OK) == 0;
}

/* Unload, waiting for exiting threads of earlier tests to let go. */
static inline int unload_wait(void)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (!loaded() || !unload())
			return 0;
		usleep(10000);
	}
	return -1;
}

/* --- time ------------------------------------------------------------- */

static inline double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline double thread_cpu_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Busy for @sec of wall time, or of this thread's CPU time. */
static inline void spin(double sec)
{
	double end = now_sec() + sec;
	volatile unsigned long x = 0;

	while (now_sec() < end)
		x++;
}

static inline void spin_cpu(double sec)
{
	double end = thread_cpu_sec() + sec;
	volatile unsigned long x = 0;

	while (thread_cpu_sec() < end)
		x++;
}

static inline int pctr_get_info(int fd, struct pctr_info *info)
{
	memset(info, 0xa5, sizeof(*info));
	return ioctl(fd, PCIOCINFO, info);
}

/* No function and no value in any slot of a PCIOCRD result. */
static inline int st_clean(const struct pctrst *st)
{
	int i;

	for (i = 0; i < PCTR_NUM; i++)
		if (st->pctr_fn[i] || st->pctr_hwc[i])
			return 0;
	return 1;
}

static inline pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

/*
 * Stop a seized tracee and detach, re-injecting the signal of a
 * signal-delivery-stop: what a library does after PCIOCBIND.
 */
static inline int interrupt_detach(pid_t pid)
{
	int status, sig;

	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0))
		return -1;
	if (waitpid(pid, &status, __WALL) != pid || !WIFSTOPPED(status))
		return -1;
	sig = (status >> 16) == PTRACE_EVENT_STOP ? 0 : WSTOPSIG(status);
	return ptrace(PTRACE_DETACH, pid, 0, (void *)(long)sig) ? -1 : 0;
}

#endif /* _PCTR_TEST_H */
