// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread virtual counters: the context-switch engine.
 *
 * A thread that programs a counter gets a context: its functions, a
 * 64-bit sum per slot and a preempt notifier.  At sched_out the hardware
 * is stopped and its counts folded into the sums; at sched_in the
 * counters are started again on whatever CPU the thread now runs.  A
 * per-CPU timer (and the backend's overflow interrupt, where it has one)
 * folds while a thread runs, so a counter never wraps more than once
 * between two folds.
 *
 * A context is reached only through its thread: it is found on
 * current->preempt_notifiers, its counting state is changed only on its
 * thread's CPU with interrupts off (so neither a context switch nor a
 * fold can interleave), and its thread's side ends only in that thread's
 * own context: at exit or exec, PCIOCRELEASE, or a task_work.  Closing a
 * descriptor, from any thread, never ends one.  Each context holds a
 * module reference; the exit and exec hooks are tracepoint probes (in
 * thread.c), and module exit waits for running probes before the code
 * goes away.
 *
 * Also here, because they touch the same registers and per-CPU state:
 * finding overflows (a slot's 64-bit value wrapping freezes the context;
 * notify.c signals its thread).  The counters a CPU owns rather than a
 * thread, a CPU binding's (cpu_bind.c) or system mode's (system.c), are
 * cpub.c's, below this file: the fold timer and the overflow interrupt
 * fold them too, and ctx_cpub_start() leaves the thread counting on the
 * CPU beside them, or takes the counters from it, before cpub.c starts
 * them.  The engine keeps the
 * counter page (page.c) up to date.  Making, programming and ending contexts is prog.c's; what a
 * thread asks of its own counters, and inheritance, thread.c's;
 * bindings bind.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "backend.h"
#include "cpub_private.h"
#include "ctx.h"
#include "engine.h"
#include "notify.h"
#include "page.h"
#include "pmu_owner.h"
#include "sample.h"

static atomic64_t pctr_ctx_ids = ATOMIC64_INIT(0);
static struct preempt_ops pctr_preempt_ops;

/* --- counting: all with interrupts off, on the context's CPU ---------- */

static __always_inline void ctx_fold(struct pctr_ctx *ctx)
{
	ctx->ovf |= fold_sums(ctx->hw.mask, ctx->sum, ctx->prev, &ctx->hw) &
		    ctx->notify;
}

/* Rewrite the context's page, if mapped; @on_cpu: it is what counts here. */
static __always_inline void ctx_publish(struct pctr_ctx *ctx, bool on_cpu)
{
	if (ctx->upage)
		page_publish(ctx, on_cpu && ctx_counts(ctx));
}

/*
 * @ctx would count from TSC @now, running here, but this CPU's binding
 * holds the counters: its slots' running time stops until it stops.
 */
static noinline void ctx_starve(struct pctr_ctx *ctx, struct pctr_cpu *pc,
				u64 now)
{
	ctx->starving = true;
	ctx->starve_in = now;
	pc->starving = ctx;
}

/* ... and no longer, from TSC @now. */
static noinline void ctx_unstarve(struct pctr_ctx *ctx, struct pctr_cpu *pc,
				  u64 now)
{
	ctx->starved += now - ctx->starve_in;
	ctx->starving = false;
	if (pc->starving == ctx)
		pc->starving = NULL;
}

/*
 * May @ctx count here beside @cb, this CPU's binding?  With a backend
 * that starts and stops only the slots asked (PCTR_PMU_SHARE), if their
 * slots are disjoint: prog.c refuses a held slot a new function (EBUSY),
 * but a context keeps one it had before the binding took it.  Else the
 * thread starves here.
 */
static __always_inline bool ctx_beside(const struct pctr_ctx *ctx,
				       const struct pctr_cpub *cb)
{
	return (pctr_pmu.flags & PCTR_PMU_SHARE) &&
	       !(ctx->hw.mask & cb->hw.mask);
}

