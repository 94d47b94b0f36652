// SPDX-License-Identifier: GPL-2.0
/*
 * Bindings: a descriptor that counts for something other than the
 * calling thread (PCIOCBIND).
 *
 * A CPU binding counts on one CPU whatever runs there (cpu_bind.c).  It
 * needs CAP_PERFMON (or CAP_SYS_ADMIN), one per CPU, and while any exists
 * no thread counts: the engine (ctx.c) invalidates every thread context
 * and refuses new ones, as Solaris does for cpc_bind_cpu().
 *
 * A thread binding counts for a thread of another process that the
 * caller traces with ptrace(2): being its tracer is the proof that the
 * caller may look into it (the kernel's own check, ptrace_may_access(),
 * is not exported to modules).  The counters are set up by a task_work
 * in the thread itself, so they are an ordinary thread context that the
 * thread's own calls may not change; the binder reads them remotely.
 *
 * A thread that is stopped (a ptrace stop, job control) cannot set the
 * counters up until it is resumed.  Without PCTR_BF_DEFER the binder
 * gives up (EAGAIN); with it the binding is made at once and keeps the
 * request: the thread sets its counters up when it next runs, before
 * any instruction of its own, and the binder takes the context from the
 * request the first time it looks after that (bind_settle()).  That is
 * how a tracer counts a child it holds stopped at its exec from the
 * child's first instruction (PAPI_attach).
 *
 * Both are programmed from one struct pctr_prog, checked and encoded by
 * prog.c like a thread's own functions.
 *
 * A thread binding may also sample (PCIOCSAMPLE on the bound
 * descriptor): a slot of the bound context is put in sampling mode into
 * the binder's ring (PCIOCRING on the same descriptor, before the
 * binding), by a second task_work in the thread, with the same checks.
 * pid and tid in the records are the thread's; the sampling ends with
 * the binding, at the thread's exec, or at its exit.  A CPU binding
 * samples its CPU, whatever runs there (bind_cpu_sample()), into a ring
 * made on the descriptor before or after the binding.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>

#include "backend.h"
#include "ctx.h"
#include "engine.h"
#include "file.h"
#include "policy.h"
#include "sample.h"

/* --- CPU bindings -------------------------------------------------------- */

static int bind_cpu(struct pctr_file *pf, const struct pctr_bind *b,
		    const struct pctr_prog *prog)
{
	struct pctr_cpub *cb;

	if (!pctr_may_bind_cpu())
		return -EACCES;
	cb = cpu_bind(b->pb_id, prog);
	if (IS_ERR(cb))
		return PTR_ERR(cb);
	pf->cpub = cb;
	WRITE_ONCE(pf->kind, PCTR_BIND_CPU);
	return 0;
}

static void unbind_cpu(struct pctr_file *pf)
{
	cpu_unbind(pf->cpub);
	pf->cpub = NULL;
}

/*
 * PCIOCSAMPLE on a descriptor bound to a CPU: the binding's slot samples
 * into the descriptor's ring whatever runs on the CPU (cpu_bind.c), with
 * the function it counts (EINVAL for another slot or function).  Its
 * records have kernel addresses only if the binder may count the kernel
 * itself (policy.c), whatever the binding's privilege covers.
 */
static int bind_cpu_sample(struct pctr_file *pf, struct pctr_ring *r,
			   const struct pctr_sample_attr *sa)
{
	unsigned int rights = pctr_bind_rights(true);
	struct pctr_prog prog = {};
	struct pctr_sampler *smp;
	unsigned int s = sa->sa_slot;
	int ret;

	ret = sample_check(r, sa);
	if (ret)
		return ret;
	ret = prog_encode(&prog, s, sa->sa_fn | PCTR_INT, rights);
	if (ret)
		return ret;
	mutex_lock(&pf->lock);
	ret = -EINVAL;
	if (pf->kind != PCTR_BIND_CPU || !(pf->cpub->hw.mask & BIT(s)) ||
	    (pf->cpub->fn[s] | PCTR_INT) != prog.fn[s])
		goto unlock;
	smp = sample_cpu_new(r, sa, pctr_rights() & PCTR_MAY_KERNEL,
			     pf->cpub->cpu);
	ret = PTR_ERR_OR_ZERO(smp);
	if (ret)
		goto unlock;
	ret = cpu_bind_sample(pf->cpub, smp, s, prog.ctl[s], sa->sa_period);
	if (ret)
		sample_free(smp);
unlock:
	mutex_unlock(&pf->lock);
	return ret;
}

