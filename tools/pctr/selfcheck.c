// SPDX-License-Identifier: GPL-2.0
/*
 * pctr selfcheck: does the backend count what it should?
 *
 * Every check runs a user-mode loop whose instruction and branch counts
 * are known exactly, at two lengths, several times, and compares the
 * difference of what the counters saw with the difference the loop
 * makes: whatever reading the counters costs is the same at both lengths
 * and cancels.  Each check takes the median of several repetitions; a
 * pair of loops during which the thread was switched out is run again.
 *
 *   intel, amd  instructions and branches retired against the loop's
 *               own counts, core cycles against the TSC (plausible
 *               ratio), Intel reference cycles against the TSC, a
 *               sleeping thread that must count nothing, and perf's
 *               counts of the same loop when perf is in PATH
 *   sim         the simulated PMU counts TSC ticks: it checks pctr's
 *               plumbing (programming, context switches, 64-bit sums,
 *               fixed and general slots), not a CPU
 *   none        nothing to check: every check is skipped, with the reason
 *
 * Documentation/selfcheck.rst says what each check means and how to read
 * a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "pctr.h"
#include "selfcheck.h"

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
#define SC_HAVE_LOOP	1		/* the loop below has exact counts */
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

/* --- the calibrated loop ----------------------------------------------- */

/*
 * n iterations of "dec; jnz": 2n instructions and n branches (n - 1 of
 * them taken) retired, all in user mode, whoever calls it: it is never
 * inlined, so every caller runs these very instructions.  n must not be
 * 0.  Elsewhere than x86 a plain loop keeps the CPU busy, with no
 * promise about its counts.
 */