/*
 * Would @ctx read its counters in user mode (rdpmc) were it alone here?
 * Never one a binder programmed, whose counts are the binder's.
 */
static __always_inline bool ctx_wants_user_read(const struct pctr_ctx *ctx)
{
	return (ctx->page ||
		((pctr_pmu.flags & PCTR_PMU_USER_ALWAYS) && !ctx->remote)) &&
	       (pctr_pmu.caps & PCTR_CAP_USER_RDPMC);
}

/*
 * A version 2 page's reader adds the raw counter to an offset: a counter
 * near the rebase point must be loaded from zero at its next start
 * (page.c).  Marks the context so.
 */
static __always_inline bool ctx_rebase_due(struct pctr_ctx *ctx)
{
	if (likely(!(ctx->page_abi & PAGE_ABI_V2)) || !page_rebase_due(ctx))
		return false;
	ctx->dirty = true;
	return true;
}

/* The check every fold makes inline; the rest is out of the way. */
static __always_inline bool ctx_check_ovf_(struct pctr_ctx *ctx)
{
	if (likely(!ctx->ovf || ctx->frozen))
		return false;
	/* Sampling slots record and reload (sample.c); they never freeze. */
	if ((ctx->ovf & ctx->sampling) &&
	    !sample_overflow(ctx, this_cpu_read(pctr_cpu.regs)))
		return false;
	notify_overflow(ctx);
	return true;
}

bool ctx_check_ovf(struct pctr_ctx *ctx)
{
	return ctx_check_ovf_(ctx);
}

/*
 * How far each PCTR_INT slot is from wrapping, where the counter
 * reaches.  A sampling slot throttled in this tick is left unarmed
 * (sample.c), and a fold comes at the next tick to arm it.
 */
static void ctx_set_left(struct pctr_ctx *ctx)
{
	unsigned long m;
	unsigned int s;
	u64 left;

	if (unlikely(ctx->throttled) && !sample_unthrottle(ctx))
		irq_work_queue(this_cpu_ptr(&pctr_cpu.fold_soon));
	/* Backends look at the slots in hw.mask alone. */
	for (m = ctx->hw.mask; m; m &= m - 1)
		ctx->hw.left[__ffs(m)] = 0;
	m = ctx->notify & ctx->hw.mask & ~ctx->throttled;
	for_each_set_bit(s, &m, PCTR_NUM) {
		left = -ctx->sum[s];
		if (left <= pctr_width_mask(pctr_slot_width(&pctr_pmu, s)))
			ctx->hw.left[s] = left;
	}
}

/*
 * The backend failed to access one of @ctx's registers (and said which,
 * once): the context counts no more, and says so -- its reads and calls
 * fail with the error, its page shows it invalid.  Whatever the
 * registers hold is unknown: nobody may keep it.  Counts since the last
 * fold are lost.  Interrupts off, on the CPU.
 */
static noinline void ctx_hw_failed(struct pctr_ctx *ctx, struct pctr_cpu *pc)
{
	atomic_long_inc(&ctx_hw_failures);
	ctx->err = ctx->hw.err;
	if (ctx->pce) {
		pctr_arch_user_rdpmc(false);
		ctx->pce = false;
	}
	/* Stop whatever did start; a second failure changes nothing. */
	pctr_pmu.ops->stop(&pctr_pmu, &ctx->hw);
	ctx->hw.err = 0;
	pc->last_id = 0;
	if (pc->cur == ctx)
		pc->cur = NULL;
	ctx_publish(ctx, pc->cur == ctx);
}

/* Load and start the context's counters on this CPU. */
static __always_inline void ctx_hw_on(struct pctr_ctx *ctx,
				      struct pctr_cpu *pc)
{
	unsigned long m = ctx->hw.mask;
	unsigned int s;
	bool trust = pc->last_id && !READ_ONCE(pctr_no_keep);