/*
 * PCIOCRING on a bound descriptor: on one bound to a CPU, a ring for
 * that CPU alone (sample.c); else for every CPU, as on any.
 */
int pctr_bind_ring(struct file *file, struct pctr_ring_attr *ra)
{
	struct pctr_file *pf = pctr_file(file);
	int ret;

	mutex_lock(&pf->lock);
	ret = sample_ring_create(&pf->ring, ra, pf->kind == PCTR_BIND_CPU ?
				 (int)pf->cpub->cpu : -1);
	mutex_unlock(&pf->lock);
	return ret;
}

/* --- thread bindings ------------------------------------------------------ */

enum { REQ_PENDING, REQ_DONE, REQ_ABANDONED };

/* A binding on its way to the target thread. */
struct pctr_req {
	struct callback_head	work;
	refcount_t		ref;
	spinlock_t		lock;
	int			state;		/* REQ_*, under lock */
	int			ret;
	struct pctr_ctx		*ctx;
	struct completion	done;
	struct pid		*binder;	/* the binder's process */
	struct pid		*target;	/* the thread, for the list */
	bool			defer;		/* PCTR_BF_DEFER */
	u64			exec_id;	/* the target's, when checked */
	struct pctr_prog	prog;
	/*
	 * A change of a binding (PCIOCSAMPLE, PCIOCENABLE/DISABLE): @ctx is
	 * the binding's, held; @prog is loaded into it, after the sampler of
	 * @ring (held) is set up if there is one.
	 */
	bool			change;
	struct pctr_ring	*ring;
	struct pctr_sample_attr	sa;
	bool			kaddr;
};

/* A request, with the binder's reference. */
static struct pctr_req *req_new(void)
{
	struct pctr_req *req = kzalloc(sizeof(*req), GFP_KERNEL);

	if (req)
		refcount_set(&req->ref, 1);
	return req;
}

static void req_put(struct pctr_req *req)
{
	if (refcount_dec_and_test(&req->ref)) {
		if (req->change)
			ctx_put(req->ctx);
		sample_ring_put(req->ring);
		put_pid(req->binder);
		put_pid(req->target);
		kfree(req);
	}
}

/*
 * In the target thread, from the binder's task_work: a context as if the
 * thread had programmed it, marked as the binder's.  Returns it with a
 * second reference, for the binder.
 */
static struct pctr_ctx *bind_thread_new(const struct pctr_prog *prog)
{
	struct pctr_ctx *ctx;
	int ret;

	if (prog_current_live())
		return ERR_PTR(-EBUSY);
	ctx = prog_create(PROG_REMOTE);
	if (IS_ERR(ctx))
		return ctx;
	ret = prog_load(ctx, prog);
	if (ret) {
		prog_destroy_current(ctx);
		return ERR_PTR(ret);
	}
	ctx_get(ctx);
	return ctx;
}

/*
 * In the target thread, from the binder's task_work: a change of the
 * binding's context, as the thread's own PCIOCSAMPLE, PCIOCENABLE or
 * PCIOCDISABLE would make it.  ESRCH if the binding ended meanwhile
 * (exec, or the binder let go of it).
 */
static int bind_change_here(struct pctr_req *req)
{
	struct pctr_ctx *ctx = req->ctx;
	int ret;

	if (ctx_current() != ctx || READ_ONCE(ctx->released))
		return -ESRCH;
	if (ctx->err)
		return ctx->err;
	if (!req->ring)
		return prog_load(ctx, &req->prog);
	ret = sample_config(ctx, req->ring, &req->sa, req->kaddr);
	if (ret)
		return ret;
	ret = prog_load(ctx, &req->prog);
	if (ret)
		sample_unconfig(ctx, req->sa.sa_slot);
	return ret;
}

