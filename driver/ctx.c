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
 * current->preempt_notifiers, changed only by that thread (with
 * interrupts off, so neither a context switch nor a fold can interleave)
 * and freed only in that thread's own context, at exit or exec.  Closing
 * a descriptor, from any thread, never touches a context.  Each context
 * holds a module reference, so the module stays while any thread counts;
 * the exit and exec hooks that drop the last one are tracepoint probes,
 * and module exit waits for running probes before the code goes away.
 *
 * Also here, because they touch the same registers and per-CPU state:
 * overflow notification (a slot's 64-bit value wrapping freezes the
 * context and signals its thread), inheritance (a task_work in each new
 * thread copies its creator's context), CPU bindings (counters owned by
 * a CPU rather than a thread) and the engine half of thread bindings
 * (another process's tracer counting for one of its threads).  Contexts
 * are reference counted: a binder's descriptor and an overflow signal on
 * its way may outlive the thread's side of a context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>

#include "compat.h"
#include "ctx.h"
#include "pctr.h"

struct pctr_ctx {
	struct preempt_notifier	pn;
	u64		id;		/* unique for the module's life */
	u64		fn[PCTR_NUM];	/* functions, as the user set them */
	u64		sum[PCTR_NUM];	/* 64-bit virtual values */
	u64		prev[PCTR_NUM];	/* raw value at the last fold */
	u64		preset[PCTR_NUM]; /* where restart and children start */
	struct pctr_hw	hw;		/* what the backend loads and stops */
	int		last_cpu;	/* CPU of the last stop, or -1 */
	bool		running;	/* the thread is on a CPU */
	bool		dirty;		/* registers must be rewritten */
	bool		pce;		/* user rdpmc turned on for it */
	bool		frozen;		/* stopped by an overflow */
	bool		disabled;	/* stopped by PCIOCDISABLE */
	bool		remote;		/* programmed by a thread binding */
	bool		dead;		/* the thread's side has ended */
	bool		released;	/* a binder let go: ends at once */
	u32		notify;		/* slots with PCTR_INT */
	u32		ovf;		/* of which wrapped, until restart */
	u32		opts;		/* PCTR_O_* */
	int		signo;		/* the overflow signal */
	unsigned long	epoch;		/* CPU-binding epoch it belongs to */
	u32		seq;		/* odd while running: remote reads */
	int		cpu;		/* where it runs, while seq is odd */
	u64		vtsc;		/* TSC cycles run up to tsc_in */
	u64		tsc_in;		/* TSC at the last switch-in */
	struct page	*page;		/* the page user space maps, or NULL */
	struct pctr_page *upage;	/* its kernel address */
	u32		published;	/* slots the page describes */
	refcount_t	ref;
	struct pid	*pid;		/* the thread, for signals */
	unsigned long	ovf_pc;		/* user PC at the last overflow */
	struct callback_head ovf_work;	/* sends the overflow signal */
	bool		ovf_queued;	/* ovf_work waits to run */
	struct callback_head end_work;	/* a thread binding's end */
};

struct pctr_cpu {
	struct pctr_ctx	*cur;		/* counting on this CPU now */
	struct pctr_cpub *cpub;		/* the CPU's binding, if any */
	u64		last_id;	/* whose state the registers hold */
	struct hrtimer	fold;		/* folds while a context runs */
	unsigned long	kept;		/* starts that only re-enabled */
	unsigned long	loaded;		/* starts that rewrote registers */
};

struct linux_binprm;

static DEFINE_PER_CPU(struct pctr_cpu, pctr_cpu);
static atomic64_t pctr_ctx_ids = ATOMIC64_INIT(0);
static ktime_t pctr_fold_period;
static struct preempt_ops pctr_preempt_ops;

/*
 * CPU bindings.  pctr_epoch moves on when the first binding of a period
 * is made: every thread context of an older epoch is invalid for good.
 * A context made while a binding exists has no counters (pctr_cpu_binds
 * is checked after reading the epoch, and bumped before the epoch).
 */
static atomic_t pctr_cpu_binds = ATOMIC_INIT(0);
static atomic_long_t pctr_epoch = ATOMIC_LONG_INIT(0);

/* A task_work callback was queued since load: see pctr_ctx_exit(). */
static bool pctr_task_works;

void pctr_note_task_work(void)
{
	WRITE_ONCE(pctr_task_works, true);
}

/* --- counting: all with interrupts off, on the context's CPU ---------- */

/* Fold raw values into 64-bit sums; the slots whose sum wrapped. */
static u32 fold_sums(unsigned long m, u64 *sum, u64 *prev,
		     const struct pctr_hw *hw)
{
	unsigned int s;
	u32 wrapped = 0;
	u64 old;

	for_each_set_bit(s, &m, PCTR_NUM) {
		old = sum[s];
		sum[s] += pctr_delta(prev[s], hw->val[s],
				     pctr_slot_width(&pctr_pmu, s));
		prev[s] = hw->val[s];
		if (sum[s] < old)
			wrapped |= BIT(s);
	}
	return wrapped;
}

static void ctx_fold(struct pctr_ctx *ctx)
{
	ctx->ovf |= fold_sums(ctx->hw.mask, ctx->sum, ctx->prev, &ctx->hw) &
		    ctx->notify;
}

static bool ctx_valid(const struct pctr_ctx *ctx)
{
	return ctx->epoch == (unsigned long)atomic_long_read(&pctr_epoch);
}

/* After a fold: a freezing backend counts on once acknowledged. */
static void ctx_ack(void)
{
	u32 status;

	if (!(pctr_pmu.flags & PCTR_PMU_FREEZE))
		return;
	status = pctr_pmu.ops->overflow_status(&pctr_pmu);
	if (status)
		pctr_pmu.ops->overflow_ack(&pctr_pmu, status);
}

/* Does the context count when its thread runs? */
static bool ctx_counts(const struct pctr_ctx *ctx)
{
	return pctr_pmu.ops && ctx->hw.mask && !ctx->frozen &&
	       !ctx->disabled && ctx_valid(ctx);
}

static void ctx_get(struct pctr_ctx *ctx)
{
	refcount_inc(&ctx->ref);
}

/* The last reference: the thread's side ended long ago.  Any context. */
static void ctx_put(struct pctr_ctx *ctx)
{
	if (!refcount_dec_and_test(&ctx->ref))
		return;
	put_pid(ctx->pid);
	kfree(ctx);
	module_put(THIS_MODULE);
}

/*
 * The overflow signal, sent by a task_work in the thread itself on its
 * way back to user space.  The overflow is found at switch-out too,
 * where the runqueue lock is held and nobody may be woken; and sent from
 * any other task, the signal's sender fields (which overlap si_addr in
 * the layout the kernel gives our si_code) would be rewritten for that
 * task's namespaces.
 */
static void ctx_ovf_signal(struct callback_head *work)
{
	struct pctr_ctx *ctx = container_of(work, struct pctr_ctx, ovf_work);
	struct kernel_siginfo info;
	int sig = ctx->signo;

	WRITE_ONCE(ctx->ovf_queued, false);
	if (!READ_ONCE(ctx->dead) && !(current->flags & PF_EXITING)) {
		clear_siginfo(&info);
		info.si_signo = sig;
		info.si_code = PCTR_SI_OVERFLOW;
		info.si_addr = (void __user *)ctx->ovf_pc;
		send_sig_info(sig, &info, current);
	}
	ctx_put(ctx);
	/* ctx_put()'s module_put() may be the last: see pctr_unhook(). */
}

/*
 * After a fold: if a slot with PCTR_INT wrapped, freeze the context and
 * signal its thread.  True if it froze now.  Runs in the thread's own
 * context (switch-out, an interrupt of it, or a call it made).
 */
static bool ctx_check_ovf(struct pctr_ctx *ctx)
{
	if (!ctx->ovf || ctx->frozen)
		return false;
	ctx->frozen = true;
	/* Where the thread was in user space when it was interrupted. */
	ctx->ovf_pc = instruction_pointer(task_pt_regs(current));
	/* One signal until restart; a pending one will do. */
	if (ctx->ovf_queued)
		return true;
	ctx_get(ctx);
	pctr_note_task_work();
	init_task_work(&ctx->ovf_work, ctx_ovf_signal);
	/* TWA_RESUME only sets a flag: allowed under the runqueue lock. */
	if (task_work_add(current, &ctx->ovf_work, TWA_RESUME))
		ctx_put(ctx);
	else
		ctx->ovf_queued = true;
	return true;
}

/* How far each PCTR_INT slot is from wrapping, where the counter reaches. */
static void ctx_set_left(struct pctr_ctx *ctx)
{
	unsigned long m = ctx->notify & ctx->hw.mask;
	unsigned int s;
	u64 left;

	memset(ctx->hw.left, 0, sizeof(ctx->hw.left));
	for_each_set_bit(s, &m, PCTR_NUM) {
		left = -ctx->sum[s];
		if (left <= pctr_width_mask(pctr_slot_width(&pctr_pmu, s)))
			ctx->hw.left[s] = left;
	}
}

/*
 * Rewrite the thread's counter page (interrupts off, on the thread's CPU,
 * with the thread's counters running).  The thread cannot be reading it
 * meanwhile: it reads only while it runs, and this runs at its switch-in
 * or interrupts it.  The odd/even sequence tells it to retry a read that
 * straddled an update.  Only slots in use, or just freed, are written.
 */
static void ctx_publish(struct pctr_ctx *ctx)
{
	struct pctr_page *pg = ctx->upage;
	unsigned long live, touch;
	struct pctr_page_slot *ps;
	unsigned int s;
	u32 flags;
	int idx;

	if (!pg)
		return;
	live = ctx_counts(ctx) && this_cpu_read(pctr_cpu.cur) == ctx ?
	       ctx->hw.mask : 0;
	flags = PCTR_PG_RUNNING | (ctx->pce ? PCTR_PG_RDPMC : 0);
	if (ctx->frozen)
		flags |= PCTR_PG_FROZEN;
	if (ctx->disabled)
		flags |= PCTR_PG_DISABLED;
	if (!ctx_valid(ctx))
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
		if (!(live & BIT(s)))
			continue;
		ps->ps_prev = ctx->prev[s];
		ps->ps_mask = pctr_width_mask(pctr_slot_width(&pctr_pmu, s));
		if (ctx->pce) {
			idx = pctr_pmu.ops->rdpmc_index(&pctr_pmu, s);
			ps->ps_rdpmc = idx >= 0 ? idx + 1 : 0;
		}
	}
	ctx->published = ctx->hw.mask;
	if (live && pctr_pmu.ops->user_page)
		pctr_pmu.ops->user_page(&pctr_pmu, &ctx->hw, pg);
	barrier();
	WRITE_ONCE(pg->pg_seq, pg->pg_seq + 1);
}

