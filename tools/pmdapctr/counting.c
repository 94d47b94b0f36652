// SPDX-License-Identifier: GPL-2.0
/*
 * pmdapctr's counting: one CPU binding per CPU (PCIOCBIND with
 * PCTR_BIND_CPU, as libcpc's cpc_bind_cpu() and cpustat make them),
 * each its own descriptor, programmed with every configured event.  The
 * module reads a binding on its CPU by an IPI, so one thread reads them
 * all, from any CPU.  A binding needs CAP_PERFMON (or CAP_SYS_ADMIN)
 * when it is made, not when it is read: the agent binds first and may
 * then run as an unprivileged user.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pctr.h"
#include "counting.h"

#define PCTR_DEV	"/dev/pctr"

int pc_open(struct pc_agent *a, char *err, size_t len)
{
	memset(a, 0, sizeof(*a));
	a->fd = open(PCTR_DEV, O_RDWR | O_CLOEXEC);
	if (a->fd < 0) {
		snprintf(err, len, "%s: %s", PCTR_DEV, pctr_strerror(errno));
		return -1;
	}
	if (ioctl(a->fd, PCIOCINFO, &a->info)) {
		snprintf(err, len, "%s: PCIOCINFO: %s", PCTR_DEV,
			 pctr_strerror(errno));
		return -1;
	}
	a->info.pi_backend[sizeof(a->info.pi_backend) - 1] = '\0';
	if (!a->info.pi_ngeneral && !a->info.pi_nfixed) {
		snprintf(err, len, "the %s backend: %s", a->info.pi_backend,
			 pctr_strerror(ENODEV));
		return -1;
	}
	return 0;
}

/* The CPUs this process may run on, in a->cpus. */
static int pc_cpus(struct pc_agent *a)
{
	cpu_set_t *m;
	size_t size;
	int max = 8192, i;

	m = CPU_ALLOC(max);
	if (!m)
		return -1;
	size = CPU_ALLOC_SIZE(max);
	if (sched_getaffinity(0, size, m)) {
		CPU_FREE(m);
		return -1;
	}
	a->cpus = calloc(CPU_COUNT_S(size, m) + 1, sizeof(*a->cpus));
	if (!a->cpus) {
		CPU_FREE(m);
		return -1;
	}
	for (i = 0; i < max; i++)
		if (CPU_ISSET_S(i, size, m)) {
			a->cpus[a->ncpus].cpu = i;
			a->cpus[a->ncpus++].fd = -1;
		}
	CPU_FREE(m);
	return 0;
}

int pc_bind_all(struct pc_agent *a, char *err, size_t len)
{
	struct pctr_bind b;
	unsigned int i, k;
	int fd;

	if (pc_cpus(a)) {
		snprintf(err, len, "cannot list the CPUs: %s", strerror(errno));
		return -1;
	}
	memset(&b, 0, sizeof(b));
	b.pb_kind = PCTR_BIND_CPU;
	for (k = 0; k < a->nev; k++)
		b.pb_fn[a->ev[k].slot] = a->ev[k].fn;
	for (i = 0; i < a->ncpus; i++) {
		fd = open(PCTR_DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, len, "%s: %s", PCTR_DEV,
				 pctr_strerror(errno));
			return -1;
		}
		b.pb_id = (__u32)a->cpus[i].cpu;
		if (ioctl(fd, PCIOCBIND, &b)) {
			int e = errno;

			close(fd);
			if (e == EAGAIN)
				snprintf(err, len,
					 "CPU %d: another program counts on it already (cpustat, or another pmdapctr)",
					 a->cpus[i].cpu);
			else
				snprintf(err, len, "CPU %d: %s", a->cpus[i].cpu,
					 pctr_strerror(e));
			return -1;
		}
		a->cpus[i].fd = fd;
	}
	return 0;
}

void pc_read_all(struct pc_agent *a)
{
	unsigned int i;

	for (i = 0; i < a->ncpus; i++) {
		a->cpus[i].err = 0;
		if (ioctl(a->cpus[i].fd, PCIOCRD, &a->cpus[i].st))
			a->cpus[i].err = errno;
	}
}

int pc_find_generic(const struct pc_agent *a, int g)
{
	unsigned int k;

	for (k = 0; k < a->nev; k++)
		if (a->ev[k].generic == g)
			return (int)k;
	return -1;
}

int pc_sysfs(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;
	char *nl;

	snprintf(path, sizeof(path), "/sys/class/misc/pctr/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}
