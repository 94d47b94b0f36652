// SPDX-License-Identifier: GPL-2.0
/*
 * cputrack: count a command or a process, thread by thread, as Solaris's
 * cputrack(1) does, on libcpc and libpctx (cpc_bind_pctx).
 *
 *   cputrack -c spec [-c spec]... [-T secs] [-N count] [-efhntvD]
 *            [-o file] command [args] | -p pid
 *
 * Every LWP (thread) of the process gets the first set bound when it
 * appears (init_lwp); each -T interval a "tick" line gives its counts
 * since the last one (or, with several sets, the counts of the set that
 * ran, and the next set is bound).  When a thread ends, its totals go
 * into the process's: "lwp_exit" lines for the thread, "exit" lines for
 * the process, "exec" lines and an exec line when it execs.  The output
 * has Solaris's columns (time, [pid,] lwp, event, [tsc,] pic0 ...), so
 * that scripts written for Solaris read it.
 *
 * Exit status: 0; 1 if counting failed; 2 for a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libcpc.h>
#include <libpctx.h>

#include "cpctool.h"
#include "../pctxfollow.h"

static struct {
	int		verbose, dotitle, dotick, followfork, followexec;
	unsigned int	msec, nsamples, nsets;
	pid_t		pid;
	FILE		*log;
} o;

static cpc_t *cpc;
static struct cpcspec *specs;

/* The sets and buffers of one LWP, or of the process's totals. */
struct grp {
	cpc_set_t	**set;		/* one per spec */
	cpc_buf_t	**acc;		/* totals per set since init */
	cpc_buf_t	**prev;		/* the last sample (one set) */
	cpc_buf_t	**scr;		/* the latest sample */
	unsigned int	cur;		/* the set bound now */
	int		bound;
};

struct pstate {
	struct grp	*lwps;		/* by LWP id - 1 */
	unsigned int	nlwps;
	struct grp	accum;		/* the ended LWPs' totals */
	int		stopped_at_exec;
	int		failed;
};

static void grp_init(struct grp *g)
{
	if (cpctool_sets(cpc, specs, o.nsets, &g->set, &g->acc, &g->prev,
			 &g->scr))
		exit(1);
	g->cur = 0;
	g->bound = 0;
}

static void grp_zero(struct grp *g)
{
	unsigned int i;

	for (i = 0; i < o.nsets; i++) {
		cpc_buf_zero(cpc, g->acc[i]);
		cpc_buf_zero(cpc, g->prev[i]);
		cpc_buf_zero(cpc, g->scr[i]);
	}
	g->cur = 0;
}

static struct grp *lwp_grp(struct pstate *st, id_t lwpid)
{
	unsigned int i;

	if (lwpid < 1)
		return NULL;
	if ((unsigned int)lwpid > st->nlwps) {
		st->lwps = realloc(st->lwps, lwpid * sizeof(*st->lwps));
		if (!st->lwps)
			cpctool_oom();
		for (i = st->nlwps; i < (unsigned int)lwpid; i++)
			st->lwps[i].set = NULL;
		st->nlwps = lwpid;
	}
	if (!st->lwps[lwpid - 1].set)
		grp_init(&st->lwps[lwpid - 1]);
	return &st->lwps[lwpid - 1];
}

/* --- output ------------------------------------------------------------- */

static void line_start(double t, pid_t pid, id_t lwpid, const char *event)
{
	fprintf(o.log, "%7.3f ", t);
	if (o.followfork)
		fprintf(o.log, "%6d ", (int)pid);
	fprintf(o.log, "%3d %10s ", (int)lwpid, event);
}

static void print_title(void)
{
	fprintf(o.log, "%7s ", "time");
	if (o.followfork)
		fprintf(o.log, "%6s ", "pid");
	fprintf(o.log, "%3s %10s ", "lwp", "event");
	if (o.dotick)
		fprintf(o.log, "%9s ", "tsc");
	fprintf(o.log, "%s\n", specs[0].hdr);
	fflush(o.log);
}

static void print_sample(pid_t pid, id_t lwpid, const char *event,
			 cpc_buf_t *buf, unsigned int set)
{
	line_start(spec_seconds(cpc_buf_hrtime(cpc, buf)), pid, lwpid, event);
	if (o.dotick)
		fprintf(o.log, "%9llu ",
			(unsigned long long)cpc_buf_tick(cpc, buf));
	spec_print_vals(o.log, cpc, buf, &specs[set], o.nsets);
	fflush(o.log);
}

/* The exec and fork lines: blank counter columns, then a comment. */
static void print_blank_cols(void)
{
	if (o.dotick)
		fprintf(o.log, "%9s ", "");
	fprintf(o.log, "%9s %9s ", "", "");
}