static __noinline void sc_loop(unsigned long n)
{
#if SC_HAVE_LOOP
	__asm__ __volatile__("1:\n\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#else
	/* The empty asm keeps the compiler from dropping the loop. */
	for (; n; n--)
		__asm__ __volatile__("" : "+r"(n));
#endif
}

static uint64_t sc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Whether libpctr's rdtsc() reads a time-stamp counter here. */
static bool sc_have_rdtsc(void)
{
	return SC_HAVE_LOOP;
}

/* How long a loop of @n takes, in ns, and in TSC ticks in @ticks. */
static uint64_t sc_time_loop(unsigned long n, uint64_t *ticks)
{
	uint64_t t0, c0, c1, t1;

	t0 = sc_now_ns();
	c0 = rdtsc();
	sc_loop(n);
	c1 = rdtsc();
	t1 = sc_now_ns();
	*ticks = c1 - c0;
	return t1 - t0;
}

/*
 * The short loop's length: about SC_TARGET_NS on this CPU, from the
 * fastest of three timings (a preempted one is slow).  Also measures
 * the TSC rate, for when the kernel does not know it.
 */
static unsigned long sc_size_loop(struct sc *sc)
{
	unsigned long n = 100000;
	uint64_t ns, best, ticks, best_ticks;
	unsigned int i;

	while (sc_time_loop(n, &ticks) < SC_TARGET_NS / 10 && n < SC_MAX_LOOP)
		n *= 4;
	best = sc_time_loop(n, &best_ticks);
	for (i = 0; i < 2; i++) {
		ns = sc_time_loop(n, &ticks);
		if (ns < best) {
			best = ns;
			best_ticks = ticks;
		}
	}
	if (!sc->tsc_mhz && sc_have_rdtsc() && best)
		sc->tsc_mhz = (double)best_ticks * 1e3 / best;
	if (sc->verbose)
		printf("  sizing: %lu iterations took %.2f ms\n", n, best / 1e6);
	if (best)
		n = (unsigned long)((double)n * SC_TARGET_NS / best);
	if (n < SC_MIN_LOOP)
		n = SC_MIN_LOOP;
	if (n > SC_MAX_LOOP)
		n = SC_MAX_LOOP;
	return n / 1000 * 1000;
}

/* --- results ------------------------------------------------------------ */

static void sc_line(const char *verdict, const char *name, const char *fmt,
		    va_list ap)
{
	printf("%s %s: ", verdict, name);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

static void __printf(4, 5)
sc_result(struct sc *sc, bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sc_line(ok ? "PASS" : "FAIL", name, fmt, ap);
	va_end(ap);
	if (ok)
		sc->passed++;
	else
		sc->failed++;
}

static void __printf(3, 4)
sc_skip(struct sc *sc, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sc_line("SKIP", name, fmt, ap);
	va_end(ap);
	sc->skipped++;
}

static double sc_abs(double x)
{
	return x < 0 ? -x : x;
}

/* (got - want) / want, and a large error when want is 0 and got is not. */
static double sc_rel(double got, double want)
{
	if (want == 0)
		return got == 0 ? 0 : 1e9;
	return (got - want) / want;
}

/* A count against the one it must be, within a relative tolerance. */
static void sc_check_count(struct sc *sc, const char *name, int64_t got,
			   int64_t want, double tol)
{
	double off = sc_rel(got, want);

	sc_result(sc, sc_abs(off) <= tol, name,
		  "%lld vs %lld (tolerance %g%%, off by %+.4f%%)",
		  (long long)got, (long long)want, tol * 100, off * 100);
}

/* --- the device ---------------------------------------------------------- */

static int sc_set(struct sc *sc, unsigned int slot, uint64_t fn)
{
	if (pctr_set(sc->p, slot, fn) < 0)
		return -1;
	if (fn)
		sc->programmed |= 1U << slot;
	else
		sc->programmed &= ~(1U << slot);
	return 0;
}

/* Free every slot this thread has set. */
static void sc_free_all(struct sc *sc)
{
	unsigned int slot;

	for (slot = 0; slot < PCTR_NUM; slot++) {
		if (!(sc->programmed & (1U << slot)))
			continue;
		if (sc_set(sc, slot, 0) < 0)
			fprintf(stderr, "selfcheck: freeing slot %u: %s\n", slot,
				strerror(errno));
	}
}

/* The backend's event called @name, if it lists one. */
static const struct pctr_event *sc_find_event(struct sc *sc, const char *name)
{
	unsigned int failed;

	/* Once; a refusal of PCIOCEVENT ends the list. */
	if (!sc->events.ev)
		event_table_load(&sc->events, sc->p->fd, sc->p->info.pi_nevents,
				 &failed);
	return event_find(&sc->events, name);
}

static uint64_t sc_general_slots(const struct sc *sc)
{
	unsigned int n = sc->p->info.pi_ngeneral;

	if (n > PCTR_MAX_GENERAL)
		n = PCTR_MAX_GENERAL;
	return (1ULL << n) - 1;
}

static const char *sc_slot_name(unsigned int slot, char *buf, size_t len)
{
	if (slot < PCTR_FIXED_BASE)
		snprintf(buf, len, "pmc%u", slot);
	else
		snprintf(buf, len, "fixed%u", slot - PCTR_FIXED_BASE);
	return buf;
}

/* What to do about @err, said once per run; NULL: nothing to add. */
static const char *sc_errhint(struct sc *sc, int err)
{
	const char *hint;

	switch (err) {
	case EBUSY:
		hint = "the counters are in use by perf or the NMI watchdog; "
		       "free them (sysctl kernel.nmi_watchdog=0, end perf sessions) and run again";
		break;
	case EPERM:
	case EACCES:
		hint = "not permitted";
		break;
	default:
		return NULL;
	}
	if (sc->hinted)
		return NULL;
	sc->hinted = true;
	return hint;
}

/* Setting a counter up failed for a reason that is not the backend's. */
static bool sc_err_is_environment(int err)
{
	return err == EBUSY || err == EPERM || err == EACCES;
}

/* --- measurements -------------------------------------------------------- */

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
static void sc_want_event(struct sc *sc, struct sc_meas *m, const char *name,
			  uint64_t code, uint64_t mode)
{
	const struct pctr_event *ev = sc_find_event(sc, name);

	m->wanted = true;
	if (ev) {
		snprintf(m->event, sizeof(m->event), "%s", ev->pe_name);
		m->fn = ev->pe_fn | mode;
		m->slots = ev->pe_slots & sc_general_slots(sc);
	} else {
		snprintf(m->event, sizeof(m->event), "event 0x%02llx/0x%02llx",
			 (unsigned long long)(code & PCTR_EVENT_MASK),
			 (unsigned long long)((code & PCTR_UM_MASK) >>
					      PCTR_UM_SHIFT));
		m->fallback = true;
		m->fn = code | mode;
		m->slots = sc_general_slots(sc);
	}
	if (!m->slots)
		m->skip = "no general counter can count it";
}

/*
 * Fixed counter @i.  A backend with named events lists each fixed
 * counter it has under its own name (@name, NULL when it does not);
 * otherwise it has counters 0 to pi_nfixed - 1.  @label names the event
 * in the output.
 */
static void sc_want_fixed(struct sc *sc, struct sc_meas *m, unsigned int i,
			  const char *name, const char *label, uint64_t mode)
{
	const struct pctr_info *in = &sc->p->info;
	unsigned int slot = PCTR_FIXED(i);
	const struct pctr_event *ev;

	m->wanted = true;
	m->fn = mode;
	m->slots = 1ULL << slot;
	snprintf(m->event, sizeof(m->event), "%s", label);
	if (name && (ev = sc_find_event(sc, name))) {
		if (!(ev->pe_slots & m->slots))
			m->skip = "the backend lists the event on another slot";
	} else if (name && in->pi_nevents) {
		m->skip = "the backend lists no such fixed counter";
	} else if (i >= in->pi_nfixed) {
		m->skip = "no such fixed counter";
	}
}

/* Give each measurement a slot; returns how many passes that takes. */
static unsigned int sc_plan(struct sc_meas *m, unsigned int nm)
{
	uint64_t used[SC_MEAS_MAX] = { 0 };
	unsigned int i, p, npass = 0, slot;
	uint64_t free;

	for (i = 0; i < nm; i++) {
		m[i].slot = -1;
		if (!m[i].wanted || m[i].skip)
			continue;
		for (p = 0; p < SC_MEAS_MAX; p++) {
			free = m[i].slots & ~used[p];
			if (!free)
				continue;
			slot = __builtin_ctzll(free);
			used[p] |= 1ULL << slot;
			m[i].slot = slot;
			m[i].pass = p;
			if (p + 1 > npass)
				npass = p + 1;
			break;
		}
	}
	return npass;
}

/* The check's name: what, the event, the slot. */
static void sc_name(struct sc_meas *m, const char *what)
{
	char s[16];

	if (m->slot >= 0)
		snprintf(m->name, sizeof(m->name), "%s [%s, %s]", what,
			 m->event, sc_slot_name(m->slot, s, sizeof(s)));
	else
		snprintf(m->name, sizeof(m->name), "%s [%s]", what, m->event);
}

static int sc_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

_Static_assert(SC_PERF_REPS <= SC_REPS && SC_ISO_REPS <= SC_REPS,
	       "sc_median() takes at most SC_REPS values");

/* The median of the @v[r] whose @use[r] is set. */
static int64_t sc_median(const int64_t *v, const bool *use, unsigned int n)
{
	int64_t tmp[SC_REPS];
	unsigned int r, k = 0;

	for (r = 0; r < n; r++)
		if (use[r])
			tmp[k++] = v[r];
	if (!k)
		return 0;
	qsort(tmp, k, sizeof(tmp[0]), sc_cmp_i64);
	return (tmp[(k - 1) / 2] + tmp[k / 2]) / 2;
}

/*
 * The repetition to judge @m by: the median of its count against @ref
 * of the same repetition (the TSC, another counter), or of its count
 * alone when @ref is NULL.  Pairing keeps a slow repetition's count
 * with that repetition's time.
 */
static unsigned int sc_pick(const struct sc_meas *m, const int64_t *ref)
{
	unsigned int idx[SC_REPS], r, j, k = 0;
	double q[SC_REPS];

	for (r = 0; r < SC_REPS; r++) {
		if (!m->use[r])
			continue;
		q[r] = !ref ? m->v[r] : ref[r] ? (double)m->v[r] / ref[r] :
			      (m->v[r] ? 1e18 : 1);
		/* Insertion sort of the repetitions by q. */
		for (j = k++; j > 0 && q[idx[j - 1]] > q[r]; j--)
			idx[j] = idx[j - 1];
		idx[j] = r;
	}
	return k ? idx[(k - 1) / 2] : 0;
}

struct sc_sample {
	int64_t		tsc;
	uint64_t	val[PCTR_NUM];
	bool		clean;		/* no context switch while it ran */
};

static long sc_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) < 0)
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* What every slot and the TSC counted over one loop of @n. */
static int sc_sample(struct sc *sc, unsigned long n, struct sc_sample *s)
{
	struct pctrst a, b;
	uint64_t t0, t1;
	unsigned int i;
	long sw;

	sw = sc_switches();
	if (pctr_read_all(sc->p, &a) < 0)
		return -1;
	t0 = rdtsc();
	sc_loop(n);
	t1 = rdtsc();
	if (pctr_read_all(sc->p, &b) < 0)
		return -1;
	s->clean = sw >= 0 && sc_switches() == sw;
	if (sc_have_rdtsc())
		s->tsc = (int64_t)(t1 - t0);
	else
		s->tsc = (int64_t)(b.pctr_tsc - a.pctr_tsc);
	for (i = 0; i < PCTR_NUM; i++)
		s->val[i] = b.pctr_hwc[i] - a.pctr_hwc[i];
	return 0;
}

