// SPDX-License-Identifier: GPL-2.0
/*
 * libpctx (pctx_create, pctx_capture, pctx_set_events, pctx_run,
 * pctx_terminate) and cpc_bind_pctx inside its callbacks, as Solaris's
 * cputrack uses them: a program of our own that counts a target with
 * threads, a fork and an exec, with every callback; cputrack's rotation
 * of sets; pctx_terminate and cpc_terminate from a signal handler; the
 * errors, with Solaris's errnos and messages.
 *
 * The target is this binary again, run with PCTX_TARGET set (see
 * target_main()).
 *
 * The headers are included first, as cputrack.c and cpucmds.h include
 * them, and a name they should declare is an error.
 */
#define _GNU_SOURCE
#pragma GCC diagnostic error "-Wimplicit-function-declaration"
#include <libcpc.h>
#include <libcpc_impl.h>

/* What cputrack takes from them, before any other header. */
static void *const solaris_names[] __attribute__((unused)) = {
	(void *)pctx_create, (void *)pctx_set_events, (void *)pctx_run,
	(void *)pctx_terminate, (void *)pctx_release, (void *)cpc_terminate,
	(void *)cpc_bind_pctx, (void *)strlen,
};
static const pctx_event_t solaris_events[] __attribute__((unused)) = {
	PCTX_SYSC_EXEC_EVENT, PCTX_SYSC_FORK_EVENT, PCTX_SYSC_EXIT_EVENT,
	PCTX_SYSC_LWP_CREATE_EVENT, PCTX_INIT_LWP_EVENT, PCTX_FINI_LWP_EVENT,
	PCTX_SYSC_LWP_EXIT_EVENT, PCTX_NULL_EVENT,
};
static char tickreg[] __attribute__((unused)) = CPC_TICKREG_NAME;
static char evname[CPC_MAX_EVENT_LEN] __attribute__((unused));
static uint_t solaris_uint __attribute__((unused));

#include "pctr_test.h"

#include <poll.h>
#include <pwd.h>
#include <sys/mman.h>
#include <sys/time.h>

#define US	(CPC_COUNT_USER | CPC_COUNT_SYSTEM)
#define MAXLWP	16
#define MAXLOG	512

/* --- the target ------------------------------------------------------- */

static long cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Spin until the calling thread has run @ms more of CPU time (its CPU
 * time goes on across an exec).
 */
static void spin_ms(long ms)
{
	long end = cpu_ms() + ms;

	while (cpu_ms() < end)
		;
}

static void *spin_thread(void *arg)
{
	spin_ms(60);
	return NULL;
}

/*
 * PCTX_TARGET=full: spin, two threads that spin, a fork, then exec
 * this binary as PCTX_TARGET=after, which spins and exits 7.
 * PCTX_TARGET=spin: spin for ever.  PCTX_TARGET=one: spin 400 ms.
 */
__attribute__((constructor)) static void target_main(void)
{
	const char *mode = getenv("PCTX_TARGET");
	char *argv[] = { "pctx_test", NULL };
	pthread_t th[2];
	int status;
	pid_t kid, w;

	if (!mode)
		return;
	if (!strcmp(mode, "spin")) {
		const char *ready = getenv("PCTX_READY_FD");
		char c = 1;

		/* Tell libpctx.capture that this image runs: its exec is over. */
		if (ready && write(atoi(ready), &c, 1) != 1)
			_exit(5);
		for (;;)
			spin_ms(1000000);
	}
	if (!strcmp(mode, "one")) {
		spin_ms(400);
		_exit(0);
	}
	if (!strcmp(mode, "after")) {
		spin_ms(60);
		_exit(7);
	}
	spin_ms(60);
	if (pthread_create(&th[0], NULL, spin_thread, NULL) ||
	    pthread_create(&th[1], NULL, spin_thread, NULL))
		_exit(2);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	kid = fork();
	if (kid == 0) {
		spin_ms(60);
		_exit(0);
	}
	/* EINTR: the sparc64 guest restarts no call a stop interrupted. */
	do
		w = kid > 0 ? waitpid(kid, &status, 0) : -1;
	while (w < 0 && kid > 0 && errno == EINTR);
	if (kid < 0 || w != kid || !WIFEXITED(status) || WEXITSTATUS(status))
		_exit(3);
	setenv("PCTX_TARGET", "after", 1);
	execv("/proc/self/exe", argv);
	_exit(4);
}

