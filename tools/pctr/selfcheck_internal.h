/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pctr selfcheck's parts, private to it: the driver, the calibrated loop
 * and the verdicts (selfcheck.c), the measurements over loop pairs
 * (selfcheck_measure.c), perf's counts of the same loops
 * (selfcheck_perf.c), and each backend's checks with the isolation check
 * they share (selfcheck_backends.c).
 */
#ifndef _PCTR_SELFCHECK_INTERNAL_H
#define _PCTR_SELFCHECK_INTERNAL_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "events.h"
#include "pctr.h"

#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __noinline	__attribute__((noinline))
#define ARRAY_SIZE(x)	(sizeof(x) / sizeof((x)[0]))

#define SC_REPS		7		/* loop pairs per measurement */
#define SC_TRIES	(4 * SC_REPS)	/* most pairs run to get them */
#define SC_PERF_REPS	3		/* loop pairs run under perf */
#define SC_TARGET_NS	10000000ULL	/* the short loop: about 10 ms */
#define SC_MIN_LOOP	1000UL
#define SC_MAX_LOOP	(1UL << 30)

#define SC_TOL_COUNT	0.001		/* instructions, branches */
#define SC_TOL_PERF	0.005		/* pctr against perf */
#define SC_TOL_REF	0.10		/* reference cycles against the TSC */
#define SC_TOL_SIM	0.02		/* sim_ticks against the TSC */
#define SC_RATIO_MIN	0.1		/* core cycles per TSC tick */
#define SC_RATIO_MAX	10.0

#define SC_ISO_SHORT_NS	10000000L	/* the sleeping thread: 10 ms, */
#define SC_ISO_EXTRA_NS	100000000L	/* then 100 ms more */
#define SC_ISO_REPS	3
#define SC_ISO_TOL	0.01		/* of what the busy thread counts */
#define SC_ISO_CHUNK	10000UL		/* busy loop between flag checks */

#if defined(__x86_64__) || defined(__i386__)
#define SC_HAVE_LOOP	1		/* sc_loop() has exact counts */
#else
#define SC_HAVE_LOOP	0
#endif

struct sc {
	pctr_t		*p;
	bool		verbose;
	bool		use_perf;
	bool		readonly;	/* no write access to the device */
	unsigned long	n1, n2;		/* the short and the long loop */
	double		tsc_mhz;	/* TSC rate, kernel's or measured */
	uint32_t	programmed;	/* slots this thread has set */
	int		cpu;		/* pinned to, -1 if not pinned */
	cpu_set_t	saved;		/* affinity before pinning */
	bool		have_saved;
	bool		hinted;		/* sc_errhint() said its piece */
	struct event_table events;	/* the backend's, once read */
	unsigned int	passed, failed, skipped;
};

/* --- selfcheck.c: the loop, the verdicts, the device --------------------- */

/*
 * n iterations of "dec; jnz": 2n instructions and n branches (n - 1 of
 * them taken) retired, in user mode (see selfcheck.c).
 */
void sc_loop(unsigned long n);
uint64_t sc_now_ns(void);
/* Whether libpctr's rdtsc() reads a time-stamp counter here. */
bool sc_have_rdtsc(void);

/* "PASS name: ...", "FAIL name: ...", "SKIP name: ...", counted. */
void __printf(4, 5) sc_result(struct sc *sc, bool ok, const char *name,
			      const char *fmt, ...);
void __printf(3, 4) sc_skip(struct sc *sc, const char *name,
			    const char *fmt, ...);
double sc_abs(double x);
/* (got - want) / want, and a large error when want is 0 and got is not. */
double sc_rel(double got, double want);
/* A count against the one it must be, within a relative tolerance. */
void sc_check_count(struct sc *sc, const char *name, int64_t got,
		    int64_t want, double tol);

/* pctr_set(), and which slots this thread has set. */
int sc_set(struct sc *sc, unsigned int slot, uint64_t fn);
/* The backend's event called @name, if it lists one. */
const struct pctr_event *sc_find_event(struct sc *sc, const char *name);
uint64_t sc_general_slots(const struct sc *sc);
const char *sc_slot_name(unsigned int slot, char *buf, size_t len);
/* What to do about @err, said once per run; NULL: nothing to add. */
const char *sc_errhint(struct sc *sc, int err);
/* Setting a counter up failed for a reason that is not the backend's. */
bool sc_err_is_environment(int err);

