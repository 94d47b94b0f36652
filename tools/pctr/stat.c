// SPDX-License-Identifier: GPL-2.0
/*
 * pctr stat: run a command (or attach to a process) and count it, its
 * threads and its children, as perf stat does.
 *
 *   pctr stat [-e EVENT[,EVENT...]]... [-I MSEC] [-t] [-x SEP | --json]
 *             [-o FILE] [--] COMMAND [ARGS...]
 *   pctr stat [options] -p PID
 *
 * Built on libpctx and libcpc (libcpc/pctx_*.c, cpc_bind_pctx), which
 * follow a process with ptrace(2): the command is created stopped at its
 * exec, every thread gets the events bound when it appears (clone) and
 * its counts are read when it ends (exit, or exec, after which the new
 * image's thread is bound again); a forked child is followed by a new
 * controlling process (a fork of pctr stat's, libpctx's way), and so on
 * down.  Each thread's counts go into a record in memory these processes
 * share; the totals are the sum of the records.  -I samples every thread
 * each MSEC (libpctx's tick) and a thread of pctr stat prints the
 * difference of the sums; -t prints each record; -p counts the threads
 * of a running process from when pctr stat attached until it ends or
 * pctr stat is interrupted.
 *
 * Time: the wall clock around the run, the threads' run time (the
 * virtual TSC libcpc gives a pctx binding, cpc_buf_tick), and, for a
 * command, the CPU time of pctr stat's children (wait4's rusage: the
 * command, its children, and the controlling processes).
 *
 * Every line of output goes to stderr (or -o FILE), so that the
 * command's own output stays as it is.  Exit status: the command's
 * (128 + N if signal N killed it), 126/127 if it could not be run, 1 for
 * pctr's own failures, 2 for usage errors and events it cannot count.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>
#include <libpctx.h>

#include "pctr.h"
#include "stat.h"
#include "fail.h"

#define EXIT_FAIL	1
#define EXIT_USAGE	2

/* One counted event. */
struct ev {
	char		label[80];	/* as printed: name:mode */
	char		name[64];	/* the backend's name, or "raw" */
	uint64_t	fn;		/* with mode and PCTR_EN */
	unsigned int	slot;
	uint64_t	count;
};

/*
 * Generic names, each with the backend names that count it, best first
 * (an Intel fixed counter before a general one).
 */
static const char *const generic[][5] = {
	{ "instructions", "INST_RETIRED.ANY", "INSTRUCTION_RETIRED",
	  "RETIRED_INSTRUCTIONS", NULL },
	{ "cycles", "CPU_CLK_UNHALTED.THREAD", "UNHALTED_CORE_CYCLES",
	  "CYCLES_NOT_IN_HALT", NULL },
	{ "ref-cycles", "CPU_CLK_UNHALTED.REF_TSC",
	  "UNHALTED_REFERENCE_CYCLES", NULL },
	{ "branches", "BRANCH_INSTRUCTIONS_RETIRED",
	  "RETIRED_BRANCH_INSTRUCTIONS", NULL },
	{ "branch-misses", "MISPREDICTED_BRANCH_RETIRED",
	  "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", NULL },
};
#define NGENERIC	(sizeof(generic) / sizeof(generic[0]))

/* What each backend counts when no -e is given. */
static const char *default_events(unsigned int backend)
{
	if (backend == PCTR_BACKEND_SIM)
		return "sim_ticks,sim_ticks_div";
	return "instructions,cycles,branches,branch-misses";
}

static const char *prog = "pctr stat";

#define fail(status, ...)	tool_fail(prog, status, __VA_ARGS__)

static int stat_usage(FILE *f, int status)
{
	fprintf(f,
		"usage: pctr stat [-e EVENT[,EVENT...]]... [-I MSEC] [-t] [-x SEP | --json]\n"
		"                 [-o FILE] [--] COMMAND [ARGS...]\n"
		"       pctr stat [options] -p PID\n"
		"  -e EVENT   a backend event name (pctr stat -l lists them), a libpfm4 name,\n"
		"             a generic name (instructions, cycles, ref-cycles, branches,\n"
		"             branch-misses) or a raw function 0x...; :u (default), :k or :uk\n"
		"  -I MSEC    print the counts of each MSEC milliseconds as they pass\n"
		"  -t         the counts of each thread too\n"
		"  -p PID     count process PID's threads and children until it ends (^C stops)\n"
		"  -x SEP     one line per figure, fields separated by SEP\n"
		"  --json     one JSON object\n"
		"  -o FILE    write the figures to FILE instead of stderr\n"
		"  -l         list the backend's events and exit\n"
		"Counts the command's threads and children; see pctr(1).\n");
	return status;
}

/* --- events -------------------------------------------------------------- */