/* --- the controller's record of callbacks ------------------------------ */

enum { EV_INIT = 1, EV_FINI, EV_CREATE, EV_LWPEXIT, EV_EXEC, EV_EXIT,
	EV_FORK, EV_TICK };

struct entry {
	int		ev;
	pid_t		pid;
	int		lwp;
	int		arg;		/* exit status, fork child pid */
	uint64_t	val;		/* the sample, where one is taken */
	uint64_t	tick;
};

/* Shared with the controller a fork callback runs in. */
struct record {
	int		n;
	struct entry	e[MAXLOG];
	char		cmd[128];
	int		errors;
	char		why[256];
	int		fork_lwp;
	pid_t		fork_parent;
};

static struct record *rec;
static cpc_t *cpc;
static cpc_set_t *sets[MAXLWP][2];
static cpc_buf_t *bufs[MAXLWP][2];
static int cur[MAXLWP];
static int rotate;		/* rotate two sets at each tick */
static int follow;		/* the fork callback runs the child */
static pid_t target;		/* as init_lwp was told */
static uint64_t khz;

/* The controller a fork callback runs in writes here too. */
static void note(int ev, pid_t pid, int lwp, int arg, uint64_t val,
		 uint64_t tick)
{
	int i = __atomic_fetch_add(&rec->n, 1, __ATOMIC_SEQ_CST);

	if (i < MAXLOG)
		rec->e[i] = (struct entry){ ev, pid, lwp, arg, val, tick };
	else
		rec->n = MAXLOG;
}

static void fail(const char *what, int lwp)
{
	if (!rec->errors++)
		snprintf(rec->why, sizeof(rec->why), "%s lwp %d: %s", what,
			 lwp, strerror(errno));
}

static int sample(int lwp, uint64_t *v, uint64_t *t)
{
	cpc_set_t *s = sets[lwp][cur[lwp]];
	cpc_buf_t *b = bufs[lwp][cur[lwp]];

	if (cpc_set_sample(cpc, s, b) || cpc_buf_get(cpc, b, 0, v))
		return -1;
	*t = cpc_buf_tick(cpc, b);
	return 0;
}

static int c_init(pctx_t *pctx, pid_t pid, id_t lwp, void *arg)
{
	int i;

	target = pid;
	if (lwp <= 0 || lwp >= MAXLWP)
		return fail("init: lwp out of range", lwp), -1;
	for (i = 0; i < 2; i++) {
		if (sets[lwp][i])
			continue;
		sets[lwp][i] = cpc_set_create(cpc);
		/* Set 1 starts far up: its counts tell it from set 0. */
		if (!sets[lwp][i] ||
		    cpc_set_add_request(cpc, sets[lwp][i], "sim_ticks",
					i ? 1ULL << 40 : 0, US, 0, NULL) < 0)
			return fail("init: set", lwp), -1;
		/* A buffer per set: libcpc refuses another set's. */
		bufs[lwp][i] = cpc_buf_create(cpc, sets[lwp][i]);
		if (!bufs[lwp][i])
			return fail("init: buffer", lwp), -1;
	}
	cur[lwp] = 0;
	if (cpc_bind_pctx(cpc, pctx, lwp, sets[lwp][0], 0))
		return fail("init: bind", lwp), -1;
	note(EV_INIT, pid, lwp, 0, 0, 0);
	return 0;
}

static int c_fini(pctx_t *pctx, pid_t pid, id_t lwp, void *arg)
{
	uint64_t v, t;

	if (sample(lwp, &v, &t))
		return fail("fini: sample", lwp), -1;
	if (cpc_unbind(cpc, sets[lwp][cur[lwp]]))
		return fail("fini: unbind", lwp), -1;
	note(EV_FINI, pid, lwp, 0, v, t);
	return 0;
}

static int c_create(pctx_t *pctx, pid_t pid, id_t lwp, void *arg)
{
	note(EV_CREATE, pid, lwp, 0, 0, 0);
	return 0;
}

static int c_lwp_exit(pctx_t *pctx, pid_t pid, id_t lwp, void *arg)
{
	note(EV_LWPEXIT, pid, lwp, 0, 0, 0);
	return 0;
}

static int c_exec(pctx_t *pctx, pid_t pid, id_t lwp, char *cmd, void *arg)
{
	snprintf(rec->cmd, sizeof(rec->cmd), "%s", cmd);
	note(EV_EXEC, pid, lwp, 0, 0, 0);
	return 0;
}

