// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libcpc: request sets, and the assignment of requests to counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpc_private.h"
#include "events_private.h"

#define CPC_FLAGS_KNOWN	(CPC_OVF_NOTIFY_EMT | CPC_COUNT_USER | CPC_COUNT_SYSTEM)

cpc_set_t *cpc_set_create(cpc_t *cpc)
{
	cpc_set_t *set = calloc(1, sizeof(*set));

	if (!set)
		return NULL;
	set->cpc = cpc;
	set->id = ++cpc->nsets;
	set->pc.fd = -1;
	set->next = cpc->sets;
	cpc->sets = set;
	return set;
}

static void cpc_request_free(struct cpc_request *req)
{
	unsigned int i;

	for (i = 0; i < req->nattrs; i++)
		free(req->attrs[i].ca_name);
	free(req->attrs);
}

int cpc_set_destroy(cpc_t *cpc, cpc_set_t *set)
{
	cpc_set_t **pp;
	unsigned int i;

	for (pp = &cpc->sets; *pp && *pp != set; pp = &(*pp)->next)
		;
	if (!*pp)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set was not created with this handle");
	if (cpc_set_unbind_here_(cpc, __func__, set))
		return -1;
	*pp = set->next;
	for (i = 0; i < set->nreqs; i++)
		cpc_request_free(&set->reqs[i]);
	free(set->reqs);
	free(set);
	return 0;
}

static int cpc_copy_attrs(struct cpc_request *req, uint_t nattrs,
			  const cpc_attr_t *attrs)
{
	unsigned int i;

	req->attrs = calloc(nattrs ? nattrs : 1, sizeof(*req->attrs));
	if (!req->attrs)
		return -1;
	for (i = 0; i < nattrs; i++) {
		req->attrs[i].ca_name = strdup(attrs[i].ca_name);
		if (!req->attrs[i].ca_name)
			return -1;
		req->attrs[i].ca_val = attrs[i].ca_val;
		req->nattrs = i + 1;
	}
	return 0;
}

/*
 * Add a request for @event to @set; its index in the set (and in the
 * set's buffers), or -1 with errno EINVAL or ENOMEM.  Whether the CPU
 * can signal overflows (CPC_OVF_NOTIFY_EMT) is the bind's concern, as
 * in Solaris: ENOTSUP there.
 */
int cpc_set_add_request(cpc_t *cpc, cpc_set_t *set, const char *event,
			uint64_t preset, uint_t flags, uint_t nattrs,
			const cpc_attr_t *attrs)
{
	int slot[PCTR_NUM], err;
	struct cpc_request *reqs, *req;
	unsigned int i;

	if (!set || set->cpc != cpc)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set was not created with this handle");
	if (set->bound)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "the set is bound: unbind it first");
	if (flags & ~CPC_FLAGS_KNOWN)
		return cpc_err(cpc, __func__, CPC_REQ_INVALID_FLAGS, EINVAL,
			       "unknown flags 0x%x", flags & ~CPC_FLAGS_KNOWN);
	if (!(flags & (CPC_COUNT_USER | CPC_COUNT_SYSTEM)))
		return cpc_err(cpc, __func__, CPC_REQ_INVALID_FLAGS, EINVAL,
			       "a request needs CPC_COUNT_USER or CPC_COUNT_SYSTEM");
	if (!event || !*event || strlen(event) >= CPC_NAME_MAX)
		return cpc_err(cpc, __func__, CPC_INVALID_EVENT, EINVAL,
			       "no event name, or one too long");
	if (nattrs && !attrs)
		return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			       "%u attributes but no array", nattrs);
	for (i = 0; i < nattrs; i++)
		if (!attrs[i].ca_name)
			return cpc_err(cpc, __func__, CPC_INVALID_ATTRIBUTE,
				       EINVAL, "attribute %u has no name", i);
	if (set->nreqs >= cpc_npic(cpc))
		return cpc_err(cpc, __func__, CPC_RESOURCE_UNAVAIL, EINVAL,
			       "the set has %u requests already: there are %u counters",
			       set->nreqs, cpc_npic(cpc));

	reqs = realloc(set->reqs, (set->nreqs + 1) * sizeof(*reqs));
	if (!reqs)
		return -1;
	set->reqs = reqs;
	req = &reqs[set->nreqs];
	memset(req, 0, sizeof(*req));
	strcpy(req->event, event);
	req->preset = preset;
	req->flags = flags;
	req->slot = -1;
	if (cpc_copy_attrs(req, nattrs, attrs)) {
		err = errno;
		cpc_request_free(req);
		errno = err;
		return -1;
	}
	if (cpc_resolve(cpc, __func__, req)) {
		err = errno;
		cpc_request_free(req);
		errno = err;
		return -1;
	}
	if (cpc_assign(reqs, set->nreqs + 1, slot)) {
		cpc_request_free(req);
		return cpc_err(cpc, __func__, CPC_CONFLICTING_REQS, EINVAL,
			       "%s: no counter is left for it in this set",
			       event);
	}
	return set->nreqs++;
}

void cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
		       void (*action)(void *arg, int index, const char *event,
				      uint64_t preset, uint_t flags,
				      int nattrs, const cpc_attr_t *attrs))
{
	unsigned int i;
	struct cpc_request *r;

	for (i = 0; i < set->nreqs; i++) {
		r = &set->reqs[i];
		action(arg, i, r->event, r->preset, r->flags, r->nattrs,
		       r->attrs);
	}
}

int cpc_request_fn(cpc_t *cpc, cpc_set_t *set, int index, uint64_t *fn,
		   int *slot)
{
	if (!set || set->cpc != cpc || index < 0 ||
	    (unsigned int)index >= set->nreqs) {
		errno = EINVAL;
		return -1;
	}
	if (fn)
		*fn = set->reqs[index].fn;
	if (slot)
		*slot = set->reqs[index].slot;
	return 0;
}
