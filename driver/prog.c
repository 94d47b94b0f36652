// SPDX-License-Identifier: GPL-2.0
/*
 * Contexts' lives, and the one call that programs a context.
 *
 * Every change to a thread's counters -- its own calls, inheritance, a
 * thread binding's setup -- is a struct pctr_prog handed to prog_load(),
 * which applies it with the engine's rule: interrupts off, on the
 * thread's CPU, its counters stopped and started again (rewritten if
 * their functions changed).  Functions get into a pctr_prog only through
 * prog_encode(), which checks them against the backend and the caller's
 * rights (policy.c), or copied from a context that had them (prog_of()).
 *
 * The PMU is taken from perf and the NMI watchdog only here: when a
 * context gets its first counter, and given back when it has none left
 * or ends.  A context for the page alone (the virtual TSC) never takes
 * it, nor does anything a read-only descriptor can do.
 *
 * Contexts are made and ended here too, always by their own thread:
 * prog_create() hooks one to the calling thread, prog_destroy() ends it.
 * The mechanism underneath (counting, switches, the page) is ctx.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/task_work.h>

#include "backend.h"
#include "ctx.h"
#include "engine.h"
#include "page.h"
#include "pmu_owner.h"
#include "sample.h"

/* --- contexts' lives --------------------------------------------------- */

/*
 * A context for the calling thread, with no counters yet (and so not
 * holding the PMU).  With PROG_REMOTE it is a thread binding's: only the
 * binder ends it.
 */
struct pctr_ctx *prog_create(unsigned int flags)
{
	struct pctr_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	/* Our caller holds a reference through its open file. */
	__module_get(THIS_MODULE);
	ctx->signo = SIGIO;
	ctx->remote = flags & PROG_REMOTE;
	ctx->pid = get_task_pid(current, PIDTYPE_PID);
	refcount_set(&ctx->ref, 1);
	ctx_attach(ctx);
	return ctx;
}

/*
 * Current's own context goes away: its counters, its page and its hold
 * on the PMU.  What is left for a binder or a signal in flight is freed
 * with the last reference.  Any context that is not NMI.
 */
void prog_destroy(struct pctr_ctx *ctx)
{
	unsigned long flags;

	local_irq_save(flags);
	ctx_detach(ctx);
	local_irq_restore(flags);
	sample_ctx_end(ctx);
	/* A mapping keeps its own reference to the page. */
	if (ctx->page)
		put_page(ctx->page);
	ctx->page = NULL;
	ctx->upage = NULL;
	/* The sums are final: a binder may read them without an IPI. */
	smp_store_release(&ctx->dead, true);
	if (ctx->pmu)
		pctr_pmu_put();
	ctx_put(ctx);
}

void prog_destroy_current(struct pctr_ctx *ctx)
{
	preempt_disable();
	prog_destroy(ctx);
	preempt_enable();
}

/*
 * The calling thread's context, but not one its binder let go of: that
 * one is ended now rather than when its task_work comes (task_works run
 * newest first, so a new binding's setup may come before it).
 */
struct pctr_ctx *prog_current_live(void)
{
	struct pctr_ctx *ctx = ctx_current();

	if (ctx && ctx->remote && READ_ONCE(ctx->released)) {
		prog_destroy_current(ctx);
		ctx = NULL;
	}
	return ctx;
}

/* In the target thread: the binder is done with it. */
static void prog_end_remote_work(struct callback_head *work)
{
	struct pctr_ctx *ctx = container_of(work, struct pctr_ctx, end_work);

	if (ctx_current() == ctx)
		prog_destroy_current(ctx);
	ctx_put(ctx);
	/* The last thing this callback does: see Documentation/design.rst. */
	module_put(THIS_MODULE);
}

/*
 * A binder lets go of the context it set up (PCIOCRELEASE, close): the
 * thread's side is ended in the thread, by a task_work; if the thread is
 * exiting, its exit probe ends it.  Drops the binder's reference.
 * Process context, any thread.
 */