/* --- selfcheck_measure.c: the measurements ------------------------------- */

/*
 * One counter to measure over the loop pairs: a general event, which may
 * go on any of @slots, or a fixed counter (@slots has its one bit).
 * sc_plan() gives it a slot and a pass; counters of one pass count the
 * same loops together.
 */
struct sc_meas {
	bool		wanted;
	const char	*skip;		/* why it is not measured */
	char		event[48];	/* the backend's name for it */
	bool		fallback;	/* not in the backend's table */
	uint64_t	fn;		/* with its mode bits */
	uint64_t	slots;
	int		slot;		/* -1: no slot could take it */
	unsigned int	pass;
	int		err;		/* errno of programming or reading it */
	const char	*op;		/* which of the two failed */
	int64_t		v[SC_REPS];	/* its count: long loop - short */
	int64_t		t[SC_REPS];	/* TSC ticks: long loop - short */
	bool		use[SC_REPS];	/* repetitions to judge by */
	unsigned int	used;		/* how many */
	unsigned int	clean;		/* of them, with no context switch */
	char		name[96];	/* the check's name */
};

#define SC_MEAS_MAX	8

/* A general event by the backend's name, or by its architectural code. */
void sc_want_event(struct sc *sc, struct sc_meas *m, const char *name,
		   uint64_t code, uint64_t mode);
/* Fixed counter @i, by the backend's @name for it (or NULL); @label. */
void sc_want_fixed(struct sc *sc, struct sc_meas *m, unsigned int i,
		   const char *name, const char *label, uint64_t mode);
/* The check's name: what, the event, the slot. */
void sc_name(struct sc_meas *m, const char *what);
/* The median of the @v[r] whose @use[r] is set. */
int64_t sc_median(const int64_t *v, const bool *use, unsigned int n);
/* The repetition to judge @m by, against @ref (or alone: NULL). */
unsigned int sc_pick(const struct sc_meas *m, const int64_t *ref);
/* Program, run the loop pairs, keep the differences, free. */
void sc_measure(struct sc *sc, struct sc_meas *m, unsigned int nm);
/* @m's count against the one the loops must give. */
void sc_check_exact(struct sc *sc, const struct sc_meas *m, int64_t want,
		    double tol);
/* Whether most of @m's repetitions ran without a context switch. */
bool sc_undisturbed(struct sc *sc, const struct sc_meas *m);
/* @m's count against @ref counted over the same loops. */
void sc_check_paired(struct sc *sc, const struct sc_meas *m,
		     const int64_t *ref, double tol);
/* Whether @m has a count to judge; if not, say why. */
bool sc_measured(struct sc *sc, const struct sc_meas *m);

/* --- selfcheck_perf.c: perf's counts of the same loops ------------------- */

/* The events perf counts for us, by perf's names. */
enum { SC_PERF_INS, SC_PERF_BR, SC_PERF_NEV };

extern const char *const sc_perf_event[SC_PERF_NEV];

struct sc_perf {
	bool		ok[SC_PERF_NEV];
	char		why[SC_PERF_NEV][200];	/* why not, when !ok */
	int64_t		delta[SC_PERF_NEV];	/* median: long - short loop */
};


/* perf's counts, taken before pctr programs anything. */
void sc_perf_measure(struct sc *sc, struct sc_perf *res);
/* pctr's count of the loop difference @m against perf's event @e. */
void sc_perf_compare(struct sc *sc, const struct sc_perf *perf, int e,
		     const struct sc_meas *m);

/* --- selfcheck_backends.c: each backend's checks ------------------------- */

/* Intel and AMD: counts, clocks, isolation, perf. */
void sc_check_hw(struct sc *sc, const struct sc_perf *perf);
/* The sim: its ticks against the TSC, fixed against general, isolation. */
void sc_check_sim(struct sc *sc);
/* The checks a machine with counters would run, each skipped for @why. */
void sc_skip_all(struct sc *sc, const char *why);

#endif /* _PCTR_SELFCHECK_INTERNAL_H */