static void c_exit(pctx_t *pctx, pid_t pid, id_t lwp, int status, void *arg)
{
	note(EV_EXIT, pid, lwp, status, 0, 0);
}

/* In a new controller: record, and let the child go on. */
static void c_fork(pctx_t *pctx, pid_t pid, id_t child, pid_t lwp, void *arg)
{
	rec->fork_parent = pid;
	rec->fork_lwp = lwp;
	note(EV_FORK, pid, lwp, (int)child, 0, 0);
	if (!follow)
		return;
	/* cputrack -f: count the child too, with sets of this process. */
	memset(sets, 0, sizeof(sets));
	memset(bufs, 0, sizeof(bufs));
	if (pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, c_init,
			    PCTX_FINI_LWP_EVENT, c_fini,
			    PCTX_SYSC_EXIT_EVENT, c_exit, PCTX_NULL_EVENT) ||
	    pctx_run(pctx, 0, 0, NULL))
		fail("fork: pctx_run", lwp);
}

/* Ticks so far, for a signal handler (terminate_from_handler). */
static volatile sig_atomic_t ticks_seen;

static int c_tick(pctx_t *pctx, pid_t pid, id_t lwp, void *arg)
{
	int next = !cur[lwp];
	uint64_t v, t;

	if (sample(lwp, &v, &t))
		return fail("tick: sample", lwp), -1;
	note(EV_TICK, pid, lwp, cur[lwp], v, t);
	ticks_seen++;
	if (!rotate)
		return 0;
	/* cputrack's rotation: bind the next set, the old one goes. */
	if (cpc_bind_pctx(cpc, pctx, lwp, sets[lwp][next], 0))
		return fail("tick: bind", lwp), -1;
	if (cpc_set_sample(cpc, sets[lwp][cur[lwp]],
			   bufs[lwp][cur[lwp]]) != -1 || errno != EINVAL)
		return fail("tick: the old set is still bound", lwp), -1;
	cur[lwp] = next;
	return 0;
}

/* An error handler that records the last message. */
static char last_fn[64], last_msg[256];
static int nerrors;

static void pctx_errfn(const char *fn, const char *fmt, va_list ap)
{
	nerrors++;
	snprintf(last_fn, sizeof(last_fn), "%s", fn);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
}

static void cpc_errfn(const char *fn, int subcode, const char *fmt,
		      va_list ap)
{
	nerrors++;
	snprintf(last_fn, sizeof(last_fn), "%s", fn);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
}

static pctx_t *start(const char *mode)
{
	char *argv[] = { "pctx_test", NULL };

	setenv("PCTX_TARGET", mode, 1);
	return pctx_create("/proc/self/exe", argv, NULL, 0, pctx_errfn);
}

static int set_all_events(pctx_t *pctx)
{
	return pctx_set_events(pctx,
			       PCTX_SYSC_EXEC_EVENT, c_exec,
			       PCTX_SYSC_FORK_EVENT, c_fork,
			       PCTX_SYSC_EXIT_EVENT, c_exit,
			       PCTX_SYSC_LWP_CREATE_EVENT, c_create,
			       PCTX_INIT_LWP_EVENT, c_init,
			       PCTX_FINI_LWP_EVENT, c_fini,
			       PCTX_SYSC_LWP_EXIT_EVENT, c_lwp_exit,
			       PCTX_NULL_EVENT);
}

/*
 * The "full" target under pctx_run() with every callback of
 * set_all_events(), and @tick every @msec ms (none if 0), to its end:
 * the callbacks must have found nothing wrong.
 */
static void run_full(struct __test_metadata *_metadata, unsigned int msec,
		     int (*tick)(pctx_t *, pid_t, id_t, void *))
{
	pctx_t *pctx = start("full");

	ASSERT_NE(NULL, pctx) TH_LOG("%s: %s", last_fn, last_msg);
	ASSERT_EQ(0, set_all_events(pctx));
	EXPECT_EQ(0, pctx_run(pctx, msec, 0, tick));
	pctx_release(pctx);
	ASSERT_EQ(0, rec->errors) TH_LOG("%s", rec->why);
}

FIXTURE(libpctx) {
	char		params[256];
};

