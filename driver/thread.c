// SPDX-License-Identifier: GPL-2.0
/*
 * What the calling thread asks of its own counters (PCIOCS*, SETPCR,
 * ZERO, PRESET, RESTART, ENABLE/DISABLE, SOPTS, mmap, RELEASE), and a
 * thread's life as the engine follows it: inheritance (the counters a
 * thread hands to the threads and processes it creates), and the end of
 * its counters at exit and exec.  Each call builds a struct pctr_prog
 * and hands it to prog.c; the engine underneath is ctx.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>

#include "backend.h"
#include "compat.h"
#include "ctx.h"
#include "engine.h"
#include "page.h"
#include "pmu_owner.h"
#include "sample.h"

struct linux_binprm;

/* --- inheritance --------------------------------------------------------- */

/* What a new thread inherits: handed to it by a task_work. */
struct pctr_seed {
	struct callback_head	work;
	struct pctr_prog	prog;
	struct pctr_sampler	*smp;	/* sampling into the creator's ring */
};

/* In the new thread, on its way to user space for the first time. */
static void thread_inherit(struct pctr_seed *seed)
{
	struct pctr_ctx *ctx;

	if (ctx_current())
		return;
	ctx = prog_create(0);
	if (IS_ERR(ctx))
		return;
	/* Before the slots load: they sample, rather than fire, at once. */
	if (seed->smp) {
		sample_attach(ctx, seed->smp);
		seed->smp = NULL;
	}
	if (prog_load(ctx, &seed->prog))
		prog_destroy_current(ctx);
}

static void thread_inherit_work(struct callback_head *work)
{
	struct pctr_seed *seed = container_of(work, struct pctr_seed, work);

	/* An exiting thread runs its task_works too: it gets nothing. */
	if (!(current->flags & PF_EXITING))
		thread_inherit(seed);
	sample_free(seed->smp);
	kfree(seed);
	/* The last thing this callback does: see Documentation/design.rst. */
	module_put(THIS_MODULE);
}

/*
 * A thread or process was created (before it first runs): if its creator
 * counts with PCTR_O_INHERIT, hand it a seed.  Atomic context.
 */
static void thread_probe_fork(void *data, struct task_struct *parent,
			      struct task_struct *child)
{
	struct pctr_seed *seed;
	struct pctr_ctx *ctx;

	if (parent != current || (child->flags & (PF_KTHREAD | PF_IO_WORKER)))
		return;
	ctx = ctx_current();
	if (!ctx || !(ctx->opts & PCTR_O_INHERIT) || ctx->remote ||
	    !ctx->hw.mask)
		return;
	seed = kmalloc(sizeof(*seed), GFP_NOWAIT | __GFP_NOWARN);
	if (!seed) {
		pr_warn_ratelimited("no memory: thread %d does not inherit counters\n",
				    task_pid_nr(child));
		return;
	}
	prog_of(ctx, &seed->prog);
	seed->prog.flags |= PCTR_PROG_INHERIT;
	seed->smp = sample_inherit(ctx);
	if (ctx->smp && !seed->smp) {
		pr_warn_ratelimited("no memory: thread %d is not sampled\n",
				    task_pid_nr(child));
		kfree(seed);
		return;
	}
	init_task_work(&seed->work, thread_inherit_work);
	/* The module stays until the callback has run. */
	__module_get(THIS_MODULE);
	ctx_note_task_work();
	if (task_work_add(child, &seed->work, TWA_RESUME)) {
		sample_free(seed->smp);
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
	struct pctr_ctx *ctx = prog_current_live();

	if (ctx && ctx->remote)
		return ERR_PTR(-EBUSY);
	return ctx;
}

/*
 * PCIOCRD's snapshot of the calling thread's counters: for each slot in
 * *@mask its function and value (the sum plus what the running counter
 * added since the last fold, without folding, so the page need not be
 * rewritten), and the TSC.  Slots outside the mask are free and read as
 * zero.  -EIO if a register access failed and ended its counting.
 * With @enabled and @running, each slot's times too (ctx_times()).
 */
static __always_inline int thread_read(u64 *fn, u64 *val, u64 *tsc,
				       u32 *mask, u64 *enabled, u64 *running)
{
	struct pctr_ctx *ctx = ctx_current();
	unsigned long flags;
	int ret = 0;

	*mask = 0;
	local_irq_save(flags);
	if (ctx && pctr_pmu.ops) {
		ret = ctx_values(ctx, ctx->hw.mask, fn, val);
		if (!ret)
			*mask = ctx->hw.mask;
		if (!ret && enabled)
			ctx_times(ctx, ctx->hw.mask, enabled, running);
	}
	*tsc = pctr_arch_tsc();
	local_irq_restore(flags);
	return ret;
}

int pctr_thread_read(u64 *fn, u64 *val, u64 *tsc, u32 *mask)
{
	return thread_read(fn, val, tsc, mask, NULL, NULL);
}

/* PCIOCRDX: PCIOCRD's, with each slot's enabled and running times. */
int pctr_thread_read_times(u64 *fn, u64 *val, u64 *tsc, u32 *mask,
			   u64 *enabled, u64 *running)
{
	return thread_read(fn, val, tsc, mask, enabled, running);
}

/*
 * The calling thread's context for a call that changes its counters.
 * Counters a failed register access ended stay so (EIO), so the thread
 * learns of it.
 */
static struct pctr_ctx *ctx_for_change(void)
{
	struct pctr_ctx *ctx = ctx_own();

