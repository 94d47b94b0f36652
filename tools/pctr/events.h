/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event names as every pctr subcommand reads them (tools/pctr/events.c):
 * the backend's table (PCIOCEVENT), the generic names (instructions,
 * cycles, ...) and the backend names each stands for, and the nearest
 * name to a misspelt one; and the slot an event takes.
 */
#ifndef _PCTR_TOOLS_EVENTS_H
#define _PCTR_TOOLS_EVENTS_H

#include "pctr.h"

/* The backend's events, as PCIOCEVENT lists them. */
struct event_table {
	struct pctr_event	*ev;
	unsigned int		n;
};

/*
 * Read @t from @fd: @n events (pi_nevents), their names and descriptions
 * terminated.  0, or -1 with errno and in *@failed the index PCIOCEVENT
 * refused; @t then holds the events before it.  Out of memory: -1 with
 * ENOMEM and *@failed set to @n.
 */
int event_table_load(struct event_table *t, int fd, unsigned int n,
		     unsigned int *failed);

void event_table_free(struct event_table *t);

/*
 * The mode after an event's colon: "u", "k", "uk" or "ku" into *@mode
 * (PCTR_U, PCTR_K); 0, or -1 when @s is none of them.
 */
int event_mode(const char *s, uint64_t *mode);

/* The event called @name (in any case), or NULL. */
const struct pctr_event *event_find(const struct event_table *t,
				    const char *name);

/*
 * A generic name and the backend names that count it, best first (an
 * Intel fixed counter before a general one); NULL ends the list.
 */
struct generic_event {
	const char	*name;
	const char	*backend[4];
};

enum { GENERIC_INSTRUCTIONS, GENERIC_CYCLES };

extern const struct generic_event generic_events[];
extern const unsigned int ngeneric_events;

/* The generic name @name (in any case), or NULL. */
const struct generic_event *generic_event_find(const char *name);

/* Whether @name is one of @g's backend names. */
int generic_event_is(const struct generic_event *g, const char *name);

/*
 * The nearest name: the candidate with the smallest edit distance
 * (case-insensitive) to @name, offered when it is close enough (at most
 * half of @name's length, plus one).
 */
struct nearest {
	const char	*name;
	const char	*best;
	unsigned int	d;
};

void nearest_init(struct nearest *nr, const char *name);
void nearest_add(struct nearest *nr, const char *cand);
/* The candidate to offer, or NULL. */
const char *nearest_best(const struct nearest *nr);

/*
 * Slots: the bits of a pctr_info's counters (a general counter's index,
 * PCTR_FIXED(i) for a fixed one), as pe_slots gives them.
 */
uint64_t general_slots(const struct pctr_info *in);

/* The lowest slot of @can not in *@used, marked there; or -1. */
int take_slot(uint64_t can, uint64_t *used);

/*
 * @name (a generic name or one of @t's) on a free slot of @in's: the
 * slot (marked in *@used), or -1 when none is free.  *@pe: the event
 * (for a generic name, the first of its backend names @t has with a
 * free slot, else the last @t has), or NULL when @t has none.
 */
int event_place(const struct event_table *t, const struct pctr_info *in,
		const char *name, uint64_t *used,
		const struct pctr_event **pe);

/* The nearest of @t's events and the generic names to @name, or NULL. */
const char *event_nearest(const struct event_table *t, const char *name);

#endif /* _PCTR_TOOLS_EVENTS_H */