static void print_exec(double t, pid_t pid, const char *cmd)
{
	line_start(t, pid, 1, "exec");
	print_blank_cols();
	fprintf(o.log, "# '%s'\n", cmd && *cmd ? cmd : "(unknown)");
	fflush(o.log);
}

static void print_fork(double t, pid_t newpid, id_t lwpid, pid_t oldpid)
{
	line_start(t, oldpid, lwpid, "fork");
	print_blank_cols();
	fprintf(o.log, "# %d\n", (int)newpid);
	fflush(o.log);
}

static void warn_lwp(pid_t pid, const char *where, id_t lwpid)
{
	int err = errno;

	if (err == EAGAIN)
		fprintf(stderr, "%6d: %s: lwp%d: perf counter contents invalidated\n",
			(int)pid, where, (int)lwpid);
	else
		fprintf(stderr, "%6d: %s: lwp%d: can't access perf counters - %s\n",
			(int)pid, where, (int)lwpid, strerror(err));
}

/* --- the callbacks ------------------------------------------------------ */

static int cb_init_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct pstate *st = arg;
	struct grp *g = lwp_grp(st, lwpid);

	if (!g)
		return -1;
	grp_zero(g);
	if (cpc_bind_pctx(cpc, pctx, lwpid, g->set[0], 0) ||
	    cpc_set_sample(cpc, g->set[0], g->prev[0])) {
		fprintf(stderr, "%6d: init_lwp: can't bind perf counters to lwp%d - %s\n",
			(int)pid, (int)lwpid, strerror(errno));
		st->failed = 1;
		return -1;
	}
	g->bound = 1;
	if (o.verbose)
		print_sample(pid, lwpid, "init_lwp", g->prev[0], 0);
	return 0;
}

static int cb_fini_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct pstate *st = arg;
	struct grp *g = lwp_grp(st, lwpid);
	unsigned int c, i;

	if (!g || !g->bound)
		return 0;
	c = g->cur;
	if (cpc_set_sample(cpc, g->set[c], g->scr[c])) {
		warn_lwp(pid, "fini_lwp", lwpid);
		st->failed = 1;
		return -1;
	}
	/* One set: the sample is the total; several: add the last stint. */
	if (o.nsets == 1)
		cpc_buf_copy(cpc, g->acc[c], g->scr[c]);
	else
		cpc_buf_add(cpc, g->acc[c], g->acc[c], g->scr[c]);
	if (o.verbose)
		print_sample(pid, lwpid, "fini_lwp", g->acc[c], c);
	for (i = 0; i < o.nsets; i++)
		cpc_buf_add(cpc, st->accum.acc[i], st->accum.acc[i],
			    g->acc[i]);
	cpc_unbind(cpc, g->set[c]);
	g->bound = 0;
	return 0;
}

static int cb_lwp_create(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct pstate *st = arg;

	/* Solaris prints zeros, at the time of the event. */
	cpc_buf_zero(cpc, st->accum.scr[0]);
	print_sample(pid, lwpid, "lwp_create", st->accum.scr[0], 0);
	return 0;
}

static int cb_lwp_exit(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct pstate *st = arg;
	struct grp *g = lwp_grp(st, lwpid);
	unsigned int i;

	if (!g)
		return 0;
	for (i = 0; i < o.nsets; i++)
		if (cpc_buf_hrtime(cpc, g->acc[i]))
			print_sample(pid, lwpid, "lwp_exit", g->acc[i], i);
	return 0;
}

/* The process's totals under @event; the latest time among them. */
static double print_accum(struct pstate *st, pid_t pid, id_t lwpid,
			  const char *event)
{
	hrtime_t last = 0, t;
	unsigned int i;

	for (i = 0; i < o.nsets; i++) {
		t = cpc_buf_hrtime(cpc, st->accum.acc[i]);
		if (!t)
			continue;
		print_sample(pid, lwpid, event, st->accum.acc[i], i);
		if (t > last)
			last = t;
	}
	return last ? spec_seconds(last) : 0.0;
}

static int cb_exec(pctx_t *pctx, pid_t pid, id_t lwpid, char *cmd, void *arg)
{
	struct pstate *st = arg;
	double t;

	t = print_accum(st, pid, lwpid, "exec");
	print_exec(t, pid, cmd);
	grp_zero(&st->accum);
	if (o.followexec)
		return 0;
	st->stopped_at_exec = 1;
	return -1;
}

static void cb_exit(pctx_t *pctx, pid_t pid, id_t lwpid, int status,
		    void *arg)
{
	struct pstate *st = arg;

	print_accum(st, pid, lwpid, "exit");
	grp_zero(&st->accum);
}

