// SPDX-License-Identifier: GPL-2.0
/*
 * notify_bind_stress_test's inheritor: PCTR_O_INHERIT, with and without
 * a PCTR_INT slot, making short-lived threads and processes, which check
 * what they inherited and make threads and processes of their own, or
 * exec.
 */
#define PCTR_TEST_NO_HARNESS
#include "pctr_test.h"
#include "nb_stress.h"

/* What a thread or process made by the inheritor should start with. */
struct inh {
	uint64_t	f0;		/* slot 0's function */
	uint64_t	p0, pf;		/* slot 0's and fixed counter 1's presets */
	int		what;		/* what the new thread does */
	int		err;
	unsigned int	seed;
};

/*
 * In a new thread or process: nothing (a CPU binding was there when it
 * was made, or invalidated its creator's counters), EAGAIN (one came
 * since), or exactly the inheritor's functions and options, slot 0 and
 * fixed counter 1 their presets apart (a PCTR_INT slot was restarted by
 * the handler, before this thread's own code ran).  0, or a code.
 */
static int inh_check(const struct inh *e)
{
	unsigned long g = t_reset;
	struct pctr_opts o;
	struct pctrst a, b;
	unsigned int s;
	int r;

	r = rd(g_fd, &a);
	if (r == EAGAIN) {
		ST(read_eagain);
		return 0;
	}
	if (r)
		return 10;
	if (st_clean(&a)) {
		ST(inh_clean);
		return 0;
	}
	ST(inh_seen);
	for (s = 0; s < PCTR_NUM; s++)
		if (a.pctr_fn[s] != (s == 0 ? e->f0 : s == FIX_DIV ? FIXFN : 0))
			return 11;
	if (a.pctr_hwc[FIX_DIV] - a.pctr_hwc[0] != e->pf - e->p0)
		return 12;
	memset(&o, 0xa5, sizeof(o));
	if (ioc(g_fd, PCIOCGOPTS, &o) || o.po_flags != PCTR_O_INHERIT ||
	    o.po_signo != SIGIO)
		return 13;
	spin_us(200);
	r = rd(g_fd, &b);
	if (r == EAGAIN)
		return 0;
	if (r)
		return 14;
	if (b.pctr_hwc[FIX_DIV] - b.pctr_hwc[0] != e->pf - e->p0)
		return 15;
	if (t_reset == g && b.pctr_hwc[FIX_DIV] < a.pctr_hwc[FIX_DIV])
		return 16;
	return 0;
}

static void *inh_thread(void *arg);

/*
 * What a new thread or process does: check, then exit at once (0), spin
 * and check again (1), make a thread (2) or a process (3) that checks,
 * all inheriting in turn.  0, or a code (sub-thread 20+, sub-process 40+).
 */
static int inh_child(struct inh *e)
{
	struct inh sub;
	pthread_t t;
	int r, status;
	pid_t pid;

	r = inh_check(e);
	if (r)
		return r;
	switch (e->what) {
	case 1:
		spin_us(500 + rnd(&e->seed, 2000));
		return inh_check(e);
	case 2:
		sub = *e;
		sub.what = 1;
		sub.err = 0;
		if (pthread_create(&t, NULL, inh_thread, &sub))
			return 19;
		pthread_join(t, NULL);
		return sub.err ? 20 + sub.err : 0;
	case 3:
		pid = fork();
		if (pid < 0)
			return 39;
		if (pid == 0)
			_exit(inh_check(e));
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return 38;
		return WEXITSTATUS(status) ? 40 + WEXITSTATUS(status) : 0;
	}
	return 0;
}

static void *inh_thread(void *arg)
{
	struct inh *e = arg;

	e->err = inh_child(e);
	return NULL;
}