/* In the target thread, on its way back to user space. */
static void pctr_bind_work(struct callback_head *work)
{
	struct pctr_req *req = container_of(work, struct pctr_req, work);
	struct pctr_ctx *ctx;
	bool keep;

	/*
	 * The binder checked that it traces this thread; check again here,
	 * where it counts: the tracer may have gone meanwhile, and a new
	 * program (a setuid one, say) been started.
	 */
	if (current->flags & PF_EXITING)
		ctx = ERR_PTR(-ESRCH);
	else if (current->self_exec_id != req->exec_id ||
		 !pctr_may_bind_thread(current, req->binder))
		ctx = ERR_PTR(-EPERM);
	else if (req->change)
		ctx = ERR_PTR(bind_change_here(req));
	else
		ctx = bind_thread_new(&req->prog);
	/* A change: its ctx stays the binding's. */
	if (req->change) {
		spin_lock(&req->lock);
		if (req->state == REQ_PENDING) {
			req->state = REQ_DONE;
			req->ret = PTR_ERR(ctx);
		}
		spin_unlock(&req->lock);
		goto done;
	}
	spin_lock(&req->lock);
	keep = req->state == REQ_PENDING;
	if (keep) {
		req->state = REQ_DONE;
		req->ret = PTR_ERR_OR_ZERO(ctx);
		req->ctx = IS_ERR(ctx) ? NULL : ctx;
	}
	spin_unlock(&req->lock);
	/* The binder gave up waiting: end what was made for it. */
	if (!keep && !IS_ERR(ctx))
		prog_end_remote(ctx);
done:
	complete(&req->done);
	req_put(req);
	/* The last thing this callback does: see Documentation/design.rst. */
	module_put(THIS_MODULE);
}

/*
 * Wait for the target to run the setup.  A stopped target (job control,
 * or a ptrace stop such as a signal-delivery stop that its tracer -- very
 * likely our caller -- would have to resume) does not run it: rather
 * than wait for ever, give up with EAGAIN (or leave it pending, the
 * caller decides).  0 once it has run.
 */
static int bind_wait(struct pctr_req *req, struct task_struct *t)
{
	long left;

	for (;;) {
		left = wait_for_completion_interruptible_timeout(&req->done,
								 HZ / 100 + 1);
		if (left > 0)
			return 0;
		if (left < 0)
			return -EINTR;
		if (task_is_stopped_or_traced(t))
			return -EAGAIN;
	}
}

/* bind_send(): the thread is stopped, the request left pending. */
#define BIND_PENDING	1

/*
 * Send @req (its prog; for a change its ctx, and ring and sa to sample)
 * to thread @t and wait for its answer: the thread's, or an error of
 * its own (EPERM, ESRCH, EAGAIN, EINTR); BIND_PENDING if @req->defer and
 * the thread is stopped: the request stays queued.  The caller still
 * holds its reference.
 */
static int bind_send(struct pctr_req *req, struct task_struct *t)
{
	u64 exec_id;
	int ret;

	/* The program the check is about; bind_work() compares. */
	exec_id = READ_ONCE(t->self_exec_id);
	smp_rmb();	/* exec_id before the check: bind_work() re-checks */
	if (!pctr_may_bind_thread(t, task_tgid(current)))
		return -EPERM;
	req->binder = get_pid(task_tgid(current));
	req->exec_id = exec_id;
	refcount_inc(&req->ref);	/* the work's */
	spin_lock_init(&req->lock);
	init_completion(&req->done);
	init_task_work(&req->work, pctr_bind_work);
	/* The module stays until the callback has run. */
	__module_get(THIS_MODULE);
	ctx_note_task_work();
	/* TWA_SIGNAL: a thread asleep in a system call runs it promptly. */
	if (task_work_add(t, &req->work, TWA_SIGNAL)) {
		module_put(THIS_MODULE);
		refcount_dec(&req->ref);
		return -ESRCH;
	}
	ret = bind_wait(req, t);
	spin_lock(&req->lock);
	if (req->state != REQ_PENDING)
		ret = req->ret;
	else if (ret == -EAGAIN && req->defer)
		ret = BIND_PENDING;
	else
		req->state = REQ_ABANDONED;
	spin_unlock(&req->lock);
	return ret;
}

/*
 * A binder lets go of a request it left pending: if the thread has not
 * run it yet, it ends what it makes; if it has, end the context here.
 */
