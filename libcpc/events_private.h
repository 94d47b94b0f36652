/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libcpc's events, private (never installed): what events.c offers the
 * files above it (set.c, cpc.c): the handle's event table and a
 * request's pctr function.
 */
#ifndef _LIBCPC_EVENTS_PRIVATE_H
#define _LIBCPC_EVENTS_PRIVATE_H

#include "cpc_private.h"

/* The backend's events into cpc->events; -1 with errno on failure. */
int cpc_load_events(cpc_t *cpc);

/*
 * Fill in @req's function and slots from its event, flags and
 * attributes.  -1 (reported as function @fn) if they do not make a
 * request.
 */
int cpc_resolve(cpc_t *cpc, const char *fn, struct cpc_request *req);

#endif /* _LIBCPC_EVENTS_PRIVATE_H */
