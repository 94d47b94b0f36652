// SPDX-License-Identifier: GPL-2.0
/*
 * Event names for every pctr subcommand (stat, record, selfcheck) and the
 * nearest-name suggestion they and pctr load share: one table of generic
 * names, one lookup, one edit distance; and the slot an event takes, as
 * pctr stat and pmdapctr's configuration place them.  See events.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>

#include "events.h"

const struct generic_event generic_events[] = {
	[GENERIC_INSTRUCTIONS] = { "instructions",
		{ "INST_RETIRED.ANY", "INSTRUCTION_RETIRED",
		  "RETIRED_INSTRUCTIONS", NULL } },
	[GENERIC_CYCLES] = { "cycles",
		{ "CPU_CLK_UNHALTED.THREAD", "UNHALTED_CORE_CYCLES",
		  "CYCLES_NOT_IN_HALT", NULL } },
	{ "ref-cycles",
		{ "CPU_CLK_UNHALTED.REF_TSC", "UNHALTED_REFERENCE_CYCLES",
		  NULL } },
	{ "branches",
		{ "BRANCH_INSTRUCTIONS_RETIRED", "RETIRED_BRANCH_INSTRUCTIONS",
		  NULL } },
	{ "branch-misses",
		{ "MISPREDICTED_BRANCH_RETIRED",
		  "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", NULL } },
};

const unsigned int ngeneric_events =
	sizeof(generic_events) / sizeof(generic_events[0]);

int event_table_load(struct event_table *t, int fd, unsigned int n,
		     unsigned int *failed)
{
	struct pctr_event *ev;
	unsigned int i;

	t->n = 0;
	t->ev = calloc(n ? n : 1, sizeof(*t->ev));
	if (!t->ev) {
		*failed = n;
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < n; i++) {
		ev = &t->ev[i];
		ev->pe_index = i;
		if (ioctl(fd, PCIOCEVENT, ev) < 0) {
			*failed = i;
			return -1;
		}
		ev->pe_name[sizeof(ev->pe_name) - 1] = '\0';
		ev->pe_desc[sizeof(ev->pe_desc) - 1] = '\0';
		t->n = i + 1;
	}
	return 0;
}

void event_table_free(struct event_table *t)
{
	free(t->ev);
	t->ev = NULL;
	t->n = 0;
}

int event_mode(const char *s, uint64_t *mode)
{
	if (!strcmp(s, "u"))
		*mode = PCTR_U;
	else if (!strcmp(s, "k"))
		*mode = PCTR_K;
	else if (!strcmp(s, "uk") || !strcmp(s, "ku"))
		*mode = PCTR_U | PCTR_K;
	else
		return -1;
	return 0;
}

const struct pctr_event *event_find(const struct event_table *t,
				    const char *name)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (!strcasecmp(t->ev[i].pe_name, name))
			return &t->ev[i];
	return NULL;
}

const struct generic_event *generic_event_find(const char *name)
{
	unsigned int g;

	for (g = 0; g < ngeneric_events; g++)
		if (!strcasecmp(name, generic_events[g].name))
			return &generic_events[g];
	return NULL;
}

int generic_event_is(const struct generic_event *g, const char *name)
{
	unsigned int k;

	for (k = 0; g->backend[k]; k++)
		if (!strcmp(name, g->backend[k]))
			return 1;
	return 0;
}

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

uint64_t general_slots(const struct pctr_info *in)
{
	return slots_present(in) & ((1ULL << PCTR_FIXED_BASE) - 1);
}

int take_slot(uint64_t can, uint64_t *used)
{
	uint64_t free_ = can & ~*used;

	if (!free_)
		return -1;
	*used |= free_ & -free_;
	return __builtin_ctzll(free_);
}

/* @pe on a free slot of the ones it can use (any general one if 0). */
static int event_slot(const struct pctr_info *in,
		      const struct pctr_event *pe, uint64_t *used)
{
	uint64_t can = pe->pe_slots ? pe->pe_slots : general_slots(in);

	return take_slot(can & slots_present(in), used);
}

int event_place(const struct event_table *t, const struct pctr_info *in,
		const char *name, uint64_t *used,
		const struct pctr_event **pe)
{
	const struct generic_event *gen = generic_event_find(name);
	const struct pctr_event *cand;
	int slot = -1;
	unsigned int k;

	if (!gen) {
		*pe = event_find(t, name);
		return *pe ? event_slot(in, *pe, used) : -1;
	}
	/* The first candidate the backend has with a free slot. */
	*pe = NULL;
	for (k = 0; gen->backend[k] && slot < 0; k++) {
		cand = event_find(t, gen->backend[k]);
		if (!cand)
			continue;
		*pe = cand;
		slot = event_slot(in, cand, used);
	}
	return slot;
}

/* Edit distance, case-insensitive; @b counts to its 63rd character. */
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

void nearest_init(struct nearest *nr, const char *name)
{
	nr->name = name;
	nr->best = NULL;
	nr->d = ~0U;
}

void nearest_add(struct nearest *nr, const char *cand)
{
	unsigned int d = distance(nr->name, cand);

	if (d < nr->d) {
		nr->d = d;
		nr->best = cand;
	}
}

const char *nearest_best(const struct nearest *nr)
{
	if (nr->best && nr->d <= strlen(nr->name) / 2 + 1)
		return nr->best;
	return NULL;
}

const char *event_nearest(const struct event_table *t, const char *name)
{
	struct nearest nr;
	unsigned int i;

	nearest_init(&nr, name);
	for (i = 0; i < t->n; i++)
		nearest_add(&nr, t->ev[i].pe_name);
	for (i = 0; i < ngeneric_events; i++)
		nearest_add(&nr, generic_events[i].name);
	return nearest_best(&nr);
}
