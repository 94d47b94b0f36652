// SPDX-License-Identifier: GPL-2.0
/*
 * pctr record's ptrace side (record.c has the command): what is mapped
 * (the maps saved at each moment that matters), attaching to running
 * processes (-p: a binding and a ring of our own for each thread), and
 * following the tracees, the command's or -p's, through their forks,
 * clones, execs and exits.
 */
#define _GNU_SOURCE
#include <dirent.h>
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
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pctr.h"
#include "record_internal.h"
#include "fail.h"

/* --- what is mapped --------------------------------------------------- */

/* The process @tid belongs to, or 0. */
static pid_t tgid_of(pid_t tid)
{
	char path[64], line[256];
	pid_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* Exec generations so far, by process (a small table). */
static struct { pid_t pid; unsigned int gen; } gens[4096];
static unsigned int ngens;

static unsigned int *gen_of(pid_t pid)
{
	unsigned int i;

	for (i = 0; i < ngens; i++)
		if (gens[i].pid == pid)
			return &gens[i].gen;
	if (ngens == sizeof(gens) / sizeof(gens[0]))
		return &gens[0].gen;
	gens[ngens].pid = pid;
	gens[ngens].gen = 0;
	return &gens[ngens++].gen;
}

/* /proc/@from/@what for reading, @from "self" or a thread ID, or NULL. */
static FILE *proc_open(const char *from, const char *what)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%s/%s", from, what);
	return fopen(path, "re");
}

/*
 * The file mappings of @from ("self" or a thread ID), as the maps of
 * process @pid in exec generation @gen.
 */
void snapshot(const char *from, pid_t pid, unsigned int gen)
{
	char line[4096];
	FILE *f = proc_open(from, "maps");

	if (!f)
		return;
	fprintf(rec_out, "maps %d %u %llx\n", pid, gen,
		(unsigned long long)tsc_now());
	/* Every file mapping, as it is: the symboliser wants the lowest. */
	while (fgets(line, sizeof(line), f)) {
		if (!strchr(line, '/') && !strstr(line, "[vdso]"))
			continue;
		fprintf(rec_out, "m %s", line);
		if (!strchr(line, '\n'))
			fputc('\n', rec_out);
	}
	fclose(f);
}

/*
 * The name of @from ("self" or a thread ID) as that of process @pid
 * ("comm PID PID NAME"), for pctr report --sort comm.
 */
void comm_snapshot(const char *from, pid_t pid)
{
	char name[64];
	FILE *f = proc_open(from, "comm");

	if (!f)
		return;
	if (fgets(name, sizeof(name), f)) {
		name[strcspn(name, "\n")] = '\0';
		fprintf(rec_out, "comm %d %d %s\n", pid, pid, name);
	}
	fclose(f);
}

static void snapshot_tid(pid_t tid)
{
	char from[32];
	pid_t tgid = tgid_of(tid);

	if (!tgid)
		return;
	snprintf(from, sizeof(from), "%d", tid);
	snapshot(from, tgid, *gen_of(tgid));
	comm_snapshot(from, tgid);
}

/* --- attaching to running processes (-p) -------------------------------- */

volatile sig_atomic_t rec_interrupted;

/* Start @cmd (-p's and -a's "-- COMMAND"), whose end ends the recording. */
pid_t rec_run(char **cmd)
{
	pid_t pid = fork();

	if (pid < 0)
		fail(EXIT_FAIL, "fork: %s", strerror(errno));
	if (!pid) {
		execvp(cmd[0], cmd);
		fprintf(stderr, "%s: cannot run %s: %s\n", rec_prog, cmd[0],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	return pid;
}

void rec_on_signal(int sig)
{
	rec_interrupted = sig;
}


/* One attached thread: its own descriptor, binding and ring. */
struct att {
	pid_t		tid;
	int		live;		/* bound, as far as we know */
	struct ring	r;
};

static struct att *atts;
static unsigned int natts, maxatts;

struct attach_setup attach_setup;

/* A set of thread IDs, in no order. */
struct pidset {
	pid_t		*pid;
	unsigned int	n, max;
};

/* Where @tid is in @s, or -1. */
static int pidset_find(const struct pidset *s, pid_t tid)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->pid[i] == tid)
			return i;
	return -1;
}