static struct pctr_event *events;
static unsigned int nevents;

static void load_events(pctr_t *p)
{
	unsigned int i;

	nevents = p->info.pi_nevents;
	events = calloc(nevents ? nevents : 1, sizeof(*events));
	if (!events)
		fail(EXIT_FAIL, "out of memory");
	for (i = 0; i < nevents; i++) {
		events[i].pe_index = i;
		if (ioctl(p->fd, PCIOCEVENT, &events[i]) < 0)
			fail(EXIT_FAIL, "PCIOCEVENT %u: %s", i,
			     pctr_strerror(errno));
		events[i].pe_name[sizeof(events[i].pe_name) - 1] = '\0';
		events[i].pe_desc[sizeof(events[i].pe_desc) - 1] = '\0';
	}
}

static const struct pctr_event *find_event(const char *name)
{
	unsigned int i;

	for (i = 0; i < nevents; i++)
		if (!strcasecmp(events[i].pe_name, name))
			return &events[i];
	return NULL;
}

/* Edit distance, case-insensitive, for "did you mean". */
static unsigned int distance(const char *a, const char *b)
{
	unsigned int la = strlen(a), lb = strlen(b), i, j, d[64], prev, t;

	if (lb >= 64)
		lb = 63;
	for (j = 0; j <= lb; j++)
		d[j] = j;
	for (i = 1; i <= la; i++) {
		prev = d[0];
		d[0] = i;
		for (j = 1; j <= lb; j++) {
			t = d[j];
			d[j] = prev + (tolower((unsigned char)a[i - 1]) !=
				       tolower((unsigned char)b[j - 1]));
			if (d[j - 1] + 1 < d[j])
				d[j] = d[j - 1] + 1;
			if (t + 1 < d[j])
				d[j] = t + 1;
			prev = t;
		}
	}
	return d[lb];
}

static void __attribute__((noreturn)) unknown_event(const char *name)
{
	const char *best = NULL;
	unsigned int i, d, bd = ~0U;

	for (i = 0; i < nevents; i++) {
		d = distance(name, events[i].pe_name);
		if (d < bd) {
			bd = d;
			best = events[i].pe_name;
		}
	}
	for (i = 0; i < NGENERIC; i++) {
		d = distance(name, generic[i][0]);
		if (d < bd) {
			bd = d;
			best = generic[i][0];
		}
	}
	if (best && bd <= strlen(name) / 2 + 1)
		fail(EXIT_USAGE, "unknown event '%s': did you mean '%s'? (pctr stat -l lists them)",
		     name, best);
	fail(EXIT_USAGE, "unknown event '%s' (pctr stat -l lists them)", name);
}

#define RAW_BITS	(PCTR_EVENT_MASK | PCTR_UM_MASK | PCTR_CM_MASK | \
			 PCTR_E | PCTR_I | PCTR_EVENT_HI_MASK)

static cpc_t *pfm_cpc;
static cpc_errhndlr_t *pfm_errfn;

static void quiet_errfn(const char *fn, int subcode, const char *fmt,
			va_list ap)
{
}

/*
 * Does libcpc (with libpfm4) know @name?  1 and its function without
 * mode bits in *@fn, if that is one a raw event can give.
 */
static int pfm_event(const char *name, uint64_t *fn)
{
	cpc_set_t *set;
	int ok = 0;

	if (!pfm_cpc)
		return 0;
	set = cpc_set_create(pfm_cpc);
	if (!set)
		return 0;
	cpc_seterrhndlr(pfm_cpc, quiet_errfn);
	if (!cpc_set_add_request(pfm_cpc, set, name, 0, CPC_COUNT_USER, 0,
				 NULL) &&
	    !cpc_request_fn(pfm_cpc, set, 0, fn, NULL)) {
		*fn &= ~(PCTR_U | PCTR_K | PCTR_EN | PCTR_INT);
		ok = *fn && !(*fn & ~RAW_BITS);
	}
	cpc_seterrhndlr(pfm_cpc, pfm_errfn);
	cpc_set_destroy(pfm_cpc, set);
	return ok;
}

/* The slots this backend has. */
static uint64_t slots_present(const struct pctr_info *in)
{
	uint64_t m = 0;
	unsigned int i;

	for (i = 0; i < in->pi_ngeneral && i < PCTR_MAX_GENERAL; i++)
		m |= 1ULL << i;
	for (i = 0; i < in->pi_nfixed && i < PCTR_MAX_FIXED; i++)
		m |= 1ULL << PCTR_FIXED(i);
	return m;
}

static uint64_t general_slots(const struct pctr_info *in)
{
	return slots_present(in) & ((1ULL << PCTR_FIXED_BASE) - 1);
}