void prog_end_remote(struct pctr_ctx *ctx)
{
	struct task_struct *t;

	rcu_read_lock();
	t = pid_task(ctx->pid, PIDTYPE_PID);
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	WRITE_ONCE(ctx->released, true);
	/* Pairs with prog_destroy(): an ended context needs no work. */
	if (t && !smp_load_acquire(&ctx->dead)) {
		ctx_get(ctx);
		__module_get(THIS_MODULE);
		ctx_note_task_work();
		init_task_work(&ctx->end_work, prog_end_remote_work);
		/*
		 * TWA_SIGNAL: a thread asleep (in pause(), say) is woken to
		 * run it, and its system call restarts; it must not keep
		 * counting, and holding the PMU and the module, until it
		 * happens to return to user space.
		 */
		if (task_work_add(t, &ctx->end_work, TWA_SIGNAL)) {
			ctx_put(ctx);
			module_put(THIS_MODULE);
		}
	}
	if (t)
		put_task_struct(t);
	ctx_put(ctx);
}

/* --- programming --------------------------------------------------------- */

/*
 * Check a user function for @slot and put it, encoded, into @prog.
 * PCTR_INT is the core's business (the backend only counts): it needs a
 * backend that can interrupt at a given count.  @rights: the caller's
 * (pctr_rights()), checked after the backend's checks, so a malformed
 * function is EINVAL whoever asks.
 */
int prog_encode(struct pctr_prog *prog, unsigned int slot, u64 fn,
		unsigned int rights)
{
	u64 ctl = 0;
	int ret;

	if (!pctr_slot_exists(&pctr_pmu, slot))
		return -EINVAL;
	if (fn) {
		if ((fn & PCTR_INT) && !(pctr_pmu.caps & PCTR_CAP_NOTIFY))
			return -EOPNOTSUPP;
		ret = pctr_pmu.ops->encode(&pctr_pmu, slot, fn & ~PCTR_INT,
					   rights & PCTR_MAY_OTHERS, &ctl);
		if (ret)
			return ret;
		ret = pctr_policy_fn(fn, rights);
		if (ret)
			return ret;
	}
	prog->fn[slot] = fn;
	prog->ctl[slot] = ctl;
	prog->mask |= BIT(slot);
	return 0;
}

/*
 * A PMU with one control register (SPARC): SETPCR carries it in
 * pcr_evtsel[0], in the chip's layout, and nothing else.
 */
static int prog_pcr_fns(const struct pctr_pcr *pcr, u64 *fn)
{
	unsigned int i;

	for (i = 1; i < ARRAY_SIZE(pcr->pcr_evtsel); i++)
		if (pcr->pcr_evtsel[i])
			return -EINVAL;
	if (pcr->pcr_fixed_ctrl)
		return -EINVAL;
	return pctr_pmu.ops->pcr_to_fns(&pctr_pmu, pcr->pcr_evtsel[0], fn);
}

/*
 * Check every field of a SETPCR argument, as PCIOCS checks a function,
 * and put each slot's function, encoded, into @prog (every slot the CPU
 * has: 0 frees it).  Nothing changes on an error.
 */
int prog_encode_pcr(struct pctr_prog *prog, const struct pctr_pcr *pcr,
		    unsigned int rights)
{
	u64 one[PCTR_NUM] = {};
	unsigned int i, s;
	int ret;
	u64 fn;

	for (i = 0; i < ARRAY_SIZE(pcr->pcr_reserved); i++)
		if (pcr->pcr_reserved[i])
			return -EINVAL;
	if (pctr_pmu.ops->pcr_to_fns) {
		ret = prog_pcr_fns(pcr, one);
		if (ret)
			return ret;
	}
	for (s = 0; s < PCTR_NUM; s++) {
		if (pctr_pmu.ops->pcr_to_fns)
			fn = one[s];
		else if (s < PCTR_FIXED_BASE)
			fn = pcr->pcr_evtsel[s];
		else
			fn = pctr_fixed_field_to_fn((pcr->pcr_fixed_ctrl >>
						  (4 * (s - PCTR_FIXED_BASE))) & 0xf);
		if (!pctr_slot_exists(&pctr_pmu, s)) {
			if (fn)
				return -EINVAL;
			continue;
		}
		ret = prog_encode(prog, s, fn, rights);
		if (ret)
			return ret;
	}
	return 0;
}