	/*
	 * If this context last stopped on this CPU and nothing ran on the
	 * CPU's counters since, the registers still hold its values and
	 * functions.  (Stopped elsewhere since, its sums moved on and these
	 * registers are stale.)
	 */
	ctx->hw.keep = 0;
	if ((pctr_pmu.flags & PCTR_PMU_KEEP) && pc->last_id == ctx->id &&
	    ctx->last_cpu == smp_processor_id() && !ctx->dirty && trust)
		ctx->hw.keep = m;
	ctx->hw.forgotten = !trust;
	/* A counter due for its rebase (page.c) is loaded, not adopted. */
	ctx->hw.adopt = !(pctr_pmu.flags & PCTR_PMU_RAW_SUM) && !ctx->dirty;
	/*
	 * Adopting, any starting value will do, and hw->val still holds
	 * what the last stop read (a backend that does not adopt loads it).
	 */
	for (; m && !ctx->hw.adopt; m &= m - 1) {
		s = __ffs(m);
		if (!(ctx->hw.keep & BIT(s)))
			ctx->prev[s] = pctr_pmu.flags & PCTR_PMU_RAW_SUM ?
				ctx->sum[s] & pctr_width_mask(pctr_slot_width(&pctr_pmu, s)) : 0;
		ctx->hw.val[s] = ctx->prev[s];
	}
	if (ctx->hw.keep)
		pc->kept++;
	else
		pc->loaded++;
	if (ctx->notify)
		ctx_set_left(ctx);
	/*
	 * rdpmc works in user mode only for a thread that mapped its page
	 * (or, where the backend says so, any thread counting its own
	 * events: never one a binder programmed, whose counts are the
	 * binder's), and only while its own counters are alone in the
	 * registers: the backend then leaves every other counter register
	 * reading zero.  Beside a CPU binding's counters, which a thread
	 * must never read, it reads through the ioctl (its page says so),
	 * and the backend touches only its slots.
	 */
	ctx->hw.shared = !!pc->cpub;
	ctx->hw.user_read = !pc->cpub && ctx_wants_user_read(ctx);
	pctr_pmu.ops->start(&pctr_pmu, &ctx->hw);
	if (unlikely(ctx->hw.err)) {
		ctx_hw_failed(ctx, pc);
		return;
	}
	/*
	 * A backend may start a slot from another raw value than asked: one
	 * armed for its overflow, or (x86) whatever its register held.
	 */
	for (m = ctx->hw.mask; m; m &= m - 1)
		ctx->prev[__ffs(m)] = ctx->hw.val[__ffs(m)];
	ctx->dirty = false;
	pc->cur = ctx;
	pc->last_id = ctx->id;
	if (ctx->hw.user_read) {
		pctr_arch_user_rdpmc(true);
		ctx->pce = true;
	}
}

/* Stop the context's counters on this CPU and fold what they counted. */
static __always_inline void ctx_hw_off(struct pctr_ctx *ctx,
				       struct pctr_cpu *pc)
{
	/*
	 * Switching to a thread that will read its own counters in user
	 * mode too, rdpmc is left on for it: its start() leaves every
	 * other register reading zero before it runs in user mode, and its
	 * switch-in turns rdpmc off if it does not read after all.
	 */
	if (ctx->pce) {
		if (pc->pce_next)
			pc->pce_kept = true;
		else
			pctr_arch_user_rdpmc(false);
		ctx->pce = false;
	}
	pctr_pmu.ops->stop(&pctr_pmu, &ctx->hw);
	if (unlikely(ctx->hw.err)) {
		ctx_hw_failed(ctx, pc);
		return;
	}
	ctx_fold(ctx);
	ctx_check_ovf_(ctx);
	ctx_ack(ctx->hw.mask);
	ctx->last_cpu = smp_processor_id();
	pc->cur = NULL;
}