static int pidset_has(const struct pidset *s, pid_t tid)
{
	return pidset_find(s, tid) >= 0;
}

static void pidset_add(struct pidset *s, pid_t tid)
{
	if (pidset_has(s, tid))
		return;
	if (s->n == s->max) {
		s->max = s->max ? 2 * s->max : 64;
		s->pid = realloc(s->pid, s->max * sizeof(*s->pid));
		if (!s->pid)
			fail(EXIT_FAIL, "out of memory");
	}
	s->pid[s->n++] = tid;
}

/* Whether @tid was in @s; it is not any more. */
static int pidset_take(struct pidset *s, pid_t tid)
{
	int i = pidset_find(s, tid);

	if (i < 0)
		return 0;
	s->pid[i] = s->pid[--s->n];
	return 1;
}

/* Threads traced (PTRACE_SEIZE), attached or not yet. */
static struct pidset traced;

/* The call attach_thread() failed in, for attach_why(). */
static int attach_sampling;

static struct att *live_att(pid_t tid)
{
	unsigned int i;

	for (i = 0; i < natts; i++)
		if (atts[i].tid == tid && atts[i].live)
			return &atts[i];
	return NULL;
}

/*
 * Bind a descriptor of our own to thread @tid and sample it into that
 * descriptor's ring: 0 or an errno (EBUSY: it counts for itself).
 */
static int attach_thread(pid_t tid)
{
	struct pctr_bind b = { .pb_kind = PCTR_BIND_THREAD, .pb_id = tid };
	struct att *a;
	int fd, err;

	fd = open(PCTR_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (natts == maxatts) {
		maxatts = maxatts ? 2 * maxatts : 16;
		atts = realloc(atts, maxatts * sizeof(*atts));
		if (!atts)
			fail(EXIT_FAIL, "out of memory");
	}
	a = &atts[natts];
	memset(a, 0, sizeof(*a));
	err = ring_open(&a->r, fd, attach_setup.pages, attach_setup.watermark);
	if (err) {
		close(fd);
		return err;
	}
	b.pb_fn[attach_setup.slot] = attach_setup.fn;
	attach_sampling = 0;
	if (ioctl(fd, PCIOCBIND, &b) ||
	    (attach_sampling = 1, sample_start(fd, &attach_setup.sa))) {
		err = errno;
		munmap(a->r.base, a->r.ra.ra_mmap_size);
		close(fd);
		return err;
	}
	a->tid = tid;
	a->live = 1;
	natts++;
	return 0;
}

/* Why thread @tid could not be attached, and what to do. */
static const char *attach_why(int err)
{
	/* A module that does not sample a bound thread: EBUSY. */
	if (attach_sampling && err == EBUSY)
		return "this pctr module cannot sample another thread (load this version's)";
	switch (err) {
	case EBUSY:
		return "it counts with pctr itself (or another pctr binds it): a thread that uses its own counters cannot be attached until it releases them";
	case EPERM:
		return "not allowed: pctr may only attach to a thread pctr record traces";
	case EAGAIN:
		return "it is stopped, or a CPU binding holds the counters (no thread may count now)";
	case EACCES:
		return "permission denied: counting kernel events (:k) needs CAP_PERFMON or perf_event_paranoid <= 1; sample :u instead";
	}
	return pctr_strerror(err);
}

/*
 * Trace every thread of process @pid, scanning /proc/PID/task until no
 * new one appears (threads may start meanwhile): 0 or an errno.
 */
static int seize_process(pid_t pid, long opts)
{
	char path[64];
	struct dirent *d;
	int more = 1, seen = 0;
	pid_t tid;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	while (more) {
		more = 0;
		dir = opendir(path);
		if (!dir)
			return seen ? 0 : ESRCH;
		while ((d = readdir(dir))) {
			tid = atoi(d->d_name);
			if (tid <= 0 || pidset_has(&traced, tid))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, 0, (void *)opts) < 0) {
				if (errno == ESRCH)
					continue;
				closedir(dir);
				return errno;
			}
			pidset_add(&traced, tid);
			more = seen = 1;
		}
		closedir(dir);
	}
	return seen ? 0 : ESRCH;
}