	if (IS_ERR_OR_NULL(ctx))
		return ctx;
	if (ctx->err)
		return ERR_PTR(ctx->err);
	return ctx;
}

/* Program the calling thread's own context, made first if need be. */
static int thread_load(const struct pctr_prog *prog, bool create)
{
	struct pctr_ctx *ctx = ctx_for_change();
	int ret;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (!ctx) {
		if (!create)
			return 0;
		ctx = prog_create(0);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}
	ret = prog_load(ctx, prog);
	/* No function and no page: the thread no longer needs a context. */
	if (!ctx->hw.mask && !ctx->page)
		prog_destroy_current(ctx);
	return ret;
}

/* Give the calling thread's slots in prog->mask new functions. */
static int thread_set(const struct pctr_prog *prog)
{
	unsigned long m = prog->mask;
	unsigned int s;
	bool any = false;

	for_each_set_bit(s, &m, PCTR_NUM)
		any |= prog->fn[s] != 0;
	return thread_load(prog, any);
}

int pctr_thread_set(unsigned int slot, u64 fn)
{
	struct pctr_prog prog = {};
	int ret;

	ret = prog_encode(&prog, slot, fn, pctr_rights());
	return ret ?: thread_set(&prog);
}

int pctr_thread_set_pcr(const struct pctr_pcr *pcr)
{
	struct pctr_prog prog = {};
	int ret;

	ret = prog_encode_pcr(&prog, pcr, pctr_rights());
	return ret ?: thread_set(&prog);
}

void pctr_thread_get_pcr(struct pctr_pcr *pcr)
{
	struct pctr_ctx *ctx = ctx_current();

	prog_fns_to_pcr(ctx ? ctx->fn : NULL, pcr);
}

/* A call on the counters of a context that has them. */
static int thread_change(const struct pctr_prog *prog)
{
	struct pctr_ctx *ctx = ctx_for_change();

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (!ctx || !ctx->hw.mask)
		return -EINVAL;
	return prog_load(ctx, prog);
}

int pctr_thread_zero(void)
{
	struct pctr_prog prog = { .flags = PCTR_PROG_ZERO };

	return thread_load(&prog, false);
}

int pctr_thread_preset(unsigned int slot, u64 value)
{
	struct pctr_ctx *ctx = ctx_for_change();
	struct pctr_prog prog = {};

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (!pctr_slot_exists(&pctr_pmu, slot))
		return -EINVAL;
	/* A preset belongs to a function: set that first. */
	if (!ctx || !ctx->fn[slot])
		return -EINVAL;
	prog.preset = BIT(slot);
	prog.val[slot] = value;
	return prog_load(ctx, &prog);
}

/* PCIOCRESTART: every slot from its preset, counting again. */
int pctr_thread_restart(void)
{
	struct pctr_prog prog = { .flags = PCTR_PROG_RESTART };

	return thread_change(&prog);
}

/*
 * PCIOCENABLE/PCIOCDISABLE.  Also on a context a binder set up: the
 * measured program may mark where counting matters.
 */
int pctr_thread_enable(bool on)
{
	struct pctr_ctx *ctx = prog_current_live();
	struct pctr_prog prog = {
		.flags = on ? PCTR_PROG_ENABLE : PCTR_PROG_DISABLE,
	};

	if (!ctx || !ctx->hw.mask)
		return -EINVAL;
	if (ctx->err)
		return ctx->err;
	return prog_load(ctx, &prog);
}

int pctr_thread_set_opts(const struct pctr_opts *o)
{
	struct pctr_ctx *ctx = ctx_for_change();
	struct pctr_prog prog = {
		.flags = PCTR_PROG_OPTS,
		.opts = o->po_flags,
		.signo = o->po_signo,
	};
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
	return prog_load(ctx, &prog);
}

void pctr_thread_get_opts(struct pctr_opts *o)
{
	struct pctr_ctx *ctx = ctx_current();

	memset(o, 0, sizeof(*o));
	if (!ctx)
		return;
	o->po_flags = ctx->opts;
	o->po_signo = ctx->signo;
}

/*
 * PCIOCSAMPLE: put a slot of the calling thread in sampling mode, its
 * records to @r (sample.c).  The function is checked as PCIOCS checks
 * it, with PCTR_INT (EOPNOTSUPP where the backend cannot interrupt);
 * the slot starts at 2^64 - period.
 */
int pctr_thread_sample(struct pctr_ring *r, const struct pctr_sample_attr *sa)
{
	struct pctr_prog prog = {};
	unsigned int rights = pctr_rights();
	struct pctr_ctx *ctx;
	int ret;

	ret = sample_check(r, sa);
	if (ret)
		return ret;
	ret = prog_encode(&prog, sa->sa_slot, sa->sa_fn | PCTR_INT, rights);
	if (ret)
		return ret;
	prog.preset = BIT(sa->sa_slot);
	prog.val[sa->sa_slot] = -sa->sa_period;
	ctx = ctx_for_change();
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (!ctx) {
		ctx = prog_create(0);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}
	/* Before the load: the slot samples from its first period. */
	ret = sample_config(ctx, r, sa, rights & PCTR_MAY_KERNEL);
	if (!ret) {
		ret = prog_load(ctx, &prog);
		if (ret)
			sample_unconfig(ctx, sa->sa_slot);
	}
	if (ret && !ctx->hw.mask && !ctx->page)
		prog_destroy_current(ctx);
	return ret;
}

/*
 * mmap() of the device: the calling thread's counter page.  Makes the
 * thread's context if it has none (the virtual TSC needs no counters);
 * that never takes the PMU.  The offset says which layout the kernel is
 * to keep in it from now on: 0 for version 1, PCTR_PAGE2_OFFSET for
 * version 2 (abi.rst); both map the same page.
 *
 * The page is read-only and never executable: its contents are partly
 * the user's (PCIOCPRESET), so an executable mapping would let a program
 * write code without a writable mapping.  It belongs to its thread: not
 * copied by fork() (VM_DONTCOPY, and VM_IO so that MADV_DOFORK cannot
 * undo it), not grown by mremap(), not in core dumps.
 */
int pctr_thread_mmap(struct vm_area_struct *vma)
{
	struct pctr_ctx *ctx = ctx_own();
	unsigned long flags;
	struct page *page;
	bool made = false;
	u8 abi;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (vma->vm_pgoff == 0)
		abi = PAGE_ABI_V1;
	else if (vma->vm_pgoff == PCTR_PAGE2_OFFSET >> PAGE_SHIFT)
		abi = PAGE_ABI_V2;
	else
		return -EINVAL;
	if (vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	if (!ctx) {
		ctx = prog_create(0);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
		made = true;
		local_irq_save(flags);
		ctx_start(ctx);
		local_irq_restore(flags);
	}
	page = prog_page(ctx, abi);
	if (!page) {
		if (made)
			prog_destroy_current(ctx);
		return -ENOMEM;
	}
	vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	vm_flags_set(vma, VM_IO | VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	return vm_insert_page(vma, vma->vm_start, page);
}

/* PCIOCRELEASE: the calling thread is done counting. */
int pctr_thread_release(void)
{
	struct pctr_ctx *ctx = ctx_own();

	if (IS_ERR_OR_NULL(ctx))
		return PTR_ERR_OR_ZERO(ctx);
	prog_destroy_current(ctx);
	return 0;
}

/* --- a thread's end, and set-up ------------------------------------------ */

/* A thread's end, and exec (a new program starts with no counters). */
static void thread_gone(struct task_struct *p)
{
	struct pctr_ctx *ctx;

	if (p != current)
		return;
	ctx = ctx_current();
	if (ctx)
		prog_destroy(ctx);
}

/*
 * In the exiting thread, in process context, before its parent is told
 * of the exit: the hand-back of the counters that the end of its context
 * queued is finished.
 */
static void thread_exit_settle(struct callback_head *work)
{
	struct pctr_ctx *ctx = container_of(work, struct pctr_ctx, exit_work);

	pctr_pmu_settle();
	ctx_put(ctx);
}

/*
 * A thread's exit.  This is atomic context, so the end of a context that
 * held the PMU can only queue the hand-back; the close of a descriptor
 * waits for it, but a program may have closed its descriptors before it
 * exited.  A task_work, which do_exit() runs after this and before the
 * parent can reap the process, waits for the hand-back instead: perf
 * started right after a process that counted finds the counters free.
 */
static void thread_probe_exit(void *data, struct task_struct *p)
{
	struct pctr_ctx *ctx = p == current ? ctx_current() : NULL;

	if (ctx && ctx->pmu) {
		ctx_get(ctx);
		ctx_note_task_work();
		init_task_work(&ctx->exit_work, thread_exit_settle);
		if (task_work_add(p, &ctx->exit_work, TWA_NONE))
			ctx_put(ctx);
	}
	thread_gone(p);
}

/*
 * Exec, after the new program is loaded and before its first user
 * instruction (load_elf_binary() has returned; the return to user space
 * comes after this tracepoint).  Sampling asked to follow exec goes on,
 * for a program one may trace; any other context ends here (a binding's
 * ended earlier, at the rename).  From exec_mmap() to here the context
 * still counts, in the kernel's exec only, and writes no sample:
 * sample.c compares the address space with the one its sampler was set
 * up for.
 */
static void thread_probe_exec(void *data, struct task_struct *p,
			      pid_t old_pid, struct linux_binprm *bprm)
{
	struct pctr_ctx *ctx;

	if (p != current)
		return;
	ctx = ctx_current();
	if (ctx && sample_keep_on_exec(ctx))
		return;
	thread_gone(p);
}

/*
 * Exec renames the thread (begin_new_exec()'s __set_task_comm(), under
 * the task's lock) after exec_mmap() and before commit_creds() gives a
 * set-id program its credentials.  A thread binding ends here, so its
 * binder counts nothing of the exec past this point, kernel mode
 * included: perf's events end right after commit_creds().  The
 * thread's own context waits for sched_process_exec, where the
 * program's dumpable state says whether its sampling may follow (here a
 * set-id exec still looks dumpable: commit_creds() changes that).
 * in_execve: not a rename by prctl() or through /proc.
 */
static void thread_probe_rename(void *data, struct task_struct *p,
				const char *comm)
{
	struct pctr_ctx *ctx;

	if (p != current || !p->in_execve)
		return;
	ctx = ctx_current();
	if (ctx && ctx->remote)
		prog_destroy(ctx);
}

struct pctr_hook {
	const char		*name;
	void			*probe;
	struct tracepoint	*tp;
};

static struct pctr_hook pctr_hooks[] = {
	{ "sched_process_exit", thread_probe_exit },
	{ "sched_process_exec", thread_probe_exec },
	{ "sched_process_fork", thread_probe_fork },
	{ "task_rename", thread_probe_rename },
};

static void thread_find_tracepoint(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pctr_hooks); i++)
		if (!strcmp(tp->name, pctr_hooks[i].name))
			pctr_hooks[i].tp = tp;
}

static void thread_unhook(unsigned int n)
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
	if (ctx_task_works())
		synchronize_rcu_tasks();
}

int pctr_thread_init(void)
{
	unsigned int i;
	int ret;

	ret = sample_init();
	if (ret)
		return ret;
	ctx_engine_init();
	ret = hotplug_init();
	if (ret)
		goto fail_engine;
	for_each_kernel_tracepoint(thread_find_tracepoint, NULL);
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
	thread_unhook(i);
	hotplug_exit();
fail_engine:
	ctx_engine_exit();
	sample_exit();
	return ret;
}

/* Module exit: every context is gone (each held a module reference). */
void pctr_thread_exit(void)
{
	thread_unhook(ARRAY_SIZE(pctr_hooks));
	hotplug_exit();
	ctx_engine_exit();
	sample_exit();
}
