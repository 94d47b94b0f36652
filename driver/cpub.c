// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU's own counters: the engine's half of a CPU binding (cpu_bind.c)
 * and of system mode (system.c).  They count on one CPU whatever runs
 * there, in a struct pctr_cpub whose sums change only on that CPU with
 * interrupts off: the IPIs that make, read and end it, the fold timer
 * and the overflow interrupt (ctx.c's, which call cpub_update()).
 *
 * Also here, the state every CPU's counting shares (cpub_private.h):
 * which context or binding counts on the CPU now, the fold timer, and
 * the slots CPU bindings hold: no thread may give one of those a
 * function (EBUSY).  A thread context counts in its other slots on a
 * bound CPU beside the binding where the backend can (PCTR_PMU_SHARE);
 * elsewhere it runs there without counting, its slots' running time
 * short of their enabled time.
 *
 * ctx.c, a thread's counters, sits above this file: it leaves the thread
 * counting on the CPU its slots, or takes the counters from it, before
 * cpub_start() (its ctx_cpub_start()); nothing here calls ctx.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/smp.h>

#include "backend.h"
#include "cpub_private.h"
#include "ctx.h"
#include "engine.h"
#include "sample.h"

DEFINE_PER_CPU(struct pctr_cpu, pctr_cpu);
ktime_t pctr_fold_period;
u64 ctx_gen_mask __read_mostly;
u64 ctx_fix_mask __read_mostly;
bool pctr_no_keep;
atomic_long_t ctx_hw_failures = ATOMIC_LONG_INIT(0);

/*
 * CPU bindings: how many exist, and the slots any of them holds (on any
 * CPU: a thread may run on each).  cpu_bind.c serialises the changes.
 */
static atomic_t pctr_cpu_binds = ATOMIC_INIT(0);
static u32 pctr_held_slots;

unsigned int pctr_ctx_cpu_bindings(void)
{
	return atomic_read(&pctr_cpu_binds);
}

/*
 * The slots CPU bindings hold now: prog.c refuses them to threads, and
 * sysfs's "held_slots" shows them.  Any context.
 */
u32 pctr_ctx_held_slots(void)
{
	return READ_ONCE(pctr_held_slots);
}

/*
 * A CPU binding is about to be made, holding @held with the others, or
 * one is gone and the others hold @held (cpu_bind.c serialises them).
 */
void ctx_cpub_begin(u32 held)
{
	atomic_inc(&pctr_cpu_binds);
	WRITE_ONCE(pctr_held_slots, held);
}

void ctx_cpub_end(u32 held)
{
	WRITE_ONCE(pctr_held_slots, held);
	atomic_dec(&pctr_cpu_binds);
}

/* --- the registers: all on the CPU, interrupts off -------------------- */

/* Acknowledge what of @slots overflowed, where the backend flags overflows. */
void pctr_pmu_ack(u32 slots)
{
	const struct pctr_pmu_ops *ops = pctr_pmu.ops;
	u32 status;

	if (!ops->overflow_status || !ops->overflow_ack)
		return;
	status = ops->overflow_status(&pctr_pmu) & slots;
	if (status)
		ops->overflow_ack(&pctr_pmu, status);
}

/* A CPU binding's registers failed: it counts no more (EIO). */
static noinline void cpub_failed(struct pctr_cpub *cb)
{
	atomic_long_inc(&ctx_hw_failures);
	cb->err = cb->hw.err;
	pctr_pmu.ops->stop(&pctr_pmu, &cb->hw);
	cb->hw.err = 0;
	this_cpu_write(pctr_cpu.last_id, 0);
}

/*
 * System mode lets processes rdpmc through the kernel's own switch (the
 * count perf raises for a mapped event), and that switch also zeroes the
 * counters perf used before pctr took the PMU, once per CPU.  Such a
 * register reads below its last fold; a real wrap cannot have happened
 * unless that fold was within one fold period's reach (2^35 events) of
 * the top, so for wide counters a lower value there means the register
 * was zeroed: count from zero, not a bogus near-2^width delta.
 */
static void cpub_sys_resets(struct pctr_cpub *cb)
{
	unsigned long m = cb->hw.mask;
	unsigned int s, bits;

	for_each_set_bit(s, &m, PCTR_NUM) {
		bits = pctr_slot_width(&pctr_pmu, s);
		if (bits >= 40 && cb->hw.val[s] < cb->prev[s] &&
		    cb->prev[s] < pctr_width_mask(bits) - BIT_ULL(35))
			cb->prev[s] = 0;
	}
}

/*
 * A sampling binding's slots armed for their overflow interrupt: each
 * the distance to its 64-bit wrap, where the counter reaches, unless
 * throttled in this tick (then a fold comes at the next tick to arm it,
 * as for a thread: ctx.c's fold_soon).
 */
static void cpub_arm(struct pctr_cpub *cb)
{
	unsigned long m;
	unsigned int s;
	u64 left;

	if (unlikely(cb->throttled) && !sample_rearm(cb->smp, &cb->throttled))
		irq_work_queue(this_cpu_ptr(&pctr_cpu.fold_soon));
	for (m = cb->hw.mask; m; m &= m - 1)
		cb->hw.left[__ffs(m)] = 0;
	m = cb->sampling & cb->hw.mask & ~cb->throttled;
	for_each_set_bit(s, &m, PCTR_NUM) {
		left = -cb->sum[s];
		if (left <= pctr_width_mask(pctr_slot_width(&pctr_pmu, s)))
			cb->hw.left[s] = left;
	}
}

/*
 * Start @cb's counters as its hw says (armed, if it samples) and make it
 * what counts here.  NMI-safe (the overflow interrupt's fold).
 */
static void cpub_hw_on(struct pctr_cpub *cb, struct pctr_cpu *pc)
{
	unsigned long m;

	if (cb->sampling)
		cpub_arm(cb);
	cb->hw.forgotten = !pc->last_id || READ_ONCE(pctr_no_keep);
	pctr_pmu.ops->start(&pctr_pmu, &cb->hw);
	pc->cpub = cb;
	pc->last_id = cb->id;
	if (unlikely(cb->hw.err)) {
		cpub_failed(cb);
	} else if (cb->sampling) {
		/* An armed slot may start from another raw value (backend.h). */
		for (m = cb->hw.mask; m; m &= m - 1)
			cb->prev[__ffs(m)] = cb->hw.val[__ffs(m)];
	}
}

/*
 * A sampling binding's fold: stop, fold, record the sampling slots that
 * wrapped (in the overflow interrupt, what it interrupted: whichever
 * thread runs here), and start again armed for the next period (the
 * backend's distance to the interrupt counts from a start).
 */
static noinline void cpub_sample_fold(struct pctr_cpub *cb)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	u32 wrapped;

	pctr_pmu.ops->stop(&pctr_pmu, &cb->hw);
	if (unlikely(cb->hw.err)) {
		cpub_failed(cb);
		return;
	}
	wrapped = fold_sums(cb->hw.mask, cb->sum, cb->prev, &cb->hw) &
		  cb->sampling;
	ctx_ack(cb->hw.mask);
	if (wrapped)
		sample_wrapped(cb->smp, wrapped, cb->sum, &cb->throttled,
			       pc->regs);
	cpub_hw_on(cb, pc);
}