/*
 * Threads that were in a stop when first attached (EAGAIN: a stopped
 * thread cannot be bound): each is attached once its stop has been
 * reported to us and it runs again (follow_stop()).
 */
static struct pidset stopped;

/* Whether thread @tid is in a stop (state t or T in /proc). */
static int thread_stopped(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the name may hold anything */
	return p && (p[2] == 't' || p[2] == 'T');
}

/* A thread traced since it appeared (clone, fork), or resumed: attach it. */
static void attach_new(pid_t tid)
{
	int err;

	pidset_add(&traced, tid);
	err = attach_thread(tid);
	if (err == EAGAIN && thread_stopped(tid))
		pidset_add(&stopped, tid);	/* left in a group stop (LISTEN) */
	else if (err && err != ESRCH)
		fprintf(stderr, "%s: thread %d is not sampled: %s\n", rec_prog,
			(int)tid, attach_why(err));
}

static int drain_all_due(int force)
{
	struct pollfd p[64];
	unsigned int i, j, n;
	int any = 0;

	/* Woken at a watermark; read every 100 ms anyway (the caller). */
	for (i = 0; i < natts; i += n) {
		n = natts - i < 64 ? natts - i : 64;
		for (j = 0; j < n; j++) {
			p[j].fd = atts[i + j].r.fd;
			p[j].events = POLLIN;
			p[j].revents = 0;
		}
		poll(p, n, force ? 0 : 20 / (1 + natts / 64));
		for (j = 0; j < n; j++)
			if (force || (p[j].revents & POLLIN)) {
				drain(&atts[i + j].r);
				any = 1;
			}
	}
	if (!natts && !force)
		poll(NULL, 0, 20);
	return any;
}

/* --- following the tracees --------------------------------------------- */

/*
 * Let thread @w go on from its ptrace stop @st, reading maps at the
 * moments that matter (the comment at the top of record.c).  @attached
 * (-p): each thread has a binding of its own, which an exec ends and
 * which a new thread needs; they are made once it runs again (a stopped
 * thread cannot be bound).
 */
static void follow_stop(pid_t w, int st, int attached)
{
	enum __ptrace_request resume = PTRACE_CONT;
	unsigned long msg = 0;
	long sig = 0;
	int bind = 0;
	char from[32];

	switch (st >> 16) {
	case PTRACE_EVENT_EXIT:
		snapshot_tid(w);
		break;
	case PTRACE_EVENT_EXEC: {
		pid_t tg = tgid_of(w);
		unsigned int *g = gen_of(tg);

		++*g;
		fprintf(rec_out, "exec %d %u %llx\n", tg, *g,
			(unsigned long long)tsc_now());
		snapshot_tid(w);
		if (!attached)
			break;
		/* The binding ended at the exec: bind the new image. */
		ptrace(PTRACE_GETEVENTMSG, w, 0, &msg);
		if (live_att(w))
			live_att(w)->live = 0;
		if (msg && live_att(msg))
			live_att(msg)->live = 0;
		bind = 1;
		break;
	}
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		/* The new process runs its parent's image until it execs. */
		ptrace(PTRACE_GETEVENTMSG, w, 0, &msg);
		snprintf(from, sizeof(from), "%d", w);
		if (msg) {
			snapshot(from, msg, 0);
			comm_snapshot(from, msg);
		}
		break;
	case PTRACE_EVENT_CLONE:
		break;
	case PTRACE_EVENT_STOP:
		/* A new tracee's first stop, or a group stop. */
		if (WSTOPSIG(st) != SIGTRAP)
			resume = PTRACE_LISTEN;
		bind = attached && (!pidset_has(&traced, w) || !live_att(w));
		break;
	default:
		sig = WSTOPSIG(st);
	}
	/* A thread that was stopped when we attached runs again now. */
	if (attached && resume == PTRACE_CONT && pidset_take(&stopped, w) &&
	    (st >> 16) != PTRACE_EVENT_EXIT && !live_att(w))
		bind = 1;
	ptrace(resume, w, 0, (void *)sig);
	if (bind)
		attach_new(w);
}


/*
 * The tracees' next event, without waiting: a ptrace stop is dealt with
 * here (follow_stop()); the thread it came from in *@w and its wait
 * status in *@st.
 */