static void sc_verbose_rep(struct sc *sc, const struct sc_meas *m,
			   unsigned int nm, unsigned int pass, unsigned int r,
			   const int64_t *dt, int64_t dv[][SC_REPS],
			   const bool *clean)
{
	char s[16];
	unsigned int i;

	printf("  pass %u rep %u: tsc %lld", pass, r, (long long)dt[r]);
	for (i = 0; i < nm; i++)
		if (m[i].slot >= 0 && m[i].pass == pass && !m[i].err)
			printf(", %s %lld", sc_slot_name(m[i].slot, s,
							 sizeof(s)),
			       (long long)dv[i][r]);
	printf("%s\n", clean[r] ? "" : " (context switch)");
}

/*
 * Program the counters of @pass, run SC_REPS pairs of loops, keep the
 * median differences, free the counters.
 */
static void sc_run_pass(struct sc *sc, struct sc_meas *m, unsigned int nm,
			unsigned int pass)
{
	int64_t dt[SC_REPS], dv[SC_MEAS_MAX][SC_REPS];
	bool clean[SC_REPS], all[SC_REPS];
	struct sc_sample s1, s2;
	unsigned int i, r, tries, live = 0, nclean = 0;
	const bool *use;
	int err = 0;

	for (i = 0; i < nm; i++) {
		if (m[i].slot < 0 || m[i].pass != pass)
			continue;
		if (sc_set(sc, m[i].slot, m[i].fn) < 0) {
			m[i].err = errno;
			m[i].op = "PCIOCS";
		} else {
			live++;
		}
	}
	if (!live)
		return;

	for (r = 0, tries = 0; r < SC_REPS; tries++) {
		if (sc_sample(sc, sc->n1, &s1) < 0 ||
		    sc_sample(sc, sc->n2, &s2) < 0) {
			err = errno;
			break;
		}
		/* A context switch: run the pair again, while time allows. */
		if (!(s1.clean && s2.clean) && tries < SC_TRIES - SC_REPS + r) {
			if (sc->verbose)
				printf("  pass %u: a context switch, pair run again\n",
				       pass);
			continue;
		}
		dt[r] = s2.tsc - s1.tsc;
		clean[r] = s1.clean && s2.clean;
		all[r] = true;
		nclean += clean[r];
		for (i = 0; i < nm; i++)
			if (m[i].slot >= 0 && m[i].pass == pass)
				dv[i][r] = (int64_t)(s2.val[m[i].slot] -
						     s1.val[m[i].slot]);
		if (sc->verbose)
			sc_verbose_rep(sc, m, nm, pass, r, dt, dv, clean);
		r++;
	}

	/* Prefer the repetitions no context switch disturbed. */
	use = nclean > SC_REPS / 2 ? clean : all;
	for (i = 0; i < nm; i++) {
		if (m[i].slot < 0 || m[i].pass != pass || m[i].err)
			continue;
		sc_set(sc, m[i].slot, 0);
		if (err) {
			m[i].err = err;
			m[i].op = "PCIOCRD";
			continue;
		}
		memcpy(m[i].v, dv[i], sizeof(m[i].v));
		memcpy(m[i].t, dt, sizeof(m[i].t));
		memcpy(m[i].use, use, sizeof(m[i].use));
		m[i].used = use == clean ? nclean : SC_REPS;
		m[i].clean = nclean;
	}
}

static void sc_measure(struct sc *sc, struct sc_meas *m, unsigned int nm)
{
	unsigned int pass, npass = sc_plan(m, nm);

	for (pass = 0; pass < npass; pass++)
		sc_run_pass(sc, m, nm, pass);
}

/* @m's count against the one the loops must give. */
static void sc_check_exact(struct sc *sc, const struct sc_meas *m,
			   int64_t want, double tol)
{
	sc_check_count(sc, m->name, m->v[sc_pick(m, NULL)], want, tol);
}

/*
 * Whether most of @m's repetitions ran without a context switch, as a
 * count compared with the TSC needs: the TSC runs on while the thread
 * is switched out, the thread's counters do not.
 */
static bool sc_undisturbed(struct sc *sc, const struct sc_meas *m)
{
	if (m->clean > SC_REPS / 2)
		return true;
	sc_skip(sc, m->name,
		"only %u of %u loop pairs ran without a context switch; run again on a quieter machine",
		m->clean, SC_REPS);
	return false;
}

/* @m's count against @ref counted over the same loops. */
static void sc_check_paired(struct sc *sc, const struct sc_meas *m,
			    const int64_t *ref, double tol)
{
	unsigned int r = sc_pick(m, ref);

	sc_check_count(sc, m->name, m->v[r], ref[r], tol);
}

/*
 * Whether @m has a count to judge; if not, say why.  A setup failure
 * that is the machine's (counters busy) skips, one that is the
 * backend's (it refused its own event) fails.
 */
static bool sc_measured(struct sc *sc, const struct sc_meas *m)
{
	const char *hint;

	if (!m->wanted)
		return false;
	if (m->skip) {
		sc_skip(sc, m->name, "%s", m->skip);
		return false;
	}
	if (m->slot < 0) {
		sc_skip(sc, m->name, "no free counter");
		return false;
	}
	if (!m->err)
		return true;
	hint = sc_errhint(sc, m->err);
	if (sc_err_is_environment(m->err))
		sc_skip(sc, m->name, "%s%s%s", strerror(m->err),
			hint ? ": " : "", hint ? hint : "");
	else
		sc_result(sc, false, m->name, "%s (function %#llx): %s",
			  m->op, (unsigned long long)m->fn, strerror(m->err));
	return false;
}