/* The context ended: final values, and a sequence left odd for good. */
static void ctx_publish_dead(struct pctr_ctx *ctx)
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

/* Load and start the context's counters on this CPU. */
static void ctx_hw_on(struct pctr_ctx *ctx, struct pctr_cpu *pc)
{
	unsigned long m = ctx->hw.mask;
	unsigned int s;

	/*
	 * If this context last stopped on this CPU and nothing ran on the
	 * CPU's counters since, the registers still hold its values and
	 * functions.  (Stopped elsewhere since, its sums moved on and these
	 * registers are stale.)
	 */
	ctx->hw.keep = 0;
	if ((pctr_pmu.flags & PCTR_PMU_KEEP) && pc->last_id == ctx->id &&
	    ctx->last_cpu == smp_processor_id() && !ctx->dirty)
		ctx->hw.keep = m;
	for_each_set_bit(s, &m, PCTR_NUM) {
		if (!(ctx->hw.keep & BIT(s)))
			ctx->prev[s] = 0;
		ctx->hw.val[s] = ctx->prev[s];
	}
	if (ctx->hw.keep)
		pc->kept++;
	else
		pc->loaded++;
	if (ctx->notify)
		ctx_set_left(ctx);
	pctr_pmu.ops->start(&pctr_pmu, &ctx->hw);
	ctx->dirty = false;
	pc->cur = ctx;
	pc->last_id = ctx->id;
	/*
	 * rdpmc works in user mode only for a thread that mapped its page,
	 * and only while its own counters are in the registers.
	 */
	if (ctx->page && (pctr_pmu.caps & PCTR_CAP_USER_RDPMC)) {
		pctr_arch_user_rdpmc(true);
		ctx->pce = true;
	}
}