FIXTURE_SETUP(libpctx)
{
	pctr_t *p;

	cpc = NULL;
	if (geteuid() != 0)
		SKIP(return, "reloading the module needs root");
	bench_params(self->params, sizeof(self->params));
	ASSERT_EQ(0, reload("pmu=sim sim_div=64"));
	p = pctr_open(O_RDONLY);
	ASSERT_NE(NULL, p);
	khz = p->info.pi_tsc_khz;
	pctr_close(p);
	rec = mmap(NULL, sizeof(*rec), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, rec);
	memset(sets, 0, sizeof(sets));
	memset(bufs, 0, sizeof(bufs));
	rotate = 0;
	follow = 0;
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	cpc_seterrhndlr(cpc, cpc_errfn);
}

FIXTURE_TEARDOWN(libpctx)
{
	if (cpc)
		EXPECT_EQ(0, cpc_close(cpc));
	EXPECT_EQ(0, read_long(PCTR_SYSFS "/contexts"));
	EXPECT_EQ(0, reload(self->params));
}

/* The first entry from @from on with event @ev (and LWP @lwp if > 0). */
static int find(int from, int ev, int lwp)
{
	int i;

	for (i = from; i < rec->n; i++)
		if (rec->e[i].ev == ev && (lwp <= 0 || rec->e[i].lwp == lwp))
			return i;
	return -1;
}

static int count(int ev, int lwp)
{
	int i, n = 0;

	for (i = 0; i < rec->n; i++)
		if (rec->e[i].ev == ev && (lwp <= 0 || rec->e[i].lwp == lwp))
			n++;
	return n;
}

static void dump(struct __test_metadata *_metadata)
{
	int i;

	for (i = 0; i < rec->n; i++)
		TH_LOG("%3d: ev %d pid %d lwp %d arg %d val %llu tick %llu", i,
		       rec->e[i].ev, rec->e[i].pid, rec->e[i].lwp, rec->e[i].arg,
		       (unsigned long long)rec->e[i].val,
		       (unsigned long long)rec->e[i].tick);
}

/*
 * Every callback, in Solaris's order, on a target with two threads, a
 * fork and an exec; the counts each thread's fini_lwp samples are its
 * own CPU time's (it spun 60 ms of it).
 */
TEST_F_TIMEOUT(libpctx, callbacks, 120)
{
	uint64_t min = 40 * khz;	/* ticks in 40 ms: well under 60 */
	pid_t pid;
	int i, a, b, x;

	run_full(_metadata, 20, c_tick);

	if (count(EV_CREATE, 0) != 2 || find(0, EV_FORK, 0) < 0)
		dump(_metadata);
	/* LWP 1 first, bound and counting from the start. */
	ASSERT_LE(1, rec->n);
	EXPECT_EQ(EV_INIT, rec->e[0].ev);
	EXPECT_EQ(1, rec->e[0].lwp);
	/* Two threads: init_lwp, then lwp_create; fini_lwp, lwp_exit. */
	for (i = 2; i <= 3; i++) {
		a = find(0, EV_INIT, i);
		ASSERT_LE(0, a) TH_LOG("no init_lwp for lwp %d", i);
		EXPECT_EQ(EV_CREATE, rec->e[a + 1].ev);
		EXPECT_EQ(i, rec->e[a + 1].lwp);
		b = find(a, EV_FINI, i);
		ASSERT_LE(0, b) TH_LOG("no fini_lwp for lwp %d", i);
		EXPECT_EQ(EV_LWPEXIT, rec->e[b + 1].ev);
		EXPECT_EQ(i, rec->e[b + 1].lwp);
		EXPECT_LE(min, rec->e[b].val);
		EXPECT_LT(0, rec->e[b].tick);
		EXPECT_EQ(1, count(EV_INIT, i));
		EXPECT_EQ(1, count(EV_FINI, i));
	}
	EXPECT_EQ(2, count(EV_CREATE, 0));
	EXPECT_EQ(2, count(EV_LWPEXIT, 0));
	/* The fork, heard of in the controller forked for it. */
	a = find(0, EV_FORK, 0);
	if (a < 0)
		dump(_metadata);
	ASSERT_LE(0, a);
	EXPECT_EQ(1, rec->e[a].lwp);
	EXPECT_LT(0, rec->e[a].arg);
	EXPECT_EQ(1, rec->fork_lwp);
	/* The exec: fini_lwp for LWP 1 (the old image), exec, init_lwp 1. */
	x = find(0, EV_EXEC, 0);
	if (x < 1)
		dump(_metadata);
	ASSERT_LE(1, x);
	EXPECT_EQ(1, count(EV_EXEC, 0));
	EXPECT_EQ(EV_FINI, rec->e[x - 1].ev);
	EXPECT_EQ(1, rec->e[x - 1].lwp);
	EXPECT_LE(min, rec->e[x - 1].val);
	EXPECT_EQ(1, rec->e[x].lwp);
	EXPECT_LT(a, x);
	EXPECT_NE(NULL, strstr(rec->cmd, "pctx_test")) TH_LOG("%s", rec->cmd);
	ASSERT_LE(x + 1, rec->n - 1);
	EXPECT_EQ(EV_INIT, rec->e[x + 1].ev);
	EXPECT_EQ(1, rec->e[x + 1].lwp);
	/* The new image's LWP 1 spun 60 ms too; then exit 7, last. */
	b = find(x + 1, EV_FINI, 1);
	ASSERT_LE(0, b);
	EXPECT_LE(min, rec->e[b].val);
	EXPECT_EQ(EV_EXIT, rec->e[rec->n - 1].ev);
	EXPECT_EQ(7, rec->e[rec->n - 1].arg);
	EXPECT_EQ(1, count(EV_EXIT, 0));
	EXPECT_EQ(b, rec->n - 2);
	/* Ticks came, each sample of a thread's set at least the last. */
	EXPECT_LE(1, count(EV_TICK, 0));
	for (i = 0; i < rec->n; i++) {
		if (rec->e[i].ev != EV_TICK)
			continue;
		a = find(i + 1, EV_TICK, rec->e[i].lwp);
		b = find(i + 1, EV_INIT, rec->e[i].lwp);
		if (a > 0 && (b < 0 || a < b))
			EXPECT_LE(rec->e[i].val, rec->e[a].val);
	}
	/* The fork callback was told the target's pid; it is gone. */
	pid = rec->fork_parent;
	EXPECT_EQ(target, pid);
	EXPECT_EQ(-1, kill(pid, 0));
	if (!_metadata->passed)
		dump(_metadata);
}

