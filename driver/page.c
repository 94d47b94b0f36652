// SPDX-License-Identifier: GPL-2.0
/*
 * The counter page: what a thread that mapped it reads without a system
 * call (Documentation/abi.rst, "The counter page").  The engine (ctx.c)
 * rewrites it whenever the thread's counters change state, on the
 * thread's CPU with interrupts off; prog.c makes it.  Below the engine:
 * it is told what the engine knows (page.h), and asks it nothing.
 *
 * One page holds two layouts, each written only once a mapping asked for
 * it: version 1 (struct pctr_page at byte 0) and version 2 (struct
 * pctr_page2 at PCTR_PAGE2_START), where a counting slot is one offset
 * plus rdpmc.  For version 2 the raw counter must not wrap between two
 * updates of the page: the engine restarts it from zero (page_rebase_due)
 * long before it could.  Between them, the times block (struct
 * pctr_page_times) is kept with either, in the same update.
 */
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/jiffies.h>
#include <linux/kernel_stat.h>
#include <linux/moduleparam.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tick.h>

#include "backend.h"
#include "ctx_types.h"
#include "page.h"

static_assert(sizeof(struct pctr_page) <= PCTR_PAGE_TIMES_START);
static_assert(PCTR_PAGE_TIMES_START + sizeof(struct pctr_page_times) <=
	      PCTR_PAGE2_START);
static_assert(PCTR_PAGE2_START + sizeof(struct pctr_page2) <= PCTR_PAGE_SIZE);

/*
 * Where a counter read inline through a version 2 page starts from zero
 * again: at 2^page_rebase, or two bits below the counter's width when 0
 * or more.  A fold period (ctx.c) is far fewer events than the rest of
 * the counter's range.  Small values are for tests.
 */
static unsigned int page_rebase;
module_param(page_rebase, uint, 0644);
MODULE_PARM_DESC(page_rebase, "bits: a counter read through page version 2 restarts from zero at 2^page_rebase (0: its width less 2; for tests)");

/*
 * Idle time of all online CPUs, from the same sources as /proc/stat
 * (PCIOCRD's pctr_idl).  Summing it costs a clock read per CPU, so it is
 * refreshed at most once a jiffy: a reader in a loop pays for it once,
 * not every call, and testing that costs no clock read.  Version 2 pages
 * carry the last figure.
 */
static u64 page_idle_cached;
static unsigned long page_idle_at;

u64 page_idle_ns(void)
{
	unsigned long now = jiffies;
	u64 sum = 0, us;
	int cpu;

	if (now == READ_ONCE(page_idle_at) && READ_ONCE(page_idle_cached))
		return READ_ONCE(page_idle_cached);
	for_each_online_cpu(cpu) {
		us = get_cpu_idle_time_us(cpu, NULL);
		if (us == -1ULL)
			sum += kcpustat_cpu(cpu).cpustat[CPUTIME_IDLE];
		else
			sum += us * NSEC_PER_USEC;
	}
	/* Racing refreshers store figures of the same jiffy. */
	WRITE_ONCE(page_idle_cached, sum);
	WRITE_ONCE(page_idle_at, now);
	return sum;
}

static struct pctr_page2 *page2_of(struct pctr_page *pg)
{
	return (struct pctr_page2 *)((char *)pg + PCTR_PAGE2_START);
}

static struct pctr_page_times *page_times_of(struct pctr_page *pg)
{
	return (struct pctr_page_times *)((char *)pg + PCTR_PAGE_TIMES_START);
}

/*
 * Slot @s's times as offsets from the virtual TSC (ctx.c's ctx_times()
 * while the thread runs and does not starve: the only time a reader
 * uses them).  Changed only where the page is rewritten after: a
 * function set or the values zeroed (en_base, st_base), a starving span
 * ended (starved).
 */
static __always_inline void page_times(const struct pctr_ctx *ctx,
				       struct pctr_page_times *pt,
				       unsigned int s)
{
	pt->pt_enabled_off[s] = -ctx->en_base[s];
	pt->pt_running_off[s] = ctx->st_base[s] - ctx->starved -
				ctx->en_base[s];
}

void page_init(struct pctr_page *pg)
{
	struct pctr_page2 *p2 = page2_of(pg);
	unsigned int s;

	pg->pg_version = PCTR_PAGE_VERSION;
	p2->p2_version = PCTR_PAGE2_VERSION;
	for (s = 0; s < PCTR_NUM; s++)
		p2->p2_slot[s].p2s_index = -1;
}

/* The rebase point of slot @s's counter. */
static u64 page_rebase_at(unsigned int s)
{
	unsigned int bits = pctr_slot_width(&pctr_pmu, s) - 2;
	unsigned int want = READ_ONCE(page_rebase);

	return BIT_ULL(want && want < bits ? want : bits);
}

bool page_rebase_due(const struct pctr_ctx *ctx)
{
	unsigned long m = ctx->hw.mask & ~ctx->notify;
	unsigned int s;

	for_each_set_bit(s, &m, PCTR_NUM)
		if (ctx->hw.val[s] >= page_rebase_at(s))
			return true;
	return false;
}