/* Inline in the switch-in hook: the hot path wants no calls. */
static __always_inline void ctx_start_(struct pctr_ctx *ctx)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);

	lockdep_assert_irqs_disabled();
	if (ctx->running)
		return;
	ctx->running = true;
	ctx->tsc_in = pctr_arch_tsc();
	WRITE_ONCE(ctx->cpu, smp_processor_id());
	smp_wmb();	/* cpu before seq: see bind.c's bind_read_thread() */
	WRITE_ONCE(ctx->seq, ctx->seq + 1);
	smp_wmb();	/* seq odd before any later fold's sums */
	/*
	 * A CPU binding holds some of this CPU's counters: the thread's
	 * count beside them, or (a backend that cannot) it starves.
	 */
	if (ctx_counts(ctx)) {
		if (likely(!pc->cpub) || ctx_beside(ctx, pc->cpub))
			ctx_hw_on(ctx, pc);
		else
			ctx_starve(ctx, pc, ctx->tsc_in);
	}
	/*
	 * The fold timer is pinned here, and its callback runs with
	 * interrupts off: not queued means not running on this CPU either
	 * (one moved away by hotplug ends itself), and a test of its state
	 * costs less than hrtimer_active() at every switch.
	 */
	if (pc->cur == ctx && !hrtimer_is_queued(&pc->fold))
		hrtimer_start(&pc->fold, pctr_fold_period,
			      HRTIMER_MODE_REL_PINNED_HARD);
	ctx_publish(ctx, pc->cur == ctx);
}

static __always_inline void ctx_stop_(struct pctr_ctx *ctx)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	u64 now;

	lockdep_assert_irqs_disabled();
	if (!ctx->running)
		return;
	ctx->running = false;
	now = pctr_arch_tsc();
	ctx->vtsc += now - ctx->tsc_in;
	if (unlikely(ctx->starving))
		ctx_unstarve(ctx, pc, now);
	if (pc->cur == ctx) {
		ctx_hw_off(ctx, pc);
		ctx_rebase_due(ctx);
	}
	smp_wmb();	/* sums before seq: see bind.c's bind_read_thread() */
	WRITE_ONCE(ctx->seq, ctx->seq + 1);
	/* The thread is not running: nobody reads its page until start. */
}

void ctx_start(struct pctr_ctx *ctx)
{
	ctx_start_(ctx);
}

void ctx_stop(struct pctr_ctx *ctx)
{
	ctx_stop_(ctx);
}

/*
 * Bring the sums up to date, the counters left running -- unless that
 * found an overflow to freeze at, or the context was invalidated.
 */
void ctx_update(struct pctr_ctx *ctx)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);

	lockdep_assert_irqs_disabled();
	if (!ctx->running || pc->cur != ctx)
		return;
	if (!ctx_counts(ctx)) {
		ctx_hw_off(ctx, pc);
	} else if (ctx->notify) {
		/*
		 * Stop, fold and start again, so that the backend is told
		 * anew how far each PCTR_INT slot is from wrapping (the
		 * backend's idea of it is relative to the last start).
		 * Stopped before the acknowledgement, a freezing backend's
		 * counters stop exactly where the overflow froze them.
		 */
		ctx_hw_off(ctx, pc);
		if (ctx_counts(ctx))
			ctx_hw_on(ctx, pc);
	} else {
		pctr_pmu.ops->read(&pctr_pmu, &ctx->hw);
		if (unlikely(ctx->hw.err)) {
			ctx_hw_failed(ctx, pc);
			return;
		}
		ctx_fold(ctx);
		ctx_ack(ctx->hw.mask);
		if (unlikely(ctx_rebase_due(ctx))) {
			/* Start the counters from zero again. */
			ctx_hw_off(ctx, pc);
			if (ctx_counts(ctx))
				ctx_hw_on(ctx, pc);
		}
	}
	ctx_publish(ctx, pc->cur == ctx);
}