enum follow follow_event(pid_t *w, int *st, int attached)
{
	*w = waitpid(-1, st, __WALL | WNOHANG);
	if (*w < 0)	/* ECHILD: all gone */
		return errno == EINTR ? NO_EVENT : TRACEES_GONE;
	if (*w == 0)
		return NO_EVENT;
	if (WIFEXITED(*st) || WIFSIGNALED(*st))
		return TRACEE_ENDED;
	if (WIFSTOPPED(*st))
		follow_stop(*w, *st, attached);
	return TRACEE_STOPPED;
}

/*
 * Sample processes @pids until ^C, SIGTERM, @secs seconds (if not 0),
 * @cmd's end (if any) or theirs.  The totals into @tot.
 */
void record_attach(const pid_t *pids, unsigned int npids, int inherit,
			  double secs, char **cmd, struct ring *tot)
{
	long opts = PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;
	uint64_t drained = 0, end = 0;
	unsigned int i, progress_at = 0;
	pid_t cmdpid = 0, w;
	int st, err, tty = isatty(2), cmd_done = 0;
	enum follow what;
	time_t t0;
	char from[32];

	if (inherit)
		opts |= PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
			PTRACE_O_TRACEVFORK;
	/* ^C or SIGTERM from now on ends the recording with a whole file. */
	signal(SIGINT, rec_on_signal);
	signal(SIGTERM, rec_on_signal);
	for (i = 0; i < npids; i++) {
		err = seize_process(pids[i], opts);
		if (err == ESRCH)
			fail(EXIT_FAIL, "no process %d", (int)pids[i]);
		if (err)
			fail(EXIT_FAIL, "cannot attach to process %d (%s): pctr record -p needs the right to trace it, as a debugger does (ptrace(2): the same user and yama's ptrace_scope allowing it, or CAP_SYS_PTRACE)",
			     (int)pids[i], strerror(err));
		snprintf(from, sizeof(from), "%d", pids[i]);
		snapshot(from, pids[i], 0);
		comm_snapshot(from, pids[i]);
	}
	for (i = 0; i < traced.n; i++) {
		err = attach_thread(traced.pid[i]);
		/* In a stop (a signal's, an exec's): at its next report. */
		if (err == EAGAIN && thread_stopped(traced.pid[i]))
			pidset_add(&stopped, traced.pid[i]);
		else if (err && err != ESRCH)
			fail(EXIT_FAIL, "cannot sample thread %d: %s",
			     (int)traced.pid[i], attach_why(err));
	}
	fflush(rec_out);
	if (cmd)
		cmdpid = rec_run(cmd);
	fprintf(stderr, "%s: sampling %u threads of %u processes\n", rec_prog,
		natts, npids);
	if (secs > 0)
		end = ms_now() + (uint64_t)(secs * 1000);
	t0 = time(NULL);
	while (!rec_interrupted && (!end || ms_now() < end)) {
		what = follow_event(&w, &st, 1);
		if (what == TRACEES_GONE)
			break;
		if (what == NO_EVENT) {
			if (drain_all_due(0) || ms_now() - drained >= 100) {
				drain_all_due(1);
				drained = ms_now();
			}
			if (tty && time(NULL) - t0 > (time_t)progress_at) {
				uint64_t n = 0;

				for (i = 0; i < natts; i++)
					n += atts[i].r.samples;
				progress_at = time(NULL) - t0;
				fprintf(stderr, "\rpctr record: %llu samples, %u s ",
					(unsigned long long)n, progress_at);
			}
			continue;
		}
		if (what != TRACEE_ENDED)
			continue;
		if (w == cmdpid) {
			cmd_done = 1;
			break;
		}
		if (live_att(w))
			live_att(w)->live = 0;
	}
	/* The bindings end with their descriptors: the targets run on. */
	memset(tot, 0, sizeof(*tot));
	for (i = 0; i < natts; i++) {
		drain(&atts[i].r);
		close(atts[i].r.fd);
		tot->samples += atts[i].r.samples;
		tot->lost += atts[i].r.lost;
		tot->throttles += atts[i].r.throttles;
		tot->throttled += atts[i].r.throttled;
	}
	if (cmdpid && !cmd_done)
		kill(cmdpid, SIGTERM);
	if (tty)
		fprintf(stderr, "\r");
}
