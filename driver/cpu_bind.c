// SPDX-License-Identifier: GPL-2.0
/*
 * CPU bindings (PCIOCBIND of a CPU): counters that count on one CPU
 * whatever runs there, as Solaris' cpc_bind_cpu() does.  One per CPU.
 * Each holds the slots it programs, on every CPU, as hwpmc's
 * system-scope PMCs hold their rows: no thread may give one of them a
 * function (EBUSY, prog.c), but a binding may take a slot threads have
 * already.  A thread context keeps its counters and its values: on a
 * bound CPU it counts in its slots beside the binding's, where the
 * backend starts and stops only the slots asked (PCTR_PMU_SHARE) and
 * the two hold none in common; else it runs there without counting, and
 * its slots' running time falls short of their enabled time (ctx.c).
 *
 * A binding's sums change only on its CPU, with interrupts off (the IPIs
 * here, the fold timer, the overflow interrupt), so making, reading and
 * ending one each run an IPI on that CPU; the engine's half of it, what
 * touches the registers, is ctx_cpub_*() (cpub.c).  bind.c asks for a
 * binding on a descriptor's behalf, after policy.c's check, and for its
 * sampling (cpu_bind_sample(): every thread the CPU runs, pctr record
 * -a).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "backend.h"
#include "ctx.h"
#include "pmu_owner.h"
#include "sample.h"

/* Serialises CPU bindings: which CPU is taken, and the engine's count. */
static DEFINE_MUTEX(cpu_bind_lock);
static DEFINE_PER_CPU(struct pctr_cpub *, cpu_bind_of);

/* The slots the bindings hold, @cb's too (if any).  Under cpu_bind_lock. */
static u32 cpu_bind_held(const struct pctr_cpub *cb)
{
	u32 held = cb ? cb->hw.mask : 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (per_cpu(cpu_bind_of, cpu))
			held |= per_cpu(cpu_bind_of, cpu)->hw.mask;
	return held;
}

/* On the CPU: take the counters from whatever thread counts there. */
static void cpu_bind_install_ipi(void *arg)
{
	struct pctr_cpub *cb = arg;
	unsigned long m = cb->hw.mask;
	unsigned int s;

	for_each_set_bit(s, &m, PCTR_NUM) {
		cb->prev[s] = 0;
		cb->hw.val[s] = 0;
	}
	cb->hw.keep = 0;
	ctx_cpub_start(cb);
}

/*
 * Bind @cpu's counters to what @prog programs, taking the PMU (EBUSY)
 * and the slots from threads; ENXIO if it is not online.
 * Under cpu_bind_lock.
 */
static struct pctr_cpub *cpu_bind_install(unsigned int cpu,
					  const struct pctr_prog *prog)
{
	unsigned long m = prog->mask;
	struct pctr_cpub *cb;
	unsigned int s;
	int ret;

	cb = kzalloc(sizeof(*cb), GFP_KERNEL);
	if (!cb)
		return ERR_PTR(-ENOMEM);
	cb->cpu = cpu;
	for_each_set_bit(s, &m, PCTR_NUM) {
		cb->fn[s] = prog->fn[s];
		cb->hw.ctl[s] = prog->ctl[s];
		if (prog->preset & BIT(s))
			cb->sum[s] = prog->val[s];
	}
	cb->hw.mask = prog->mask;
	ret = pctr_pmu_get();
	if (ret)
		goto free;
	cb->id = ctx_new_id();
	/* CPUs stay on- or offline meanwhile. */
	cpus_read_lock();
	/* A binding that cannot be made changes nothing for anyone. */
	ret = -ENXIO;
	if (!cpu_online(cpu))
		goto unlock;
	/* The engine refuses its slots from here on, then the CPU is taken. */
	ctx_cpub_begin(cpu_bind_held(cb));
	ret = smp_call_function_single(cb->cpu, cpu_bind_install_ipi, cb, 1);
	if (WARN_ON_ONCE(ret))
		ctx_cpub_end(cpu_bind_held(NULL));
unlock:
	cpus_read_unlock();
	if (!ret)
		return cb;
	pctr_pmu_put();
free:
	kfree(cb);
	return ERR_PTR(ret);
}