static enum hrtimer_restart pctr_fold_timer(struct hrtimer *t)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);

	/*
	 * A CPU going offline hands its timers to another: this one must
	 * not fold that CPU's counters (its own timer does).
	 */
	if (container_of(t, struct pctr_cpu, fold) != pc)
		return HRTIMER_NORESTART;
	if (!pc->cur && !pc->cpub)
		return HRTIMER_NORESTART;
	if (pc->cpub)
		cpub_update(pc->cpub);
	if (pc->cur)
		ctx_update(pc->cur);
	hrtimer_forward_now(t, pctr_fold_period);
	return HRTIMER_RESTART;
}

/*
 * A throttled context's (or sampling CPU binding's) fold at the next
 * tick, if none comes sooner.
 */
static void ctx_fold_soon(struct irq_work *w)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	ktime_t soon = ns_to_ktime(TICK_NSEC);

	if ((!pc->cur || !pc->cur->throttled) &&
	    (!pc->cpub || !pc->cpub->throttled))
		return;
	if (hrtimer_active(&pc->fold) &&
	    ktime_compare(hrtimer_get_remaining(&pc->fold), soon) <= 0)
		return;
	hrtimer_start(&pc->fold, soon, HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * The slots of @ctx armed for their overflow interrupt: only notifying
 * slots in use are (ctx_set_left()).
 */
static u32 ctx_armed(const struct pctr_ctx *ctx)
{
	u32 armed = 0;
	unsigned long m;

	for (m = ctx->notify & ctx->hw.mask; m; m &= m - 1)
		if (ctx->hw.left[__ffs(m)])
			armed |= BIT(__ffs(m));
	return armed;
}

/*
 * The overflow interrupt's fast path: only sampling slots of @ctx
 * overflowed (@ovf), and they stay armed.  Read, fold, record, and load
 * those with their next period, the counters running on: no stop, no
 * start, no second status read.  False where the full path must run,
 * which starts from the state this leaves.
 */
static bool ctx_overflow_fast(struct pctr_ctx *ctx, struct pctr_cpu *pc,
			      u32 ovf)
{
	unsigned long m = ovf;
	u32 armed = ctx_armed(ctx);
	unsigned int s;

	if (!ctx->running || (ovf & ~ctx->sampling) || (ovf & ~armed) ||
	    ctx->throttled || !ctx_counts(ctx))
		return false;
	pctr_pmu.ops->read(&pctr_pmu, &ctx->hw);
	if (unlikely(ctx->hw.err)) {
		ctx_hw_failed(ctx, pc);
		return true;
	}
	ctx_fold(ctx);
	if (ctx_check_ovf_(ctx) || !ctx_counts(ctx))
		return false;
	ctx_set_left(ctx);
	if (ctx_armed(ctx) != armed)
		return false;
	pctr_pmu.ops->rearm(&pctr_pmu, &ctx->hw, ovf);
	if (unlikely(ctx->hw.err)) {
		ctx_hw_failed(ctx, pc);
		return true;
	}
	for_each_set_bit(s, &m, PCTR_NUM)
		ctx->prev[s] = ctx->hw.val[s];
	ctx_publish(ctx, true);
	return true;
}

/*
 * A backend's overflow interrupt: fold what counts on this CPU (a
 * freezing backend is acknowledged by the fold), then acknowledge
 * whatever is left.  @regs: the interrupted context.  Hard IRQ, or an
 * NMI that interrupted a context with interrupts on (so none of this
 * file's sections, which all run with interrupts off, on this CPU): no
 * locks, nothing that allocates; a signal is queued by irq_work.
 */
void pctr_pmu_interrupt(struct pt_regs *regs)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	struct pt_regs *outer = pc->regs;

	lockdep_assert_irqs_disabled();
	sample_irq_enter();
	pc->regs = regs;
	if (pc->cpub)
		cpub_update(pc->cpub);
	if (pc->cur)
		ctx_update(pc->cur);
	pctr_pmu_ack(U32_MAX);
	pc->regs = outer;
	sample_irq_exit();
}