static int cb_tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct pstate *st = arg;
	struct grp *g = lwp_grp(st, lwpid);
	unsigned int c;
	cpc_buf_t *tmp;

	if (!g || !g->bound)
		return 0;
	c = g->cur;
	if (o.nsets == 1) {
		/* The counts since the last sample. */
		tmp = g->acc[0];
		if (cpc_set_sample(cpc, g->set[0], g->scr[0]))
			goto broken;
		cpc_buf_sub(cpc, tmp, g->scr[0], g->prev[0]);
		cpc_buf_copy(cpc, g->prev[0], g->scr[0]);
		print_sample(pid, lwpid, "tick", tmp, 0);
		/* acc is the total since init at fini_lwp: the sample. */
		cpc_buf_copy(cpc, g->acc[0], g->scr[0]);
		return 0;
	}
	/* Several sets: this one's stint, then the next set. */
	if (cpc_set_sample(cpc, g->set[c], g->scr[c]))
		goto broken;
	cpc_buf_add(cpc, g->acc[c], g->acc[c], g->scr[c]);
	g->cur = (c + 1) % o.nsets;
	if (cpc_bind_pctx(cpc, pctx, lwpid, g->set[g->cur], 0)) {
		g->bound = 0;
		goto broken;
	}
	print_sample(pid, lwpid, "tick", g->scr[c], c);
	return 0;
broken:
	warn_lwp(pid, "tick", lwpid);
	st->failed = 1;
	return -1;
}

static void st_init(struct pstate *st)
{
	memset(st, 0, sizeof(*st));
	grp_init(&st->accum);
}

static int set_events(pctx_t *pctx);

/*
 * In a new controlling process (libpctx's fork): the child's line, and
 * with -f, the child followed as the parent is, to its end.
 */
static void cb_fork(pctx_t *pctx, pid_t oldpid, id_t newpid, pid_t lwpid,
		    void *arg)
{
	struct pstate *st = arg;

	print_fork(spec_seconds(0), (pid_t)newpid, (id_t)lwpid, oldpid);
	if (!o.followfork)
		return;
	/* A fresh state: this process's copy of the parent's is not ours. */
	st_init(st);
	if (set_events(pctx))
		return;
	pctx_run(pctx, o.msec, o.nsamples, cb_tick);
	/* Children of the child are followed by processes of ours. */
	pctx_reap_followers();
}

static int set_events(pctx_t *pctx)
{
	static const struct pctx_callbacks cb = {
		.exec = cb_exec, .fork = cb_fork, .exit = cb_exit,
		.lwp_create = cb_lwp_create, .lwp_exit = cb_lwp_exit,
		.init_lwp = cb_init_lwp, .fini_lwp = cb_fini_lwp,
	};

	return pctx_callbacks_set(pctx, &cb);
}

static void pctx_errfn(const char *fn, const char *fmt, va_list ap)
{
	spec_errfn(fn, -1, fmt, ap);
}

static void on_signal(int sig)
{
	cpc_terminate(cpc);
}

/* Without -e: the command runs on, untouched, until it ends. */
static int noted_exit;

static void cb_noted_exit(pctx_t *pctx, pid_t pid, id_t lwpid, int status,
			  void *arg)
{
	noted_exit = 1;
}

static void run_untracked(pctx_t *pctx)
{
	if (pctx_set_events(pctx, PCTX_SYSC_EXIT_EVENT, cb_noted_exit,
			    PCTX_NULL_EVENT))
		return;
	while (!noted_exit)
		if (pctx_run(pctx, 0, 0, NULL) < 0)
			break;
}

static int print_help(FILE *f, int status)
{
	fprintf(f,
		"Usage:\n\t%s [-T secs] [-N count] [-Defhntv] [-o file]\n"
		"\t\t-c events [command [args] | -p pid]\n\n"
		"\t-T secs\t  seconds between samples, default 1\n"
		"\t-N count  number of samples, default unlimited\n"
		"\t-D\t  enable debug mode\n"
		"\t-e\t  follow exec(2), and execve(2)\n"
		"\t-f\t  follow fork(2), and vfork(2)\n"
		"\t-h\t  print extended usage information\n"
		"\t-n\t  suppress titles\n"
		"\t-t\t  include virtualized tsc register\n"
		"\t-v\t  verbose mode\n"
		"\t-o file\t  write cpu statistics to this file\n"
		"\t-c events specify processor events to be monitored\n"
		"\t-p pid\t  pid of existing process to capture\n\n"
		"\tUse cpustat(8) to monitor system-wide statistics.\n",
		spec_prog);
	return status;
}