/* --- perf ------------------------------------------------------------------ */

/* The events perf counts for us, by perf's names. */
enum { SC_PERF_INS, SC_PERF_BR, SC_PERF_NEV };

static const char *const sc_perf_event[SC_PERF_NEV] = {
	"instructions:u", "branches:u",
};

struct sc_perf {
	bool		ok[SC_PERF_NEV];
	char		why[SC_PERF_NEV][200];	/* why not, when !ok */
	int64_t		delta[SC_PERF_NEV];	/* median: long - short loop */
};

/* @prog's path in $PATH. */
static bool sc_which(const char *prog, char *buf, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;
	size_t n;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		n = end - p;
		if (!n)
			continue;
		snprintf(buf, len, "%.*s/%s", (int)n, p, prog);
		if (access(buf, X_OK) == 0)
			return true;
	}
	return false;
}

/* Run @argv with its stderr in @out (stdout dropped); its wait status. */
static int sc_run_capture(char *const argv[], char *out, size_t len)
{
	int pipefd[2], status, null;
	char drain[512];
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		dup2(pipefd[1], STDERR_FILENO);
		execv(argv[0], argv);
		dprintf(pipefd[1], "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	while (got + 1 < len) {
		n = read(pipefd[0], out + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	out[got] = '\0';
	/* Drain what did not fit, so the child is never stuck writing. */
	while ((n = read(pipefd[0], drain, sizeof(drain))) > 0 ||
	       (n < 0 && errno == EINTR))
		;
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

/* The first line of @text that says something, trimmed, in @buf. */
static const char *sc_first_line(const char *text, char *buf, size_t len)
{
	const char *p = text;
	size_t n;

	while (*p == '\n' || *p == ' ' || *p == '\t')
		p++;
	n = strcspn(p, "\n");
	snprintf(buf, len, "%.*s", (int)n, p);
	return buf;
}

/* Which of our events perf's event field @name is, or -1. */
static int sc_perf_which(const char *name)
{
	if (strstr(name, "instructions") && !strstr(name, "branch"))
		return SC_PERF_INS;
	if (strstr(name, "branches"))
		return SC_PERF_BR;
	return -1;
}

/*
 * perf stat -x, prints "value,unit,event,..." per event, and one line
 * per PMU on hybrid CPUs (cpu_core/..., cpu_atom/...): add up the
 * numeric ones.  What perf printed instead of a number ("<not
 * supported>", "<not counted>") is the reason when no line of the event
 * has one.  Returns a mask of the events that got a count.
 */
static unsigned int sc_perf_parse(const char *out, int64_t *val,
				  char why[][200])
{
	char line[256], *f[3], *rest;
	unsigned int nf, have = 0;
	const char *p;
	size_t n, used;
	int e;

	for (e = 0; e < SC_PERF_NEV; e++) {
		val[e] = 0;
		why[e][0] = '\0';
	}
	for (p = out; *p; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (!line[0] || line[0] == '#')
			continue;
		rest = line;
		for (nf = 0; nf < 3 && rest; nf++)
			f[nf] = strsep(&rest, ",");
		if (nf < 3)
			continue;
		e = sc_perf_which(f[2]);
		if (e < 0)
			continue;
		if (f[0][0] == '<') {
			used = strlen(why[e]);
			snprintf(why[e] + used, sizeof(why[e]) - used, "%s%s %s",
				 used ? ", " : "perf: ", f[2], f[0]);
			continue;
		}
		val[e] += strtoll(f[0], NULL, 10);
		have |= 1U << e;
	}
	for (e = 0; e < SC_PERF_NEV; e++)
		if (!(have & (1U << e)) && !why[e][0])
			snprintf(why[e], sizeof(why[e]),
				 "perf printed no count of %s",
				 sc_perf_event[e]);
	return have;
}

/*
 * One perf run of "selfcheck --loop @n": the events it counted, and in
 * @why the reason for each it did not.
 */
static unsigned int sc_perf_once(struct sc *sc, const char *perf,
				 const char *exe, unsigned long n,
				 int64_t *val, char why[][200])
{
	char out[4096], nbuf[32], line[160];
	char *argv[] = {
		(char *)perf, "stat", "-x,", "-e", "instructions:u,branches:u",
		"--", (char *)exe, "selfcheck", "--loop", nbuf, NULL,
	};
	int status, e;

	snprintf(nbuf, sizeof(nbuf), "%lu", n);
	status = sc_run_capture(argv, out, sizeof(out));
	if (sc->verbose)
		printf("  perf stat ... --loop %lu: status %d\n%s", n, status,
		       out);
	if (status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status))
		return sc_perf_parse(out, val, why);

	sc_first_line(out, line, sizeof(line));
	for (e = 0; e < SC_PERF_NEV; e++) {
		if (status < 0)
			snprintf(why[e], sizeof(why[e]), "cannot run perf: %s",
				 strerror(errno));
		else
			snprintf(why[e], sizeof(why[e]),
				 "perf failed (status %d)%s%s",
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1,
				 line[0] ? ": " : "", line);
	}
	return 0;
}

/* perf cannot compare anything, for the reason given. */
static void __printf(2, 3)
sc_perf_fail(struct sc_perf *res, const char *fmt, ...)
{
	va_list ap;
	int e;

	for (e = 0; e < SC_PERF_NEV; e++) {
		res->ok[e] = false;
		va_start(ap, fmt);
		vsnprintf(res->why[e], sizeof(res->why[e]), fmt, ap);
		va_end(ap);
	}
}

/* Keep the reason of each event @ok had and @got has not. */
static void sc_perf_lost(struct sc_perf *res, unsigned int ok,
			 unsigned int got, char why[][200])
{
	int e;

	for (e = 0; e < SC_PERF_NEV; e++)
		if ((ok & ~got) & (1U << e))
			memcpy(res->why[e], why[e], sizeof(res->why[e]));
}

/*
 * perf's counts of the same loops, taken before pctr programs anything:
 * while any thread has pctr counters, perf cannot have them.
 */
static void sc_perf_measure(struct sc *sc, struct sc_perf *res)
{
	int64_t d[SC_PERF_NEV][SC_PERF_REPS], v1[SC_PERF_NEV], v2[SC_PERF_NEV];
	unsigned int r, got, ok = (1U << SC_PERF_NEV) - 1;
	bool use[SC_PERF_REPS] = { false };
	char perf[PATH_MAX], exe[PATH_MAX];
	char why[SC_PERF_NEV][200];
	ssize_t n;
	int e;

	if (!sc->use_perf) {
		sc_perf_fail(res, "--no-perf");
		return;
	}
	if (!sc_which("perf", perf, sizeof(perf))) {
		sc_perf_fail(res, "perf not found in PATH");
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		sc_perf_fail(res, "cannot find this program's executable: %s",
			     strerror(errno));
		return;
	}
	exe[n] = '\0';

	memset(res, 0, sizeof(*res));
	for (r = 0; r < SC_PERF_REPS && ok; r++) {
		got = sc_perf_once(sc, perf, exe, sc->n1, v1, why);
		sc_perf_lost(res, ok, got, why);
		ok &= got;
		if (!ok)
			break;
		got = sc_perf_once(sc, perf, exe, sc->n2, v2, why);
		sc_perf_lost(res, ok, got, why);
		ok &= got;
		for (e = 0; e < SC_PERF_NEV; e++)
			d[e][r] = v2[e] - v1[e];
		use[r] = true;
	}
	for (e = 0; e < SC_PERF_NEV; e++) {
		res->ok[e] = ok & (1U << e);
		if (res->ok[e])
			res->delta[e] = sc_median(d[e], use, SC_PERF_REPS);
	}
}

/* pctr's count of the loop difference @m against perf's event @e. */
static void sc_perf_compare(struct sc *sc, const struct sc_perf *perf,
			    int e, const struct sc_meas *m)
{
	char name[48];
	int64_t ours;
	double off;

	snprintf(name, sizeof(name), "perf %s", sc_perf_event[e]);
	if (!perf->ok[e]) {
		sc_skip(sc, name, "%s", perf->why[e]);
		return;
	}
	if (!m->wanted || m->skip || m->slot < 0 || m->err || !m->used) {
		sc_skip(sc, name, "pctr has no count to compare");
		return;
	}
	ours = m->v[sc_pick(m, NULL)];
	off = sc_rel(ours, perf->delta[e]);
	sc_result(sc, sc_abs(off) <= SC_TOL_PERF, name,
		  "%lld (pctr %s) vs %lld (perf) (tolerance %g%%, off by %+.4f%%)",
		  (long long)ours, m->event, (long long)perf->delta[e],
		  SC_TOL_PERF * 100, off * 100);
}

/* --- isolation -------------------------------------------------------------- */

struct sc_iso {
	struct sc		*sc;
	unsigned int		slot;
	uint64_t		fn;
	pthread_barrier_t	ready;
	atomic_bool		done;
	int			err;
	int64_t			asleep;		/* median count over the long sleep */
	int64_t			more;		/* median: long sleep - short */
};

/* What @slot counts while this thread sleeps @ns. */
static int sc_sleep_count(pctr_t *p, unsigned int slot, long ns,
			  int64_t *count)
{
	struct timespec ts = { .tv_sec = ns / 1000000000L,
			       .tv_nsec = ns % 1000000000L };
	struct pctrst a, b;

	if (pctr_read_all(p, &a) < 0)
		return -1;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	if (pctr_read_all(p, &b) < 0)
		return -1;
	*count = (int64_t)(b.pctr_hwc[slot] - a.pctr_hwc[slot]);
	return 0;
}

/*
 * The sleeping thread: a short and a long sleep, a few times.  Entering
 * and leaving a sleep costs the same whatever its length; a counter that
 * kept counting while its thread was away would grow with it.
 */
static void *sc_sleeper(void *arg)
{
	int64_t s, l, asleep[SC_ISO_REPS], more[SC_ISO_REPS];
	bool use[SC_ISO_REPS];
	struct sc_iso *iso = arg;
	pctr_t *p = iso->sc->p;
	unsigned int r;

	if (pctr_set(p, iso->slot, iso->fn) < 0)
		iso->err = errno;
	pthread_barrier_wait(&iso->ready);
	for (r = 0; r < SC_ISO_REPS && !iso->err; r++) {
		if (sc_sleep_count(p, iso->slot, SC_ISO_SHORT_NS, &s) < 0 ||
		    sc_sleep_count(p, iso->slot,
				   SC_ISO_SHORT_NS + SC_ISO_EXTRA_NS, &l) < 0) {
			iso->err = errno;
			break;
		}
		asleep[r] = l;
		more[r] = l - s;
		use[r] = true;
	}
	if (!iso->err) {
		iso->asleep = sc_median(asleep, use, SC_ISO_REPS);
		iso->more = sc_median(more, use, SC_ISO_REPS);
	}
	pctr_set(p, iso->slot, 0);
	atomic_store(&iso->done, true);
	return NULL;
}

/* Run the busy loop, counting, until the sleeper is done. */
static int sc_busy(struct sc *sc, struct sc_iso *iso, uint64_t *count,
		   uint64_t *ns)
{
	struct pctrst a, b;
	uint64_t t0;
	int err = 0;

	t0 = sc_now_ns();
	if (pctr_read_all(sc->p, &a) < 0)
		err = errno;
	while (!atomic_load(&iso->done))
		sc_loop(SC_ISO_CHUNK);
	if (!err && pctr_read_all(sc->p, &b) < 0)
		err = errno;
	*ns = sc_now_ns() - t0;
	if (!err)
		*count = b.pctr_hwc[iso->slot] - a.pctr_hwc[iso->slot];
	return err;
}

/*
 * While a thread on the same CPU sleeps with a counter programmed, this
 * one runs the loop with the same counter.  A backend that left the
 * sleeper's counter running, or restored the wrong thread's values,
 * would give the sleeper the busy thread's counts.  A user-mode count
 * must stay near zero however long the sleep; one that counts the
 * kernel too (the sim) pays for going to sleep and waking, so what
 * must stay near zero is what 100 ms more sleep adds.
 */
static void sc_check_isolation(struct sc *sc, const struct sc_meas *m)
{
	struct sc_iso iso = { .sc = sc, .fn = m->fn, .slot = m->slot };
	bool kernel = m->fn & PCTR_K;
	const char *hint;
	uint64_t busy = 0, ns = 0;
	char name[96], s[16];
	double limit;
	int64_t got;
	long span;
	pthread_t t;
	int err;

	snprintf(name, sizeof(name), "isolation [%s, %s]", m->event,
		 sc_slot_name(m->slot, s, sizeof(s)));
	atomic_init(&iso.done, false);
	if (sc_set(sc, m->slot, m->fn) < 0) {
		err = errno;
		goto out;
	}
	pthread_barrier_init(&iso.ready, NULL, 2);
	err = pthread_create(&t, NULL, sc_sleeper, &iso);
	if (!err) {
		pthread_barrier_wait(&iso.ready);
		err = sc_busy(sc, &iso, &busy, &ns);
		pthread_join(t, NULL);
		if (!err)
			err = iso.err;
	}
	pthread_barrier_destroy(&iso.ready);
	sc_set(sc, m->slot, 0);
out:
	if (err) {
		hint = sc_errhint(sc, err);
		if (sc_err_is_environment(err))
			sc_skip(sc, name, "%s%s%s", strerror(err),
				hint ? ": " : "", hint ? hint : "");
		else
			sc_result(sc, false, name, "%s", strerror(err));
		return;
	}

	/* What the busy thread counted in as long as the sleep judged. */
	span = kernel ? SC_ISO_EXTRA_NS : SC_ISO_SHORT_NS + SC_ISO_EXTRA_NS;
	limit = ns ? (double)busy * span / ns * SC_ISO_TOL : 0;
	got = kernel ? iso.more : iso.asleep;
	if (sc->verbose)
		printf("  isolation: sleeper %lld over %ld ms asleep, %+lld over %ld ms more; busy thread %llu in %.1f ms%s\n",
		       (long long)iso.asleep,
		       (SC_ISO_SHORT_NS + SC_ISO_EXTRA_NS) / 1000000,
		       (long long)iso.more, SC_ISO_EXTRA_NS / 1000000,
		       (unsigned long long)busy, ns / 1e6,
		       sc->cpu < 0 ? " (threads not pinned)" : "");
	sc_result(sc, busy > 0 && sc_abs(got) <= limit, name,
		  "%lld vs 0 (%s %ld ms %s; tolerance %.0f = %g%% of the busy thread's count in %ld ms)",
		  (long long)got, kernel ? "added by" : "counted over",
		  span / 1000000, kernel ? "more sleep" : "asleep", limit,
		  SC_ISO_TOL * 100, span / 1000000);
}

/* --- the backends' checks --------------------------------------------------- */

/* How each x86 backend names the events, and their architectural codes. */
enum { SC_INS, SC_BR, SC_CYC, SC_NEV };

struct sc_x86_events {
	const char	*name[SC_NEV];
	uint64_t	code[SC_NEV];
};

static const struct sc_x86_events sc_intel_events = {
	.name = { "INSTRUCTION_RETIRED", "BRANCH_INSTRUCTIONS_RETIRED",
		  "UNHALTED_CORE_CYCLES" },
	.code = { PCTR_FN(0xc0, 0x00, 0), PCTR_FN(0xc4, 0x00, 0),
		  PCTR_FN(0x3c, 0x00, 0) },
};

static const struct sc_x86_events sc_amd_events = {
	.name = { "RETIRED_INSTRUCTIONS", "RETIRED_BRANCH_INSTRUCTIONS",
		  "CYCLES_NOT_IN_HALT" },
	.code = { PCTR_FN(0xc0, 0, 0), PCTR_FN(0xc2, 0, 0),
		  PCTR_FN(0x76, 0, 0) },
};

/* Intel's fixed counters 0, 1 and 2, as the Intel backend names them. */
static const char *const sc_intel_fixed[] = {
	"INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD",
	"CPU_CLK_UNHALTED.REF_TSC",
};

enum {
	M_FIX_INS, M_INS, M_BR, M_CYC, M_FIX_CYC, M_FIX_REF, M_HW_MAX
};

static const unsigned int sc_intel_fixed_meas[] = {
	M_FIX_INS, M_FIX_CYC, M_FIX_REF,
};

/* Core cycles per TSC tick: plausible, and what clock that makes. */
static void sc_check_cycles(struct sc *sc, const struct sc_meas *m)
{
	unsigned int r;
	double ratio;

	if (!sc_measured(sc, m) || !sc_undisturbed(sc, m))
		return;
	r = sc_pick(m, m->t);
	ratio = m->t[r] > 0 ? (double)m->v[r] / m->t[r] : 0;
	sc_result(sc, ratio >= SC_RATIO_MIN && ratio <= SC_RATIO_MAX, m->name,
		  "%.3f cycles per TSC tick (%.0f MHz) vs TSC %.0f MHz (ratio %g..%g)",
		  ratio, ratio * sc->tsc_mhz, sc->tsc_mhz, SC_RATIO_MIN,
		  SC_RATIO_MAX);
}

/* What the Intel or AMD checks measure, named as the backend names it. */
static void sc_hw_want(struct sc *sc, struct sc_meas *m, bool intel)
{
	const struct sc_x86_events *ev = intel ? &sc_intel_events :
						 &sc_amd_events;
	const uint64_t mode = PCTR_U | PCTR_EN;
	unsigned int i;

	memset(m, 0, M_HW_MAX * sizeof(*m));
	sc_want_event(sc, &m[M_INS], ev->name[SC_INS], ev->code[SC_INS], mode);
	sc_want_event(sc, &m[M_BR], ev->name[SC_BR], ev->code[SC_BR], mode);
	sc_want_event(sc, &m[M_CYC], ev->name[SC_CYC], ev->code[SC_CYC], mode);
	if (intel)
		for (i = 0; i < 3; i++)
			sc_want_fixed(sc, &m[sc_intel_fixed_meas[i]], i,
				      sc_intel_fixed[i], sc_intel_fixed[i],
				      mode);
}

static void sc_hw_verbose(struct sc *sc, const struct sc_meas *m)
{
	unsigned int i;

	for (i = 0; i < M_HW_MAX; i++)
		if (m[i].wanted && m[i].slot >= 0)
			printf("  %s: function %#llx, pass %u, %u of %u repetitions used%s\n",
			       m[i].name, (unsigned long long)m[i].fn,
			       m[i].pass, m[i].used, SC_REPS,
			       m[i].fallback ? ", not in the backend's table" : "");
}

static void sc_check_hw(struct sc *sc, const struct sc_perf *perf)
{
	bool intel = sc->p->info.pi_backend_id == PCTR_BACKEND_INTEL;
	int64_t loop = sc->n2 - sc->n1;
	struct sc_meas m[M_HW_MAX];
	const struct sc_meas *ins;

	sc_hw_want(sc, m, intel);
	sc_measure(sc, m, M_HW_MAX);
	sc_name(&m[M_FIX_INS], "instructions");
	sc_name(&m[M_INS], "instructions");
	sc_name(&m[M_BR], "branches");
	sc_name(&m[M_CYC], "cycles");
	sc_name(&m[M_FIX_CYC], "cycles");
	sc_name(&m[M_FIX_REF], "ref-cycles");
	if (sc->verbose)
		sc_hw_verbose(sc, m);

	/* The loop retires 2 instructions and 1 branch per iteration. */
	if (!intel)
		sc_skip(sc, "instructions [fixed0]", "AMD has no fixed counters");
	else if (sc_measured(sc, &m[M_FIX_INS]))
		sc_check_exact(sc, &m[M_FIX_INS], 2 * loop, SC_TOL_COUNT);
	if (sc_measured(sc, &m[M_INS]))
		sc_check_exact(sc, &m[M_INS], 2 * loop, SC_TOL_COUNT);
	if (sc_measured(sc, &m[M_BR]))
		sc_check_exact(sc, &m[M_BR], loop, SC_TOL_COUNT);

	/* Clocks: core cycles vary with the frequency, TSC ticks do not. */
	sc_check_cycles(sc, &m[M_CYC]);
	if (intel)
		sc_check_cycles(sc, &m[M_FIX_CYC]);
	if (!intel)
		sc_skip(sc, "ref-cycles [fixed2]", "AMD has no fixed counters");
	else if (sc_measured(sc, &m[M_FIX_REF]) &&
		 sc_undisturbed(sc, &m[M_FIX_REF]))
		sc_check_paired(sc, &m[M_FIX_REF], m[M_FIX_REF].t,
				SC_TOL_REF);

	if (m[M_INS].slot >= 0 && !m[M_INS].err)
		sc_check_isolation(sc, &m[M_INS]);
	else
		sc_skip(sc, "isolation", "%s",
			m[M_INS].err ? strerror(m[M_INS].err) :
				       "no instruction counter to use");

	ins = m[M_INS].used ? &m[M_INS] : &m[M_FIX_INS];
	sc_perf_compare(sc, perf, SC_PERF_INS, ins);
	sc_perf_compare(sc, perf, SC_PERF_BR, &m[M_BR]);
}

enum { M_SIM, M_SIM_FIX, M_SIM_MAX };

static void sc_check_sim(struct sc *sc)
{
	const uint64_t mode = PCTR_U | PCTR_K | PCTR_EN;
	struct sc_meas m[M_SIM_MAX], *gen = &m[M_SIM], *fix = &m[M_SIM_FIX];
	char s[16];

	memset(m, 0, sizeof(m));
	sc_want_event(sc, gen, "sim_ticks", PCTR_FN(0x01, 0, 0), mode);
	/* The sim lists sim_ticks for the general slots only. */
	sc_want_fixed(sc, fix, 0, NULL, "sim_ticks", mode);
	sc_measure(sc, m, M_SIM_MAX);
	sc_name(gen, "sim_ticks vs TSC");
	snprintf(fix->name, sizeof(fix->name), "fixed0 vs %s [sim_ticks]",
		 gen->slot >= 0 ? sc_slot_name(gen->slot, s, sizeof(s)) :
				  "pmc");
	if (sc->verbose)
		printf("  sim_ticks: function %#llx%s; %u and %u of %u repetitions used\n",
		       (unsigned long long)gen->fn,
		       gen->fallback ? " (not in the backend's table)" : "",
		       gen->used, fix->used, SC_REPS);

	/* One per TSC tick while the thread runs: the loops' TSC time. */
	if (sc_measured(sc, gen) && sc_undisturbed(sc, gen))
		sc_check_paired(sc, gen, gen->t, SC_TOL_SIM);
	/* Fixed counter 0 counts sim_ticks too, over the same loops. */
	if (gen->slot < 0 || gen->err)
		sc_skip(sc, fix->name, "no general sim_ticks count to compare");
	else if (!sc_measured(sc, fix))
		;
	else if (fix->pass != gen->pass)
		sc_skip(sc, fix->name, "not counted over the same loops");
	else
		sc_check_paired(sc, fix, gen->v, SC_TOL_SIM);

	if (gen->slot >= 0 && !gen->err)
		sc_check_isolation(sc, gen);
	else
		sc_skip(sc, "isolation", "%s",
			gen->err ? strerror(gen->err) :
				   "no sim_ticks counter to use");
	sc_skip(sc, "perf", "the sim backend counts no CPU event");
}

/* The checks a machine with counters would run, each skipped for @why. */
static void sc_skip_all(struct sc *sc, const char *why)
{
	static const char *const names[] = {
		"instructions", "branches", "cycles", "ref-cycles",
		"isolation", "perf",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		sc_skip(sc, names[i], "%s", why);
}

/* --- setup ------------------------------------------------------------------ */

/* Stay on the CPU we are on; threads created later inherit it. */
static void sc_pin(struct sc *sc)
{
	cpu_set_t set;
	int cpu;

	sc->cpu = -1;
	sc->have_saved = !sched_getaffinity(0, sizeof(sc->saved), &sc->saved);
	cpu = sched_getcpu();
	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		printf("warning: cannot pin to cpu %d: %s\n", cpu,
		       strerror(errno));
		return;
	}
	sc->cpu = cpu;
}

static void sc_unpin(struct sc *sc)
{
	if (sc->cpu >= 0 && sc->have_saved)
		sched_setaffinity(0, sizeof(sc->saved), &sc->saved);
}

static void sc_header(struct sc *sc, const char *reason)
{
	const struct pctr_info *in = &sc->p->info;

	printf("pctr selfcheck\n");
	printf("backend   %s", in->pi_backend);
	if (in->pi_backend_id == PCTR_BACKEND_SIM)
		printf(" (simulated PMU)");
	if (reason)
		printf(" (no counters: %s)", reason);
	printf("\ncpu       %s family %u model %u\n",
	       in->pi_vendor[0] ? in->pi_vendor : "unknown",
	       in->pi_cpu_family, in->pi_cpu_model);
	if (in->pi_version)
		printf("perfmon   version %u\n", in->pi_version);
	printf("counters  %u general (%u bits), %u fixed (%u bits)\n",
	       in->pi_ngeneral, in->pi_width, in->pi_nfixed,
	       in->pi_fixed_width);
	if (in->pi_abi_version != PCTR_ABI_VERSION)
		printf("warning   the module speaks ABI %u, this tool %u\n",
		       in->pi_abi_version, PCTR_ABI_VERSION);
	if (in->pi_backend_id == PCTR_BACKEND_SIM)
		printf("note      the sim backend counts TSC ticks: these checks validate pctr's\n"
		       "          plumbing (programming, context switches, 64-bit sums, fixed\n"
		       "          and general slots), not a CPU\n");
	fflush(stdout);
}

static void sc_print_setup(struct sc *sc)
{
	if (sc->tsc_mhz)
		printf("tsc       %.1f MHz (%s)\n", sc->tsc_mhz,
		       sc->p->info.pi_tsc_khz ? "kernel" : "measured");
	if (sc->cpu >= 0)
		printf("pinned    cpu %d\n", sc->cpu);
	else
		printf("pinned    no (counts may move between CPUs)\n");
	printf("loops     %lu and %lu iterations, %u repetitions, medians\n",
	       sc->n1, sc->n2, SC_REPS);
	fflush(stdout);
}

/* A loop length: 1 to @max. */
static bool sc_parse_loop(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 0);
	return !errno && !*end && *v >= 1 && *v <= max;
}

/* Usage on stderr, exit status 2; with --help on stdout, status 0. */
static int sc_usage_to(FILE *f, int status)
{
	fprintf(f,
		"usage: pctr selfcheck [--loops N] [--no-perf] [-v]\n"
		"  --loops N   base loop length in iterations (default: ~10 ms)\n"
		"  --no-perf   do not compare with perf\n"
		"  -v          print every repetition\n");
	return status;
}

static int sc_usage(void)
{
	return sc_usage_to(stderr, 2);
}

/* Open the device for programming; read-only if that is all we may. */
static int sc_open(struct sc *sc)
{
	int err;

	sc->p = pctr_open(O_RDWR);
	if (sc->p)
		return 0;
	err = errno;
	if (err == EACCES || err == EPERM) {
		sc->p = pctr_open(O_RDONLY);
		if (sc->p) {
			sc->readonly = true;
			return 0;
		}
		err = errno;
	}
	/* pctr_strerror() says what to do: load the module, join a group. */
	fprintf(stderr, "selfcheck: cannot open %s: %s\n", PCTR_DEVICE,
		pctr_strerror(err));
	return -1;
}

static void sc_run(struct sc *sc)
{
	const struct pctr_info *in = &sc->p->info;
	struct sc_perf perf;
	char reason[160], why[200];

	if (in->pi_backend_id == PCTR_BACKEND_NONE ||
	    !(in->pi_caps & PCTR_CAP_COUNTERS)) {
		pctr_backend_reason(reason, sizeof(reason));
		if (!reason[0])
			snprintf(reason, sizeof(reason), "no PMU found");
		sc_header(sc, reason);
		snprintf(why, sizeof(why), "no counters: %s", reason);
		sc_skip_all(sc, why);
		return;
	}
	sc_header(sc, NULL);
	if (sc->readonly) {
		sc_skip_all(sc, "no write access to " PCTR_DEVICE);
		return;
	}
	if (in->pi_backend_id != PCTR_BACKEND_INTEL &&
	    in->pi_backend_id != PCTR_BACKEND_AMD &&
	    in->pi_backend_id != PCTR_BACKEND_SIM) {
		snprintf(why, sizeof(why), "no checks for the %s backend yet",
			 in->pi_backend);
		sc_skip_all(sc, why);
		return;
	}
	if (in->pi_backend_id != PCTR_BACKEND_SIM && !SC_HAVE_LOOP) {
		sc_skip_all(sc, "no calibrated loop for this architecture");
		return;
	}

	sc_pin(sc);
	sc->tsc_mhz = in->pi_tsc_khz / 1e3;
	if (!sc->n1)
		sc->n1 = sc_size_loop(sc);
	sc->n2 = 2 * sc->n1;
	sc_print_setup(sc);

	if (in->pi_backend_id == PCTR_BACKEND_SIM) {
		sc_check_sim(sc);
	} else {
		/* perf first: it cannot count while pctr holds counters. */
		sc_perf_measure(sc, &perf);
		sc_check_hw(sc, &perf);
	}
	sc_free_all(sc);
	sc_unpin(sc);
}

int pctr_selfcheck(int argc, char **argv)
{
	struct sc sc = { .use_perf = true, .cpu = -1 };
	unsigned long loop = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--loops") && i + 1 < argc) {
			if (!sc_parse_loop(argv[++i], SC_MAX_LOOP, &sc.n1))
				return sc_usage();
		} else if (!strncmp(argv[i], "--loops=", 8)) {
			if (!sc_parse_loop(argv[i] + 8, SC_MAX_LOOP, &sc.n1))
				return sc_usage();
		} else if (!strcmp(argv[i], "--loop") && i + 1 < argc) {
			/* Hidden: the loop alone, for perf to count. */
			if (!sc_parse_loop(argv[++i], 2 * SC_MAX_LOOP, &loop))
				return sc_usage();
		} else if (!strcmp(argv[i], "--no-perf")) {
			sc.use_perf = false;
		} else if (!strcmp(argv[i], "-v") ||
			   !strcmp(argv[i], "--verbose")) {
			sc.verbose = true;
		} else if (!strcmp(argv[i], "-h") ||
			   !strcmp(argv[i], "--help")) {
			return sc_usage_to(stdout, 0);
		} else {
			return sc_usage();
		}
	}
	if (loop) {
		sc_loop(loop);
		return 0;
	}

	if (sc_open(&sc) < 0)
		return 1;
	sc_run(&sc);
	event_table_free(&sc.events);
	pctr_close(sc.p);
	printf("selfcheck: %u passed, %u failed, %u skipped\n", sc.passed,
	       sc.failed, sc.skipped);
	return sc.failed ? 1 : 0;
}