/* Stop the context's counters on this CPU and fold what they counted. */
static void ctx_hw_off(struct pctr_ctx *ctx, struct pctr_cpu *pc)
{
	if (ctx->pce) {
		pctr_arch_user_rdpmc(false);
		ctx->pce = false;
	}
	pctr_pmu.ops->stop(&pctr_pmu, &ctx->hw);
	ctx_fold(ctx);
	ctx_check_ovf(ctx);
	ctx_ack();
	ctx->last_cpu = smp_processor_id();
	pc->cur = NULL;
}

static void ctx_start(struct pctr_ctx *ctx)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);

	lockdep_assert_irqs_disabled();
	if (ctx->running)
		return;
	ctx->running = true;
	ctx->tsc_in = pctr_arch_tsc();
	WRITE_ONCE(ctx->cpu, smp_processor_id());
	smp_wmb();	/* cpu before seq: see pctr_ctx_remote_read() */
	WRITE_ONCE(ctx->seq, ctx->seq + 1);
	smp_wmb();	/* seq odd before any later fold's sums */
	/* A CPU binding owns this CPU's counters: no thread counts. */
	if (ctx_counts(ctx) && !pc->cpub)
		ctx_hw_on(ctx, pc);
	if (pc->cur == ctx && !hrtimer_active(&pc->fold))
		hrtimer_start(&pc->fold, pctr_fold_period,
			      HRTIMER_MODE_REL_PINNED_HARD);
	ctx_publish(ctx);
}

static void ctx_stop(struct pctr_ctx *ctx)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);

	lockdep_assert_irqs_disabled();
	if (!ctx->running)
		return;
	ctx->running = false;
	ctx->vtsc += pctr_arch_tsc() - ctx->tsc_in;
	if (pc->cur == ctx)
		ctx_hw_off(ctx, pc);
	smp_wmb();	/* sums before seq: see pctr_ctx_remote_read() */
	WRITE_ONCE(ctx->seq, ctx->seq + 1);
	/* The thread is not running: nobody reads its page until start. */
}

/*
 * Bring the sums up to date, the counters left running -- unless that
 * found an overflow to freeze at, or the context was invalidated.
 */
static void ctx_update(struct pctr_ctx *ctx)
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
		ctx_fold(ctx);
		ctx_ack();
	}
	ctx_publish(ctx);
}

/* A CPU binding's counters: fold them, leaving them run. */
static void cpub_update(struct pctr_cpub *cb)
{
	pctr_pmu.ops->read(&pctr_pmu, &cb->hw);
	fold_sums(cb->hw.mask, cb->sum, cb->prev, &cb->hw);
	ctx_ack();
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
 * A backend's overflow interrupt: fold what counts on this CPU (a
 * freezing backend is acknowledged by the fold), then acknowledge
 * whatever is left.
 */
void pctr_pmu_interrupt(void)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	u32 status;

	lockdep_assert_irqs_disabled();
	if (pc->cpub)
		cpub_update(pc->cpub);
	if (pc->cur)
		ctx_update(pc->cur);
	status = pctr_pmu.ops->overflow_status(&pctr_pmu);
	if (status)
		pctr_pmu.ops->overflow_ack(&pctr_pmu, status);
}

/* --- the scheduler's hooks ------------------------------------------ */

static struct pctr_ctx *pn_ctx(struct preempt_notifier *pn)
{
	return container_of(pn, struct pctr_ctx, pn);
}

/* Runs after the switch, preemption off, interrupts on. */
static void pctr_sched_in(struct preempt_notifier *pn, int cpu)
{
	unsigned long flags;

	local_irq_save(flags);
	ctx_start(pn_ctx(pn));
	local_irq_restore(flags);
}

/* Runs before the switch, with the runqueue locked and interrupts off. */
static void pctr_sched_out(struct preempt_notifier *pn,
			   struct task_struct *next)
{
	ctx_stop(pn_ctx(pn));
}

static struct preempt_ops pctr_preempt_ops = {
	.sched_in	= pctr_sched_in,
	.sched_out	= pctr_sched_out,
};

/* --- contexts ---------------------------------------------------------- */

/* The calling thread's context, or NULL.  Only current edits the list. */
static struct pctr_ctx *ctx_current(void)
{
	struct preempt_notifier *pn;

	hlist_for_each_entry(pn, &current->preempt_notifiers, link)
		if (pn->ops == &pctr_preempt_ops)
			return pn_ctx(pn);
	return NULL;
}

/*
 * A context for the calling thread.  With @counting it is to count, which
 * no thread may while a CPU binding exists (-EAGAIN); a context for the
 * page alone may be made any time.
 */
static struct pctr_ctx *ctx_create(bool counting)
{
	struct pctr_ctx *ctx;
	unsigned long epoch;
	int ret;

	epoch = atomic_long_read(&pctr_epoch);
	smp_rmb();	/* pairs with pctr_cpub_begin() */
	if (counting && atomic_read(&pctr_cpu_binds))
		return ERR_PTR(-EAGAIN);
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	ret = pctr_pmu_get();
	if (ret) {
		kfree(ctx);
		return ERR_PTR(ret);
	}
	/* Our caller holds a reference through its open file. */
	__module_get(THIS_MODULE);
	ctx->id = atomic64_inc_return(&pctr_ctx_ids);
	ctx->last_cpu = -1;
	ctx->epoch = epoch;
	ctx->signo = SIGIO;
	ctx->pid = get_task_pid(current, PIDTYPE_PID);
	refcount_set(&ctx->ref, 1);
	preempt_notifier_init(&ctx->pn, &pctr_preempt_ops);
	preempt_disable();
	preempt_notifier_register(&ctx->pn);
	preempt_enable();
	return ctx;
}

