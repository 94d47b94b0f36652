/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ctx.c (a thread's counters) and cpub.c (a CPU's own counters)
 * share, and nobody else may use: each CPU's counting state, and the
 * helpers both inline on their hot paths.  Private to those two files;
 * cpub.c is the lower one (it calls nothing of ctx.c's).
 */
#ifndef _PCTR_CPUB_PRIVATE_H
#define _PCTR_CPUB_PRIVATE_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/types.h>

#include "backend.h"

struct pctr_ctx;
struct pctr_cpub;
struct pt_regs;

struct pctr_cpu {
	struct pctr_ctx	*cur;		/* counting on this CPU now */
	struct pctr_cpub *cpub;		/* the CPU's binding, if any */
	struct pctr_ctx	*starving;	/* running here, its counters held */
	u64		last_id;	/* whose state the registers hold */
	struct hrtimer	fold;		/* folds while a context runs */
	struct irq_work	fold_soon;	/* ... at the next tick: a throttle */
	struct pt_regs	*regs;		/* within the overflow interrupt */
	bool		pce_next;	/* switching out to a thread that reads */
	bool		pce_kept;	/* user rdpmc left on for it */
	unsigned long	kept;		/* starts that only re-enabled */
	unsigned long	loaded;		/* starts that rewrote registers */
};

DECLARE_PER_CPU(struct pctr_cpu, pctr_cpu);

/* Set once at load (ctx.c's ctx_engine_init()): the fold timer's period. */
extern ktime_t pctr_fold_period;
/* The general and fixed counters' width masks, set once at load. */
extern u64 ctx_gen_mask;
extern u64 ctx_fix_mask;
/* What the registers hold is not to be trusted now: see hotplug.c. */
extern bool pctr_no_keep;
/* Contexts and CPU bindings a failed register access ended. */
extern atomic_long_t ctx_hw_failures;

/* Fold raw values into 64-bit sums; the slots whose sum wrapped. */
static __always_inline u32 fold_sums(unsigned long m, u64 *sum, u64 *prev,
				     const struct pctr_hw *hw)
{
	u64 gen = ctx_gen_mask, fix = ctx_fix_mask;
	unsigned int s;
	u32 wrapped = 0;
	u64 old;

	for (; m; m &= m - 1) {
		s = __ffs(m);
		old = sum[s];
		sum[s] += (hw->val[s] - prev[s]) &
			  (s < PCTR_FIXED_BASE ? gen : fix);
		prev[s] = hw->val[s];
		if (sum[s] < old)
			wrapped |= BIT(s);
	}
	return wrapped;
}

/*
 * cpub.c, for ctx.c, on the CPU with irqs off: acknowledge whatever of
 * @slots overflowed, where the backend flags overflows; start @cb's
 * counters, beside a thread's or the thread that counted here stopped;
 * fold a CPU binding's, leaving them run.
 */
void pctr_pmu_ack(u32 slots);
void cpub_start(struct pctr_cpub *cb);
void cpub_update(struct pctr_cpub *cb);

/*
 * After a fold of @mine, the slots of one context or binding: a freezing
 * backend counts on once acknowledged.  Only those: a thread's and a
 * binding's counting side by side fold apart, and an overflow of the
 * other's must keep its counters frozen until its own fold.
 */
static inline void ctx_ack(u32 mine)
{
	if (pctr_pmu.flags & PCTR_PMU_FREEZE)
		pctr_pmu_ack(mine);
}

#endif /* _PCTR_CPUB_PRIVATE_H */
