// SPDX-License-Identifier: GPL-2.0
/*
 * Who may do what, in one place (Documentation/security.rst).
 *
 * Any thread may count its own user-mode events, as perf lets any
 * thread do (perf_event_paranoid 2).  Beyond that:
 *
 * - Counting in kernel mode (PCTR_K, however it is asked for: PCIOCS,
 *   SETPCR's event selects or fixed-counter fields, PCIOCBIND) is a side
 *   channel on the kernel.  Where the kernel exports its perf policy
 *   (perf_allow_kernel(): perf_event_paranoid, CAP_PERFMON and the LSM
 *   hook), it is followed exactly as perf follows it for an event that
 *   does not exclude the kernel; elsewhere only CAP_PERFMON (or
 *   CAP_SYS_ADMIN) may.  The allow_kernel parameter lets an admin allow
 *   it for everyone.  Refused: EACCES.
 * - Function bits that count other threads' events (AnyThread) need
 *   CAP_PERFMON; the backend refuses them (EPERM) without.
 * - Binding a CPU needs CAP_PERFMON (EACCES); that privilege covers
 *   every function the binding counts.
 * - Binding a thread of another process needs the caller's process to
 *   be its ptrace tracer (EPERM).
 * - In system mode (mode=system) setting or zeroing the machine's
 *   functions needs CAP_PERFMON too (EPERM), and covers every function.
 * - Sampling rings are memory that cannot be swapped out.  Each user may
 *   hold ring_kb KiB of them per online CPU (perf's perf_event_mlock_kb,
 *   516 by default) plus its RLIMIT_MEMLOCK, counted in the user's
 *   locked_vm as perf and io_uring count theirs; CAP_IPC_LOCK lifts the
 *   limit.  Refused: EPERM, as perf refuses a ring over its allowance.
 * - Sampling must leave a CPU time to run: each CPU takes at most
 *   max_sample_rate samples a second and spends at most
 *   cpu_time_max_percent of each tick taking them (perf's
 *   perf_event_max_sample_rate and perf_cpu_time_max_percent, with
 *   their defaults); a slot past either is throttled (sample.c).
 *
 * Rights are taken from the thread that makes the call (the binder, for
 * a binding), when it makes it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pctr.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "policy.h"

static bool allow_kernel;
module_param(allow_kernel, bool, 0644);
MODULE_PARM_DESC(allow_kernel, "Let every user count kernel-mode events (default: only as perf allows, else CAP_PERFMON)");

static unsigned int ring_kb = 516;
module_param(ring_kb, uint, 0644);
MODULE_PARM_DESC(ring_kb, "KiB of sampling ring each user may hold per online CPU, beyond its RLIMIT_MEMLOCK (default 516, as perf_event_mlock_kb)");

static bool system_rdpic;
module_param(system_rdpic, bool, 0444);
MODULE_PARM_DESC(system_rdpic, "mode=system on SPARC: let every process read the machine's counters with \"rd %pic\" while functions are set (default 0: only through the ioctl)");

/*
 * mode=system on an arch that cannot grant user reads per process
 * (SPARC's PCR.PRIV is the CPU's): may every process read the machine's
 * counts, the kernel's included?  Only by the administrator's leave.
 */
bool pctr_may_read_system_all(void)
{
	return system_rdpic;
}

static unsigned int max_sample_rate = 100000;
static unsigned int cpu_time_max_percent = 25;

static int max_sample_rate_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, INT_MAX);
}

static const struct kernel_param_ops max_sample_rate_ops = {
	.set	= max_sample_rate_set,
	.get	= param_get_uint,
};
module_param_cb(max_sample_rate, &max_sample_rate_ops, &max_sample_rate, 0644);
__MODULE_PARM_TYPE(max_sample_rate, "uint");
MODULE_PARM_DESC(max_sample_rate, "Samples a second each CPU may take, counted per tick; past it the sampling slot is throttled until a later tick (default 100000, as perf_event_max_sample_rate)");

static int cpu_time_max_percent_set(const char *val,
				    const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 100);
}

static const struct kernel_param_ops cpu_time_max_percent_ops = {
	.set	= cpu_time_max_percent_set,
	.get	= param_get_uint,
};
module_param_cb(cpu_time_max_percent, &cpu_time_max_percent_ops,
		&cpu_time_max_percent, 0644);
__MODULE_PARM_TYPE(cpu_time_max_percent, "uint");
MODULE_PARM_DESC(cpu_time_max_percent, "Percent of each tick a CPU may spend in the overflow interrupts that take samples; past it the sampling slot is throttled until a later tick; 0 or 100: no time limit (default 25, as perf_cpu_time_max_percent)");

/* Kernel-mode counting: perf's rule where it is exported, else the cap. */
static bool may_count_kernel(void)
{
#if defined(PCTR_HAVE_PERF_ALLOW_KERNEL) && defined(PCTR_PERF_ALLOW_KERNEL_VOID)
	return READ_ONCE(allow_kernel) || perf_allow_kernel() == 0;
#elif defined(PCTR_HAVE_PERF_ALLOW_KERNEL)
	struct perf_event_attr attr;

	if (READ_ONCE(allow_kernel))
		return true;
	/* What perf checks for an event that counts the kernel. */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	return perf_allow_kernel(&attr) == 0;
#else
	return READ_ONCE(allow_kernel) || perfmon_capable();
#endif
}

/* The calling thread's rights: PCTR_MAY_*. */
unsigned int pctr_rights(void)
{
	unsigned int rights = 0;

	if (perfmon_capable())
		rights |= PCTR_MAY_OTHERS | PCTR_MAY_CPU;
	if (may_count_kernel())
		rights |= PCTR_MAY_KERNEL;
	return rights;
}