/* GETPCR's layout of the functions @fn (NULL: none). */
void prog_fns_to_pcr(const u64 *fn, struct pctr_pcr *pcr)
{
	unsigned int s;

	memset(pcr, 0, sizeof(*pcr));
	if (pctr_pmu.ops->fns_to_pcr) {
		u64 none[PCTR_NUM] = {};

		pcr->pcr_evtsel[0] = pctr_pmu.ops->fns_to_pcr(&pctr_pmu,
							      fn ?: none);
		return;
	}
	if (!fn)
		return;
	for (s = 0; s < PCTR_FIXED_BASE; s++)
		pcr->pcr_evtsel[s] = fn[s];
	for (s = PCTR_FIXED_BASE; s < PCTR_NUM; s++)
		pcr->pcr_fixed_ctrl |= pctr_fn_to_fixed_field(fn[s]) <<
				       (4 * (s - PCTR_FIXED_BASE));
}

/*
 * Where the backend's counters share control bits: may the functions
 * @ctx will have once @prog is loaded (@ctx NULL: @prog's alone) count
 * together?  0 or -EINVAL.
 */
int prog_check_set(const struct pctr_ctx *ctx, const struct pctr_prog *prog)
{
	u64 fn[PCTR_NUM] = {};
	u32 mask = 0;
	unsigned int s;

	if (!pctr_pmu.ops->check_set)
		return 0;
	for (s = 0; s < PCTR_NUM; s++) {
		if (prog->mask & BIT(s))
			fn[s] = prog->fn[s];
		else if (ctx)
			fn[s] = ctx->fn[s];
		if (fn[s])
			mask |= BIT(s);
	}
	return pctr_pmu.ops->check_set(&pctr_pmu, fn, mask);
}

/*
 * What a thread inheriting @ctx starts with: its functions, each slot's
 * preset as its value, its options.  Any context; @ctx is current's.
 */
void prog_of(const struct pctr_ctx *ctx, struct pctr_prog *prog)
{
	unsigned long m = ctx->hw.mask;
	unsigned int s;

	memset(prog, 0, sizeof(*prog));
	for_each_set_bit(s, &m, PCTR_NUM) {
		prog->fn[s] = ctx->fn[s];
		prog->ctl[s] = ctx->hw.ctl[s];
		prog->val[s] = ctx->preset[s];
	}
	prog->mask = ctx->hw.mask;
	prog->preset = ctx->hw.mask;
	prog->opts = ctx->opts;
	prog->signo = ctx->signo;
	prog->flags = PCTR_PROG_OPTS | PCTR_PROG_FIRE;
}

/*
 * Does @prog give @ctx a slot a CPU binding holds (cpub.c)?  A slot
 * that keeps its function keeps it; a new thread's copy of its
 * creator's slots has them already.
 */
static bool prog_takes_held(const struct pctr_ctx *ctx,
			    const struct pctr_prog *prog)
{
	unsigned long m = prog->mask & pctr_ctx_held_slots();
	unsigned int s;

	if (!m || (prog->flags & PCTR_PROG_INHERIT))
		return false;
	for_each_set_bit(s, &m, PCTR_NUM)
		if (prog->fn[s] && prog->fn[s] != ctx->fn[s])
			return true;
	return false;
}

/* The slots @ctx will have counters in once @prog is loaded. */
static u32 prog_mask_after(const struct pctr_ctx *ctx,
			   const struct pctr_prog *prog)
{
	unsigned long m = prog->mask;
	u32 mask = ctx->hw.mask & ~prog->mask;
	unsigned int s;

	for_each_set_bit(s, &m, PCTR_NUM)
		if (prog->fn[s])
			mask |= BIT(s);
	return mask;
}

/* Slot @s's enabled and running times start from now: ctx_times(). */
static void prog_times_start(struct pctr_ctx *ctx, unsigned int s)
{
	ctx->en_base[s] = ctx->vtsc;
	ctx->st_base[s] = ctx->starved;
}

/* Slots whose function changes start again from zero, preset too. */
static void prog_functions(struct pctr_ctx *ctx, const struct pctr_prog *prog)
{
	unsigned long m = prog->mask;
	unsigned int s;

	for_each_set_bit(s, &m, PCTR_NUM) {
		if (ctx->fn[s] == prog->fn[s])
			continue;
		ctx->fn[s] = prog->fn[s];
		ctx->hw.ctl[s] = prog->ctl[s];
		ctx->sum[s] = 0;
		ctx->preset[s] = 0;
		ctx->ovf &= ~BIT(s);
		prog_times_start(ctx, s);
		if (prog->fn[s])
			ctx->hw.mask |= BIT(s);
		else
			ctx->hw.mask &= ~BIT(s);
		if (prog->fn[s] & PCTR_INT)
			ctx->notify |= BIT(s);
		else
			ctx->notify &= ~BIT(s);
		ctx->dirty = true;
	}
}

