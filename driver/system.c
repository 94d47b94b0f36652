// SPDX-License-Identifier: GPL-2.0
/*
 * System mode (mode=system): OpenBSD's pctr(4) semantics.  Functions are
 * set for the whole machine, by a writer with CAP_PERFMON (or
 * CAP_SYS_ADMIN), and count on every online CPU whatever runs there.
 * They stay set when the setter exits, until changed or the module is
 * unloaded; PCIOCRD returns the current CPU's counts.  A CPU that comes
 * online gets them too.  No thread has counters of its own in this mode
 * (ioctl.c refuses the per-thread calls).
 *
 * The functions are kept here, under sys_lock, and changed only with the
 * CPUs held (cpus_read_lock): so the hotplug callback, which runs with
 * them held for writing, reads them without the mutex.  Each CPU's
 * counters are its own binding in the engine (sys_load()), so the
 * fold timer and the overflow interrupt fold them as they fold a CPU
 * binding's.
 *
 * The PMU is taken from perf while any function is set, and given back
 * when the last is cleared and at unload.  A setting holds no module
 * reference: unloading while functions are set is allowed and clears
 * them.
 *
 * User-mode reads (rdpmc), where the administrator allows them
 * (user_rdpmc=1) and the arch can: a process that has the device open
 * may read the counters while functions are set, that is while pctr
 * holds the PMU (never perf's counters).  Each open descriptor records
 * its opener's address space; the arch lets those read (user_read_mm)
 * while the PMU is held, and no longer once it is given back.  An arch
 * that cannot let one process read and not another (SPARC: PCR.PRIV is
 * the CPU's, whatever runs) would let every process read the machine's
 * counts, the kernel's included: there user reads stay off unless the
 * administrator loaded pctr with system_rdpic=1.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/irqflags.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "backend.h"
#include "ctx.h"
#include "engine.h"
#include "file.h"
#include "pmu_owner.h"
#include "policy.h"

bool pctr_system;

static DEFINE_MUTEX(sys_lock);
/* Written under sys_lock with the CPUs held; read with either. */
static u64 sys_fn[PCTR_NUM];
static u64 sys_ctl[PCTR_NUM];
static bool sys_pmu;			/* under sys_lock: the PMU is held */

/* A descriptor's opener, whose threads may rdpmc while sys_pmu. */
struct sys_reader {
	struct list_head	node;		/* on sys_readers */
	struct mm_struct	*mm;		/* mmgrab()bed */
	bool			granted;	/* user_read_mm(mm, true) */
};
static LIST_HEAD(sys_readers);		/* under sys_lock */

/*
 * Each CPU's counters count whatever runs there, as a CPU binding's do:
 * the CPU's own binding, which the engine's fold timer and overflow
 * interrupt fold as they fold any.  No thread context exists in this
 * mode, so nothing else uses the counters.
 */
static DEFINE_PER_CPU(struct pctr_cpub, sys_cpub);

/*
 * Program this CPU with the functions @fn (encoded as @ctl; 0: free):
 * irqs off, on the CPU.  A slot whose function is unchanged and not in
 * @fresh counts on from where it was (its register is not rewritten); any
 * other slot starts from zero.  All functions 0: the CPU counts no more.
 * The value of a slot is thus its register's value, extended to 64 bits.
 */
static void sys_load(const u64 *fn, const u64 *ctl, u32 fresh, bool user_read)
{
	struct pctr_cpub *cb = this_cpu_ptr(&sys_cpub);
	u32 on = 0, kept = 0, keep = 0;
	unsigned int s;

	lockdep_assert_irqs_disabled();
	if (!cb->id)
		cb->id = ctx_new_id();
	cb->sys = true;
	if (ctx_cpub_stop(cb))
		kept = cb->hw.mask & ~fresh;
	cb->err = 0;
	cb->cpu = smp_processor_id();
	for (s = 0; s < PCTR_NUM; s++) {
		if (!fn[s]) {
			cb->fn[s] = 0;
			cb->sum[s] = 0;
			cb->prev[s] = 0;
			continue;
		}
		on |= BIT(s);
		cb->hw.ctl[s] = ctl[s];
		if ((kept & BIT(s)) && cb->fn[s] == fn[s]) {
			/* What stop() left in the register: keep it. */
			cb->hw.val[s] = cb->prev[s];
			keep |= BIT(s);
			continue;
		}
		cb->fn[s] = fn[s];
		cb->sum[s] = 0;
		cb->prev[s] = 0;
		cb->hw.val[s] = 0;
	}
	cb->hw.mask = on;
	if (!on)
		return;
	cb->hw.keep = pctr_pmu.flags & PCTR_PMU_KEEP ? keep : 0;
	memset(cb->hw.left, 0, sizeof(cb->hw.left));
	cb->hw.user_read = user_read;
	ctx_cpub_start(cb);
}