/* The lowest free slot of @can, or -1. */
static int take_slot(uint64_t can, uint64_t *used)
{
	uint64_t free_ = can & ~*used;

	if (!free_)
		return -1;
	*used |= free_ & -free_;
	return __builtin_ctzll(free_);
}


/*
 * One -e item into @e, on a free slot.  @quiet: a default event the
 * backend lacks is left out (0) instead of an error.
 */
static int parse_event(const struct pctr_info *in, char *item,
		       struct ev *e, uint64_t *used, int quiet)
{
	const struct pctr_event *pe = NULL;
	uint64_t mode = PCTR_U, fn = 0, can;
	const char *mstr = "u";
	char *colon, *end;
	unsigned int g, k;
	int slot = -1, found = 0;

	/*
	 * The mode is after the last ':'.  A name with more colons is a
	 * libpfm4 name with its modifiers ("ix86arch::INSTRUCTION_RETIRED",
	 * "INST_RETIRED:ANY_P:c=1"), whose last part need not be a mode.
	 */
	colon = strrchr(item, ':');
	if (colon) {
		mstr = colon + 1;
		if (!strcmp(mstr, "u"))
			mode = PCTR_U;
		else if (!strcmp(mstr, "k"))
			mode = PCTR_K;
		else if (!strcmp(mstr, "uk") || !strcmp(mstr, "ku"))
			mode = PCTR_U | PCTR_K;
		else if (strchr(item, ':') == colon)
			fail(EXIT_USAGE, "event '%.*s': unknown mode ':%s' (u, k or uk)",
			     (int)(colon - item), item, mstr);
		else
			colon = NULL;
		if (colon)
			*colon = '\0';
		else
			mstr = "u";
	}
	if (!*item)
		fail(EXIT_USAGE, "an empty event name");
	memset(e, 0, sizeof(*e));
	if (!strncasecmp(item, "0x", 2)) {
		errno = 0;
		fn = strtoull(item, &end, 16);
		if (errno || *end || end == item + 2)
			fail(EXIT_USAGE, "raw event '%s' is not a hex number", item);
		if (!fn || (fn & ~RAW_BITS))
			fail(EXIT_USAGE,
			     "raw event '%s': give the event, unit mask, counter mask, edge and invert bits only (%#llx); the mode comes from :u or :k",
			     item, (unsigned long long)RAW_BITS);
		snprintf(e->name, sizeof(e->name), "raw");
		slot = take_slot(general_slots(in), used);
	} else {
		for (g = 0; g < NGENERIC; g++)
			if (!strcasecmp(item, generic[g][0]))
				break;
		if (g < NGENERIC) {
			/* The first candidate the backend has with a free slot. */
			for (k = 1; generic[g][k] && slot < 0; k++) {
				pe = find_event(generic[g][k]);
				if (!pe)
					continue;
				found = 1;
				can = pe->pe_slots ? pe->pe_slots :
						     general_slots(in);
				slot = take_slot(can & slots_present(in), used);
			}
			if (!found) {
				if (quiet)
					return 0;
				fail(EXIT_USAGE, "event '%s': the %s backend does not count it",
				     item, in->pi_backend);
			}
		} else {
			pe = find_event(item);
			if (!pe && pfm_event(item, &fn)) {
				/* A libpfm4 name: its encoding, as raw. */
				snprintf(e->name, sizeof(e->name), "raw");
				slot = take_slot(general_slots(in), used);
				if (slot < 0)
					fail(EXIT_USAGE, "no free counter for '%s' (%u general, %u fixed counters)",
					     item, in->pi_ngeneral,
					     in->pi_nfixed);
				goto done;
			}
			if (!pe) {
				if (quiet)
					return 0;
				unknown_event(item);
			}
			can = pe->pe_slots ? pe->pe_slots : general_slots(in);
			slot = take_slot(can & slots_present(in), used);
		}
		if (slot >= 0) {
			fn = pe->pe_fn;
			snprintf(e->name, sizeof(e->name), "%s", pe->pe_name);
		}
	}
	if (slot < 0) {
		if (quiet)
			return 0;
		fail(EXIT_USAGE, "no free counter for '%s' (%u general, %u fixed counters)",
		     item, in->pi_ngeneral, in->pi_nfixed);
	}
done:
	e->slot = slot;
	e->fn = fn | mode | PCTR_EN;
	snprintf(e->label, sizeof(e->label), "%s:%s", item, mstr);
	return 1;
}

