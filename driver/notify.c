// SPDX-License-Identifier: GPL-2.0
/*
 * Overflow notification's signal, and what keeps a context alive for
 * it.  When a slot with PCTR_INT wraps, the engine (ctx.c) freezes the
 * context here and the thread is sent its signal (PCTR_SI_OVERFLOW, at
 * the user PC it was interrupted at) on its way back to user space.
 *
 * Contexts are reference counted: a binder's descriptor and an overflow
 * signal on its way may outlive the thread's side, and the last
 * reference frees the context.  Every task_work callback of the module
 * (this file's, bind.c's, prog.c's) is noted, so that module exit waits
 * for them.  Below the engine: nothing here calls into it.
 */
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "ctx_types.h"
#include "notify.h"

/* A task_work callback was queued since load: see pctr_thread_exit(). */
static bool pctr_task_works;

void ctx_note_task_work(void)
{
	WRITE_ONCE(pctr_task_works, true);
}

bool ctx_task_works(void)
{
	return READ_ONCE(pctr_task_works);
}


void ctx_get(struct pctr_ctx *ctx)
{
	refcount_inc(&ctx->ref);
}

/* The last reference: the thread's side ended long ago.  Any context. */
void ctx_put(struct pctr_ctx *ctx)
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
	/* ctx_put()'s module_put() may be the last: see thread.c's unhook. */
}

/*
 * Overflows found in an NMI (a backend's overflow interrupt is one on
 * x86): task_work_add() is not NMI-safe (KASAN records a stack, which
 * may allocate), so the signal's task_work is queued from an irq_work,
 * in hard-IRQ context on the same CPU, as soon as interrupts are on.
 * Each context on the list holds a reference.
 */
static DEFINE_PER_CPU(struct llist_head, ctx_nmi_ovf);
static DEFINE_PER_CPU(struct irq_work, ctx_nmi_ovf_work);

static void ctx_ovf_queue(struct pctr_ctx *ctx, struct task_struct *t)
{
	ctx_note_task_work();
	init_task_work(&ctx->ovf_work, ctx_ovf_signal);
	/* TWA_RESUME only sets a flag: allowed under the runqueue lock. */
	if (!t || task_work_add(t, &ctx->ovf_work, TWA_RESUME)) {
		WRITE_ONCE(ctx->ovf_queued, false);
		ctx_put(ctx);
	}
}

static void ctx_nmi_ovf_fn(struct irq_work *w)
{
	struct llist_node *n = llist_del_all(this_cpu_ptr(&ctx_nmi_ovf));
	struct pctr_ctx *ctx, *next;

	rcu_read_lock();
	llist_for_each_entry_safe(ctx, next, n, ovf_node)
		ctx_ovf_queue(ctx, pid_task(ctx->pid, PIDTYPE_PID));
	rcu_read_unlock();
}

/*
 * After a fold found that a slot with PCTR_INT wrapped (ctx.c): freeze
 * the context and signal its thread.  Runs in the thread's own context
 * (switch-out, an interrupt of it, or a call it made), NMIs included,
 * interrupts off.
 */
void notify_overflow(struct pctr_ctx *ctx)
{
	ctx->frozen = true;
	/* Where the thread was in user space when it was interrupted. */
	ctx->ovf_pc = instruction_pointer(task_pt_regs(current));
	/* One signal until restart; a pending one will do. */
	if (ctx->ovf_queued)
		return;
	ctx_get(ctx);
	ctx->ovf_queued = true;
	if (in_nmi()) {
		llist_add(&ctx->ovf_node, this_cpu_ptr(&ctx_nmi_ovf));
		irq_work_queue(this_cpu_ptr(&ctx_nmi_ovf_work));
		return;
	}
	ctx_ovf_queue(ctx, current);
}

void notify_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		init_llist_head(per_cpu_ptr(&ctx_nmi_ovf, cpu));
		*per_cpu_ptr(&ctx_nmi_ovf_work, cpu) =
			IRQ_WORK_INIT_HARD(ctx_nmi_ovf_fn);
	}
}

/* Module exit: no signal is queued from an NMI any more. */
void notify_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&ctx_nmi_ovf_work, cpu));
}
