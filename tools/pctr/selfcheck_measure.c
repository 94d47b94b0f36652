// SPDX-License-Identifier: GPL-2.0
/*
 * pctr selfcheck's measurements: each counter a check wants gets a slot
 * and a pass; a pass programs its counters and runs SC_REPS pairs of
 * loops (again when a context switch disturbed one), and keeps each
 * counter's and the TSC's differences; a check judges the median.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "selfcheck_internal.h"

/* A general event by the backend's name, or by its architectural code. */
void sc_want_event(struct sc *sc, struct sc_meas *m, const char *name,
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
void sc_want_fixed(struct sc *sc, struct sc_meas *m, unsigned int i,
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
void sc_name(struct sc_meas *m, const char *what)
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
int64_t sc_median(const int64_t *v, const bool *use, unsigned int n)
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
unsigned int sc_pick(const struct sc_meas *m, const int64_t *ref)
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

void sc_measure(struct sc *sc, struct sc_meas *m, unsigned int nm)
{
	unsigned int pass, npass = sc_plan(m, nm);

	for (pass = 0; pass < npass; pass++)
		sc_run_pass(sc, m, nm, pass);
}

/* @m's count against the one the loops must give. */
void sc_check_exact(struct sc *sc, const struct sc_meas *m,
			   int64_t want, double tol)
{
	sc_check_count(sc, m->name, m->v[sc_pick(m, NULL)], want, tol);
}

/*
 * Whether most of @m's repetitions ran without a context switch, as a
 * count compared with the TSC needs: the TSC runs on while the thread
 * is switched out, the thread's counters do not.
 */
bool sc_undisturbed(struct sc *sc, const struct sc_meas *m)
{
	if (m->clean > SC_REPS / 2)
		return true;
	sc_skip(sc, m->name,
		"only %u of %u loop pairs ran without a context switch; run again on a quieter machine",
		m->clean, SC_REPS);
	return false;
}

/* @m's count against @ref counted over the same loops. */
void sc_check_paired(struct sc *sc, const struct sc_meas *m,
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
bool sc_measured(struct sc *sc, const struct sc_meas *m)
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