/* Every -e list into @evs; returns how many. */
static unsigned int parse_events(const struct pctr_info *in, char **lists,
				 unsigned int nlists, struct ev *evs)
{
	const char *deflist = default_events(in->pi_backend_id);
	unsigned int i, n = 0;
	uint64_t used = 0;
	char *copy, *item, *save;
	int quiet = !nlists;

	for (i = 0; i < (nlists ? nlists : 1); i++) {
		copy = strdup(nlists ? lists[i] : deflist);
		if (!copy)
			fail(EXIT_FAIL, "out of memory");
		for (item = strtok_r(copy, ",", &save); item;
		     item = strtok_r(NULL, ",", &save)) {
			if (n == PCTR_NUM)
				fail(EXIT_USAGE, "more than %d events", PCTR_NUM);
			n += parse_event(in, item, &evs[n], &used, quiet);
		}
		free(copy);
	}
	if (!n)
		fail(EXIT_USAGE, "no event to count");
	return n;
}

/*
 * Try every function on the calling thread's own counters first: a
 * function the backend or the caller's rights refuse is reported by
 * name, before the command runs.
 */
static void check_events(pctr_t *p, const struct ev *evs, unsigned int n)
{
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		if (!pctr_set(p, evs[i].slot, evs[i].fn))
			continue;
		err = errno;
		ioctl(p->fd, PCIOCRELEASE);
		if (err == EINVAL || err == EOPNOTSUPP)
			fail(EXIT_USAGE, "event '%s' (function %#llx): the %s backend does not accept it",
			     evs[i].label, (unsigned long long)evs[i].fn,
			     p->info.pi_backend);
		if (err == EACCES)
			fail(EXIT_FAIL, "event '%s': counting kernel mode needs CAP_PERFMON (or the module's allow_kernel=1); use :u",
			     evs[i].label);
		fail(EXIT_FAIL, "event '%s': %s", evs[i].label,
		     pctr_strerror(err));
	}
	if (ioctl(p->fd, PCIOCRELEASE) < 0)
		fail(EXIT_FAIL, "PCIOCRELEASE: %s", pctr_strerror(errno));
}

static void list_events(pctr_t *p)
{
	unsigned int i, g, k;

	printf("backend %s: %u general, %u fixed counters\n",
	       p->info.pi_backend, p->info.pi_ngeneral, p->info.pi_nfixed);
	for (i = 0; i < nevents; i++)
		printf("  %-40s %s\n", events[i].pe_name, events[i].pe_desc);
	for (g = 0; g < NGENERIC; g++)
		for (k = 1; generic[g][k]; k++)
			if (find_event(generic[g][k])) {
				printf("  %-40s = %s\n", generic[g][0],
				       generic[g][k]);
				break;
			}
	printf("default: %s\n", default_events(p->info.pi_backend_id));
}

/* --- counting, through libpctx ------------------------------------------- */

/*
 * What every controlling process (pctr stat, and the processes libpctx
 * forks to follow children) records, in memory they share: one record
 * per thread, live (its counts at the last sample) or done (final).
 */
#define MAX_RECS	8192

struct rec {
	pid_t		pid;
	int		lwp;
	int		done;
	uint64_t	tick;		/* its run time, TSC cycles */
	uint64_t	val[PCTR_NUM];	/* by event, as evs[] */
};

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
	uint64_t v;

	if (!l->bound || l->rec < 0)
		return 0;
	if (cpc_set_sample(g.cpc, l->set, l->buf))
		return -1;
	r = &g.sh->rec[l->rec];
	for (i = 0; i < g.n; i++) {
		v = 0;
		cpc_buf_get(g.cpc, l->buf, i, &v);
		__atomic_store_n(&r->val[i], v, __ATOMIC_RELAXED);
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
	while (wait(NULL) > 0 || errno == EINTR)
		;
}

static int set_events(pctx_t *pctx)
{
	return pctx_set_events(pctx,
			       PCTX_SYSC_EXEC_EVENT, cb_exec,
			       PCTX_SYSC_FORK_EVENT, cb_fork,
			       PCTX_SYSC_EXIT_EVENT, cb_exit,
			       PCTX_INIT_LWP_EVENT, cb_init_lwp,
			       PCTX_FINI_LWP_EVENT, cb_fini_lwp,
			       PCTX_NULL_EVENT);
}

static void cpc_errfn(const char *fn, int subcode, const char *fmt,
		      va_list ap)
{
	char msg[512];
	size_t len;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	len = strlen(msg);
	fprintf(stderr, "%s: %s%s", prog, msg,
		len && msg[len - 1] == '\n' ? "" : "\n");
}

static void pctx_errfn(const char *fn, const char *fmt, va_list ap)
{
	cpc_errfn(fn, -1, fmt, ap);
}

static void on_stop_signal(int sig)
{
	cpc_terminate(g.cpc);
}

/* --- output --------------------------------------------------------------- */

static const char *slot_name(unsigned int s, char *buf, size_t len)
{
	if (s < PCTR_FIXED_BASE)
		snprintf(buf, len, "pmc%u", s);
	else
		snprintf(buf, len, "fix%u", s - PCTR_FIXED_BASE);
	return buf;
}