/*
 * Current's own context goes away: its counters, its page and its hold
 * on the PMU.  What is left for a binder or a signal in flight is freed
 * with the last reference.  Any context that is not NMI.
 */
static void ctx_destroy(struct pctr_ctx *ctx)
{
	unsigned long flags;

	local_irq_save(flags);
	ctx_stop(ctx);
	preempt_notifier_unregister(&ctx->pn);
	/* Readers see final values and fall back to the ioctl. */
	if (ctx->upage)
		ctx_publish_dead(ctx);
	local_irq_restore(flags);
	/* A mapping keeps its own reference to the page. */
	if (ctx->page)
		put_page(ctx->page);
	ctx->page = NULL;
	ctx->upage = NULL;
	/* The sums are final: a binder may read them without an IPI. */
	smp_store_release(&ctx->dead, true);
	pctr_pmu_put();
	ctx_put(ctx);
}

static void ctx_destroy_current(struct pctr_ctx *ctx)
{
	preempt_disable();
	ctx_destroy(ctx);
	preempt_enable();
}

/*
 * The calling thread's context, but not one its binder let go of: that
 * one is ended now rather than when its task_work comes (task_works run
 * newest first, so a new binding's setup may come before it).
 */
static struct pctr_ctx *ctx_current_live(void)
{
	struct pctr_ctx *ctx = ctx_current();

	if (ctx && ctx->remote && READ_ONCE(ctx->released)) {
		ctx_destroy_current(ctx);
		ctx = NULL;
	}
	return ctx;
}

/* A thread's end, and exec (a new program starts with no counters). */
static void pctr_task_gone(struct task_struct *p)
{
	struct pctr_ctx *ctx;

	if (p != current)
		return;
	ctx = ctx_current();
	if (ctx)
		ctx_destroy(ctx);
}

static void pctr_probe_exit(void *data, struct task_struct *p)
{
	pctr_task_gone(p);
}

static void pctr_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
			    struct linux_binprm *bprm)
{
	pctr_task_gone(p);
}

/* --- inheritance --------------------------------------------------------- */

/* What a new thread inherits: handed to it by a task_work. */
struct pctr_seed {
	struct callback_head work;
	u32	mask;
	u32	notify;
	u32	opts;
	int	signo;
	u64	fn[PCTR_NUM];
	u64	ctl[PCTR_NUM];
	u64	preset[PCTR_NUM];
};

/* In the new thread, on its way to user space for the first time. */
static void ctx_inherit(const struct pctr_seed *seed)
{
	unsigned long flags, m = seed->mask;
	struct pctr_ctx *ctx;
	unsigned int s;

	if (ctx_current())
		return;
	ctx = ctx_create(true);
	if (IS_ERR(ctx))
		return;		/* a CPU binding came meanwhile */
	local_irq_save(flags);
	ctx_stop(ctx);
	for_each_set_bit(s, &m, PCTR_NUM) {
		ctx->fn[s] = seed->fn[s];
		ctx->hw.ctl[s] = seed->ctl[s];
		ctx->preset[s] = seed->preset[s];
		ctx->sum[s] = seed->preset[s];
	}
	ctx->hw.mask = seed->mask;
	ctx->notify = seed->notify;
	ctx->opts = seed->opts;
	ctx->signo = seed->signo;
	ctx->dirty = true;
	/*
	 * As Solaris does: a slot that notifies starts at 2^64 - 1, frozen,
	 * and the thread is told at once, so that it can preset and restart.
	 */
	if (ctx->notify) {
		m = ctx->notify;
		for_each_set_bit(s, &m, PCTR_NUM)
			ctx->sum[s] = U64_MAX;
		ctx->ovf = ctx->notify;
		ctx_check_ovf(ctx);
	}
	ctx_start(ctx);
	local_irq_restore(flags);
}

static void pctr_inherit_work(struct callback_head *work)
{
	struct pctr_seed *seed = container_of(work, struct pctr_seed, work);

	/* An exiting thread runs its task_works too: it gets nothing. */
	if (!(current->flags & PF_EXITING))
		ctx_inherit(seed);
	kfree(seed);
	/* The last thing this callback does: see Documentation/design.rst. */
	module_put(THIS_MODULE);
}

/*
 * A thread or process was created (before it first runs): if its creator
 * counts with PCTR_O_INHERIT, hand it a seed.  Atomic context.
 */
static void pctr_probe_fork(void *data, struct task_struct *parent,
			    struct task_struct *child)
{
	struct pctr_seed *seed;
	struct pctr_ctx *ctx;
	unsigned long m;
	unsigned int s;

	if (parent != current || (child->flags & (PF_KTHREAD | PF_IO_WORKER)))
		return;
	ctx = ctx_current();
	if (!ctx || !(ctx->opts & PCTR_O_INHERIT) || ctx->remote ||
	    !ctx_valid(ctx) || !ctx->hw.mask)
		return;
	seed = kzalloc(sizeof(*seed), GFP_NOWAIT | __GFP_NOWARN);
	if (!seed) {
		pr_warn_ratelimited("no memory: thread %d does not inherit counters\n",
				    task_pid_nr(child));
		return;
	}
	m = ctx->hw.mask;
	for_each_set_bit(s, &m, PCTR_NUM) {
		seed->fn[s] = ctx->fn[s];
		seed->ctl[s] = ctx->hw.ctl[s];
		seed->preset[s] = ctx->preset[s];
	}
	seed->mask = ctx->hw.mask;
	seed->notify = ctx->notify;
	seed->opts = ctx->opts;
	seed->signo = ctx->signo;
	init_task_work(&seed->work, pctr_inherit_work);
	/* The module stays until the callback has run. */
	__module_get(THIS_MODULE);
	pctr_note_task_work();
	if (task_work_add(child, &seed->work, TWA_RESUME)) {
		kfree(seed);
		module_put(THIS_MODULE);
	}
}