void pctr_pmu_overflow(struct pt_regs *regs, u32 ovf)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	struct pt_regs *outer = pc->regs;
	bool done = false;

	lockdep_assert_irqs_disabled();
	if (!pctr_pmu.ops->rearm || pc->cpub || !pc->cur) {
		pctr_pmu_interrupt(regs);
		return;
	}
	sample_irq_enter();
	pc->regs = regs;
	done = ctx_overflow_fast(pc->cur, pc, ovf);
	pc->regs = outer;
	sample_irq_exit();
	if (!done)
		pctr_pmu_interrupt(regs);
}

/* --- the scheduler's hooks ------------------------------------------ */

static struct pctr_ctx *pn_ctx(struct preempt_notifier *pn)
{
	return container_of(pn, struct pctr_ctx, pn);
}

/*
 * Will @next read its counters in user mode?  Its notifiers are stable:
 * only a thread edits its own, and @next is not running.
 */
static bool ctx_next_reads(struct task_struct *next)
{
	struct preempt_notifier *pn;

	hlist_for_each_entry(pn, &next->preempt_notifiers, link)
		if (pn->ops == &pctr_preempt_ops)
			return READ_ONCE(pn_ctx(pn)->page) != NULL;
	return false;
}

/* Runs after the switch, preemption off, interrupts on. */
static void pctr_sched_in(struct preempt_notifier *pn, int cpu)
{
	struct pctr_ctx *ctx = pn_ctx(pn);
	struct pctr_cpu *pc;
	unsigned long flags;

	local_irq_save(flags);
	ctx_start_(ctx);
	/* rdpmc left on for this thread at the switch-out (ctx_hw_off()). */
	pc = this_cpu_ptr(&pctr_cpu);
	if (unlikely(pc->pce_kept)) {
		pc->pce_kept = false;
		if (!ctx->pce)
			pctr_arch_user_rdpmc(false);
	}
	local_irq_restore(flags);
}

/* Runs before the switch, with the runqueue locked and interrupts off. */
static void pctr_sched_out(struct preempt_notifier *pn,
			   struct task_struct *next)
{
	struct pctr_ctx *ctx = pn_ctx(pn);
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);

	pc->pce_next = ctx->pce && ctx_next_reads(next);
	ctx_stop_(ctx);
	pc->pce_next = false;
}

static struct preempt_ops pctr_preempt_ops = {
	.sched_in	= pctr_sched_in,
	.sched_out	= pctr_sched_out,
};

/* --- contexts ---------------------------------------------------------- */

/* The calling thread's context, or NULL.  Only current edits the list. */
struct pctr_ctx *ctx_current(void)
{
	struct preempt_notifier *pn;

	hlist_for_each_entry(pn, &current->preempt_notifiers, link)
		if (pn->ops == &pctr_preempt_ops)
			return pn_ctx(pn);
	return NULL;
}

/*
 * The scheduler's preempt-notifier hooks are a static key: turned on
 * with the first context (a page's too: the virtual TSC needs the
 * switches), off only at module exit, so that a program counting in
 * short bursts does not patch kernel text each time.
 */
static DEFINE_MUTEX(ctx_hooks_lock);
static bool ctx_hooks_on;

static void ctx_hooks_enable(void)
{
	if (READ_ONCE(ctx_hooks_on))
		return;
	mutex_lock(&ctx_hooks_lock);
	if (!ctx_hooks_on) {
		preempt_notifier_inc();
		WRITE_ONCE(ctx_hooks_on, true);
	}
	mutex_unlock(&ctx_hooks_lock);
}