static int is_named(const struct ev *e, unsigned int g_)
{
	unsigned int k;

	for (k = 1; generic[g_][k]; k++)
		if (!strcmp(e->name, generic[g_][k]))
			return 1;
	return 0;
}

/* Raw functions that are the instructions or cycles of a backend. */
static int raw_is(const struct pctr_info *in, const struct ev *e, int cycles)
{
	uint64_t ev = e->fn & RAW_BITS;

	if (strcmp(e->name, "raw"))
		return 0;
	if (in->pi_backend_id == PCTR_BACKEND_INTEL)
		return ev == (cycles ? 0x3c : 0xc0);
	if (in->pi_backend_id == PCTR_BACKEND_AMD)
		return ev == (cycles ? 0x76 : 0xc0);
	return 0;
}

/* IPC of @val (by event), if instructions and cycles are both there. */
static int ipc_of(const struct pctr_info *in, const struct ev *evs,
		  unsigned int n, const uint64_t *val, double *ipc)
{
	int have_inst = 0, have_cyc = 0;
	uint64_t inst = 0, cyc = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!have_inst && (is_named(&evs[i], 0) ||
				   raw_is(in, &evs[i], 0))) {
			inst = val[i];
			have_inst = 1;
		}
		if (!have_cyc && (is_named(&evs[i], 1) ||
				  raw_is(in, &evs[i], 1))) {
			cyc = val[i];
			have_cyc = 1;
		}
	}
	if (!have_inst || !have_cyc || !cyc)
		return 0;
	*ipc = (double)inst / cyc;
	return 1;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

struct result {
	char		**argv;		/* NULL with -p */
	pid_t		pid;
	int		code;		/* pctr stat's exit status */
	int		attached;	/* -p: counting began meanwhile */
	double		elapsed, user, sys, oncpu;
	int		have_rusage;
	int		have_ipc;
	double		ipc;
	unsigned int	nthreads, nprocs, lost;
	uint64_t	val[PCTR_NUM];	/* the sums */
};

static unsigned int nrecs(void)
{
	unsigned int n = atomic_load(&g.sh->nrecs);

	return n > MAX_RECS ? MAX_RECS : n;
}

/* Sum every record into @val; the run time in *@tick. */
static void sum_recs(uint64_t *val, uint64_t *tick)
{
	unsigned int i, k, n = nrecs();

	memset(val, 0, PCTR_NUM * sizeof(*val));
	*tick = 0;
	for (k = 0; k < n; k++) {
		for (i = 0; i < g.n; i++)
			val[i] += __atomic_load_n(&g.sh->rec[k].val[i],
						  __ATOMIC_RELAXED);
		*tick += __atomic_load_n(&g.sh->rec[k].tick,
					 __ATOMIC_RELAXED);
	}
}