static void bind_drop_req(struct pctr_req *req)
{
	struct pctr_ctx *ctx = NULL;

	spin_lock(&req->lock);
	if (req->state == REQ_PENDING)
		req->state = REQ_ABANDONED;
	else if (!req->ret)
		ctx = req->ctx;
	spin_unlock(&req->lock);
	if (ctx)
		prog_end_remote(ctx);
	req_put(req);
}

static int bind_thread(struct pctr_file *pf, const struct pctr_bind *b,
		       const struct pctr_prog *prog)
{
	struct task_struct *t;
	struct pctr_req *req;
	struct pid *pid;
	int ret;

	pid = find_get_pid(b->pb_id);
	t = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	put_pid(pid);
	if (!t)
		return -ESRCH;
	ret = -EINVAL;
	if (same_thread_group(t, current) || (t->flags & PF_KTHREAD))
		goto put_task;
	ret = -ENOMEM;
	req = req_new();
	if (!req)
		goto put_task;
	req->prog = *prog;
	req->defer = b->pb_flags & PCTR_BF_DEFER;
	req->target = get_pid(task_pid(t));
	ret = bind_send(req, t);
	if (ret == BIND_PENDING) {
		/* The binder's reference is the descriptor's now. */
		pf->req = req;
		req = NULL;
		ret = 0;
	} else if (!ret) {
		pf->ctx = req->ctx;
	}
	if (!ret)
		WRITE_ONCE(pf->kind, PCTR_BIND_THREAD);
	if (req)
		req_put(req);
put_task:
	put_task_struct(t);
	return ret;
}

/* --- reading a bound thread's counters ---------------------------------- */

struct remote_read {
	struct pctr_ctx	*ctx;
	u32		seq;
	bool		ok;
	int		err;
	u64		*fn;
	u64		*val;
	u64		*enabled;	/* and running, or NULL */
	u64		*running;
};

/* On the CPU the context ran on when the reader looked: still there? */
static void bind_read_thread_ipi(void *arg)
{
	struct remote_read *r = arg;

	if (READ_ONCE(r->ctx->seq) != r->seq)
		return;
	r->err = ctx_values(r->ctx, r->ctx->hw.mask, r->fn, r->val);
	if (r->enabled)
		ctx_times(r->ctx, r->ctx->hw.mask, r->enabled, r->running);
	r->ok = true;
}

/*
 * A binder reads a context of another thread.  Its sums change only on
 * the CPU it runs on, with interrupts off; its seq is odd while it runs.
 * A running context is read by an IPI to its CPU (which checks that the
 * same stint still runs there), a stopped one directly, retrying if it
 * started meanwhile.  An ended context's sums are final.  A context
 * whose register access failed reads as the error (EIO) for good.
 * With @enabled and @running, each slot's times too (ctx_times()).
 */
