// SPDX-License-Identifier: GPL-2.0
/*
 * pctr stat's counting (stat.c has the subcommand): libpctx follows the
 * command, libcpc binds the events to each of its threads as it appears
 * (cpc_bind_pctx) and reads them as it ends; a forked child is followed
 * by a new controlling process of libpctx's, and so on down.  Each
 * thread's counts go into a record in memory these processes share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "stat_internal.h"
#include "../libmsg.h"
#include "../pctxfollow.h"

struct shared {
	atomic_uint	nrecs;
	atomic_uint	lost;		/* threads beyond MAX_RECS */
	int		status;		/* the command's exit, as libpctx's */
	int		have_status;
	struct rec	rec[MAX_RECS];
};

/* One thread this controlling process follows. */
struct lwp {
	cpc_set_t	*set;
	cpc_buf_t	*buf;
	int		rec;		/* -1: none */
	int		bound;
};

static struct {
	cpc_t		*cpc;
	const struct pctr_info *in;
	struct ev	*evs;
	unsigned int	n;
	unsigned int	msec;		/* -I, or 0 */
	pid_t		cmd_pid;	/* the command's (or -p's) pid */
	int		is_main;	/* pctr stat's process, not a helper */
	struct shared	*sh;
	struct lwp	*lwps;		/* by LWP id - 1 */
	unsigned int	nlwps;
	int		failed;
} g;

/* The pctr slot of event @e as libcpc numbers counters (picnum). */
static unsigned int ev_picnum(const struct ev *e)
{
	if (e->slot < PCTR_FIXED_BASE)
		return e->slot;
	return g.in->pi_ngeneral + e->slot - PCTR_FIXED_BASE;
}

/* A libcpc set that programs evs[] as check_events() tried them. */
static cpc_set_t *make_set(void)
{
	cpc_set_t *set = cpc_set_create(g.cpc);
	cpc_attr_t a[5];
	unsigned int i, na;
	char name[64];
	uint64_t fn, code;
	uint_t flags;

	if (!set)
		return NULL;
	for (i = 0; i < g.n; i++) {
		const struct ev *e = &g.evs[i];

		fn = e->fn;
		flags = (fn & PCTR_U ? CPC_COUNT_USER : 0) |
			(fn & PCTR_K ? CPC_COUNT_SYSTEM : 0);
		na = 0;
		a[na].ca_name = "picnum";
		a[na++].ca_val = ev_picnum(e);
		if (strcmp(e->name, "raw")) {
			snprintf(name, sizeof(name), "%s", e->name);
		} else {
			code = (fn & PCTR_EVENT_MASK) |
			       ((fn & PCTR_EVENT_HI_MASK) >>
				(PCTR_EVENT_HI_SHIFT - 8));
			snprintf(name, sizeof(name), "0x%llx",
				 (unsigned long long)code);
			a[na].ca_name = "umask";
			a[na++].ca_val = (fn & PCTR_UM_MASK) >> PCTR_UM_SHIFT;
			a[na].ca_name = "cmask";
			a[na++].ca_val = (fn & PCTR_CM_MASK) >> PCTR_CM_SHIFT;
			a[na].ca_name = "edge";
			a[na++].ca_val = !!(fn & PCTR_E);
			a[na].ca_name = "inv";
			a[na++].ca_val = !!(fn & PCTR_I);
		}
		if (cpc_set_add_request(g.cpc, set, name, 0, flags, na, a) < 0) {
			cpc_set_destroy(g.cpc, set);
			return NULL;
		}
	}
	return set;
}

static struct lwp *get_lwp(id_t lwpid)
{
	struct lwp *l;
	unsigned int i;

	if (lwpid < 1)
		return NULL;
	if ((unsigned int)lwpid > g.nlwps) {
		l = realloc(g.lwps, lwpid * sizeof(*l));
		if (!l)
			return NULL;
		for (i = g.nlwps; i < (unsigned int)lwpid; i++)
			memset(&l[i], 0, sizeof(l[i]));
		g.lwps = l;
		g.nlwps = lwpid;
	}
	l = &g.lwps[lwpid - 1];
	if (!l->set) {
		l->set = make_set();
		if (!l->set)
			return NULL;
		l->buf = cpc_buf_create(g.cpc, l->set);
		if (!l->buf)
			return NULL;
	}
	return l;
}

/* The thread's counts into its record; @final: it ended. */
static int record(struct lwp *l, int final)
{
	struct rec *r;
	unsigned int i;
	uint64_t v, en, run;

	if (!l->bound || l->rec < 0)
		return 0;
	if (cpc_set_sample(g.cpc, l->set, l->buf))
		return -1;
	r = &g.sh->rec[l->rec];
	for (i = 0; i < g.n; i++) {
		v = 0;
		cpc_buf_get(g.cpc, l->buf, i, &v);
		__atomic_store_n(&r->val[i], v, __ATOMIC_RELAXED);
		en = run = 0;
		cpc_buf_times(g.cpc, l->buf, i, &en, &run);
		__atomic_store_n(&r->en[i], en, __ATOMIC_RELAXED);
		__atomic_store_n(&r->run[i], run, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&r->tick, cpc_buf_tick(g.cpc, l->buf),
			 __ATOMIC_RELAXED);
	if (final)
		__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return 0;
}

static int cb_init_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct lwp *l = get_lwp(lwpid);
	unsigned int k;

	if (!l) {
		g.failed = 1;
		return -1;
	}
	if (cpc_bind_pctx(g.cpc, pctx, lwpid, l->set, 0)) {
		g.failed = 1;
		return -1;
	}
	l->bound = 1;
	if (g.is_main && !g.cmd_pid)
		g.cmd_pid = pid;
	k = atomic_fetch_add(&g.sh->nrecs, 1);
	if (k >= MAX_RECS) {
		atomic_fetch_add(&g.sh->lost, 1);
		l->rec = -1;
		return 0;
	}
	l->rec = k;
	g.sh->rec[k].pid = pid;
	g.sh->rec[k].lwp = lwpid;
	return 0;
}