/* cputrack -f: the fork callback runs the child under pctx_run too. */
TEST_F_TIMEOUT(libpctx, follow_fork, 120)
{
	pid_t child;
	int i, init = -1, fini = -1, ex = -1;

	follow = 1;
	run_full(_metadata, 0, NULL);
	i = find(0, EV_FORK, 0);
	ASSERT_LE(0, i);
	child = rec->e[i].arg;
	for (i = 0; i < rec->n; i++) {
		if (rec->e[i].pid != child)
			continue;
		if (rec->e[i].ev == EV_INIT && init < 0)
			init = i;
		else if (rec->e[i].ev == EV_FINI && fini < 0)
			fini = i;
		else if (rec->e[i].ev == EV_EXIT && ex < 0)
			ex = i;
	}
	/*
	 * The child (it spun 60 ms of CPU time) counted from init_lwp to
	 * its exit: at least half, in user mode.  Its first copy-on-write
	 * faults are kernel time of its CPU time: 7 ms of a 10 ms spin on
	 * the sparc64 guest of a loaded builder (2.6 ms counted).
	 */
	ASSERT_LE(0, init);
	ASSERT_LT(init, fini);
	ASSERT_LT(fini, ex);
	EXPECT_EQ(1, rec->e[init].lwp);
	EXPECT_LE(30 * khz, rec->e[fini].val);
	EXPECT_EQ(0, rec->e[ex].arg);
	/* And the parent went on to its exec and exit 7. */
	i = find(0, EV_EXIT, 0);
	while (i >= 0 && rec->e[i].pid == child)
		i = find(i + 1, EV_EXIT, 0);
	ASSERT_LE(0, i);
	EXPECT_EQ(7, rec->e[i].arg);
	if (!_metadata->passed)
		dump(_metadata);
}

/*
 * cputrack's rotation: each tick samples the bound set and binds the
 * other without unbinding; the old one is unbound by it, and each
 * counts from its own preset while bound.
 */