/* --- what the ioctls do, for the calling thread ------------------------ */

/*
 * The calling thread's context for a call that changes it: NULL if it
 * has none, ERR_PTR(-EBUSY) if a binder set it up (only the binder may
 * end that one).
 */
static struct pctr_ctx *ctx_own(void)
{
	struct pctr_ctx *ctx = ctx_current_live();

	if (ctx && ctx->remote)
		return ERR_PTR(-EBUSY);
	return ctx;
}

/* Values of @ctx's slots in @m: irqs off, on the CPU it runs on if any. */
static void ctx_values(struct pctr_ctx *ctx, unsigned long m, u64 *fn,
		       u64 *val)
{
	bool live = ctx->running && this_cpu_read(pctr_cpu.cur) == ctx;
	unsigned int s;

	if (live)
		pctr_pmu.ops->read(&pctr_pmu, &ctx->hw);
	for_each_set_bit(s, &m, PCTR_NUM) {
		fn[s] = ctx->fn[s];
		val[s] = ctx->sum[s];
		if (live)
			val[s] += pctr_delta(ctx->prev[s], ctx->hw.val[s],
					     pctr_slot_width(&pctr_pmu, s));
	}
}

/*
 * PCIOCRD's snapshot of the calling thread's counters: for each slot in
 * *@mask its function and value (the sum plus what the running counter
 * added since the last fold, without folding, so the page need not be
 * rewritten), and the TSC.  Slots outside the mask are free and read as
 * zero.  -EAGAIN if a CPU binding invalidated the context.
 */
int pctr_ctx_snapshot(u64 *fn, u64 *val, u64 *tsc, u32 *mask)
{
	struct pctr_ctx *ctx = ctx_current();
	unsigned long flags;
	int ret = 0;

	*mask = 0;
	local_irq_save(flags);
	if (ctx && pctr_pmu.ops) {
		if (ctx_valid(ctx)) {
			*mask = ctx->hw.mask;
			ctx_values(ctx, ctx->hw.mask, fn, val);
		} else if (ctx->hw.mask) {
			ret = -EAGAIN;
		}
	}
	*tsc = pctr_arch_tsc();
	local_irq_restore(flags);
	return ret;
}

/*
 * Give the calling thread's slots new functions: @fn[s] for each slot s
 * in @mask, already encoded into @ctl.  A slot whose function changes
 * starts again from zero, its preset too.
 */
static int ctx_apply(u32 mask, const u64 *fn, const u64 *ctl)
{
	struct pctr_ctx *ctx = ctx_own();
	unsigned long m = mask, flags, epoch;
	unsigned int s;
	bool any = false;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	for_each_set_bit(s, &m, PCTR_NUM)
		any |= fn[s] != 0;
	epoch = atomic_long_read(&pctr_epoch);
	smp_rmb();	/* pairs with pctr_cpub_begin() */
	if (any && atomic_read(&pctr_cpu_binds))
		return -EAGAIN;
	if (!ctx) {
		if (!any)
			return 0;
		ctx = ctx_create(true);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}
	local_irq_save(flags);
	ctx_stop(ctx);
	if (!ctx_valid(ctx)) {
		/* Invalidated by a CPU binding now gone: start afresh. */
		memset(ctx->fn, 0, sizeof(ctx->fn));
		memset(ctx->sum, 0, sizeof(ctx->sum));
		memset(ctx->preset, 0, sizeof(ctx->preset));
		ctx->hw.mask = 0;
		ctx->notify = 0;
		ctx->ovf = 0;
		ctx->frozen = false;
		ctx->disabled = false;
		ctx->epoch = epoch;
	}
	for_each_set_bit(s, &m, PCTR_NUM) {
		if (ctx->fn[s] == fn[s])
			continue;
		ctx->fn[s] = fn[s];
		ctx->hw.ctl[s] = ctl[s];
		ctx->sum[s] = 0;
		ctx->preset[s] = 0;
		ctx->ovf &= ~BIT(s);
		if (fn[s])
			ctx->hw.mask |= BIT(s);
		else
			ctx->hw.mask &= ~BIT(s);
		if (fn[s] & PCTR_INT)
			ctx->notify |= BIT(s);
		else
			ctx->notify &= ~BIT(s);
		ctx->dirty = true;
	}
	if (!ctx->ovf)
		ctx->frozen = false;
	if (!ctx->notify)
		memset(ctx->hw.left, 0, sizeof(ctx->hw.left));
	ctx_start(ctx);
	local_irq_restore(flags);
	/* No function and no page: the thread no longer needs a context. */
	if (!ctx->hw.mask && !ctx->page)
		ctx_destroy_current(ctx);
	return 0;
}

/*
 * PCTR_INT is the core's business (the backend only counts): it needs a
 * backend that can interrupt at a given count.
 */
static int ctx_encode_priv(unsigned int slot, u64 fn, u64 *ctl,
			   bool privileged)
{
	if (!pctr_slot_exists(&pctr_pmu, slot))
		return -EINVAL;
	*ctl = 0;
	if (!fn)
		return 0;
	if ((fn & PCTR_INT) && !(pctr_pmu.caps & PCTR_CAP_NOTIFY))
		return -EOPNOTSUPP;
	return pctr_pmu.ops->encode(&pctr_pmu, slot, fn & ~PCTR_INT,
				    privileged, ctl);
}

static int ctx_encode(unsigned int slot, u64 fn, u64 *ctl)
{
	return ctx_encode_priv(slot, fn, ctl, perfmon_capable());
}

int pctr_ctx_encode_all(u32 mask, const u64 *fn, u64 *ctl, bool privileged)
{
	unsigned long m = mask;
	unsigned int s;
	int ret;

	for_each_set_bit(s, &m, PCTR_NUM) {
		ret = ctx_encode_priv(s, fn[s], &ctl[s], privileged);
		if (ret)
			return ret;
	}
	return 0;
}

