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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "compat.h"
#include "pctr.h"

struct pctr_ctx {
	struct preempt_notifier	pn;
	u64		id;		/* unique for the module's life */
	u64		fn[PCTR_NUM];	/* functions, as the user set them */
	u64		sum[PCTR_NUM];	/* 64-bit virtual values */
	u64		prev[PCTR_NUM];	/* raw value at the last fold */
	struct pctr_hw	hw;		/* what the backend loads and stops */
	int		last_cpu;	/* CPU of the last stop, or -1 */
	bool		running;	/* the thread is on a CPU: counting */
	bool		dirty;		/* registers must be rewritten */
	bool		pce;		/* user rdpmc turned on for it */
	u64		vtsc;		/* TSC cycles run up to tsc_in */
	u64		tsc_in;		/* TSC at the last switch-in */
	struct page	*page;		/* the page user space maps, or NULL */
	struct pctr_page *upage;	/* its kernel address */
	u32		published;	/* slots the page describes */
};

struct pctr_cpu {
	struct pctr_ctx	*cur;		/* counting on this CPU now */
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

/* --- counting: all with interrupts off, on the context's CPU ---------- */

static void ctx_fold(struct pctr_ctx *ctx)
{
	unsigned long m = ctx->hw.mask;
	unsigned int s;

	for_each_set_bit(s, &m, PCTR_NUM) {
		ctx->sum[s] += pctr_delta(ctx->prev[s], ctx->hw.val[s],
					  pctr_slot_width(&pctr_pmu, s));
		ctx->prev[s] = ctx->hw.val[s];
	}
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

static bool ctx_counts(const struct pctr_ctx *ctx)
{
	return pctr_pmu.ops && ctx->hw.mask;
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
	unsigned long m = ctx->hw.mask, touch;
	struct pctr_page_slot *ps;
	unsigned int s;
	int idx;

	if (!pg)
		return;
	WRITE_ONCE(pg->pg_seq, pg->pg_seq + 1);
	barrier();
	pg->pg_flags = PCTR_PG_RUNNING | (ctx->pce ? PCTR_PG_RDPMC : 0);
	pg->pg_cpu = smp_processor_id();
	pg->pg_vtsc_off = ctx->vtsc - ctx->tsc_in;
	pg->pg_tsc_in = ctx->tsc_in;
	pg->pg_sim_limit = U64_MAX;
	touch = m | ctx->published;
	for_each_set_bit(s, &touch, PCTR_NUM) {
		ps = &pg->pg_slot[s];
		memset(ps, 0, sizeof(*ps));
		ps->ps_sum = ctx->sum[s];
		if (!(m & BIT(s)))
			continue;
		ps->ps_prev = ctx->prev[s];
		ps->ps_mask = pctr_width_mask(pctr_slot_width(&pctr_pmu, s));
		if (ctx->pce) {
			idx = pctr_pmu.ops->rdpmc_index(&pctr_pmu, s);
			ps->ps_rdpmc = idx >= 0 ? idx + 1 : 0;
		}
	}
	ctx->published = m;
	if (ctx_counts(ctx) && pctr_pmu.ops->user_page)
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

static void ctx_start(struct pctr_ctx *ctx)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	unsigned long m = ctx->hw.mask;
	unsigned int s;

	lockdep_assert_irqs_disabled();
	if (ctx->running)
		return;
	ctx->running = true;
	ctx->tsc_in = pctr_arch_tsc();
	if (!ctx_counts(ctx)) {
		ctx_publish(ctx);
		return;
	}
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
	pctr_pmu.ops->start(&pctr_pmu, &ctx->hw);
	ctx->dirty = false;
	pc->cur = ctx;
	pc->last_id = ctx->id;
	/* rdpmc works in user mode only for a thread that mapped its page. */
	if (ctx->page && (pctr_pmu.caps & PCTR_CAP_USER_RDPMC)) {
		pctr_arch_user_rdpmc(true);
		ctx->pce = true;
	}
	if (!hrtimer_active(&pc->fold))
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
	if (ctx->pce) {
		pctr_arch_user_rdpmc(false);
		ctx->pce = false;
	}
	if (pc->cur == ctx) {
		pctr_pmu.ops->stop(&pctr_pmu, &ctx->hw);
		ctx_fold(ctx);
		ctx_ack();
		ctx->last_cpu = smp_processor_id();
		pc->cur = NULL;
	}
	/* The thread is not running: nobody reads its page until start. */
}

/* Bring the sums up to date, the counters left running. */
static void ctx_update(struct pctr_ctx *ctx)
{
	lockdep_assert_irqs_disabled();
	if (!ctx->running || this_cpu_read(pctr_cpu.cur) != ctx)
		return;
	pctr_pmu.ops->read(&pctr_pmu, &ctx->hw);
	ctx_fold(ctx);
	ctx_ack();
	ctx_publish(ctx);
}

static enum hrtimer_restart pctr_fold_timer(struct hrtimer *t)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);

	if (!pc->cur)
		return HRTIMER_NORESTART;
	ctx_update(pc->cur);
	hrtimer_forward_now(t, pctr_fold_period);
	return HRTIMER_RESTART;
}

/*
 * A backend's overflow interrupt: fold the running context (a freezing
 * backend is acknowledged by the fold), then acknowledge whatever is left.
 */