/* What happens to the values, and whether they count. */
static void prog_values(struct pctr_ctx *ctx, const struct pctr_prog *prog)
{
	unsigned long m = prog->preset;
	unsigned int s;

	for_each_set_bit(s, &m, PCTR_NUM) {
		ctx->sum[s] = prog->val[s];
		ctx->preset[s] = prog->val[s];
	}
	if (prog->flags & PCTR_PROG_ZERO) {
		memset(ctx->sum, 0, sizeof(ctx->sum));
		for (s = 0; s < PCTR_NUM; s++)
			prog_times_start(ctx, s);
	}
	if (prog->flags & PCTR_PROG_RESTART) {
		memcpy(ctx->sum, ctx->preset, sizeof(ctx->sum));
		ctx->ovf = 0;
		ctx->dirty = true;
	}
	if (prog->flags & PCTR_PROG_ENABLE)
		ctx->disabled = false;
	if (prog->flags & PCTR_PROG_DISABLE)
		ctx->disabled = true;
	if (prog->flags & PCTR_PROG_OPTS) {
		/* Read by the fork probe and the overflow path. */
		ctx->opts = prog->opts;
		WRITE_ONCE(ctx->signo, prog->signo ?: SIGIO);
	}
}

/*
 * Program the calling thread's context @ctx: functions first (a slot
 * whose function changes starts from zero), then presets, then what
 * prog->flags asks.  The thread's counters are stopped meanwhile, so the
 * change is one step for the switch hooks, the fold timer and the
 * overflow interrupt, and a notifying slot is armed for its new distance
 * from the wrap.  -EBUSY if it would give a slot a function a CPU
 * binding holds, or if it needs the PMU and perf holds it.  Process
 * context.
 */
int prog_load(struct pctr_ctx *ctx, const struct pctr_prog *prog)
{
	unsigned long flags, m;
	bool counts = prog_mask_after(ctx, prog) != 0;
	unsigned int s;
	int ret;

	if (prog_takes_held(ctx, prog))
		return -EBUSY;
	ret = prog_check_set(ctx, prog);
	if (ret)
		return ret;
	/* Its first counter: take the PMU (EBUSY if perf holds it). */
	if (counts && !ctx->pmu) {
		ret = pctr_pmu_get();
		if (ret)
			return ret;
		ctx->pmu = true;
	}
	local_irq_save(flags);
	ctx_stop(ctx);
	prog_functions(ctx, prog);
	prog_values(ctx, prog);
	if (!ctx->ovf)
		ctx->frozen = false;
	if (!ctx->notify)
		memset(ctx->hw.left, 0, sizeof(ctx->hw.left));
	if ((prog->flags & PCTR_PROG_FIRE) && ctx->notify) {
		/* A sampling slot just samples on: no signal to restart. */
		m = ctx->notify & ~ctx->sampling;
		for_each_set_bit(s, &m, PCTR_NUM)
			ctx->sum[s] = U64_MAX;
		ctx->ovf = m;
		ctx_check_ovf(ctx);
	}
	ctx_start(ctx);
	local_irq_restore(flags);
	/* Its last counter gone: give the PMU back. */
	if (!counts && ctx->pmu) {
		ctx->pmu = false;
		pctr_pmu_put();
	}
	return 0;
}

/*
 * The calling thread's counter page, made for @ctx if it has none yet,
 * with layout @abi (PAGE_ABI_V1 or PAGE_ABI_V2) kept up to date from now
 * on.  The counters are switched in again, so that user rdpmc is set up
 * for the page, and the layout written.
 */
struct page *prog_page(struct pctr_ctx *ctx, u8 abi)
{
	unsigned long flags;
	struct page *page = ctx->page;

	if (page && (ctx->page_abi & abi))
		return page;
	/* Version 2 carries the idle time PCIOCRD last read: have one. */
	if (abi & PAGE_ABI_V2)
		page_idle_ns();
	if (!page) {
		page = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!page)
			return NULL;
		page_init(page_address(page));
	}
	local_irq_save(flags);
	ctx->page = page;
	ctx->upage = page_address(page);
	ctx->page_abi |= abi;
	ctx_stop(ctx);
	ctx_start(ctx);
	local_irq_restore(flags);
	return page;
}