/*
 * This CPU's functions and values, in *@mask the slots set: irqs off, on
 * the CPU.  0, or the error that ended its counting (EIO).
 */
static int sys_read_cpu(u64 *fn, u64 *val, u32 *mask)
{
	struct pctr_cpub *cb = this_cpu_ptr(&sys_cpub);
	unsigned long m;
	unsigned int s;

	lockdep_assert_irqs_disabled();
	*mask = 0;
	if (!ctx_cpub_fold(cb))
		return 0;
	if (cb->err)
		return cb->err;
	m = cb->hw.mask;
	for_each_set_bit(s, &m, PCTR_NUM) {
		fn[s] = cb->fn[s];
		val[s] = cb->sum[s];
	}
	*mask = m;
	return 0;
}

static bool sys_rdpmc(void)
{
	return pctr_arch.user_read_mm && (pctr_pmu.caps & PCTR_CAP_USER_RDPMC);
}

/* Give every reader leave to rdpmc (@on), or take it back. */
static void sys_grant(bool on)
{
	struct sys_reader *r;

	lockdep_assert_held(&sys_lock);
	list_for_each_entry(r, &sys_readers, node) {
		if (r->granted == on)
			continue;
		pctr_arch.user_read_mm(r->mm, on);
		r->granted = on;
	}
}

/*
 * What each CPU's counters are started with (hw->user_read).  Where the
 * arch grants user reads per process (user_read_mm), this only has the
 * backend scrub the registers without a function.  Where it has no such
 * grant, it is the grant, for every process on the CPU: only by the
 * administrator's leave.  One place for every path that programs a CPU:
 * a change, a CPU that comes online, a resume.
 */
static bool sys_user_read(void)
{
	if (!(pctr_pmu.caps & PCTR_CAP_USER_RDPMC))
		return false;
	return pctr_arch.user_read_mm || pctr_may_read_system_all();
}

struct sys_change {
	const u64	*fn;
	const u64	*ctl;
	u32		fresh;
};

static void sys_load_ipi(void *arg)
{
	const struct sys_change *c = arg;

	sys_load(c->fn, c->ctl, c->fresh, sys_user_read());
}

static bool sys_any(const u64 *fn)
{
	unsigned int s;

	for (s = 0; s < PCTR_NUM; s++)
		if (fn[s])
			return true;
	return false;
}

/*
 * Make @fn (encoded as @ctl) the machine's functions, on every online
 * CPU; slots in @fresh start from zero even if unchanged.  Taking the
 * PMU may fail (EBUSY): nothing changes then.  Under sys_lock.
 */
static int sys_apply(const u64 *fn, const u64 *ctl, u32 fresh)
{
	struct sys_change c = { .fn = sys_fn, .ctl = sys_ctl, .fresh = fresh };
	bool counts = sys_any(fn);
	int ret;

	lockdep_assert_held(&sys_lock);
	if (counts && !sys_pmu) {
		ret = pctr_pmu_get();
		if (ret)
			return ret;
		sys_pmu = true;
	}
	cpus_read_lock();
	if (fn != sys_fn) {
		memcpy(sys_fn, fn, sizeof(sys_fn));
		memcpy(sys_ctl, ctl, sizeof(sys_ctl));
	}
	on_each_cpu(sys_load_ipi, &c, 1);
	cpus_read_unlock();
	/* rdpmc only while the counters are ours, programmed and scrubbed. */
	sys_grant(counts);
	if (!counts && sys_pmu) {
		sys_pmu = false;
		pctr_pmu_put();
	}
	return 0;
}

/*
 * The functions of @prog's slots (prog->mask), checked, on top of the
 * machine's.  EPERM without CAP_PERFMON, which covers every function bit
 * (kernel mode, AnyThread) as it does for a CPU binding; EINVAL for
 * PCTR_INT, since there is no thread to signal.
 */
static int sys_set_prog(const struct pctr_prog *prog)
{
	u64 fn[PCTR_NUM], ctl[PCTR_NUM];
	struct pctr_prog all = {};
	unsigned int s;
	int ret;

	mutex_lock(&sys_lock);
	memcpy(fn, sys_fn, sizeof(fn));
	memcpy(ctl, sys_ctl, sizeof(ctl));
	for (s = 0; s < PCTR_NUM; s++) {
		if (prog->mask & BIT(s)) {
			fn[s] = prog->fn[s];
			ctl[s] = prog->ctl[s];
		}
		if (fn[s])
			all.mask |= BIT(s);
		all.fn[s] = fn[s];
	}
	/* Where counters share control bits, may these count together? */
	ret = prog_check_set(NULL, &all);
	if (!ret)
		ret = sys_apply(fn, ctl, 0);
	mutex_unlock(&sys_lock);
	return ret;
}

static int sys_check_int(const struct pctr_prog *prog)
{
	unsigned int s;

	for (s = 0; s < PCTR_NUM; s++)
		if ((prog->mask & BIT(s)) && (prog->fn[s] & PCTR_INT))
			return -EINVAL;
	return 0;
}