int pctr_ctx_set(unsigned int slot, u64 fn)
{
	u64 fns[PCTR_NUM], ctl[PCTR_NUM];
	int ret;

	ret = ctx_encode(slot, fn, &ctl[slot]);
	if (ret)
		return ret;
	fns[slot] = fn;
	return ctx_apply(BIT(slot), fns, ctl);
}

int pctr_ctx_set_pcr(const struct pctr_pcr *pcr)
{
	u64 fns[PCTR_NUM], ctl[PCTR_NUM];
	unsigned int i, s;
	u32 mask = 0;
	int ret;

	for (i = 0; i < ARRAY_SIZE(pcr->pcr_reserved); i++)
		if (pcr->pcr_reserved[i])
			return -EINVAL;
	for (s = 0; s < PCTR_NUM; s++) {
		if (s < PCTR_FIXED_BASE)
			fns[s] = pcr->pcr_evtsel[s];
		else
			fns[s] = pctr_fixed_field_to_fn((pcr->pcr_fixed_ctrl >>
						  (4 * (s - PCTR_FIXED_BASE))) & 0xf);
		if (!pctr_slot_exists(&pctr_pmu, s)) {
			if (fns[s])
				return -EINVAL;
			continue;
		}
		ret = ctx_encode(s, fns[s], &ctl[s]);
		if (ret)
			return ret;
		mask |= BIT(s);
	}
	return ctx_apply(mask, fns, ctl);
}

void pctr_ctx_get_pcr(struct pctr_pcr *pcr)
{
	struct pctr_ctx *ctx = ctx_current();
	unsigned int s;

	memset(pcr, 0, sizeof(*pcr));
	if (!ctx)
		return;
	for (s = 0; s < PCTR_FIXED_BASE; s++)
		pcr->pcr_evtsel[s] = ctx->fn[s];
	for (s = PCTR_FIXED_BASE; s < PCTR_NUM; s++)
		pcr->pcr_fixed_ctrl |= pctr_fn_to_fixed_field(ctx->fn[s]) <<
				       (4 * (s - PCTR_FIXED_BASE));
}

/* The calling thread's context for ZERO, PRESET, RESTART, SOPTS. */
static struct pctr_ctx *ctx_for_change(void)
{
	struct pctr_ctx *ctx = ctx_own();

	if (IS_ERR_OR_NULL(ctx))
		return ctx;
	if (!ctx_valid(ctx) && ctx->hw.mask)
		return ERR_PTR(-EAGAIN);
	return ctx;
}

int pctr_ctx_zero(void)
{
	struct pctr_ctx *ctx = ctx_for_change();
	unsigned long flags;

	if (IS_ERR_OR_NULL(ctx))
		return PTR_ERR_OR_ZERO(ctx);
	local_irq_save(flags);
	ctx_update(ctx);
	memset(ctx->sum, 0, sizeof(ctx->sum));
	ctx_publish(ctx);
	local_irq_restore(flags);
	return 0;
}

int pctr_ctx_preset(unsigned int slot, u64 value)
{
	struct pctr_ctx *ctx = ctx_for_change();
	unsigned long flags;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (!pctr_slot_exists(&pctr_pmu, slot))
		return -EINVAL;
	/* A preset belongs to a function: set that first. */
	if (!ctx || !ctx->fn[slot])
		return -EINVAL;
	local_irq_save(flags);
	/*
	 * Stopped and started again, so that a slot that notifies is armed
	 * for its new distance from the wrap.
	 */
	ctx_stop(ctx);
	ctx->sum[slot] = value;
	ctx->preset[slot] = value;
	ctx_start(ctx);
	local_irq_restore(flags);
	return 0;
}

/* PCIOCRESTART: every slot from its preset, counting again. */
int pctr_ctx_restart(void)
{
	struct pctr_ctx *ctx = ctx_for_change();
	unsigned long flags;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (!ctx || !ctx->hw.mask)
		return -EINVAL;
	local_irq_save(flags);
	ctx_stop(ctx);
	memcpy(ctx->sum, ctx->preset, sizeof(ctx->sum));
	ctx->ovf = 0;
	ctx->frozen = false;
	ctx->dirty = true;
	ctx_start(ctx);
	local_irq_restore(flags);
	return 0;
}

/*
 * PCIOCENABLE/PCIOCDISABLE.  Also on a context a binder set up: the
 * measured program may mark where counting matters.
 */
int pctr_ctx_enable(bool on)
{
	struct pctr_ctx *ctx = ctx_current_live();
	unsigned long flags;

	if (!ctx || !ctx->hw.mask)
		return -EINVAL;
	if (!ctx_valid(ctx))
		return -EAGAIN;
	local_irq_save(flags);
	ctx_stop(ctx);
	ctx->disabled = !on;
	ctx_start(ctx);
	local_irq_restore(flags);
	return 0;
}

int pctr_ctx_set_opts(const struct pctr_opts *o)
{
	struct pctr_ctx *ctx = ctx_for_change();
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(o->po_reserved); i++)
		if (o->po_reserved[i])
			return -EINVAL;
	if (o->po_flags & ~PCTR_O_INHERIT)
		return -EINVAL;
	if (o->po_signo && (!valid_signal(o->po_signo) ||
			    sig_kernel_only(o->po_signo)))
		return -EINVAL;
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (!ctx)
		return -EINVAL;
	/* Read by the fork probe and the overflow path: all in this thread. */
	ctx->opts = o->po_flags;
	WRITE_ONCE(ctx->signo, o->po_signo ?: SIGIO);
	return 0;
}

void pctr_ctx_get_opts(struct pctr_opts *o)
{
	struct pctr_ctx *ctx = ctx_current();

	memset(o, 0, sizeof(*o));
	if (!ctx)
		return;
	o->po_flags = ctx->opts;
	o->po_signo = ctx->signo;
}

/*
 * mmap() of the device: the calling thread's counter page, read-only,
 * not inherited by fork.  Makes the thread's context if it has none (the
 * virtual TSC needs no counters).
 */
