/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libcpc internals: the handle, sets, requests and buffers, and the
 * helpers the files share.
 */
#ifndef _LIBCPC_IMPL_H
#define _LIBCPC_IMPL_H

#include <stdint.h>

#include "pctr.h"
#include "libcpc.h"

#define CPC_NAME_MAX	128

struct cpc_event {
	char		name[48];
	uint64_t	fn;		/* event and unit mask, no flags */
	uint64_t	slots;		/* slots that can count it */
};

struct __cpc {
	pctr_t		*pc;		/* info, events, the descriptor */
	int		writable;	/* pc's descriptor is open O_RDWR */
	struct cpc_event *events;
	unsigned int	nevents;
	uint64_t	general_slots;	/* pctr slots of the general counters */
	uint64_t	fixed_slots;	/* and of the fixed ones */
	cpc_errhndlr_t	*errfn;
	struct __cpc_set *sets;		/* every set, for cpc_close() */
	struct __cpc_buf *bufs;		/* every buffer, likewise */
	char		cciname[96];
};

struct cpc_request {
	char		event[CPC_NAME_MAX];
	uint64_t	preset;
	uint_t		flags;
	uint_t		nattrs;
	cpc_attr_t	*attrs;		/* a copy, names included */
	uint64_t	fn;		/* pctr function: event, flags, EN */
	uint64_t	slots;		/* slots it may use (picnum applied) */
	int		slot;		/* assigned at bind, else -1 */
};

struct __cpc_set {
	cpc_t		*cpc;
	struct __cpc_set *next;
	struct cpc_request *reqs;
	unsigned int	nreqs;
	/* While bound: the binding thread's page, through cpc's descriptor. */
	int		bound;
	pid_t		tid;
	struct pctr	pc;
	unsigned int	nread;		/* slots pctr_read_n() must cover */
};

struct __cpc_buf {
	cpc_t		*cpc;
	struct __cpc_buf *next;
	unsigned int	n;
	hrtime_t	hrtime;
	uint64_t	tick;
	uint64_t	val[];
};

/* Report an error through the handle's handler and set errno; returns -1. */
int cpc_err(cpc_t *cpc, const char *fn, int subcode, int err,
	    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* events.c */
int cpc_load_events(cpc_t *cpc);
const struct cpc_event *cpc_find_event(cpc_t *cpc, const char *name);
int cpc_resolve(cpc_t *cpc, const char *fn, struct cpc_request *req);
const char *cpc_generic_to_native(cpc_t *cpc, const char *name);
uint64_t cpc_pic_slot(cpc_t *cpc, uint_t picno);

/* set.c */
int cpc_assign(const struct cpc_request *reqs, unsigned int n, int *slot);
int cpc_set_bound_elsewhere_(const cpc_set_t *set);
void cpc_set_unbind_(cpc_set_t *set);

#endif /* _LIBCPC_IMPL_H */
