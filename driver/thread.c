// SPDX-License-Identifier: GPL-2.0
/*
 * What the calling thread asks of its own counters (PCIOCS*, SETPCR,
 * ZERO, PRESET, RESTART, ENABLE/DISABLE, SOPTS, mmap, RELEASE), and
 * inheritance: the counters a thread hands to the threads and processes
 * it creates.  The engine underneath is ctx.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/task_work.h>

#include "compat.h"
#include "ctx.h"
#include "pmu.h"

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
void pctr_probe_fork(void *data, struct task_struct *parent,
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
 * The calling thread's context for a call that changes its counters.
 * Counters a CPU binding invalidated stay so until released (EAGAIN):
 * taking them up again would, for PCIOCS, silently drop the slots set
 * before the binding.  A context with no counters (a page's) has
 * nothing to lose.
 */
static struct pctr_ctx *ctx_for_change(void)
{
	struct pctr_ctx *ctx = ctx_own();

	if (IS_ERR_OR_NULL(ctx))
		return ctx;
	if (!ctx_valid(ctx) && ctx->hw.mask)
		return ERR_PTR(-EAGAIN);
	return ctx;
}

/*
 * Give the calling thread's slots new functions: @fn[s] for each slot s
 * in @mask, already encoded into @ctl.  A slot whose function changes
 * starts again from zero, its preset too.
 */
static int ctx_apply(u32 mask, const u64 *fn, const u64 *ctl)
{
	struct pctr_ctx *ctx = ctx_for_change();
	unsigned long m = mask, flags, epoch;
	unsigned int s;
	bool any = false;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	for_each_set_bit(s, &m, PCTR_NUM)
		any |= fn[s] != 0;
	if (ctx_epoch(&epoch) && any)
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
	ctx->epoch = epoch;
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

/* PCIOCRELEASE: the calling thread is done counting. */
int pctr_ctx_release(void)
{
	struct pctr_ctx *ctx = ctx_own();

	if (IS_ERR_OR_NULL(ctx))
		return PTR_ERR_OR_ZERO(ctx);
	ctx_destroy_current(ctx);
	return 0;
}