void pctr_pmu_interrupt(void)
{
	struct pctr_cpu *pc = this_cpu_ptr(&pctr_cpu);
	u32 status;

	lockdep_assert_irqs_disabled();
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

static struct pctr_ctx *ctx_create(void)
{
	struct pctr_ctx *ctx;
	int ret;

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
	preempt_notifier_init(&ctx->pn, &pctr_preempt_ops);
	preempt_disable();
	preempt_notifier_register(&ctx->pn);
	preempt_enable();
	return ctx;
}

/* Current's own context goes away.  Any context that is not NMI. */
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
	kfree(ctx);
	pctr_pmu_put();
	module_put(THIS_MODULE);
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

/* --- what the ioctls do, for the calling thread ------------------------ */

/*
 * PCIOCRD's snapshot of the calling thread's counters: for each slot in
 * the returned mask its function and value (the sum plus what the
 * running counter added since the last fold, without folding, so the
 * page need not be rewritten), and the TSC.  Slots outside the mask are
 * free and read as zero.
 */
u32 pctr_ctx_snapshot(u64 *fn, u64 *val, u64 *tsc)
{
	struct pctr_ctx *ctx = ctx_current();
	unsigned long flags, m = 0;
	unsigned int s;

	bool live;

	local_irq_save(flags);
	if (ctx && pctr_pmu.ops) {
		m = ctx->hw.mask;
		live = ctx->running && this_cpu_read(pctr_cpu.cur) == ctx;
		if (live)
			pctr_pmu.ops->read(&pctr_pmu, &ctx->hw);
		for_each_set_bit(s, &m, PCTR_NUM) {
			fn[s] = ctx->fn[s];
			val[s] = ctx->sum[s];
			if (live)
				val[s] += pctr_delta(ctx->prev[s],
						     ctx->hw.val[s],
						     pctr_slot_width(&pctr_pmu, s));
		}
	}
	*tsc = pctr_arch_tsc();
	local_irq_restore(flags);
	return m;
}

/*
 * Give the calling thread's slots new functions: @fn[s] for each slot s
 * in @mask, already encoded into @ctl.  A slot whose function changes
 * starts again from zero.
 */
static int ctx_apply(u32 mask, const u64 *fn, const u64 *ctl)
{
	struct pctr_ctx *ctx = ctx_current();
	unsigned long m = mask, flags;
	unsigned int s;
	bool any = false;

	if (!ctx) {
		for_each_set_bit(s, &m, PCTR_NUM)
			any |= fn[s] != 0;
		if (!any)
			return 0;
		ctx = ctx_create();
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}
	local_irq_save(flags);
	ctx_stop(ctx);
	for_each_set_bit(s, &m, PCTR_NUM) {
		if (ctx->fn[s] == fn[s])
			continue;
		ctx->fn[s] = fn[s];
		ctx->hw.ctl[s] = ctl[s];
		ctx->sum[s] = 0;
		if (fn[s])
			ctx->hw.mask |= BIT(s);
		else
			ctx->hw.mask &= ~BIT(s);
		ctx->dirty = true;
	}
	ctx_start(ctx);
	local_irq_restore(flags);
	/* No function and no page: the thread no longer needs a context. */
	if (!ctx->hw.mask && !ctx->page) {
		preempt_disable();
		ctx_destroy(ctx);
		preempt_enable();
	}
	return 0;
}

static int ctx_encode(unsigned int slot, u64 fn, u64 *ctl)
{
	if (!pctr_slot_exists(&pctr_pmu, slot))
		return -EINVAL;
	*ctl = 0;
	if (!fn)
		return 0;
	return pctr_pmu.ops->encode(&pctr_pmu, slot, fn, perfmon_capable(),
				    ctl);
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

int pctr_ctx_zero(void)
{
	struct pctr_ctx *ctx = ctx_current();
	unsigned long flags;

	if (!ctx)
		return 0;
	local_irq_save(flags);
	ctx_update(ctx);
	memset(ctx->sum, 0, sizeof(ctx->sum));
	ctx_publish(ctx);
	local_irq_restore(flags);
	return 0;
}

int pctr_ctx_preset(unsigned int slot, u64 value)
{
	struct pctr_ctx *ctx = ctx_current();
	unsigned long flags;

	if (!pctr_slot_exists(&pctr_pmu, slot))
		return -EINVAL;
	/* A preset belongs to a function: set that first. */
	if (!ctx || !ctx->fn[slot])
		return -EINVAL;
	local_irq_save(flags);
	ctx_update(ctx);
	ctx->sum[slot] = value;
	ctx_publish(ctx);
	local_irq_restore(flags);
	return 0;
}

/*
 * mmap() of the device: the calling thread's counter page, read-only,
 * not inherited by fork.  Makes the thread's context if it has none (the
 * virtual TSC needs no counters).
 */
int pctr_ctx_mmap(struct vm_area_struct *vma)
{
	struct pctr_ctx *ctx = ctx_current();
	unsigned long flags;
	struct page *page;

	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if (!ctx) {
		ctx = ctx_create();
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
void pctr_ctx_release(void)
{
	struct pctr_ctx *ctx = ctx_current();

	if (!ctx)
		return;
	preempt_disable();
	ctx_destroy(ctx);
	preempt_enable();
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