/* The inheritor's own counters: 0, or EAGAIN (then released). */
static int inh_program(int with_int, struct inh *cur, unsigned int *seed)
{
	struct pctrst st;
	int e;

	cur->f0 = FN(EV_DIV) | (with_int ? PCTR_INT : 0);
	cur->p0 = with_int ? -(3 * p_base + rnd(seed, p_base)) :
			     777000 + rnd(seed, 1000);
	cur->pf = 5000000 + rnd(seed, 1000000);
	e = err_of(set(g_fd, 0, cur->f0));
	if (!e)
		e = err_of(set(g_fd, FIX_DIV, FIXFN));
	/* Never slot 0 lost to a CPU binding made and ended meanwhile. */
	if (!e) {
		e = rd(g_fd, &st);
		if (!e && (st.pctr_fn[0] != cur->f0 ||
			   st.pctr_fn[FIX_DIV] != FIXFN)) {
			ST(program_lost);
			note("inheritor: programming lost slot 0");
			e = EAGAIN;
		}
	}
	if (!e)
		e = err_of(preset(g_fd, 0, cur->p0));
	if (!e)
		e = err_of(preset(g_fd, FIX_DIV, cur->pf));
	if (!e)
		e = sopts(g_fd, PCTR_O_INHERIT, rnd(seed, 2) ? SIGIO : 0);
	if (e && e != EAGAIN)
		note("inheritor programming: %s", en(e));
	if (e)
		ioctl(g_fd, PCIOCRELEASE);
	return e;
}

#define INH_BATCH	4

void *nb_inheritor(void *arg)
{
	struct inh cur, ts[INH_BATCH];
	pthread_t t[INH_BATCH];
	pid_t pid[INH_BATCH];
	unsigned int seed = 4242;
	int with_int = 0, programmed = 0, batch = 0, n, k, r, status;
	struct pctrst st;

	memset(&cur, 0, sizeof(cur));
	while (!NB_STOP()) {
		if (!programmed) {
			r = inh_program(with_int, &cur, &seed);
			if (r) {
				usleep(500);
				continue;
			}
			programmed = 1;
		}
		n = 1 + rnd(&seed, INH_BATCH);
		for (k = 0; k < n; k++) {
			ts[k] = cur;
			ts[k].what = rnd(&seed, 5);
			ts[k].seed = rand_r(&seed);
			ts[k].err = 0;
			pid[k] = 0;
			if (rnd(&seed, 2) && ts[k].what < 4) {
				ST(inh_threads);
				if (pthread_create(&t[k], NULL, inh_thread, &ts[k])) {
					note("pthread_create (inheritor)");
					pid[k] = -1;
				}
				continue;
			}
			ST(inh_forks);
			pid[k] = fork();
			if (pid[k] == 0) {
				r = inh_child(&ts[k]);
				if (ts[k].what == 4 && !r && have_true) {
					/* A signal on the way would kill it. */
					sig_mask(SIGIO, SIG_BLOCK);
					execl("/bin/true", "true", (char *)NULL);
					_exit(90);
				}
				_exit(r);
			}
			if (pid[k] < 0)
				note("fork (inheritor): %s", en(errno));
			else if (ts[k].what == 4 && have_true)
				ST(inh_execs);
		}
		for (k = 0; k < n; k++) {
			if (pid[k] < 0)
				continue;
			if (pid[k] == 0) {
				pthread_join(t[k], NULL);
				if (ts[k].err)
					note("inherited thread (what %d, INT %d): code %d",
					     ts[k].what, with_int, ts[k].err);
				continue;
			}
			if (waitpid(pid[k], &status, 0) != pid[k])
				note("waitpid (inheritor): %s", en(errno));
			else if (!WIFEXITED(status) || WEXITSTATUS(status))
				note("inherited process (what %d, INT %d): %s %d",
				     ts[k].what, with_int,
				     WIFEXITED(status) ? "code" : "signal",
				     WIFEXITED(status) ? WEXITSTATUS(status) :
							 WTERMSIG(status));
		}
		/* Its own counters: as programmed, or invalidated. */
		r = rd(g_fd, &st);
		if (r == EAGAIN) {
			ST(inh_own_eagain);
			ioctl(g_fd, PCIOCRELEASE);
			programmed = 0;
		} else if (r) {
			note("inheritor PCIOCRD: %s", en(r));
		} else if (st.pctr_fn[0] != cur.f0 ||
			   st.pctr_fn[FIX_DIV] != FIXFN) {
			note("inheritor functions %#llx %#llx",
			     ULL(st.pctr_fn[0]), ULL(st.pctr_fn[FIX_DIV]));
		}
		if (++batch % 8 == 0) {
			ioctl(g_fd, PCIOCRELEASE);
			programmed = 0;
			with_int = !with_int;
		}
	}
	ioctl(g_fd, PCIOCRELEASE);
	return NULL;
}