static int cb_fini_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct lwp *l = get_lwp(lwpid);

	if (!l || !l->bound)
		return 0;
	if (record(l, 1))
		g.failed = 1;
	cpc_unbind(g.cpc, l->set);
	l->bound = 0;
	return 0;
}

static int cb_tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct lwp *l = get_lwp(lwpid);

	if (l && record(l, 0))
		g.failed = 1;
	return 0;
}

/* Exec: the old image's threads are done (fini_lwp), LWP 1 goes on. */
static int cb_exec(pctx_t *pctx, pid_t pid, id_t lwpid, char *cmd,
		   void *arg)
{
	return 0;
}

static void cb_exit(pctx_t *pctx, pid_t pid, id_t lwpid, int status,
		    void *arg)
{
	if (g.is_main) {
		g.sh->status = status;
		g.sh->have_status = 1;
	}
}

/* Threads still counted when following ends (-p, interrupted): final. */
static void finish_live(void)
{
	unsigned int i;

	for (i = 0; i < g.nlwps; i++) {
		if (!g.lwps[i].bound)
			continue;
		if (record(&g.lwps[i], 1))
			g.failed = 1;
		cpc_unbind(g.cpc, g.lwps[i].set);
		g.lwps[i].bound = 0;
	}
}

static int set_events(pctx_t *pctx);

/*
 * A child process, in a new controlling process of libpctx's: follow it
 * as the command is followed, to its end, and its children likewise.
 */
static void cb_fork(pctx_t *pctx, pid_t oldpid, id_t newpid, pid_t lwpid,
		    void *arg)
{
	g.is_main = 0;
	g.lwps = NULL;		/* the parent's copy is not ours to use */
	g.nlwps = 0;
	if (set_events(pctx))
		return;
	pctx_run(pctx, g.msec, 0, g.msec ? cb_tick : NULL);
	finish_live();
	pctx_reap_followers();
}

static int set_events(pctx_t *pctx)
{
	static const struct pctx_callbacks cb = {
		.exec = cb_exec, .fork = cb_fork, .exit = cb_exit,
		.init_lwp = cb_init_lwp, .fini_lwp = cb_fini_lwp,
	};

	return pctx_callbacks_set(pctx, &cb);
}

void count_cpc_errfn(const char *fn, int subcode, const char *fmt,
		     va_list ap)
{
	tool_libmsg(stat_prog, fmt, ap);
}

void count_pctx_errfn(const char *fn, const char *fmt, va_list ap)
{
	count_cpc_errfn(fn, -1, fmt, ap);
}

int count_init(cpc_t *cpc, const struct pctr_info *in, struct ev *evs,
	       unsigned int n, unsigned int msec)
{
	cpc_set_t *s;

	g.cpc = cpc;
	g.in = in;
	g.evs = evs;
	g.n = n;
	g.msec = msec;
	s = make_set();
	if (!s)
		return -1;
	cpc_set_destroy(g.cpc, s);
	return 0;
}

void count_share(void)
{
	g.is_main = 1;
	g.sh = mmap(NULL, sizeof(*g.sh), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g.sh == MAP_FAILED)
		fail(EXIT_FAIL, "mmap: %s", strerror(errno));
}

int count_follow(pctx_t *pctx, pid_t pid)
{
	if (pid)
		g.cmd_pid = pid;
	return set_events(pctx);
}

int count_run(pctx_t *pctx)
{
	int ret = pctx_run(pctx, g.msec, 0, g.msec ? cb_tick : NULL);

	finish_live();
	pctx_release(pctx);
	/* The processes following children end with them. */
	pctx_reap_followers();
	return ret;
}

const struct rec *count_recs(unsigned int *n)
{
	unsigned int k = atomic_load(&g.sh->nrecs);

	*n = k > MAX_RECS ? MAX_RECS : k;
	return g.sh->rec;
}

/* Sum every record into @val (scaled, with @pct); the run time in *@tick. */
void count_sum(uint64_t *val, uint64_t *tick, double *pct)
{
	uint64_t v, e, ru;
	double en, run;
	unsigned int i, k, n;

	count_recs(&n);
	*tick = 0;
	for (k = 0; k < n; k++)
		*tick += __atomic_load_n(&g.sh->rec[k].tick, __ATOMIC_RELAXED);
	for (i = 0; i < g.n; i++) {
		val[i] = 0;
		en = run = 0;
		for (k = 0; k < n; k++) {
			v = __atomic_load_n(&g.sh->rec[k].val[i],
					    __ATOMIC_RELAXED);
			if (pct) {
				e = __atomic_load_n(&g.sh->rec[k].en[i],
						    __ATOMIC_RELAXED);
				ru = __atomic_load_n(&g.sh->rec[k].run[i],
						     __ATOMIC_RELAXED);
				if (ru && ru < e)
					v = (uint64_t)((long double)v * e / ru);
				en += e;
				run += ru < e ? ru : e;
			}
			val[i] += v;
		}
		if (pct)
			pct[i] = en > 0 ? 100 * run / en : 100;
	}
	for (; i < PCTR_NUM; i++)
		val[i] = 0;
}

void count_end(struct count_end *e)
{
	e->pid = g.cmd_pid;
	e->have_status = g.sh->have_status;
	e->status = g.sh->status;
	e->lost = atomic_load(&g.sh->lost);
	e->failed = g.failed;
}