/* May the calling thread bind a CPU (PCIOCBIND)?  Else EACCES. */
bool pctr_may_bind_cpu(void)
{
	return pctr_rights() & PCTR_MAY_CPU;
}

/*
 * The calling thread's rights over the functions of a binding it makes:
 * its own for a thread binding; for a CPU binding (@cpu), whose
 * privilege pctr_may_bind_cpu() checked, every function.
 */
unsigned int pctr_bind_rights(bool cpu)
{
	unsigned int rights = pctr_rights();

	if (cpu)
		rights |= PCTR_MAY_OTHERS | PCTR_MAY_KERNEL;
	return rights;
}

/*
 * System mode's rights: with the right to bind a CPU, every function on
 * every CPU; without it, none (0: the caller refuses with EPERM).
 */
unsigned int pctr_sys_rights(void)
{
	if (!(pctr_rights() & PCTR_MAY_CPU))
		return 0;
	return PCTR_MAY_OTHERS | PCTR_MAY_KERNEL | PCTR_MAY_CPU;
}

/*
 * May a caller with @rights give a slot function @fn (already checked by
 * the backend)?  0 or -EACCES.
 */
int pctr_policy_fn(u64 fn, unsigned int rights)
{
	if ((fn & PCTR_K) && !(rights & PCTR_MAY_KERNEL))
		return -EACCES;
	return 0;
}

/*
 * Is @t traced by a thread of process @binder?  Being its tracer is the
 * proof that the binder may look into it (the kernel's own check,
 * ptrace_may_access(), is not exported to modules).  The rule for both
 * binding a thread and sampling it (bind.c): checked when the binder
 * asks and again in the thread when the change is made.
 */
bool pctr_may_bind_thread(struct task_struct *t, struct pid *binder)
{
	struct task_struct *tracer;
	bool ok;

	rcu_read_lock();
	tracer = ptrace_parent(t);
	ok = tracer && task_tgid(tracer) == binder;
	rcu_read_unlock();
	return ok;
}

#ifdef PCTR_HAVE_USER_LOCKED_VM
static int locked_add(struct user_struct *user, unsigned long pages,
		      unsigned long limit)
{
	if (atomic_long_add_return(pages, &user->locked_vm) <= limit ||
	    capable(CAP_IPC_LOCK))
		return 0;
	atomic_long_sub(pages, &user->locked_vm);
	return -EPERM;
}

static void locked_sub(struct user_struct *user, unsigned long pages)
{
	atomic_long_sub(pages, &user->locked_vm);
}
#else
/* pctr's own count per user: its rings hold a reference to @user. */
struct pctr_locked {
	struct list_head	node;
	struct user_struct	*user;
	unsigned long		pages;
};
static LIST_HEAD(pctr_locked);
static DEFINE_MUTEX(pctr_locked_lock);

static struct pctr_locked *locked_find(struct user_struct *user)
{
	struct pctr_locked *l;

	list_for_each_entry(l, &pctr_locked, node)
		if (l->user == user)
			return l;
	return NULL;
}

/* An entry whose user holds no ring any more goes. */
static void locked_drop_empty(struct pctr_locked *l)
{
	if (!l->pages) {
		list_del(&l->node);
		kfree(l);
	}
}

static int locked_add(struct user_struct *user, unsigned long pages,
		      unsigned long limit)
{
	struct pctr_locked *l;
	int ret = 0;

	mutex_lock(&pctr_locked_lock);
	l = locked_find(user);
	if (!l) {
		l = kzalloc(sizeof(*l), GFP_KERNEL);
		if (!l) {
			ret = -ENOMEM;
			goto out;
		}
		l->user = user;
		list_add(&l->node, &pctr_locked);
	}
	if (l->pages + pages <= limit || capable(CAP_IPC_LOCK))
		l->pages += pages;
	else
		ret = -EPERM;
	locked_drop_empty(l);
out:
	mutex_unlock(&pctr_locked_lock);
	return ret;
}

static void locked_sub(struct user_struct *user, unsigned long pages)
{
	struct pctr_locked *l;

	mutex_lock(&pctr_locked_lock);
	l = locked_find(user);
	if (!WARN_ON_ONCE(!l || l->pages < pages)) {
		l->pages -= pages;
		locked_drop_empty(l);
	}
	mutex_unlock(&pctr_locked_lock);
}
#endif

/*
 * A sampling ring of @pages pages is made for @user: charge them to its
 * locked memory.  0, -EPERM over its allowance, or -ENOMEM.  Process
 * context, as the uncharge.
 */
int pctr_charge_ring(struct user_struct *user, unsigned long pages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK);

	limit = limit == RLIM_INFINITY ? ULONG_MAX : limit >> PAGE_SHIFT;
	limit = size_add(limit, ((unsigned long)READ_ONCE(ring_kb) *
				 num_online_cpus()) >> (PAGE_SHIFT - 10));
	return locked_add(user, pages, limit);
}

/* The ring is freed. */
void pctr_uncharge_ring(struct user_struct *user, unsigned long pages)
{
	locked_sub(user, pages);
}

/*
 * Sampling's limits for one CPU in one tick: samples, and nanoseconds
 * in the interrupts that take them (0: none).  Any context, NMI too.
 */
void pctr_sample_limits(u32 *samples, u64 *ns)
{
	unsigned int pct = READ_ONCE(cpu_time_max_percent);

	*samples = DIV_ROUND_UP(READ_ONCE(max_sample_rate), HZ);
	*ns = pct && pct < 100 ? div_u64((u64)TICK_NSEC * pct, 100) : 0;
}