int main(int argc, char **argv)
{
	struct pstate state;
	int c, errs = 0, help = 0, ret;
	char *end, *outfile = NULL, **texts = NULL;
	unsigned int ntexts = 0;
	double secs;
	long n;
	pctx_t *pctx;

	cpctool_init(argv[0]);
	o.msec = 1000;
	o.dotitle = 1;
	o.log = stdout;
	opterr = 0;
	while ((c = getopt(argc, argv, "+T:N:Defhntvo:c:p:")) != -1) {
		switch (c) {
		case 'T':
			secs = strtod(optarg, &end);
			if (end == optarg || *end || secs < 0 ||
			    secs * 1000.0 > UINT_MAX) {
				fprintf(stderr, "%s: invalid interval '%s'\n",
					spec_prog, optarg);
				errs++;
			}
			o.msec = (unsigned int)(secs * 1000.0);
			break;
		case 'N':
			n = strtol(optarg, &end, 10);
			if (end == optarg || *end || n < 0 || n > INT_MAX) {
				fprintf(stderr, "%s: invalid count '%s'\n",
					spec_prog, optarg);
				errs++;
			}
			o.nsamples = (unsigned int)n;
			break;
		case 'D':
			break;
		case 'e':
			o.followexec = 1;
			break;
		case 'f':
			o.followfork = 1;
			break;
		case 'h':
			help = 1;
			break;
		case 'n':
			o.dotitle = 0;
			break;
		case 't':
			o.dotick = 1;
			break;
		case 'v':
			o.verbose = 1;
			break;
		case 'o':
			outfile = optarg;
			break;
		case 'c':
			cpctool_add_spec(&texts, &ntexts, optarg);
			break;
		case 'p':
			n = strtol(optarg, &end, 10);
			if (end == optarg || *end || n <= 0 || n > INT_MAX) {
				fprintf(stderr, "%s: invalid pid '%s'\n",
					spec_prog, optarg);
				errs++;
			}
			o.pid = (pid_t)n;
			break;
		default:
			cpctool_bad_option(argv[optind - 1]);
			errs++;
			break;
		}
	}
	if (!errs && !help && ntexts && argc == optind && !o.pid) {
		fprintf(stderr, "%s: no program to start, and no -p pid\n",
			spec_prog);
		errs++;
	}
	if (!errs && !help && argc > optind && o.pid) {
		fprintf(stderr, "%s: a command and -p exclude each other\n",
			spec_prog);
		errs++;
	}
	/* The device only now: usage errors and -h need none. */
	if (!errs && (ntexts || help)) {
		cpc = cpctool_open("performance counter library", help);
		if (!cpc && !help)
			return 1;
	}
	if (help) {
		print_help(stdout, 0);
		if (cpc) {
			putchar('\n');
			cpctool_capabilities(cpc, stdout);
		}
		return 0;
	}
	if (!errs && cpctool_parse(cpc, texts, ntexts, &specs, &o.nsets))
		errs++;
	if (!errs && !o.nsets)
		fprintf(stderr, "%s: no events: give them with -c\n", spec_prog);
	if (errs || !o.nsets || (argc == optind && !o.pid) ||
	    (argc > optind && o.pid))
		return print_help(stderr, 2);
	if (o.nsamples == 0)
		o.nsamples = UINT_MAX;
	if (outfile) {
		o.log = fopen(outfile, "we");
		if (!o.log) {
			fprintf(stderr, "%s: cannot open '%s' for writing\n",
				spec_prog, outfile);
			return 1;
		}
	}
	setvbuf(o.log, NULL, _IOLBF, 0);

	st_init(&state);
	if (o.pid) {
		pctx = pctx_capture(o.pid, &state, 1, pctx_errfn);
		if (!pctx) {
			fprintf(stderr, "%s: failed to capture pid %d\n",
				spec_prog, (int)o.pid);
			return 1;
		}
	} else {
		pctx = pctx_create(argv[optind], &argv[optind], &state, 1,
				   pctx_errfn);
		if (!pctx) {
			fprintf(stderr, "%s: failed to start program '%s'\n",
				spec_prog, argv[optind]);
			return 1;
		}
	}
	if (set_events(pctx)) {
		fprintf(stderr, "%s: can't bind process context ops to process\n",
			spec_prog);
		pctx_release(pctx);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	if (o.dotitle)
		print_title();
	spec_zerotime();
	ret = pctx_run(pctx, o.msec, o.nsamples, cb_tick);
	if (ret && state.stopped_at_exec && !state.failed) {
		run_untracked(pctx);
		ret = 0;
	}
	pctx_release(pctx);
	/* Processes of ours that follow children (-f) end with them. */
	pctx_reap_followers();
	if (o.log != stdout && fclose(o.log)) {
		fprintf(stderr, "%s: %s: %s\n", spec_prog, outfile,
			strerror(errno));
		ret = -1;
	}
	cpc_close(cpc);
	return ret || state.failed ? 1 : 0;
}