int pctr_ctx_mmap(struct vm_area_struct *vma)
{
	struct pctr_ctx *ctx = ctx_own();
	unsigned long flags;
	struct page *page;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if (!ctx) {
		ctx = ctx_create(false);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
		local_irq_save(flags);
		ctx_start(ctx);
		local_irq_restore(flags);
	}
	if (!ctx->page) {
		page = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!page)
			return -ENOMEM;
		((struct pctr_page *)page_address(page))->pg_version =
			PCTR_PAGE_VERSION;
		local_irq_save(flags);
		ctx->page = page;
		ctx->upage = page_address(page);
		/* Switch in again, so user rdpmc is set up for the page. */
		ctx_stop(ctx);
		ctx_start(ctx);
		local_irq_restore(flags);
	}
	vm_flags_clear(vma, VM_MAYWRITE);
	vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	return vm_insert_page(vma, vma->vm_start, ctx->page);
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

/* PCIOCRELEASE: the calling thread is done counting. */
int pctr_ctx_release(void)
{
	struct pctr_ctx *ctx = ctx_own();

	if (IS_ERR_OR_NULL(ctx))
		return PTR_ERR_OR_ZERO(ctx);
	ctx_destroy_current(ctx);
	return 0;
}

/* --- thread bindings: the engine's half --------------------------------- */

/*
 * In the target thread, from the binder's task_work: a context as if the
 * thread had programmed it, marked as the binder's.  Returns it with a
 * second reference, for the binder.
 */
struct pctr_ctx *pctr_ctx_remote_new(u32 mask, const u64 *fn,
				     const u64 *ctl, const u64 *preset)
{
	unsigned long flags, m = mask;
	struct pctr_ctx *ctx;
	unsigned int s;

	if (ctx_current_live())
		return ERR_PTR(-EBUSY);
	ctx = ctx_create(true);
	if (IS_ERR(ctx))
		return ctx;
	ctx->remote = true;
	local_irq_save(flags);
	ctx_stop(ctx);
	for_each_set_bit(s, &m, PCTR_NUM) {
		ctx->fn[s] = fn[s];
		ctx->hw.ctl[s] = ctl[s];
		ctx->sum[s] = preset[s];
		ctx->preset[s] = preset[s];
	}
	ctx->hw.mask = mask;
	ctx->dirty = true;
	ctx_start(ctx);
	local_irq_restore(flags);
	ctx_get(ctx);
	return ctx;
}

struct remote_read {
	struct pctr_ctx	*ctx;
	u32		seq;
	bool		ok;
	u64		*fn;
	u64		*val;
};

/* On the CPU the context ran on when the reader looked: still there? */
static void ctx_remote_read_ipi(void *arg)
{
	struct remote_read *r = arg;

	if (READ_ONCE(r->ctx->seq) != r->seq)
		return;
	ctx_values(r->ctx, r->ctx->hw.mask, r->fn, r->val);
	r->ok = true;
}

/*
 * A binder reads a context of another thread.  Its sums change only on
 * the CPU it runs on, with interrupts off; its seq is odd while it runs.
 * A running context is read by an IPI to its CPU (which checks that the
 * same stint still runs there), a stopped one directly, retrying if it
 * started meanwhile.  An ended context's sums are final.
 */
int pctr_ctx_remote_read(struct pctr_ctx *ctx, u64 *fn, u64 *val, u32 *mask)
{
	unsigned long m = ctx->hw.mask;
	struct remote_read r = { .ctx = ctx, .fn = fn, .val = val };
	unsigned int s;
	int cpu;

	*mask = m;	/* the binder's; only the binder could change it */
	for (;;) {
		/* Pairs with ctx_destroy(): final sums, no IPI needed. */
		if (smp_load_acquire(&ctx->dead)) {
			for_each_set_bit(s, &m, PCTR_NUM) {
				fn[s] = ctx->fn[s];
				val[s] = ctx->sum[s];
			}
			return 0;
		}
		/* Invalidated by a CPU binding, as the thread's own read is. */
		if (!ctx_valid(ctx))
			return -EAGAIN;
		r.seq = READ_ONCE(ctx->seq);
		smp_rmb();	/* seq before cpu and sums: see ctx_start() */
		if (r.seq & 1) {
			cpu = READ_ONCE(ctx->cpu);
			r.ok = false;
			if (!smp_call_function_single(cpu, ctx_remote_read_ipi,
						      &r, 1) && r.ok)
				return 0;
		} else {
			for_each_set_bit(s, &m, PCTR_NUM) {
				fn[s] = ctx->fn[s];
				val[s] = READ_ONCE(ctx->sum[s]);
			}
			smp_rmb();	/* sums before seq again: ctx_stop() */
			if (READ_ONCE(ctx->seq) == r.seq)
				return 0;
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
}

/* In the target thread: the binder is done with it. */
static void pctr_remote_end_work(struct callback_head *work)
{
	struct pctr_ctx *ctx = container_of(work, struct pctr_ctx, end_work);

	if (ctx_current() == ctx)
		ctx_destroy_current(ctx);
	ctx_put(ctx);
	/* The last thing this callback does: see Documentation/design.rst. */
	module_put(THIS_MODULE);
}

/*
 * The binder lets go (PCIOCRELEASE, close): the thread's side is ended in
 * the thread, by a task_work; if the thread is exiting, its exit probe
 * ends it.  Drops the binder's reference.  Process context.
 */
void pctr_ctx_remote_end(struct pctr_ctx *ctx)
{
	struct task_struct *t;

	rcu_read_lock();
	t = pid_task(ctx->pid, PIDTYPE_PID);
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	WRITE_ONCE(ctx->released, true);
	/* Pairs with ctx_destroy(): an ended context needs no work. */
	if (t && !smp_load_acquire(&ctx->dead)) {
		ctx_get(ctx);
		__module_get(THIS_MODULE);
		pctr_note_task_work();
		init_task_work(&ctx->end_work, pctr_remote_end_work);
		if (task_work_add(t, &ctx->end_work, TWA_RESUME)) {
			ctx_put(ctx);
			module_put(THIS_MODULE);
		}
	}
	if (t)
		put_task_struct(t);
	ctx_put(ctx);
}

/* --- CPU bindings: the engine's half ------------------------------------ */

unsigned int pctr_cpu_bindings(void)
{
	return atomic_read(&pctr_cpu_binds);
}

/*
 * A CPU binding is about to be made (bind.c serialises them): from now
 * on no thread may count, and every thread context now existing is
 * invalid (the first binding of a period moves the epoch).
 */
void pctr_cpub_begin(void)
{
	if (atomic_inc_return(&pctr_cpu_binds) == 1) {
		/* Count before epoch: ctx_create() reads them the other way. */
		smp_mb__after_atomic();
		atomic_long_inc(&pctr_epoch);
	}
}

void pctr_cpub_end(void)
{
	atomic_dec(&pctr_cpu_binds);
}

/* On the CPU: take the counters from whatever thread counts there. */
static void cpub_install_ipi(void *arg)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	struct pctr_cpub *cb = arg;
	unsigned long m = cb->hw.mask;
	struct pctr_ctx *cur = pc->cur;
	unsigned int s;

	if (cur) {
		/* Invalidated: its thread is the one interrupted here. */
		ctx_hw_off(cur, pc);
		ctx_publish(cur);
	}
	for_each_set_bit(s, &m, PCTR_NUM) {
		cb->prev[s] = 0;
		cb->hw.val[s] = 0;
	}
	cb->hw.keep = 0;
	pctr_pmu.ops->start(&pctr_pmu, &cb->hw);
	pc->cpub = cb;
	pc->last_id = cb->id;
	if (!hrtimer_active(&pc->fold))
		hrtimer_start(&pc->fold, pctr_fold_period,
			      HRTIMER_MODE_REL_PINNED_HARD);
}

int pctr_cpub_install(struct pctr_cpub *cb)
{
	int ret;

	cb->id = atomic64_inc_return(&pctr_ctx_ids);
	/* CPUs stay on- or offline meanwhile. */
	cpus_read_lock();
	ret = smp_call_function_single(cb->cpu, cpub_install_ipi, cb, 1);
	cpus_read_unlock();
	return ret;
}

static void cpub_remove_ipi(void *arg)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	struct pctr_cpub *cb = arg;

	if (pc->cpub != cb)
		return;
	pctr_pmu.ops->stop(&pctr_pmu, &cb->hw);
	fold_sums(cb->hw.mask, cb->sum, cb->prev, &cb->hw);
	ctx_ack();
	pc->cpub = NULL;
	pc->last_id = 0;
}