/* Hook a new context to the calling thread's switches.  Process context. */
void ctx_attach(struct pctr_ctx *ctx)
{
	ctx_hooks_enable();
	ctx->id = atomic64_inc_return(&pctr_ctx_ids);
	ctx->last_cpu = -1;
	ctx->hw.thread = true;
	preempt_notifier_init(&ctx->pn, &pctr_preempt_ops);
	preempt_disable();
	preempt_notifier_register(&ctx->pn);
	preempt_enable();
}

/*
 * Unhook the calling thread's context: it counts no more, and its page
 * (if any) shows final values, for good.  Interrupts off.
 */
void ctx_detach(struct pctr_ctx *ctx)
{
	lockdep_assert_irqs_disabled();
	ctx_stop(ctx);
	preempt_notifier_unregister(&ctx->pn);
	/* Readers see final values and fall back to the ioctl. */
	if (ctx->upage)
		page_publish_dead(ctx);
}

/*
 * Values of @ctx's slots in @m: irqs off, on the CPU it runs on if any.
 * 0, or the error that ended its counting.
 */
int ctx_values(struct pctr_ctx *ctx, unsigned long m, u64 *fn, u64 *val)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	bool live = ctx->running && pc->cur == ctx;
	unsigned int s;

	if (live) {
		pctr_pmu.ops->read(&pctr_pmu, &ctx->hw);
		if (unlikely(ctx->hw.err))
			ctx_hw_failed(ctx, pc);
	}
	if (ctx->err)
		return ctx->err;
	for_each_set_bit(s, &m, PCTR_NUM) {
		fn[s] = ctx->fn[s];
		val[s] = ctx->sum[s];
		if (live)
			val[s] += pctr_delta(ctx->prev[s], ctx->hw.val[s],
					     pctr_slot_width(&pctr_pmu, s));
	}
	return 0;
}

/*
 * How long each slot of @ctx in @m was enabled (its thread's run time,
 * in TSC cycles, since the slot's function was set or the values zeroed)
 * and how long of that it counted (less the time a CPU binding held the
 * counters of the CPU it ran on).  Irqs off, on the CPU it runs on if
 * any; a stopped context's as a remote read finds it (bind.c).
 */
void ctx_times(const struct pctr_ctx *ctx, unsigned long m, u64 *enabled,
	       u64 *running)
{
	u64 vt = ctx->vtsc, st = ctx->starved, now;
	unsigned int s;

	if (ctx->running) {
		now = pctr_arch_tsc();
		vt += now - ctx->tsc_in;
		if (ctx->starving)
			st += now - ctx->starve_in;
	}
	for_each_set_bit(s, &m, PCTR_NUM) {
		enabled[s] = vt - ctx->en_base[s];
		running[s] = enabled[s] - (st - ctx->st_base[s]);
	}
}

/* Starts since load that only re-enabled the counters, and the others. */
void pctr_ctx_starts(unsigned long *kept, unsigned long *loaded)
{
	int cpu;

	*kept = 0;
	*loaded = 0;
	for_each_possible_cpu(cpu) {
		*kept += READ_ONCE(per_cpu_ptr(&pctr_cpu, cpu)->kept);
		*loaded += READ_ONCE(per_cpu_ptr(&pctr_cpu, cpu)->loaded);
	}
}

/* Contexts and CPU bindings a failed register access ended, since load. */
unsigned long pctr_ctx_failures(void)
{
	return atomic_long_read(&ctx_hw_failures);
}

/* --- a CPU's own counters: cpub.c's, but the thread they displace -- */

/* An ID for a CPU's counters, from the contexts' space.  Any context. */
u64 ctx_new_id(void)
{
	return atomic64_inc_return(&pctr_ctx_ids);
}

/*
 * On the CPU, irqs off: start @cb's counters (cpub.c) beside those of
 * whatever thread counts here, or take the CPU's from it (it starves
 * from now on) where the backend cannot (in system mode none counts).
 * A thread reading its counters in user mode stops, and starts again
 * reading through the ioctl: the binding's are in the registers now.
 * A CPU binding and system mode start alike.
 */
