// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libcpc: sample buffers.  A buffer holds one 64-bit value per request of
 * the set it was made for, the time of the sample (cpc_buf_hrtime: the
 * CLOCK_MONOTONIC time in ns) and how long the set had counted then
 * (cpc_buf_tick, in TSC cycles):
 *   - bound with cpc_bind_curlwp(): the binding thread's virtual TSC,
 *     the TSC cycles it has run since the bind; in a thread or child
 *     counting by inheritance, its CPU time (CLOCK_THREAD_CPUTIME_ID),
 *     which began with its counters;
 *   - bound with cpc_bind_cpu(): the TSC cycles since the bind;
 *   - bound with cpc_bind_pctx(): the target thread's run time since the
 *     bind, from /proc/<pid>/task/<tid>/schedstat (from its stat's
 *     utime and stime, in clock ticks, on a kernel without schedstat).
 * With no TSC frequency known, the times above are in ns instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpc_private.h"

cpc_buf_t *cpc_buf_create(cpc_t *cpc, cpc_set_t *set)
{
	cpc_buf_t *buf;

	if (!set || set->cpc != cpc) {
		cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT, EINVAL,
			"the set was not created with this handle");
		return NULL;
	}
	buf = calloc(1, sizeof(*buf) + 3 * set->nreqs * sizeof(buf->val[0]));
	if (!buf)
		return NULL;
	buf->cpc = cpc;
	buf->set_id = set->id;
	buf->n = set->nreqs;
	buf->next = cpc->bufs;
	cpc->bufs = buf;
	return buf;
}

int cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf)
{
	cpc_buf_t **pp;

	for (pp = &cpc->bufs; *pp && *pp != buf; pp = &(*pp)->next)
		;
	/*
	 * Silent, as Solaris's: cputrack destroys a buffer twice (two of a
	 * set group's pointers share one after fini_lwp).
	 */
	if (!*pp) {
		errno = EINVAL;
		return -1;
	}
	*pp = buf->next;
	free(buf);
	return 0;
}

int cpc_buf_get(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t *val)
{
	if (index < 0 || (unsigned int)index >= buf->n) {
		errno = EINVAL;
		return -1;
	}
	*val = buf->val[index];
	return 0;
}

/*
 * pctr's: how long request @index's counter was enabled, and counting,
 * at the sample (perf's time_enabled and time_running, in TSC cycles):
 * a count whose running time is short of its enabled time missed
 * events.  Both 0 where pctr does not say (LWP and CPU bindings, which
 * count all along, and a module without PCIOCRDX).
 */
int cpc_buf_times(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t *enabled,
		  uint64_t *running)
{
	if (index < 0 || (unsigned int)index >= buf->n) {
		errno = EINVAL;
		return -1;
	}
	*enabled = buf->val[buf->n + index];
	*running = buf->val[2 * buf->n + index];
	return 0;
}

int cpc_buf_set(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t val)
{
	if (index < 0 || (unsigned int)index >= buf->n) {
		errno = EINVAL;
		return -1;
	}
	buf->val[index] = val;
	return 0;
}

hrtime_t cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf)
{
	return buf->hrtime;
}

uint64_t cpc_buf_tick(cpc_t *cpc, cpc_buf_t *buf)
{
	return buf->tick;
}

/*
 * The arithmetic works on buffers of one set (the same size); others are
 * left as they are.  @ds may be one of the operands.
 */
static int cpc_buf_same(const cpc_buf_t *a, const cpc_buf_t *b)
{
	return a->n == b->n;
}

/* ds = a - b: the counts between two samples; tick likewise, hrtime a's. */
void cpc_buf_sub(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b)
{
	unsigned int i;

	if (!cpc_buf_same(ds, a) || !cpc_buf_same(a, b))
		return;
	for (i = 0; i < ds->n; i++)
		ds->val[i] = a->val[i] - b->val[i];
	ds->tick = a->tick - b->tick;
	ds->hrtime = a->hrtime;
}

/* ds = a + b; tick the sum, hrtime the later of the two. */
void cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b)
{
	unsigned int i;

	if (!cpc_buf_same(ds, a) || !cpc_buf_same(a, b))
		return;
	for (i = 0; i < ds->n; i++)
		ds->val[i] = a->val[i] + b->val[i];
	ds->tick = a->tick + b->tick;
	ds->hrtime = a->hrtime > b->hrtime ? a->hrtime : b->hrtime;
}

void cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src)
{
	if (ds == src || !cpc_buf_same(ds, src))
		return;
	memcpy(ds->val, src->val, ds->n * sizeof(ds->val[0]));
	ds->tick = src->tick;
	ds->hrtime = src->hrtime;
}

void cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf)
{
	memset(buf->val, 0, buf->n * sizeof(buf->val[0]));
	buf->tick = 0;
	buf->hrtime = 0;
}