/* Version 1: see abi.rst.  @running: the slots counting now. */
static void page_publish_v1(struct pctr_ctx *ctx, struct pctr_page *pg,
			    unsigned long running, u32 flags)
{
	unsigned long touch = ctx->hw.mask | ctx->published;
	struct pctr_page_times *pt = page_times_of(pg);
	struct pctr_page_slot *ps;
	unsigned int s;
	int idx;

	WRITE_ONCE(pg->pg_seq, pg->pg_seq + 1);
	barrier();
	pg->pg_flags = flags;
	pg->pg_cpu = smp_processor_id();
	pg->pg_vtsc_off = ctx->vtsc - ctx->tsc_in;
	pg->pg_tsc_in = ctx->tsc_in;
	pg->pg_sim_limit = U64_MAX;
	for_each_set_bit(s, &touch, PCTR_NUM) {
		ps = &pg->pg_slot[s];
		memset(ps, 0, sizeof(*ps));
		ps->ps_sum = ctx->sum[s];
		page_times(ctx, pt, s);
		if (!(running & BIT(s)))
			continue;
		ps->ps_prev = ctx->prev[s];
		ps->ps_mask = pctr_width_mask(pctr_slot_width(&pctr_pmu, s));
		if (ctx->pce) {
			idx = pctr_pmu.ops->rdpmc_index(&pctr_pmu, s);
			ps->ps_rdpmc = idx >= 0 ? idx + 1 : 0;
		}
	}
	if (running && pctr_pmu.ops->user_page)
		pctr_pmu.ops->user_page(&pctr_pmu, &ctx->hw, pg);
	barrier();
	WRITE_ONCE(pg->pg_seq, pg->pg_seq + 1);
}

/*
 * Version 2: a slot read inline is sum - prev + rdpmc, the counter
 * having started from prev; every other slot says -1.  A slot armed for
 * its overflow starts where it wraps, and a raw-sum backend's counter
 * from the sum's low bits: neither is read inline.
 */
static void page_publish_v2(struct pctr_ctx *ctx, struct pctr_page2 *p2,
			    struct pctr_page_times *pt, unsigned long running,
			    u32 flags)
{
	unsigned long touch = ctx->hw.mask | ctx->published, inl = 0;
	struct pctr_page2_slot *ps;
	u32 seq = p2->p2_seq + 1;
	unsigned int s;
	int idx;

	if (ctx->pce && !(flags & PCTR_PG_INVALID) &&
	    !(pctr_pmu.flags & PCTR_PMU_RAW_SUM))
		inl = running & ~(unsigned long)ctx->notify;
	WRITE_ONCE(p2->p2_seq, seq);
	barrier();
	p2->p2_flags = flags;
	p2->p2_cpu = smp_processor_id();
	p2->p2_vtsc_off = ctx->vtsc - ctx->tsc_in;
	p2->p2_live = ctx->hw.mask;
	p2->p2_idl = READ_ONCE(page_idle_cached);
	for_each_set_bit(s, &touch, PCTR_NUM) {
		ps = &p2->p2_slot[s];
		idx = -1;
		/* A slot's index is fixed: the one published stands. */
		if (inl & BIT(s)) {
			idx = ps->p2s_index;
			if (idx < 0)
				idx = pctr_pmu.ops->rdpmc_index(&pctr_pmu, s);
		}
		ps->p2s_off = idx >= 0 ? ctx->sum[s] - ctx->prev[s] :
					 ctx->sum[s];
		ps->p2s_index = idx >= 0 ? idx : -1;
		p2->p2_fn[s] = ctx->hw.mask & BIT(s) ? ctx->fn[s] : 0;
		page_times(ctx, pt, s);
	}
	barrier();
	WRITE_ONCE(p2->p2_seq_end, seq);
}

/*
 * Rewrite the thread's counter page (interrupts off, on the thread's CPU,
 * while the thread runs; @live: its counters are in the registers, and
 * count).  The thread cannot be
 * reading it meanwhile: it reads only while it runs, and this runs at
 * its switch-in or interrupts it.  Each layout's sequence tells it to
 * retry a read that straddled an update.  Only slots in use, or just
 * freed, are written.  The times block, which both layouts' readers
 * read, is written inside each mapped layout's sequence (twice when both
 * are mapped), so that either sequence covers it.
 */
void page_publish(struct pctr_ctx *ctx, bool live)
{
	struct pctr_page *pg = ctx->upage;
	unsigned long running;
	u32 flags;

	if (!pg)
		return;
	running = live ? ctx->hw.mask : 0;
	flags = PCTR_PG_RUNNING | PCTR_PG_TIMES |
		(ctx->pce ? PCTR_PG_RDPMC : 0);
	if (ctx->frozen)
		flags |= PCTR_PG_FROZEN;
	if (ctx->disabled)
		flags |= PCTR_PG_DISABLED;
	if (ctx->err)
		flags |= PCTR_PG_INVALID;
	if (ctx->page_abi & PAGE_ABI_V1)
		page_publish_v1(ctx, pg, running, flags);
	if (ctx->page_abi & PAGE_ABI_V2)
		page_publish_v2(ctx, page2_of(pg), page_times_of(pg), running,
				flags);
	ctx->published = ctx->hw.mask;
}

/*
 * The context ended: final values, version 1's sequence left odd for
 * good, version 2's two sequences different for good.
 */
void page_publish_dead(struct pctr_ctx *ctx)
{
	struct pctr_page *pg = ctx->upage;
	struct pctr_page2 *p2 = page2_of(pg);
	unsigned int s;

	WRITE_ONCE(pg->pg_seq, pg->pg_seq | 1);
	WRITE_ONCE(p2->p2_seq, p2->p2_seq_end + 1);
	barrier();
	pg->pg_flags = PCTR_PG_DEAD;
	pg->pg_vtsc_off = ctx->vtsc;
	p2->p2_flags = PCTR_PG_DEAD;
	p2->p2_vtsc_off = ctx->vtsc;
	p2->p2_live = 0;
	for (s = 0; s < PCTR_NUM; s++) {
		memset(&pg->pg_slot[s], 0, sizeof(pg->pg_slot[s]));
		pg->pg_slot[s].ps_sum = ctx->sum[s];
		p2->p2_slot[s].p2s_off = ctx->sum[s];
		p2->p2_slot[s].p2s_index = -1;
		p2->p2_fn[s] = 0;
	}
}