void ctx_cpub_start(struct pctr_cpub *cb)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	struct pctr_ctx *cur = pc->cur;

	cb->hw.shared = !!(pctr_pmu.flags & PCTR_PMU_SHARE);
	if (cur && ctx_beside(cur, cb) && !cur->pce) {
		/* From now on its stop() leaves the binding's slots be. */
		cur->hw.shared = true;
		cpub_start(cb);
		return;
	}
	if (cur)
		ctx_hw_off(cur, pc);
	cpub_start(cb);
	if (cur) {
		if (ctx_counts(cur)) {
			if (ctx_beside(cur, cb))
				ctx_hw_on(cur, pc);
			else
				ctx_starve(cur, pc, pctr_arch_tsc());
		}
		ctx_publish(cur, pc->cur == cur);
	}
}

/*
 * On the CPU, irqs off: a CPU binding ends here (ctx_cpub_stop()).  The
 * thread that starved under it counts again at once; one that counted
 * beside it reads in user mode again, if it would alone.
 */
void ctx_cpub_leave(struct pctr_cpub *cb)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	struct pctr_ctx *ctx;

	ctx_cpub_stop(cb);
	if (pc->cpub)
		return;
	ctx = pc->starving;
	if (ctx) {
		ctx_stop_(ctx);
		ctx_start_(ctx);
		return;
	}
	ctx = pc->cur;
	if (!ctx || !ctx_wants_user_read(ctx))
		return;
	ctx_hw_off(ctx, pc);
	if (ctx_counts(ctx))
		ctx_hw_on(ctx, pc);
	ctx_publish(ctx, pc->cur == ctx);
}

/* --- set-up ---------------------------------------------------------- */

/*
 * The fold period: a counter must not wrap twice between folds.  Assume
 * at most 2^34 events a second (several events a cycle at several GHz);
 * narrower counters rely on the backend's overflow interrupt too.
 */
static ktime_t pctr_fold_interval(void)
{
	unsigned int bits = pctr_pmu.width;
	u64 ns = NSEC_PER_SEC;

	if (pctr_pmu.nfixed && pctr_pmu.fixed_width < bits)
		bits = pctr_pmu.fixed_width;
	if (bits < 34 + 2)
		ns = max_t(u64, NSEC_PER_MSEC,
			   NSEC_PER_SEC >> min(34 + 2 - bits, 63U));
	return ns_to_ktime(ns);
}

/*
 * Registers on this CPU may have lost what a stop left there (the CPU
 * went offline, or the machine slept): nobody may keep them.  Irqs off.
 */
void ctx_forget_registers(void)
{
	this_cpu_write(pctr_cpu.last_id, 0);
}

/* Trust registers to keep their state (the keep shortcut), or not. */
void ctx_trust_registers(bool on)
{
	WRITE_ONCE(pctr_no_keep, !on);
}

void ctx_engine_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pctr_cpu *pc = per_cpu_ptr(&pctr_cpu, cpu);

		hrtimer_init(&pc->fold, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		pc->fold.function = pctr_fold_timer;
		pc->fold_soon = IRQ_WORK_INIT_HARD(ctx_fold_soon);
	}
	pctr_fold_period = pctr_fold_interval();
	ctx_gen_mask = pctr_width_mask(pctr_pmu.width);
	ctx_fix_mask = pctr_width_mask(pctr_pmu.fixed_width);
	notify_init();
}

/* Module exit: every context is gone (each held a module reference). */
void ctx_engine_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		irq_work_sync(&per_cpu_ptr(&pctr_cpu, cpu)->fold_soon);
		hrtimer_cancel(&per_cpu_ptr(&pctr_cpu, cpu)->fold);
	}
	pctr_pmu_exit();
	notify_exit();
	if (ctx_hooks_on)
		preempt_notifier_dec();
}