void pctr_cpub_remove(struct pctr_cpub *cb)
{
	/* An offline CPU runs nothing: its binding is simply dropped. */
	cpus_read_lock();
	if (smp_call_function_single(cb->cpu, cpub_remove_ipi, cb, 1))
		per_cpu_ptr(&pctr_cpu, cb->cpu)->cpub = NULL;
	cpus_read_unlock();
}

struct cpub_read {
	struct pctr_cpub *cb;
	u64		*val;
};

static void cpub_read_ipi(void *arg)
{
	struct cpub_read *r = arg;
	struct pctr_cpub *cb = r->cb;

	if (this_cpu_read(pctr_cpu.cpub) == cb)
		cpub_update(cb);
	memcpy(r->val, cb->sum, sizeof(cb->sum));
}

void pctr_cpub_read(struct pctr_cpub *cb, u64 *val)
{
	struct cpub_read r = { .cb = cb, .val = val };

	/* Offline, it counts nothing more: the last sums are the values. */
	cpus_read_lock();
	if (smp_call_function_single(cb->cpu, cpub_read_ipi, &r, 1))
		memcpy(val, cb->sum, sizeof(cb->sum));
	cpus_read_unlock();
}

/* --- set-up ---------------------------------------------------------- */

struct pctr_hook {
	const char		*name;
	void			*probe;
	struct tracepoint	*tp;
};

static struct pctr_hook pctr_hooks[] = {
	{ "sched_process_exit", pctr_probe_exit },
	{ "sched_process_exec", pctr_probe_exec },
	{ "sched_process_fork", pctr_probe_fork },
};

static void pctr_find_tracepoint(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pctr_hooks); i++)
		if (!strcmp(tp->name, pctr_hooks[i].name))
			pctr_hooks[i].tp = tp;
}

static void pctr_unhook(unsigned int n)
{
	while (n--)
		tracepoint_probe_unregister(pctr_hooks[n].tp,
					    pctr_hooks[n].probe, NULL);
	/* No probe may still run when the module's code goes away. */
	tracepoint_synchronize_unregister();
	/*
	 * A task_work callback's module_put() is its last statement, but
	 * its return is still this module's text, and its thread may have
	 * been preempted right there.  RCU Tasks waits until every thread
	 * has since switched voluntarily or run in user space.  It is slow,
	 * so only for loads that queued any.
	 */
	if (READ_ONCE(pctr_task_works))
		synchronize_rcu_tasks();
}

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

int pctr_ctx_init(void)
{
	unsigned int i;
	int cpu, ret;

	for_each_possible_cpu(cpu) {
		struct pctr_cpu *pc = per_cpu_ptr(&pctr_cpu, cpu);

		hrtimer_init(&pc->fold, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		pc->fold.function = pctr_fold_timer;
	}
	pctr_fold_period = pctr_fold_interval();

	for_each_kernel_tracepoint(pctr_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(pctr_hooks); i++) {
		if (!pctr_hooks[i].tp) {
			pr_err("kernel tracepoint %s not found\n",
			       pctr_hooks[i].name);
			ret = -ENOENT;
			goto fail;
		}
		ret = tracepoint_probe_register(pctr_hooks[i].tp,
						pctr_hooks[i].probe, NULL);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	pctr_unhook(i);
	return ret;
}

void pctr_ctx_exit(void)
{
	int cpu;

	/* Every context is gone: each held a module reference. */
	pctr_unhook(ARRAY_SIZE(pctr_hooks));
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&pctr_cpu, cpu)->fold);
	pctr_pmu_exit();
}