/*
 * A binding of @cpu to what @prog programs: EINVAL for no such CPU,
 * EAGAIN if it is bound already, else as cpu_bind_install().  The caller
 * has the right to bind a CPU.
 */
struct pctr_cpub *cpu_bind(unsigned int cpu, const struct pctr_prog *prog)
{
	struct pctr_cpub *cb;

	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return ERR_PTR(-EINVAL);
	mutex_lock(&cpu_bind_lock);
	if (per_cpu(cpu_bind_of, cpu)) {
		cb = ERR_PTR(-EAGAIN);
		goto unlock;
	}
	cb = cpu_bind_install(cpu, prog);
	if (!IS_ERR(cb))
		per_cpu(cpu_bind_of, cpu) = cb;
unlock:
	mutex_unlock(&cpu_bind_lock);
	return cb;
}

static void cpu_bind_remove_ipi(void *arg)
{
	ctx_cpub_leave(arg);
}

/* The binding ends: its CPU counts for threads again.  Frees @cb. */
void cpu_unbind(struct pctr_cpub *cb)
{
	mutex_lock(&cpu_bind_lock);
	per_cpu(cpu_bind_of, cb->cpu) = NULL;
	/* An offline CPU runs nothing: its binding is simply dropped. */
	cpus_read_lock();
	if (smp_call_function_single(cb->cpu, cpu_bind_remove_ipi, cb, 1))
		ctx_cpub_drop(cb);
	cpus_read_unlock();
	ctx_cpub_end(cpu_bind_held(NULL));
	pctr_pmu_put();
	sample_free(cb->smp);
	kfree(cb);
	mutex_unlock(&cpu_bind_lock);
}

struct cpu_bind_values {
	struct pctr_cpub *cb;
	u64		*val;
};

static void cpu_bind_read_ipi(void *arg)
{
	struct cpu_bind_values *r = arg;
	struct pctr_cpub *cb = r->cb;

	ctx_cpub_fold(cb);
	memcpy(r->val, cb->sum, sizeof(cb->sum));
}

/*
 * The binding's functions and values, and in *@mask the slots it uses;
 * 0, or the error that ended its counting (EIO).
 */
int cpu_bind_read(struct pctr_cpub *cb, u64 *fn, u64 *val, u32 *mask)
{
	struct cpu_bind_values r = { .cb = cb, .val = val };

	memcpy(fn, cb->fn, sizeof(cb->fn));
	/* Offline, it counts nothing more: the last sums are the values. */
	cpus_read_lock();
	if (smp_call_function_single(cb->cpu, cpu_bind_read_ipi, &r, 1))
		memcpy(val, cb->sum, sizeof(cb->sum));
	cpus_read_unlock();
	*mask = cb->hw.mask;
	return READ_ONCE(cb->err);
}

struct cpu_bind_sampling {
	struct pctr_cpub	*cb;
	struct pctr_sampler	*smp;
	unsigned int		slot;
	u64			ctl, period;
	bool			done;
};

static void cpu_bind_sample_ipi(void *arg)
{
	struct cpu_bind_sampling *a = arg;

	a->done = ctx_cpub_sample(a->cb, a->smp, a->slot, a->ctl, a->period);
}

/*
 * PCIOCSAMPLE on a CPU binding (bind.c checked it): its slot @slot, now
 * with control @ctl, samples every @period events into @smp's ring,
 * whatever thread runs on the CPU.  @smp is the binding's from then on
 * (freed with it); else, EBUSY if it samples already or EIO if its
 * counting ended (offline, a failed register), it is the caller's.
 */
int cpu_bind_sample(struct pctr_cpub *cb, struct pctr_sampler *smp,
		    unsigned int slot, u64 ctl, u64 period)
{
	struct cpu_bind_sampling a = {
		.cb = cb, .smp = smp, .slot = slot, .ctl = ctl,
		.period = period,
	};
	int ret = -EBUSY;

	mutex_lock(&cpu_bind_lock);
	if (cb->smp)
		goto unlock;
	cpus_read_lock();
	ret = smp_call_function_single(cb->cpu, cpu_bind_sample_ipi, &a, 1);
	cpus_read_unlock();
	ret = !ret && a.done ? 0 : -EIO;
unlock:
	mutex_unlock(&cpu_bind_lock);
	return ret;
}