static void print_target(FILE *f, const struct result *r)
{
	unsigned int i;

	if (!r->argv) {
		fprintf(f, "process %d", r->pid);
		return;
	}
	fputc('\'', f);
	for (i = 0; r->argv[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", r->argv[i]);
	fputc('\'', f);
}

static void print_human(FILE *f, const struct pctr_info *in,
			const struct ev *evs, unsigned int n,
			const struct result *r, int per_thread)
{
	unsigned int i, k, nr = nrecs();
	double ipc;

	fprintf(f, "\n Counter stats for ");
	print_target(f, r);
	fprintf(f, " (pid %d; %u thread%s in %u process%s; %s backend):\n\n",
		r->pid, r->nthreads, r->nthreads == 1 ? "" : "s", r->nprocs,
		r->nprocs == 1 ? "" : "es", in->pi_backend);
	if (per_thread) {
		for (k = 0; k < nr; k++) {
			const struct rec *c = &g.sh->rec[k];

			for (i = 0; i < n; i++)
				fprintf(f, " %8d/%-4d %20llu      %s\n", c->pid,
					c->lwp, (unsigned long long)c->val[i],
					evs[i].label);
			if (ipc_of(in, evs, n, c->val, &ipc))
				fprintf(f, " %8d/%-4d %20.2f      insn per cycle\n",
					c->pid, c->lwp, ipc);
		}
		fputc('\n', f);
	}
	for (i = 0; i < n; i++) {
		if (r->have_ipc && (is_named(&evs[i], 0) ||
				    raw_is(in, &evs[i], 0)))
			fprintf(f, " %20llu      %-32s # %8.2f  insn per cycle\n",
				(unsigned long long)r->val[i], evs[i].label,
				r->ipc);
		else
			fprintf(f, " %20llu      %s\n",
				(unsigned long long)r->val[i], evs[i].label);
	}
	fprintf(f, "\n %20.9f seconds time elapsed\n", r->elapsed);
	fprintf(f, " %20.9f seconds on cpu (the threads' virtual TSC)\n",
		r->oncpu);
	if (r->have_rusage) {
		fprintf(f, " %20.9f seconds user\n", r->user);
		fprintf(f, " %20.9f seconds sys\n", r->sys);
	}
	if (r->attached)
		fprintf(f, "\n (counting started after the process had begun)\n");
	if (r->lost)
		fprintf(f, "\n (%u threads beyond %u not counted)\n", r->lost,
			MAX_RECS);
	if (r->code >= 128 && r->argv)
		fprintf(f, "\n (the command was killed by signal %d)\n",
			r->code - 128);
	fputc('\n', f);
}

static void print_sep(FILE *f, const char *sep, const struct ev *evs,
		      unsigned int n, const struct result *r, int per_thread)
{
	unsigned int i, k, nr = nrecs();
	char sb[16];

	if (per_thread)
		for (k = 0; k < nr; k++)
			for (i = 0; i < n; i++)
				fprintf(f, "%d/%d%s%llu%s%s\n",
					g.sh->rec[k].pid, g.sh->rec[k].lwp,
					sep,
					(unsigned long long)g.sh->rec[k].val[i],
					sep, evs[i].label);
	for (i = 0; i < n; i++)
		fprintf(f, "%llu%s%s%s%s%s%#llx\n",
			(unsigned long long)r->val[i], sep, evs[i].label, sep,
			slot_name(evs[i].slot, sb, sizeof(sb)), sep,
			(unsigned long long)evs[i].fn);
	if (r->have_ipc)
		fprintf(f, "%.4f%sipc%s%s\n", r->ipc, sep, sep, sep);
	fprintf(f, "%.9f%sseconds-elapsed%s%s\n", r->elapsed, sep, sep, sep);
	fprintf(f, "%.9f%sseconds-on-cpu%s%s\n", r->oncpu, sep, sep, sep);
	if (r->have_rusage) {
		fprintf(f, "%.9f%sseconds-user%s%s\n", r->user, sep, sep, sep);
		fprintf(f, "%.9f%sseconds-sys%s%s\n", r->sys, sep, sep, sep);
	}
	fprintf(f, "%u%sthreads%s%s\n", r->nthreads, sep, sep, sep);
	fprintf(f, "%u%sprocesses%s%s\n", r->nprocs, sep, sep, sep);
}

static void print_json(FILE *f, const struct pctr_info *in,
		       const struct ev *evs, unsigned int n,
		       const struct result *r, int per_thread)
{
	unsigned int i, k, nr = nrecs();
	char sb[16];

	fprintf(f, "{");
	if (r->argv) {
		fprintf(f, "\"command\": [");
		for (i = 0; r->argv[i]; i++) {
			if (i)
				fprintf(f, ", ");
			json_str(f, r->argv[i]);
		}
		fprintf(f, "], \"exit_status\": %d, ", r->code);
	}
	fprintf(f, "\"pid\": %d, ", r->pid);
	fprintf(f, "\"scope\": \"threads-and-children\", \"backend\": ");
	json_str(f, in->pi_backend);
	fprintf(f, ", \"late_start\": %s, \"threads\": %u, \"processes\": %u, \"counters\": [",
		r->attached ? "true" : "false", r->nthreads, r->nprocs);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"event\": ", i ? ", " : "");
		json_str(f, evs[i].label);
		fprintf(f, ", \"slot\": \"%s\", \"function\": \"%#llx\", \"count\": %llu}",
			slot_name(evs[i].slot, sb, sizeof(sb)),
			(unsigned long long)evs[i].fn,
			(unsigned long long)r->val[i]);
	}
	fprintf(f, "]");
	if (per_thread) {
		fprintf(f, ", \"per_thread\": [");
		for (k = 0; k < nr; k++) {
			fprintf(f, "%s{\"pid\": %d, \"lwp\": %d, \"counts\": [",
				k ? ", " : "", g.sh->rec[k].pid,
				g.sh->rec[k].lwp);
			for (i = 0; i < n; i++)
				fprintf(f, "%s%llu", i ? ", " : "",
					(unsigned long long)g.sh->rec[k].val[i]);
			fprintf(f, "]}");
		}
		fprintf(f, "]");
	}
	if (r->have_ipc)
		fprintf(f, ", \"ipc\": %.4f", r->ipc);
	fprintf(f, ", \"seconds_elapsed\": %.9f, \"seconds_on_cpu\": %.9f",
		r->elapsed, r->oncpu);
	if (r->have_rusage)
		fprintf(f, ", \"seconds_user\": %.9f, \"seconds_sys\": %.9f",
			r->user, r->sys);
	fprintf(f, "}\n");
}