/* A CPU binding's counters: fold them, leaving them run. */
void cpub_update(struct pctr_cpub *cb)
{
	if (cb->err)
		return;
	if (unlikely(cb->sampling)) {
		cpub_sample_fold(cb);
		return;
	}
	pctr_pmu.ops->read(&pctr_pmu, &cb->hw);
	if (unlikely(cb->hw.err)) {
		cpub_failed(cb);
		return;
	}
	if (cb->sys)
		cpub_sys_resets(cb);
	fold_sums(cb->hw.mask, cb->sum, cb->prev, &cb->hw);
	ctx_ack(cb->hw.mask);
}

/*
 * Start @cb's counters and make it what counts here, the fold timer
 * running; a thread counts here now only beside it, in other slots
 * (ctx_cpub_start()).
 */
void cpub_start(struct pctr_cpub *cb)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);

	cpub_hw_on(cb, pc);
	if (!hrtimer_active(&pc->fold))
		hrtimer_start(&pc->fold, pctr_fold_period,
			      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * On the CPU, irqs off: if @cb counts here, stop its counters and fold
 * what they counted; the CPU is then free for threads (the one running
 * here counts again at once: ctx.c's ctx_cpub_leave()).  True if the
 * registers hold what the stop left (no failure, now or before).
 */
bool ctx_cpub_stop(struct pctr_cpub *cb)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	bool held = false;

	if (pc->cpub != cb)
		return false;
	pc->cpub = NULL;
	pc->last_id = 0;
	if (cb->err)
		return false;
	pctr_pmu.ops->stop(&pctr_pmu, &cb->hw);
	if (unlikely(cb->hw.err)) {
		cpub_failed(cb);
	} else {
		if (cb->sys)
			cpub_sys_resets(cb);
		fold_sums(cb->hw.mask, cb->sum, cb->prev, &cb->hw);
		held = true;
	}
	ctx_ack(cb->hw.mask);
	/* Its sampling ends here: so do its throttles, said in the ring. */
	if (cb->throttled)
		sample_throttles_end(cb->smp, &cb->throttled);
	return held;
}

/*
 * On the CPU, irqs off: if @cb counts here, bring its sums up to date,
 * its counters left running, and say so.
 */
bool ctx_cpub_fold(struct pctr_cpub *cb)
{
	if (this_cpu_read(pctr_cpu.cpub) != cb)
		return false;
	cpub_update(cb);
	return true;
}

/* @cb's CPU is offline and runs nothing: it is simply dropped there. */
void ctx_cpub_drop(struct pctr_cpub *cb)
{
	per_cpu_ptr(&pctr_cpu, cb->cpu)->cpub = NULL;
}

/*
 * On the CPU, irqs off: @cb, counting here, samples its slot @slot from
 * now on into @smp's ring (cpu_bind.c made the sampler), with control
 * @ctl (its function with PCTR_INT) and @period: its value restarts at
 * 2^64 - @period.  False if @cb does not count here (any more): else
 * @smp is @cb's, a failure to start again its error (EIO), as any.
 */
bool ctx_cpub_sample(struct pctr_cpub *cb, struct pctr_sampler *smp,
		     unsigned int slot, u64 ctl, u64 period)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);

	if (pc->cpub != cb || cb->err)
		return false;
	pctr_pmu.ops->stop(&pctr_pmu, &cb->hw);
	if (unlikely(cb->hw.err)) {
		cpub_failed(cb);
		return false;
	}
	fold_sums(cb->hw.mask, cb->sum, cb->prev, &cb->hw);
	ctx_ack(cb->hw.mask);
	cb->hw.ctl[slot] = ctl;
	cb->sum[slot] = -period;
	cb->smp = smp;
	cb->sampling = BIT(slot);
	cpub_hw_on(cb, pc);
	return true;
}