static int bind_read_thread(struct pctr_ctx *ctx, u64 *fn, u64 *val,
			    u32 *mask, u64 *enabled, u64 *running)
{
	unsigned long m = ctx->hw.mask;
	struct remote_read r = { .ctx = ctx, .fn = fn, .val = val,
				 .enabled = enabled, .running = running };
	unsigned int s;
	int cpu;

	*mask = m;	/* the binder's; only the binder could change it */
	for (;;) {
		if (READ_ONCE(ctx->err))
			return READ_ONCE(ctx->err);
		/* Pairs with prog_destroy(): final sums, no IPI needed. */
		if (smp_load_acquire(&ctx->dead)) {
			for_each_set_bit(s, &m, PCTR_NUM) {
				fn[s] = ctx->fn[s];
				val[s] = ctx->sum[s];
			}
			if (enabled)
				ctx_times(ctx, m, enabled, running);
			return 0;
		}
		r.seq = READ_ONCE(ctx->seq);
		smp_rmb();	/* seq before cpu and sums: see ctx_start() */
		if (r.seq & 1) {
			cpu = READ_ONCE(ctx->cpu);
			r.ok = false;
			if (!smp_call_function_single(cpu, bind_read_thread_ipi,
						      &r, 1) && r.ok)
				return r.err;
		} else {
			for_each_set_bit(s, &m, PCTR_NUM) {
				fn[s] = ctx->fn[s];
				val[s] = READ_ONCE(ctx->sum[s]);
			}
			if (enabled)
				ctx_times(ctx, m, enabled, running);
			smp_rmb();	/* sums before seq again: ctx_stop() */
			if (READ_ONCE(ctx->seq) == r.seq)
				return 0;
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
}

/* A pending binding reads as what it will start from. */
static void bind_read_pending(const struct pctr_req *req, u64 *fn, u64 *val,
			      u32 *mask)
{
	unsigned long m = req->prog.mask;
	unsigned int s;

	*mask = m;
	for_each_set_bit(s, &m, PCTR_NUM) {
		fn[s] = req->prog.fn[s];
		val[s] = req->prog.val[s];
	}
}

/* --- the list, for admins ----------------------------------------------- */

/*
 * Every binding, as sysfs's "bindings" (pctr status) shows it: hwpmc's
 * GETPMCINFO, who holds which counters.  An entry is on the list while
 * its descriptor is bound: a thread binding's @ctx is the binder's
 * reference, which bind_end_locked() drops only after taking it off.
 */
struct bind_entry {
	struct list_head	node;
	struct pctr_file	*pf;
	u32			kind;
	u32			cpu;		/* a CPU binding's */
	u32			mask;		/* its slots */
	struct pid		*binder;	/* the binder's process */
	struct pid		*thread;	/* a thread binding's thread */
	struct pctr_ctx		*ctx;		/* its context, NULL pending */
};

static LIST_HEAD(bind_list);
static DEFINE_MUTEX(bind_list_lock);

/* @pf was just bound (@e from the caller): list it. */
static void bind_list_add(struct bind_entry *e, struct pctr_file *pf,
			  const struct pctr_bind *b, u32 mask)
{
	e->pf = pf;
	e->kind = b->pb_kind;
	e->cpu = b->pb_id;
	e->mask = mask;
	e->binder = get_pid(task_tgid(current));
	e->ctx = pf->ctx;
	if (pf->ctx)
		e->thread = get_pid(pf->ctx->pid);
	else if (pf->req)
		e->thread = get_pid(pf->req->target);
	mutex_lock(&bind_list_lock);
	list_add_tail(&e->node, &bind_list);
	mutex_unlock(&bind_list_lock);
}

static void bind_list_del(struct pctr_file *pf)
{
	struct bind_entry *e, *found = NULL;

	mutex_lock(&bind_list_lock);
	list_for_each_entry(e, &bind_list, node)
		if (e->pf == pf) {
			found = e;
			list_del(&e->node);
			break;
		}
	mutex_unlock(&bind_list_lock);
	if (found) {
		put_pid(found->binder);
		put_pid(found->thread);
		kfree(found);
	}
}

/*
 * A deferred thread binding (PCTR_BF_DEFER), under @pf's lock: once the
 * thread has set its counters up, the context is the binding's as if it
 * had been made at once.  0 then, BIND_PENDING while the thread has not
 * run the setup, or the error the setup found.
 */
static int bind_settle(struct pctr_file *pf)
{
	struct pctr_req *req = pf->req;
	struct bind_entry *e;
	int ret;

	if (!req)
		return 0;
	spin_lock(&req->lock);
	ret = req->state == REQ_DONE ? req->ret : BIND_PENDING;
	spin_unlock(&req->lock);
	if (ret)
		return ret;
	pf->ctx = req->ctx;
	pf->req = NULL;
	mutex_lock(&bind_list_lock);
	list_for_each_entry(e, &bind_list, node)
		if (e->pf == pf)
			e->ctx = pf->ctx;
	mutex_unlock(&bind_list_lock);
	req_put(req);
	return 0;
}

/*
 * sysfs "bindings": a line per binding, "cpu N slots MASK binder PID" or
 * "thread TID slots MASK sampling MASK binder PID" (" ended" once the
 * thread exited or exec'd, " pending" while a deferred binding waits for
 * its stopped thread), PIDs as the reader's namespace sees them.
 */
ssize_t pctr_bind_show(char *buf)
{
	struct bind_entry *e;
	int len = 0;

	mutex_lock(&bind_list_lock);
	list_for_each_entry(e, &bind_list, node) {
		if (len > PAGE_SIZE - 128) {
			len += sysfs_emit_at(buf, len, "...\n");
			break;
		}
		if (e->kind == PCTR_BIND_CPU)
			len += sysfs_emit_at(buf, len,
					     "cpu %u slots %#x binder %d\n",
					     e->cpu, e->mask,
					     pid_vnr(e->binder));
		else if (!e->ctx)
			len += sysfs_emit_at(buf, len,
					     "thread %d slots %#x sampling 0 binder %d pending\n",
					     pid_vnr(e->thread), e->mask,
					     pid_vnr(e->binder));
		else
			len += sysfs_emit_at(buf, len,
					     "thread %d slots %#x sampling %#x binder %d%s\n",
					     pid_vnr(e->thread), e->mask,
					     READ_ONCE(e->ctx->sampling),
					     pid_vnr(e->binder),
					     /* Pairs with prog_destroy(). */
					     smp_load_acquire(&e->ctx->dead) ?
					     " ended" : "");
	}
	mutex_unlock(&bind_list_lock);
	return len;
}

/* --- the calls -------------------------------------------------------- */

int pctr_bind(struct file *file, const struct pctr_bind __user *arg)
{
	struct pctr_file *pf = pctr_file(file);
	struct pctr_prog prog = {};
	struct bind_entry *e;
	struct pctr_bind *b;
	unsigned int rights;
	unsigned int s;
	int ret;

	b = memdup_user(arg, sizeof(*b));
	if (IS_ERR(b))
		return PTR_ERR(b);
	ret = -EINVAL;
	if (b->pb_reserved || (b->pb_flags & ~PCTR_BF_DEFER))
		goto out;
	if (b->pb_kind != PCTR_BIND_CPU && b->pb_kind != PCTR_BIND_THREAD)
		goto out;
	/* A CPU is never stopped. */
	if (b->pb_kind == PCTR_BIND_CPU && b->pb_flags)
		goto out;
	for (s = 0; s < PCTR_NUM; s++) {
		if (!b->pb_fn[s]) {
			if (b->pb_preset[s])
				goto out;
			continue;
		}
		/* Nobody to signal: notification is for one's own thread. */
		if (b->pb_fn[s] & PCTR_INT)
			goto out;
		prog.mask |= BIT(s);
	}
	if (!prog.mask)
		goto out;
	/* The binder's rights over the binding's functions. */
	rights = pctr_bind_rights(b->pb_kind == PCTR_BIND_CPU);
	prog.preset = prog.mask;
	for (s = 0; s < PCTR_NUM; s++) {
		if (!(prog.mask & BIT(s)))
			continue;
		ret = prog_encode(&prog, s, b->pb_fn[s], rights);
		if (ret)
			goto out;
		prog.val[s] = b->pb_preset[s];
	}
	/* A CPU binding never goes through prog_load(): check it here. */
	ret = prog_check_set(NULL, &prog);
	if (ret)
		goto out;

	ret = -ENOMEM;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		goto out;
	mutex_lock(&pf->lock);
	if (pf->kind)
		ret = -EBUSY;
	else if (b->pb_kind == PCTR_BIND_CPU)
		ret = bind_cpu(pf, b, &prog);
	else
		ret = bind_thread(pf, b, &prog);
	if (!ret) {
		bind_list_add(e, pf, b, prog.mask);
		e = NULL;
	}
	mutex_unlock(&pf->lock);
	kfree(e);
out:
	kfree(b);
	return ret;
}

/*
 * Send @req, a change of @pf's thread binding, to the bound thread, and
 * free it.  EOPNOTSUPP for a descriptor not bound to a thread, ESRCH if
 * the binding has ended.
 */
static int bind_change(struct pctr_file *pf, struct pctr_req *req)
{
	struct task_struct *t = NULL;
	int ret;

	mutex_lock(&pf->lock);
	ret = -EOPNOTSUPP;
	if (pf->kind != PCTR_BIND_THREAD)
		goto unlock;
	/* Not set up yet: nothing to change. */
	ret = bind_settle(pf);
	if (ret == BIND_PENDING)
		ret = -EAGAIN;
	if (ret)
		goto unlock;
	rcu_read_lock();
	t = pid_task(pf->ctx->pid, PIDTYPE_PID);
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	ret = -ESRCH;
	/* Pairs with prog_destroy(): an ended context takes no more. */
	if (!t || smp_load_acquire(&pf->ctx->dead))
		goto unlock;
	/* Held until the request goes: the work may run after we gave up. */
	ctx_get(pf->ctx);
	req->ctx = pf->ctx;
	req->change = true;
	ret = bind_send(req, t);
unlock:
	mutex_unlock(&pf->lock);
	if (t)
		put_task_struct(t);
	req_put(req);
	return ret;
}

/*
 * PCIOCSAMPLE on a descriptor bound to a thread: a slot of its context
 * samples into this descriptor's ring (PCIOCRING, made before the
 * binding).  The argument is checked as for the calling thread's, with
 * the binder's rights; the change is made in the thread, as the binding
 * was.  On a CPU binding, bind_cpu_sample().
 */
int pctr_bind_sample(struct file *file, struct pctr_ring *r,
		     const struct pctr_sample_attr *sa)
{
	unsigned int rights = pctr_bind_rights(false);
	struct pctr_req *req;
	int ret;

	if (READ_ONCE(pctr_file(file)->kind) == PCTR_BIND_CPU)
		return bind_cpu_sample(pctr_file(file), r, sa);
	ret = sample_check(r, sa);
	if (ret)
		return ret;
	req = req_new();
	if (!req)
		return -ENOMEM;
	ret = prog_encode(&req->prog, sa->sa_slot, sa->sa_fn | PCTR_INT,
			  rights);
	if (ret) {
		req_put(req);
		return ret;
	}
	req->prog.preset = BIT(sa->sa_slot);
	req->prog.val[sa->sa_slot] = -sa->sa_period;
	req->sa = *sa;
	req->kaddr = rights & PCTR_MAY_KERNEL;
	sample_ring_hold(r);
	req->ring = r;
	return bind_change(pctr_file(file), req);
}

/*
 * PCIOCENABLE/PCIOCDISABLE on a descriptor bound to a thread: its
 * counting (and sampling) on or off, as the thread's own calls would
 * turn it; the last call, the binder's or the thread's, wins.
 */
int pctr_bind_enable(struct file *file, bool on)
{
	struct pctr_req *req;

	req = req_new();
	if (!req)
		return -ENOMEM;
	req->prog.flags = on ? PCTR_PROG_ENABLE : PCTR_PROG_DISABLE;
	return bind_change(pctr_file(file), req);
}

/*
 * PCIOCRD on a bound descriptor; PCIOCRDX's with @enabled and @running
 * (a thread binding's times; a CPU binding counts all along: zero).
 */
int pctr_bind_read(struct file *file, u64 *fn, u64 *val, u32 *mask,
		   u64 *enabled, u64 *running)
{
	struct pctr_file *pf = pctr_file(file);
	int ret = 0;

	mutex_lock(&pf->lock);
	*mask = 0;
	if (pf->kind == PCTR_BIND_CPU)
		ret = cpu_bind_read(pf->cpub, fn, val, mask);
	else if (pf->kind == PCTR_BIND_THREAD)
		ret = bind_settle(pf);
	if (ret == BIND_PENDING) {
		bind_read_pending(pf->req, fn, val, mask);
		ret = 0;
	} else if (!ret && pf->kind == PCTR_BIND_THREAD) {
		ret = bind_read_thread(pf->ctx, fn, val, mask, enabled,
				       running);
	}
	mutex_unlock(&pf->lock);
	return ret;
}

static void bind_end_locked(struct pctr_file *pf)
{
	if (pf->kind)
		bind_list_del(pf);
	if (pf->kind == PCTR_BIND_CPU)
		unbind_cpu(pf);
	else if (pf->req)
		bind_drop_req(pf->req);
	else if (pf->kind == PCTR_BIND_THREAD)
		prog_end_remote(pf->ctx);
	pf->req = NULL;
	pf->ctx = NULL;
	WRITE_ONCE(pf->kind, 0);
}

/* PCIOCRELEASE on a bound descriptor. */
void pctr_bind_end(struct file *file)
{
	struct pctr_file *pf = pctr_file(file);

	mutex_lock(&pf->lock);
	bind_end_locked(pf);
	mutex_unlock(&pf->lock);
}

/* The last close, from whichever thread: the binding ends with it. */
void pctr_bind_close(struct file *file)
{
	bind_end_locked(pctr_file(file));
}
