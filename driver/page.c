// SPDX-License-Identifier: GPL-2.0
/*
 * The counter page: what a thread that mapped it reads without a system
 * call (Documentation/abi.rst, "The counter page").  The engine (ctx.c)
 * rewrites it whenever the thread's counters change state, on the
 * thread's CPU with interrupts off; prog.c makes it.  Below the engine:
 * it is told what the engine knows (page.h), and asks it nothing.
 */
#include <linux/compiler.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "backend.h"
#include "ctx_types.h"
#include "page.h"

/*
 * Rewrite the thread's counter page (interrupts off, on the thread's CPU,
 * while the thread runs; @live: its counters are in the registers, and
 * count; @valid: no CPU binding invalidated it).  The thread cannot be
 * reading it meanwhile: it reads only while it runs, and this runs at
 * its switch-in or interrupts it.  The odd/even sequence tells it to retry a read that
 * straddled an update.  Only slots in use, or just freed, are written.
 */
void page_publish(struct pctr_ctx *ctx, bool live, bool valid)
{
	struct pctr_page *pg = ctx->upage;
	unsigned long running, touch;
	struct pctr_page_slot *ps;
	unsigned int s;
	u32 flags;
	int idx;

	if (!pg)
		return;
	running = live ? ctx->hw.mask : 0;
	flags = PCTR_PG_RUNNING | (ctx->pce ? PCTR_PG_RDPMC : 0);
	if (ctx->frozen)
		flags |= PCTR_PG_FROZEN;
	if (ctx->disabled)
		flags |= PCTR_PG_DISABLED;
	if (!valid || ctx->err)
		flags |= PCTR_PG_INVALID;
	WRITE_ONCE(pg->pg_seq, pg->pg_seq + 1);
	barrier();
	pg->pg_flags = flags;
	pg->pg_cpu = smp_processor_id();
	pg->pg_vtsc_off = ctx->vtsc - ctx->tsc_in;
	pg->pg_tsc_in = ctx->tsc_in;
	pg->pg_sim_limit = U64_MAX;
	touch = ctx->hw.mask | ctx->published;
	for_each_set_bit(s, &touch, PCTR_NUM) {
		ps = &pg->pg_slot[s];
		memset(ps, 0, sizeof(*ps));
		ps->ps_sum = ctx->sum[s];
		if (!(running & BIT(s)))
			continue;
		ps->ps_prev = ctx->prev[s];
		ps->ps_mask = pctr_width_mask(pctr_slot_width(&pctr_pmu, s));
		if (ctx->pce) {
			idx = pctr_pmu.ops->rdpmc_index(&pctr_pmu, s);
			ps->ps_rdpmc = idx >= 0 ? idx + 1 : 0;
		}
	}
	ctx->published = ctx->hw.mask;
	if (running && pctr_pmu.ops->user_page)
		pctr_pmu.ops->user_page(&pctr_pmu, &ctx->hw, pg);
	barrier();
	WRITE_ONCE(pg->pg_seq, pg->pg_seq + 1);
}

/* The context ended: final values, and a sequence left odd for good. */
void page_publish_dead(struct pctr_ctx *ctx)
{
	struct pctr_page *pg = ctx->upage;
	unsigned int s;

	WRITE_ONCE(pg->pg_seq, pg->pg_seq | 1);
	barrier();
	pg->pg_flags = PCTR_PG_DEAD;
	pg->pg_vtsc_off = ctx->vtsc;
	for (s = 0; s < PCTR_NUM; s++) {
		memset(&pg->pg_slot[s], 0, sizeof(pg->pg_slot[s]));
		pg->pg_slot[s].ps_sum = ctx->sum[s];
	}
}
