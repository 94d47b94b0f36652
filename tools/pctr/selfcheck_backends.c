// SPDX-License-Identifier: GPL-2.0
/*
 * pctr selfcheck's checks of each backend: Intel and AMD (instructions
 * and branches against the loop, cycles against the TSC, reference
 * cycles, perf), the sim (its ticks against the TSC), and the isolation
 * check they share: a sleeping thread must count nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "selfcheck_internal.h"

/* --- isolation -------------------------------------------------------------- */

struct sc_iso {
	struct sc		*sc;
	unsigned int		slot;
	uint64_t		fn;
	pthread_barrier_t	ready;
	atomic_bool		done;
	int			err;
	int64_t			asleep;		/* least count over the long sleep */
	int64_t			more;		/* least long sleep - least short */
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
 * kept counting while its thread was away would grow with it.  What a
 * loaded machine adds (a vCPU or the thread preempted in the middle of
 * going to sleep, on a counter that counts time or the kernel) only
 * adds, so each length's least count is the one judged: a counter left
 * running for the busy thread adds its whole count to every long sleep,
 * a hundred times the tolerance.
 */
static void *sc_sleeper(void *arg)
{
	int64_t s, l, least_s = INT64_MAX, least_l = INT64_MAX;
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
		least_s = s < least_s ? s : least_s;
		least_l = l < least_l ? l : least_l;
	}
	if (!iso->err) {
		iso->asleep = least_l;
		iso->more = least_l - least_s;
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

void sc_check_hw(struct sc *sc, const struct sc_perf *perf)
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

void sc_check_sim(struct sc *sc)
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
void sc_skip_all(struct sc *sc, const char *why)
{
	static const char *const names[] = {
		"instructions", "branches", "cycles", "ref-cycles",
		"isolation", "perf",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		sc_skip(sc, names[i], "%s", why);
}
