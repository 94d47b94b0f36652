/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pctr stat's parts, private to it: the subcommand and its events
 * (stat.c), the counting through libpctx (stat_count.c) and the output
 * formats (stat_print.c).
 */
#ifndef _PCTR_TOOLS_STAT_INTERNAL_H
#define _PCTR_TOOLS_STAT_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <sys/types.h>

#include <libcpc.h>
#include <libpctx.h>

#include "pctr.h"
#include "fail.h"

#define EXIT_FAIL	1
#define EXIT_USAGE	2

extern const char *const stat_prog;

#define fail(status, ...)	tool_fail(stat_prog, status, __VA_ARGS__)

/* The bits of a raw function -e takes: no mode, no enable. */
#define RAW_BITS	(PCTR_EVENT_MASK | PCTR_UM_MASK | PCTR_CM_MASK | \
			 PCTR_E | PCTR_I | PCTR_EVENT_HI_MASK)

/* One counted event. */
struct ev {
	char		label[80];	/* as printed: name:mode */
	char		name[64];	/* the backend's name, or "raw" */
	uint64_t	fn;		/* with mode and PCTR_EN */
	unsigned int	slot;
	uint64_t	count;
};

/* --- stat_count.c: the counting, through libpctx ------------------------ */

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
	/* each event's enabled and running times (0: not known) */
	uint64_t	en[PCTR_NUM];
	uint64_t	run[PCTR_NUM];
};

/*
 * Count @evs (@n, tried by check_events()) with @cpc on backend @in,
 * sampling every @msec (-I; 0: only at the end).  0, or -1 when libcpc
 * does not take the events.
 */
int count_init(cpc_t *cpc, const struct pctr_info *in, struct ev *evs,
	       unsigned int n, unsigned int msec);

/* The records' shared memory; fails on error. */
void count_share(void);

/*
 * Follow @pctx's process: @pid is the one attached to (-p), 0 for a
 * command (its pid comes with its first thread).  0, or -1.
 */
int count_follow(pctx_t *pctx, pid_t pid);

/*
 * Run @pctx to its end and wait for the processes following children;
 * pctx_run's result.
 */
int count_run(pctx_t *pctx);

/* libcpc's and libpctx's error handlers: "pctr stat: message". */
void count_cpc_errfn(const char *fn, int subcode, const char *fmt,
		     va_list ap);
void count_pctx_errfn(const char *fn, const char *fmt, va_list ap);

/*
 * The records so far, and how many; the sum of their counts in @val,
 * of their run times in *@tick.  With @pct, a thread's count whose
 * counter ran only part of the time it was enabled (a CPU binding held
 * it) is scaled up as perf stat does, and each event's share of enabled
 * time it ran, in percent, goes in @pct (100 if all, or if not known).
 */
const struct rec *count_recs(unsigned int *n);
void count_sum(uint64_t *val, uint64_t *tick, double *pct);

/* How it ended. */
struct count_end {
	pid_t		pid;		/* the command's (or -p's) */
	int		have_status;
	int		status;		/* the command's exit, as libpctx's */
	unsigned int	lost;		/* threads beyond MAX_RECS */
	int		failed;		/* some thread could not be counted */
};

void count_end(struct count_end *e);

/* --- stat_print.c: the output ------------------------------------------- */

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
	uint64_t	val[PCTR_NUM];	/* the sums, scaled */
	double		pct[PCTR_NUM];	/* of enabled time counted (100: all) */
	const struct rec *rec;		/* each thread's, with -t */
	unsigned int	nrecs;
};

/* IPC of @val (by event), if instructions and cycles are both there. */
int ipc_of(const struct pctr_info *in, const struct ev *evs, unsigned int n,
	   const uint64_t *val, double *ipc);

void print_human(FILE *f, const struct pctr_info *in, const struct ev *evs,
		 unsigned int n, const struct result *r, int per_thread);
void print_sep(FILE *f, const char *sep, const struct ev *evs,
	       unsigned int n, const struct result *r, int per_thread);
void print_json(FILE *f, const struct pctr_info *in, const struct ev *evs,
		unsigned int n, const struct result *r, int per_thread);
void print_openmetrics(FILE *f, const struct pctr_info *in,
		       const struct ev *evs, unsigned int n,
		       const struct result *r, int per_thread);

/* -I: a line per interval, from a thread of pctr stat's own. */
struct interval {
	FILE		*out;
	const char	*sep;
	int		json;
	const char	*textfile;	/* rewritten instead of lines */
	const struct pctr_info *in;
	const struct ev	*evs;
	unsigned int	n;
	unsigned int	msec;
	atomic_int	stop;
	struct timespec	t0;
	uint64_t	last[PCTR_NUM];
};

void print_interval(struct interval *iv);
void write_textfile(const char *path, const struct pctr_info *in,
		    const struct ev *evs, unsigned int n, const uint64_t *val,
		    uint64_t tick, double elapsed, int running);
void *interval_thread(void *arg);

#endif /* _PCTR_TOOLS_STAT_INTERNAL_H */
