/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything the x86 backends take from their surroundings: CPUID, the
 * *_safe MSR accessors, the kernel's counter reservation, the TSC, CR4
 * and per-CPU data.  These are the kernel's.  Built outside the kernel
 * (the host tests), the build supplies the same names itself, from a
 * register model, by a header it includes ahead of every source.
 * Include this first.
 */
#ifndef _PCTR_X86_HW_H
#define _PCTR_X86_HW_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mm_types.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/msr.h>
#include <asm/nmi.h>
#include <asm/processor.h>
#include <asm/tlbflush.h>
#include <asm/tsc.h>

static inline void pctr_cpuid(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c,
			      u32 *d)
{
	cpuid_count(leaf, sub, a, b, c, d);
}

struct pctr_cpuid_call {
	u32	leaf, sub, r[4];
};

static inline void pctr_cpuid_call_fn(void *p)
{
	struct pctr_cpuid_call *c = p;

	cpuid_count(c->leaf, c->sub, &c->r[0], &c->r[1], &c->r[2], &c->r[3]);
}

/*
 * CPUID on @cpu, which must stay online (pctr_cpus_lock()).  Process
 * context: it waits for an IPI.  0, or an error if @cpu cannot run it.
 */
static inline int pctr_cpuid_on(unsigned int cpu, u32 leaf, u32 sub, u32 *a,
				u32 *b, u32 *c, u32 *d)
{
	struct pctr_cpuid_call call = { .leaf = leaf, .sub = sub };
	int ret;

	ret = smp_call_function_single(cpu, pctr_cpuid_call_fn, &call, 1);
	*a = call.r[0];
	*b = call.r[1];
	*c = call.r[2];
	*d = call.r[3];
	return ret;
}

/* The CPUs there are to count on, kept online between lock and unlock. */
#define pctr_for_each_cpu(cpu)	for_each_online_cpu(cpu)

static inline void pctr_cpus_lock(void)
{
	cpus_read_lock();
}

static inline void pctr_cpus_unlock(void)
{
	cpus_read_unlock();
}

/* A faulting access returns non-zero (and reads as 0), never oopses. */
static inline int pctr_rdmsr(u32 msr, u64 *val)
{
	return rdmsrl_safe(msr, val);
}

static inline int pctr_wrmsr(u32 msr, u64 val)
{
	return wrmsrl_safe(msr, val);
}

/*
 * In-kernel rdpmc of counter @idx (rdpmc's ECX): no serialisation, and
 * no fault on a counter the probe found, so it returns 0.  The host
 * tests' model may fail it, as it fails an MSR.
 */
static inline int pctr_rdpmc(u32 idx, u64 *val)
{
	rdpmcl(idx, *val);
	return 0;
}

/*
 * The kernel's counter reservation, shared with perf and the NMI
 * watchdog: 1 if taken.  Counters are named by their legacy MSR (Intel
 * PMCx, never the full-width alias, which the bitmap does not cover),
 * event selects by their event select MSR.
 */
static inline int pctr_reserve_ctr(u32 msr)
{
	return reserve_perfctr_nmi(msr);
}

static inline void pctr_release_ctr(u32 msr)
{
	release_perfctr_nmi(msr);
}

static inline int pctr_reserve_evntsel(u32 msr)
{
	return reserve_evntsel_nmi(msr);
}

static inline void pctr_release_evntsel(u32 msr)
{
	release_evntsel_nmi(msr);
}

static inline u64 pctr_rdtsc(void)
{
	return rdtsc_ordered();
}

static inline u64 pctr_tsc_khz(void)
{
	return tsc_khz;
}

/* The calling CPU's largest cache, in bytes (0: unknown).  Migration off. */
static inline unsigned long pctr_cache_bytes(void)
{
	int kb = cpu_data(smp_processor_id()).x86_cache_size;

	return kb > 0 ? (unsigned long)kb * 1024 : 0;
}

/* @fn(@arg) on every online CPU, waiting for them.  Process context. */
static inline void pctr_on_each_cpu(void (*fn)(void *), void *arg)
{
	on_each_cpu(fn, arg, 1);
}

/*
 * Whose counts a thread's counters are: its process's (its mm's id,
 * never reused, unlike the mm's address); 0 for a kernel thread.  On
 * the thread, while it runs.
 */
static inline u64 pctr_x86_domain(void)
{
	return current->mm ? current->mm->context.ctx_id : 0;
}

/* CR4.PCE: user-mode rdpmc on this CPU.  Interrupts off. */
static inline void pctr_set_pce(bool on)
{
	if (on)
		cr4_set_bits_irqsoff(X86_CR4_PCE);
	else
		cr4_clear_bits_irqsoff(X86_CR4_PCE);
}

/* On a CPU running @mm: CR4.PCE as the kernel will set it at a switch. */
static inline void pctr_mm_pce_ipi(void *arg)
{
	struct mm_struct *mm = arg;

	if (current->active_mm == mm)
		pctr_set_pce(atomic_read(&mm->context.perf_rdpmc_allowed));
}

/*
 * System mode: let @mm's threads use rdpmc (@on), or take one such leave
 * back, the way perf's mapping of an event does: the kernel sets CR4.PCE
 * at every switch to an mm whose perf_rdpmc_allowed is non-zero, unless
 * perf's rdpmc setting is 0 (then it clears it at the next switch).
 *
 * Only the CPUs in @mm's cpumask are told at once, as perf does: a CPU
 * sets its bit there before it loads @mm and reads perf_rdpmc_allowed
 * (both sides are full barriers), so a CPU that is not told switches to
 * @mm later and reads the new count then.  Other processes' CPUs are
 * left alone, and a loop of open and close interrupts no one else.
 * Process context, serialised by the caller.
 */
static inline void pctr_mm_user_read(struct mm_struct *mm, bool on)
{
	if (on ? atomic_inc_return(&mm->context.perf_rdpmc_allowed) == 1 :
		 atomic_dec_and_test(&mm->context.perf_rdpmc_allowed))
		on_each_cpu_mask(mm_cpumask(mm), pctr_mm_pce_ipi, mm, true);
}
#endif /* __KERNEL__ */

#endif /* _PCTR_X86_HW_H */
