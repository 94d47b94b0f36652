// SPDX-License-Identifier: GPL-2.0
/*
 * pctr record -a: every thread on the chosen CPUs (-C, or every online
 * one), whatever process it belongs to.
 *
 * Each CPU gets a descriptor of its own, bound to that CPU (PCIOCBIND,
 * PCTR_BIND_CPU: CAP_PERFMON, as for cpustat), with a ring for that CPU
 * alone (PCIOCRING after the binding) and the binding's slot sampling
 * into it (PCIOCSAMPLE on the bound descriptor).  Each record names the
 * thread it interrupted: its process, its ID and its name (comm).
 *
 * The symbols: a process is not traced here, so its maps are read from
 * /proc when its first sample is read (a scan, not a record the kernel
 * writes at exec or mmap time), again when a thread's name changes and
 * /proc/PID/exe is another file (an exec: a new exec generation from
 * that sample on), and again when a user address is in none of the
 * executable mappings last read (a library loaded since), at most every
 * 100 ms a process.  What that misses: a process that ends (or execs
 * again) before pctr record reads its first samples -- it reads each
 * ring at its watermark or every 100 ms -- has no maps, and its user
 * samples are reported by name and "[unknown]"; an exec that keeps the
 * name and the file is not seen; a library loaded and unloaded between
 * two scans is unknown; another user's process whose maps we may not
 * read (CAP_PERFMON alone does not let us) has its name only.
 * pctr-record(1) says so too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pctr.h"
#include "record_internal.h"
#include "fail.h"

/* --- what each process and thread was last seen as --------------------- */

#define MAX_RANGES	256

/* A process a sample named: its exec generation, its file, its code. */
struct proc {
	pid_t		pid;
	unsigned int	gen;
	dev_t		dev;
	ino_t		ino;
	uint64_t	scanned;		/* ms_now() of the last scan */
	unsigned int	nranges;
	uint64_t	range[MAX_RANGES][2];	/* executable mappings */
};

/* A thread: the name its "comm" line last gave it. */
struct thr {
	pid_t		tid;
	char		comm[PCTR_SR_COMM_LEN];
};

static struct proc *procs;
static unsigned int nprocs, maxprocs;
static struct thr *thrs;
static unsigned int nthrs, maxthrs;

static struct proc *proc_of(pid_t pid)
{
	unsigned int i;

	for (i = nprocs; i-- > 0;)
		if (procs[i].pid == pid)
			return &procs[i];
	return NULL;
}

static struct thr *thr_of(pid_t tid)
{
	unsigned int i;

	for (i = nthrs; i-- > 0;)
		if (thrs[i].tid == tid)
			return &thrs[i];
	if (nthrs == maxthrs) {
		maxthrs = maxthrs ? 2 * maxthrs : 256;
		thrs = realloc(thrs, maxthrs * sizeof(*thrs));
		if (!thrs)
			fail(EXIT_FAIL, "out of memory");
	}
	memset(&thrs[nthrs], 0, sizeof(*thrs));
	thrs[nthrs].tid = tid;
	return &thrs[nthrs++];
}

/* /proc/PID/exe's file into @p; 0, or -1 if it has none (gone, a kthread). */
static int exe_of(struct proc *p, dev_t *dev, ino_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", p->pid);
	if (stat(path, &st))
		return -1;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

/* The executable mappings of @p, as /proc says now. */
static void read_ranges(struct proc *p)
{
	unsigned long long lo, hi;
	char path[64], line[512], perm[8];
	FILE *f;

	p->nranges = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && p->nranges < MAX_RANGES)
		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perm) == 3 &&
		    perm[2] == 'x') {
			p->range[p->nranges][0] = lo;
			p->range[p->nranges++][1] = hi;
		}
	fclose(f);
}

/* Save @p's maps in the file, for its current exec generation. */
static void scan(struct proc *p)
{
	char from[32];

	snprintf(from, sizeof(from), "%d", p->pid);
	snapshot(from, p->pid, p->gen);
	read_ranges(p);
	p->scanned = ms_now();
}

static int in_ranges(const struct proc *p, uint64_t ip)
{
	unsigned int i;

	for (i = 0; i < p->nranges; i++)
		if (ip >= p->range[i][0] && ip < p->range[i][1])
			return 1;
	return 0;
}