/* PCIOCS(n), PCIOCS64(n) in system mode. */
int pctr_sys_set(unsigned int slot, u64 fn)
{
	unsigned int rights = pctr_sys_rights();
	struct pctr_prog prog = {};
	int ret;

	if (!rights)
		return -EPERM;
	if (fn & PCTR_INT)
		return -EINVAL;
	ret = prog_encode(&prog, slot, fn, rights);
	return ret ?: sys_set_prog(&prog);
}

/* PCIOCSETPCR (and SETPCR64) in system mode: every slot at once. */
int pctr_sys_set_pcr(const struct pctr_pcr *pcr)
{
	unsigned int rights = pctr_sys_rights();
	struct pctr_prog prog = {};
	int ret;

	if (!rights)
		return -EPERM;
	ret = prog_encode_pcr(&prog, pcr, rights);
	if (!ret)
		ret = sys_check_int(&prog);
	return ret ?: sys_set_prog(&prog);
}

/* PCIOCZERO in system mode: every set slot from zero, on every CPU. */
int pctr_sys_zero(void)
{
	int ret;

	if (!pctr_sys_rights())
		return -EPERM;
	mutex_lock(&sys_lock);
	ret = sys_apply(sys_fn, sys_ctl, ~0U);
	mutex_unlock(&sys_lock);
	return ret;
}

/* GETPCR in system mode: the machine's functions. */
void pctr_sys_get_pcr(struct pctr_pcr *pcr)
{
	u64 fn[PCTR_NUM];

	mutex_lock(&sys_lock);
	memcpy(fn, sys_fn, sizeof(fn));
	mutex_unlock(&sys_lock);
	prog_fns_to_pcr(fn, pcr);
}

/*
 * PCIOCRD in system mode: the functions and counts of the CPU the caller
 * runs on, and that CPU's TSC, read together with interrupts off.
 */
int pctr_sys_read(u64 *fn, u64 *val, u64 *tsc, u32 *mask)
{
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	ret = sys_read_cpu(fn, val, mask);
	*tsc = pctr_arch_tsc();
	local_irq_restore(flags);
	return ret;
}

/*
 * A CPU comes online (hotplug.c, on that CPU, the CPUs held for
 * writing): it counts what the machine counts, from zero.
 */
void pctr_sys_cpu_online(void)
{
	unsigned long flags;

	if (!pctr_system || !pctr_pmu.ops || !sys_any(sys_fn))
		return;
	local_irq_save(flags);
	sys_load(sys_fn, sys_ctl, ~0U, sys_user_read());
	local_irq_restore(flags);
}

/* A CPU goes offline (hotplug.c, on that CPU): its counters stop. */
void pctr_sys_cpu_offline(void)
{
	static const u64 none[PCTR_NUM];
	unsigned long flags;

	if (!pctr_system || !pctr_pmu.ops)
		return;
	local_irq_save(flags);
	sys_load(none, none, 0, false);
	local_irq_restore(flags);
}

/*
 * After a suspend or hibernation the registers hold nothing of ours:
 * every CPU counts again from zero.  Process context.
 */
void pctr_sys_resume(void)
{
	if (!pctr_system || !pctr_pmu.ops)
		return;
	mutex_lock(&sys_lock);
	if (sys_any(sys_fn))
		sys_apply(sys_fn, sys_ctl, ~0U);
	mutex_unlock(&sys_lock);
}

/*
 * A descriptor is opened: in system mode, where user-mode reads are
 * allowed, its opener's threads may rdpmc while functions are set.
 */
int pctr_sys_open(struct file *file)
{
	struct mm_struct *mm = current->mm;
	struct sys_reader *r;

	if (!pctr_system || !sys_rdpmc() || !mm)
		return 0;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	mmgrab(mm);
	r->mm = mm;
	mutex_lock(&sys_lock);
	list_add(&r->node, &sys_readers);
	if (sys_pmu) {
		pctr_arch.user_read_mm(mm, true);
		r->granted = true;
	}
	mutex_unlock(&sys_lock);
	pctr_file(file)->sys = r;
	return 0;
}

/* Its last close: the leave goes with it. */
void pctr_sys_close(struct file *file)
{
	struct sys_reader *r = pctr_file(file)->sys;

	if (!r)
		return;
	mutex_lock(&sys_lock);
	list_del(&r->node);
	if (r->granted)
		pctr_arch.user_read_mm(r->mm, false);
	mutex_unlock(&sys_lock);
	mmdrop(r->mm);
	kfree(r);
}

/* Module unload: every CPU's counters stop, the PMU goes back to perf. */
void pctr_sys_exit(void)
{
	static const u64 none[PCTR_NUM];

	if (!pctr_system || !pctr_pmu.ops)
		return;
	mutex_lock(&sys_lock);
	sys_apply(none, none, 0);
	mutex_unlock(&sys_lock);
}