TEST_F_TIMEOUT(libpctx, rotation, 120)
{
	int i, n0 = 0, n1 = 0;

	/*
	 * Threads that spin, and one blocked in pthread_join() and
	 * waitpid() meanwhile: the bind at a tick lets each run up to its
	 * return to user space, which a blocked one does not reach.
	 */
	rotate = 1;
	run_full(_metadata, 20, c_tick);
	for (i = 0; i < rec->n; i++) {
		if (rec->e[i].ev != EV_TICK)
			continue;
		if (rec->e[i].arg) {
			n1++;
			EXPECT_LE(1ULL << 40, rec->e[i].val);
		} else {
			n0++;
			EXPECT_GT(1ULL << 40, rec->e[i].val);
		}
	}
	EXPECT_LE(2, n0);
	EXPECT_LE(2, n1);
	EXPECT_EQ(EV_EXIT, rec->e[rec->n - 1].ev);
}

/* -p pid: pctx_capture, attached by pctx_run, let go by pctx_release. */
TEST_F_TIMEOUT(libpctx, capture, 60)
{
	struct pollfd pfd;
	char fdname[16], c;
	int status, i, ready[2];
	pctx_t *pctx;
	double t0, ms;
	pid_t kid;

	ASSERT_EQ(0, pipe(ready));
	kid = fork();
	ASSERT_LE(0, kid);
	if (kid == 0) {
		close(ready[0]);
		snprintf(fdname, sizeof(fdname), "%d", ready[1]);
		setenv("PCTX_READY_FD", fdname, 1);
		setenv("PCTX_TARGET", "spin", 1);
		execl("/proc/self/exe", "pctx_test", NULL);
		_exit(1);
	}
	close(ready[1]);
	/*
	 * Capture it only once its new image runs.  Its environment in
	 * /proc shows PCTX_TARGET a little before the exec is over, and a
	 * capture in that window sees the exec: with no exec handler,
	 * pctx_run() then stops following it, as Solaris's does, and
	 * returns 0 with no tick (seen once on the debug kernel).
	 */
	pfd.fd = ready[0];
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 60000));
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	pctx = pctx_capture(kid, NULL, 0, pctx_errfn);
	ASSERT_NE(NULL, pctx);
	ASSERT_EQ(0, pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, c_init,
				     PCTX_NULL_EVENT));
	t0 = now_sec();
	EXPECT_EQ(0, pctx_run(pctx, 20, 3, c_tick));
	ms = (now_sec() - t0) * 1e3;
	pctx_release(pctx);
	EXPECT_EQ(0, rec->errors) TH_LOG("%s", rec->why);
	EXPECT_EQ(1, count(EV_INIT, 1));
	/*
	 * No tick was seen once, on the debug kernel in a loaded make
	 * check, with pctx_run() returning 0: what it recorded, and how
	 * long it ran, for the next time.
	 */
	EXPECT_EQ(3, count(EV_TICK, 1)) {
		TH_LOG("pctx_run took %.1f ms; %d records:", ms, rec->n);
		for (i = 0; i < rec->n && i < MAXLOG; i++)
			TH_LOG("  ev %d pid %d lwp %d val %llu", rec->e[i].ev,
			       (int)rec->e[i].pid, rec->e[i].lwp,
			       (unsigned long long)rec->e[i].val);
	}
	EXPECT_LT(0, rec->e[rec->n - 1].val);
	/* Still running, untraced. */
	usleep(50000);
	EXPECT_EQ(0, waitpid(kid, &status, WNOHANG));
	EXPECT_EQ(0, kill(kid, 0));
	kill(kid, SIGKILL);
	EXPECT_EQ(kid, waitpid(kid, &status, 0));
}

static pctx_t *term_pctx;
static int term_with_cpc;

/*
 * Every 100 ms until two ticks were taken (a busy host may delay the
 * first ones), then ask pctx_run() to return.
 */
static void on_alarm(int sig)
{
	static const struct itimerval off;

	if (ticks_seen < 2)
		return;
	setitimer(ITIMER_REAL, &off, NULL);
	if (term_with_cpc)
		cpc_terminate(cpc);
	else
		pctx_terminate(term_pctx);
}

/* pctx_run() returns 0 once a signal handler asked; release kills it. */
static void terminate_from_handler(struct __test_metadata *_metadata,
				   int with_cpc)
{
	struct itimerval it = { { 0, 100000 }, { 0, 100000 } };
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	pctx_t *pctx;

	term_with_cpc = with_cpc;
	pctx = start("spin");
	ASSERT_NE(NULL, pctx);
	term_pctx = pctx;
	ASSERT_EQ(0, pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, c_init,
				     PCTX_FINI_LWP_EVENT, c_fini,
				     PCTX_NULL_EVENT));
	sigaction(SIGALRM, &sa, NULL);
	ticks_seen = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	EXPECT_EQ(0, pctx_run(pctx, 20, 0, c_tick));
	EXPECT_LE(2, count(EV_TICK, 1));
	EXPECT_EQ(0, rec->errors) TH_LOG("%s", rec->why);
	/* Still there, stopped; pctx_release() kills what it created. */
	EXPECT_EQ(0, kill(target, 0));
	pctx_release(pctx);
	EXPECT_EQ(-1, kill(target, 0));
}