/* Process @pid's first sample: scan it. */
static struct proc *proc_new(pid_t pid)
{
	struct proc *p;

	if (nprocs == maxprocs) {
		maxprocs = maxprocs ? 2 * maxprocs : 64;
		procs = realloc(procs, maxprocs * sizeof(*procs));
		if (!procs)
			fail(EXIT_FAIL, "out of memory");
	}
	p = &procs[nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if (exe_of(p, &p->dev, &p->ino))
		p->dev = p->ino = 0;
	scan(p);
	return p;
}

/*
 * A CPU's sample (PCTR_SR_COMM), before its "s" line is written: the
 * thread's name if it changed ("comm PID TID NAME"), and its process's
 * maps when they may be new (the comment at the top).
 */
void system_sample_seen(const struct pctr_sample_rec *rec)
{
	const char *comm = (const char *)rec + rec->sr_size - PCTR_SR_COMM_LEN;
	struct thr *t;
	struct proc *p;
	dev_t dev;
	ino_t ino;
	int renamed;

	/* The idle task (0), or a thread outside our pid namespace. */
	if (!rec->sr_pid) {
		t = thr_of(0);
		if (strncmp(t->comm, comm, PCTR_SR_COMM_LEN)) {
			memcpy(t->comm, comm, PCTR_SR_COMM_LEN);
			fprintf(rec_out, "comm 0 0 %.*s\n", PCTR_SR_COMM_LEN, comm);
		}
		return;
	}
	p = proc_of(rec->sr_pid);
	if (!p)
		p = proc_new(rec->sr_pid);
	t = thr_of(rec->sr_tid);
	renamed = t->comm[0] && strncmp(t->comm, comm, PCTR_SR_COMM_LEN);
	if (strncmp(t->comm, comm, PCTR_SR_COMM_LEN)) {
		memcpy(t->comm, comm, PCTR_SR_COMM_LEN);
		fprintf(rec_out, "comm %d %d %.*s\n", (int)rec->sr_pid,
			(int)rec->sr_tid, PCTR_SR_COMM_LEN, comm);
	}
	/* A new name and another file: an exec, from this sample on. */
	if (renamed && !exe_of(p, &dev, &ino) &&
	    (dev != p->dev || ino != p->ino)) {
		p->dev = dev;
		p->ino = ino;
		p->gen++;
		fprintf(rec_out, "exec %d %u %llx\n", (int)p->pid, p->gen,
			(unsigned long long)rec->sr_tsc);
		scan(p);
		return;
	}
	/* A user address in no code we know of: loaded since the scan? */
	if ((rec->sr_flags & PCTR_SR_USER) && !in_ranges(p, rec->sr_ip) &&
	    ms_now() - p->scanned >= 100)
		scan(p);
}

/* --- the CPUs' descriptors ---------------------------------------------- */

static void __attribute__((noreturn)) bind_error(int err, unsigned int cpu)
{
	switch (err) {
	case EACCES:
	case EPERM:
		fail(EXIT_FAIL, "permission denied: system-wide sampling (-a) binds each CPU's counters, which needs CAP_PERFMON (or CAP_SYS_ADMIN; root has both) (Documentation/security.rst); without it, sample a command or -p PID");
	case EAGAIN:
		fail(EXIT_FAIL, "CPU %u's counters are bound already (cpustat, or another pctr record -a)", cpu);
	case ENXIO:
		fail(EXIT_FAIL, "CPU %u is not online", cpu);
	case EINVAL:
		fail(EXIT_FAIL, "no CPU %u", cpu);
	case EBUSY:
		fail(EXIT_FAIL, "the counters are taken (perf, or the NMI watchdog: sysctl kernel.nmi_watchdog=0)");
	}
	fail(EXIT_FAIL, "cannot bind CPU %u: PCIOCBIND: %s", cpu, pctr_strerror(err));
}

/* CPU @cpu's descriptor: bound, its ring made and mapped, sampling. */
static void cpu_open(struct ring *r, unsigned int cpu, uint64_t fn,
		     unsigned int slot, unsigned int pages,
		     unsigned int watermark, struct pctr_sample_attr *sa)
{
	struct pctr_bind b = { .pb_kind = PCTR_BIND_CPU, .pb_id = cpu };
	int fd, err;

	fd = open(PCTR_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fail(EXIT_FAIL, "open %s: %s", PCTR_DEVICE, pctr_strerror(errno));
	b.pb_fn[slot] = fn;
	if (ioctl(fd, PCIOCBIND, &b))
		bind_error(errno, cpu);
	err = ring_open(r, fd, pages, watermark);
	if (err == EBUSY)
		fail(EXIT_FAIL, "this pctr module cannot sample a CPU (load this version's)");
	if (err)
		ring_error(err);
	if (sample_start(fd, sa)) {
		err = errno;
		fail(EXIT_FAIL, "cannot sample CPU %u: PCIOCSAMPLE: %s%s", cpu,
		     pctr_strerror(err), err == EOPNOTSUPP ?
		     " (a module that does not sample CPUs: load this version's)" : "");
	}
}

/*
 * Sample CPUs @cpus until ^C, SIGTERM, @secs seconds (if not 0) or
 * @cmd's end (if any; it is sampled as everything else is).  The totals
 * into @tot; @cmd's exit status into *@status.
 */
void record_system(const unsigned int *cpus, unsigned int ncpus,
		   double secs, char **cmd, struct ring *tot, int *status)
{
	struct attach_setup *a = &attach_setup;
	uint64_t drained = 0, end = 0;
	unsigned int i, progress_at = 0;
	int tty = isatty(2), st;
	struct pollfd *pfd;
	struct ring *rs;
	pid_t cmdpid = 0;
	time_t t0;

	rs = calloc(ncpus, sizeof(*rs));
	pfd = calloc(ncpus, sizeof(*pfd));
	if (!rs || !pfd)
		fail(EXIT_FAIL, "out of memory");
	for (i = 0; i < ncpus; i++)
		cpu_open(&rs[i], cpus[i], a->fn, a->slot, a->pages,
			 a->watermark, &a->sa);
	signal(SIGINT, rec_on_signal);
	signal(SIGTERM, rec_on_signal);
	fflush(rec_out);
	if (cmd)
		cmdpid = rec_run(cmd);
	fprintf(stderr, "%s: sampling %u CPUs\n", rec_prog, ncpus);
	if (secs > 0)
		end = ms_now() + (uint64_t)(secs * 1000);
	t0 = time(NULL);
	while (!rec_interrupted && (!end || ms_now() < end)) {
		if (cmdpid && waitpid(cmdpid, &st, WNOHANG) == cmdpid) {
			*status = WIFEXITED(st) ? WEXITSTATUS(st) :
				  128 + WTERMSIG(st);
			cmdpid = 0;
			break;
		}
		for (i = 0; i < ncpus; i++) {
			pfd[i].fd = rs[i].fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		/* Woken at a watermark; every ring read every 100 ms anyway. */
		poll(pfd, ncpus, 20);
		for (i = 0; i < ncpus; i++)
			if (pfd[i].revents & POLLIN)
				drain(&rs[i]);
		if (ms_now() - drained >= 100) {
			for (i = 0; i < ncpus; i++)
				drain(&rs[i]);
			drained = ms_now();
		}
		if (tty && time(NULL) - t0 > (time_t)progress_at) {
			uint64_t n = 0;

			for (i = 0; i < ncpus; i++)
				n += rs[i].samples;
			progress_at = time(NULL) - t0;
			fprintf(stderr, "\rpctr record: %llu samples, %u s ",
				(unsigned long long)n, progress_at);
		}
	}
	/* The bindings end with their descriptors. */
	memset(tot, 0, sizeof(*tot));
	for (i = 0; i < ncpus; i++) {
		drain(&rs[i]);
		close(rs[i].fd);
		tot->samples += rs[i].samples;
		tot->lost += rs[i].lost;
		tot->throttles += rs[i].throttles;
		tot->throttled += rs[i].throttled;
	}
	if (cmdpid) {
		kill(cmdpid, SIGTERM);
		waitpid(cmdpid, NULL, 0);
	}
	if (tty)
		fprintf(stderr, "\r");
	free(rs);
	free(pfd);
}