/* --- -I: a line per interval, from a thread of pctr stat's own ----------- */

struct interval {
	FILE		*out;
	const char	*sep;
	int		json;
	atomic_int	stop;
	struct timespec	t0;
	uint64_t	last[PCTR_NUM];
};

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void print_interval(struct interval *iv)
{
	uint64_t val[PCTR_NUM], tick, d;
	double t = since(&iv->t0);
	unsigned int i;

	sum_recs(val, &tick);
	for (i = 0; i < g.n; i++) {
		d = val[i] >= iv->last[i] ? val[i] - iv->last[i] : 0;
		iv->last[i] = val[i];
		if (iv->json) {
			fprintf(iv->out, "{\"interval\": %.6f, \"event\": ", t);
			json_str(iv->out, g.evs[i].label);
			fprintf(iv->out, ", \"count\": %llu}\n",
				(unsigned long long)d);
		} else if (iv->sep) {
			fprintf(iv->out, "%.6f%s%llu%s%s\n", t, iv->sep,
				(unsigned long long)d, iv->sep,
				g.evs[i].label);
		} else {
			fprintf(iv->out, " %14.6f %20llu      %s\n", t,
				(unsigned long long)d, g.evs[i].label);
		}
	}
	fflush(iv->out);
}

static void *interval_thread(void *arg)
{
	struct interval *iv = arg;
	struct timespec next = iv->t0;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (!iv->json && !iv->sep)
		fprintf(iv->out, "#%14s %20s      %s\n", "time", "counts",
			"event");
	while (!atomic_load(&iv->stop)) {
		next.tv_sec += g.msec / 1000;
		next.tv_nsec += (long)(g.msec % 1000) * 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		if (atomic_load(&iv->stop))
			break;
		print_interval(iv);
	}
	return NULL;
}

/* --- the subcommand -------------------------------------------------------- */