TEST_F_TIMEOUT(libpctx, pctx_terminate_in_handler, 60)
{
	terminate_from_handler(_metadata, 0);
}

TEST_F_TIMEOUT(libpctx, cpc_terminate_in_handler, 60)
{
	terminate_from_handler(_metadata, 1);
}

/* Solaris's errnos and messages. */
TEST_F(libpctx, errors)
{
	char *argv[] = { "no-such-program", NULL };
	cpc_set_t *s;
	pctx_t *pctx;
	int status;
	pid_t kid;

	/* No such process. */
	nerrors = 0;
	errno = 0;
	kid = fork();
	ASSERT_LE(0, kid);
	if (kid == 0)
		_exit(0);
	waitpid(kid, &status, 0);
	EXPECT_EQ(NULL, pctx_capture(kid, NULL, 0, pctx_errfn));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(1, nerrors);
	EXPECT_STREQ("capture", last_fn);
	snprintf(last_fn, sizeof(last_fn), "pid %d doesn't exist\n", kid);
	EXPECT_STREQ(last_fn, last_msg);

	/* Not permitted: another user's process, captured as nobody. */
	kid = fork();
	ASSERT_LE(0, kid);
	if (kid == 0) {
		struct passwd *pw = getpwnam("nobody");

		if (setgid(pw ? pw->pw_gid : 65534) ||
		    setuid(pw ? pw->pw_uid : 65534))
			_exit(10);
		nerrors = 0;
		errno = 0;
		if (pctx_capture(1, NULL, 0, pctx_errfn))
			_exit(11);
		if (errno != EPERM)
			_exit(12);
		if (nerrors != 1 || strcmp(last_fn, "capture") ||
		    strcmp(last_msg, "pid 1: permission denied\n"))
			_exit(13);
		_exit(0);
	}
	ASSERT_EQ(kid, waitpid(kid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	/* An unknown event type. */
	pctx = start("one");
	ASSERT_NE(NULL, pctx);
	nerrors = 0;
	EXPECT_EQ(-1, pctx_set_events(pctx, (pctx_event_t)99, c_init,
				      PCTX_NULL_EVENT));
	EXPECT_EQ(1, nerrors);
	EXPECT_STREQ("set_events", last_fn);
	EXPECT_STREQ("unknown event type 63\n", last_msg);
	/* An unknown counter event: libcpc's message ends as Solaris's. */
	s = cpc_set_create(cpc);
	ASSERT_NE(NULL, s);
	nerrors = 0;
	errno = 0;
	EXPECT_EQ(-1, cpc_set_add_request(cpc, s, "no_such_event", 0, US, 0,
					  NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1, nerrors);
	EXPECT_EQ('\n', last_msg[strlen(last_msg) - 1]);
	/* No such LWP in a created process, stopped at its exec. */
	EXPECT_EQ(0, cpc_set_add_request(cpc, s, "sim_ticks", 0, US, 0, NULL));
	errno = 0;
	EXPECT_EQ(-1, cpc_bind_pctx(cpc, pctx, 2, s, 0));
	EXPECT_EQ(ESRCH, errno);
	/* LWP 1 can be bound there and then. */
	EXPECT_EQ(0, cpc_bind_pctx(cpc, pctx, 1, s, 0)) TH_LOG("%s", last_msg);
	pctx_release(pctx);
	EXPECT_EQ(-1, cpc_unbind(cpc, s));	/* released with it */
	EXPECT_EQ(0, cpc_set_destroy(cpc, s));

	/* A program that is not there. */
	nerrors = 0;
	errno = 0;
	EXPECT_EQ(NULL, pctx_create("no-such-program", argv, NULL, 0,
				    pctx_errfn));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(1, nerrors);
	EXPECT_STREQ("create", last_fn);
	EXPECT_STREQ("cannot find program 'no-such-program'\n", last_msg);
}

TEST_HARNESS_MAIN