int pctr_stat(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char **lists = NULL, *sep = NULL, *outfile = NULL, **cmd, *end;
	unsigned int nlists = 0, n, i, k, nr;
	int c, json = 0, list = 0, per_thread = 0, err, ret;
	struct ev evs[PCTR_NUM];
	struct result r = { 0 };
	struct interval iv = { 0 };
	struct timespec t0, t1;
	pthread_t ivth;
	struct rusage ru;
	uint64_t tick;
	pid_t attach = 0;
	long v;
	pctx_t *pctx;
	pctr_t *p;
	FILE *out = stderr;

	/* Options end at the first word that is not one: the command. */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:x:o:lhtI:p:", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'e':
			lists = realloc(lists, (nlists + 1) * sizeof(*lists));
			if (!lists)
				fail(EXIT_FAIL, "out of memory");
			lists[nlists++] = optarg;
			break;
		case 'x':
			if (!*optarg)
				fail(EXIT_USAGE, "-x: an empty separator");
			sep = optarg;
			break;
		case 'o':
			outfile = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'l':
			list = 1;
			break;
		case 't':
			per_thread = 1;
			break;
		case 'I':
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < 10 || v > 3600000)
				fail(EXIT_USAGE, "-I %s: an interval in milliseconds, 10 to 3600000",
				     optarg);
			g.msec = (unsigned int)v;
			break;
		case 'p':
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v <= 0 || v > INT_MAX)
				fail(EXIT_USAGE, "-p %s: not a process id",
				     optarg);
			attach = (pid_t)v;
			break;
		case 'h':
			return stat_usage(stdout, 0);
		default:
			fprintf(stderr, "%s: unknown option or missing argument: '%s'\n",
				prog, argv[optind - 1]);
			return stat_usage(stderr, EXIT_USAGE);
		}
	}
	cmd = argv + optind;
	if (sep && json) {
		fprintf(stderr, "%s: -x and --json exclude each other\n", prog);
		return stat_usage(stderr, EXIT_USAGE);
	}
	if (attach && *cmd) {
		fprintf(stderr, "%s: -p and a command exclude each other\n",
			prog);
		return stat_usage(stderr, EXIT_USAGE);
	}
	if (!list && !*cmd && !attach) {
		fprintf(stderr, "%s: no command to run\n", prog);
		return stat_usage(stderr, EXIT_USAGE);
	}
	if (list && (*cmd || attach))
		return stat_usage(stderr, EXIT_USAGE);

	p = pctr_open(O_RDWR);
	if (!p) {
		err = errno;
		fprintf(stderr, "%s: open %s: %s\n", prog,
			getenv("PCTR_DEVICE") && *getenv("PCTR_DEVICE") ?
			getenv("PCTR_DEVICE") : PCTR_DEVICE, pctr_strerror(err));
		return EXIT_FAIL;
	}
	load_events(p);
	if (list) {
		list_events(p);
		return 0;
	}
	if (!(p->info.pi_caps & PCTR_CAP_COUNTERS) || !p->info.pi_ngeneral) {
		char why[128];

		fail(EXIT_FAIL, "the %s backend has no counters (%s)",
		     p->info.pi_backend,
		     pctr_backend_reason(why, sizeof(why)));
	}
	g.cpc = cpc_open(CPC_VER_CURRENT);
	if (!g.cpc)
		fail(EXIT_FAIL, "libcpc: %s", strerror(errno));
	cpc_seterrhndlr(g.cpc, cpc_errfn);
	pfm_cpc = g.cpc;
	pfm_errfn = cpc_errfn;
	n = parse_events(&p->info, lists, nlists, evs);
	check_events(p, evs, n);
	g.in = &p->info;
	g.evs = evs;
	g.n = n;
	{
		cpc_set_t *s = make_set();

		if (!s)
			fail(EXIT_USAGE, "libcpc does not take these events");
		cpc_set_destroy(g.cpc, s);
	}
	if (outfile) {
		out = fopen(outfile, "we");
		if (!out)
			fail(EXIT_FAIL, "%s: %s", outfile, strerror(errno));
	}
	g.is_main = 1;
	g.sh = mmap(NULL, sizeof(*g.sh), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g.sh == MAP_FAILED)
		fail(EXIT_FAIL, "mmap: %s", strerror(errno));

	if (attach) {
		pctx = pctx_capture(attach, NULL, 1, pctx_errfn);
		if (!pctx)
			fail(EXIT_FAIL, "cannot count process %d", (int)attach);
		g.cmd_pid = attach;
		/* Until the process ends, or ^C. */
		signal(SIGINT, on_stop_signal);
		signal(SIGTERM, on_stop_signal);
		r.attached = 1;
	} else {
		pctx = pctx_create(cmd[0], cmd, NULL, 1, pctx_errfn);
		if (!pctx) {
			err = errno;
			fprintf(stderr, "%s: %s: %s\n", prog, cmd[0],
				strerror(err));
			return err == ENOENT ? 127 : 126;
		}
		/* The command has the terminal's signals; we wait it out. */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
	}
	if (set_events(pctx))
		fail(EXIT_FAIL, "libpctx: cannot follow the process");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (g.msec) {
		iv.out = out;
		iv.sep = sep;
		iv.json = json;
		iv.t0 = t0;
		if (pthread_create(&ivth, NULL, interval_thread, &iv))
			fail(EXIT_FAIL, "cannot start the interval thread");
	}
	ret = pctx_run(pctx, g.msec, 0, g.msec ? cb_tick : NULL);
	finish_live();
	pctx_release(pctx);
	/* The processes following children end with them. */
	while (wait(NULL) > 0 || errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (g.msec) {
		atomic_store(&iv.stop, 1);
		pthread_join(ivth, NULL);
		print_interval(&iv);	/* the rest */
	}
	if (ret < 0 || g.failed)
		fprintf(stderr, "%s: counting failed for some threads\n",
			prog);

	sum_recs(r.val, &tick);
	nr = nrecs();
	r.nthreads = nr;
	for (k = 0; k < nr; k++) {
		for (i = 0; i < k; i++)
			if (g.sh->rec[i].pid == g.sh->rec[k].pid)
				break;
		if (i == k)
			r.nprocs++;
	}
	r.lost = atomic_load(&g.sh->lost);
	r.argv = attach ? NULL : cmd;
	r.pid = g.cmd_pid;
	if (attach)
		r.code = 0;
	else if (g.sh->have_status)
		r.code = g.sh->status;
	else
		r.code = EXIT_FAIL;
	r.elapsed = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	r.oncpu = p->info.pi_tsc_khz ? tick / (p->info.pi_tsc_khz * 1e3) : 0;
	if (!attach && !getrusage(RUSAGE_CHILDREN, &ru)) {
		r.have_rusage = 1;
		r.user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		r.sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
	r.have_ipc = ipc_of(&p->info, evs, n, r.val, &r.ipc);
	if (json)
		print_json(out, &p->info, evs, n, &r, per_thread);
	else if (sep)
		print_sep(out, sep, evs, n, &r, per_thread);
	else
		print_human(out, &p->info, evs, n, &r, per_thread);
	if (out != stderr && fclose(out))
		fail(EXIT_FAIL, "%s: %s", outfile, strerror(errno));
	cpc_close(g.cpc);
	pctr_close(p);
	if (!attach && (ret < 0 || g.failed) && !r.code)
		return EXIT_FAIL;
	return attach && (ret < 0 || g.failed) ? EXIT_FAIL : r.code;
}
