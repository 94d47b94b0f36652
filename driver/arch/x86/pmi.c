// SPDX-License-Identifier: GPL-2.0
/*
 * The x86 overflow interrupt (PMI), while pctr holds the PMU: the local
 * APIC's LVTPC entry delivers it as an NMI on every CPU, and an NMI
 * handler claims the NMIs whose overflow status shows counters of ours
 * (the vendor's overflow_status(): Intel's and PerfMonV2's status
 * registers, or a legacy AMD counter armed at -left whose top bit went
 * clear).  Every other NMI is left to the kernel's other handlers.  Once
 * the PMU is handed back LVTPC is as it was and the handler claims
 * nothing, so perf's PMIs and the NMI watchdog work as before.
 *
 * The handler and the CPU hotplug state are registered at the first
 * taking and stay until the module is unloaded: registering them waits
 * for other CPUs and unregistering for an RCU grace period, milliseconds
 * on a 6.1 kernel, and a program that clears its last counter and sets
 * one again (PAPI's stop and start) would pay that each time.  Taking
 * and giving back only flip pmi_on and LVTPC, on every CPU by IPI.
 *
 * The core's interrupt path (pctr_pmu_interrupt()) runs in the NMI when
 * the NMI interrupted a context with interrupts on: none of the core's
 * sections can be running there, as they all run with interrupts off.
 * Otherwise it is deferred to an irq_work, which runs on this CPU as
 * soon as interrupts are on again, with a copy of the interrupted
 * context's registers.  Kernel only: the host tests have a model of
 * pctr_x86_pmi_on() and pctr_x86_pmi_off().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#include "hw.h"
#include "x86.h"

/*
 * Per CPU: the slots armed with their INT bit by the last start(); the
 * vendors set it, the NMI handler reads it.  Here, below x86.c, which
 * turns the handler on and off.
 */
static DEFINE_PER_CPU(u32, pctr_x86_armed_slots);

void pctr_x86_set_armed(u32 slots)
{
	this_cpu_write(pctr_x86_armed_slots, slots);
}

u32 pctr_x86_armed(void)
{
	return this_cpu_read(pctr_x86_armed_slots);
}

/* LVTPC before pctr pointed it at NMI, per CPU, while it holds the PMU. */
static DEFINE_PER_CPU(u32, pmi_lvtpc_saved);
static DEFINE_PER_CPU(bool, pmi_lvtpc_valid);

/* The deferred interrupt: its irq_work and the interrupted registers. */
static DEFINE_PER_CPU(struct irq_work, pmi_work);
static DEFINE_PER_CPU(struct pt_regs, pmi_regs);
static DEFINE_PER_CPU(bool, pmi_deferred);
/* An overflow was found outside the handler: its PMI may still come. */
static DEFINE_PER_CPU(bool, pmi_late);

static int pmi_cpuhp_state;
static bool pmi_registered;	/* handler and hotplug state, till unload */
static bool pmi_on;		/* pctr holds the PMU: changed CPUs held */

/*
 * apic_read()/apic_write() go through static calls that 6.12 does not
 * export to modules; the apic driver's own methods are.
 */
static u32 pmi_lvtpc_read(void)
{
	return apic->read(APIC_LVTPC);
}

static void pmi_lvtpc_write(u32 val)
{
	apic->write(APIC_LVTPC, val);
}

static void pmi_deferred_fn(struct irq_work *w)
{
	struct pt_regs regs = *this_cpu_ptr(&pmi_regs);

	/* An NMI from here on defers again, with its own registers. */
	barrier();
	this_cpu_write(pmi_deferred, false);
	pctr_pmu_interrupt(&regs);
}

/* An armed counter overflowed and was seen outside the handler. */
void pctr_x86_pmi_pending(void)
{
	this_cpu_write(pmi_late, true);
}

/* A local APIC to deliver the PMI through LVTPC. */
bool pctr_x86_pmi_available(void)
{
	return boot_cpu_has(X86_FEATURE_APIC);
}

static int pctr_x86_nmi(unsigned int type, struct pt_regs *regs)
{
	struct pctr_pmu *pmu = &pctr_pmu;
	u32 ovf;

	if (!READ_ONCE(pmi_on))
		return NMI_DONE;
	ovf = pmu->ops->overflow_status(pmu) & pctr_x86_armed();
	if (!ovf) {
		/* A PMI whose overflow was found and acknowledged already. */
		if (!this_cpu_read(pmi_late))
			return NMI_DONE;
		this_cpu_write(pmi_late, false);
		ovf = pmu->ops->overflow_status(pmu);
		if (ovf)
			pmu->ops->overflow_ack(pmu, ovf);
		pmi_lvtpc_write(APIC_DM_NMI);
		return NMI_HANDLED;
	}
	pmu->ops->overflow_ack(pmu, ovf);
	if (regs->flags & X86_EFLAGS_IF) {
		/* The status read once: the core's fast path reuses it. */
		pctr_pmu_overflow(regs, ovf);
	} else if (!this_cpu_read(pmi_deferred)) {
		*this_cpu_ptr(&pmi_regs) = *regs;
		this_cpu_write(pmi_deferred, true);
		irq_work_queue(this_cpu_ptr(&pmi_work));
	}
	/*
	 * The core's fold may have found (and acknowledged) an overflow
	 * whose PMI is on its way: claim that one NMI too.
	 */
	this_cpu_write(pmi_late, true);
	/*
	 * Intel's APIC masks LVTPC when it delivers a PMI: unmask it last,
	 * once the counters were acknowledged and armed again, as Linux
	 * does on recent cores.  AMD's does not mask; the write is harmless.
	 */
	pmi_lvtpc_write(APIC_DM_NMI);
	return NMI_HANDLED;
}

/* LVTPC to NMI on this CPU, the old value kept.  Interrupts off. */
static void pmi_lvtpc_take(void)
{
	this_cpu_write(pmi_lvtpc_saved, pmi_lvtpc_read());
	this_cpu_write(pmi_lvtpc_valid, true);
	pmi_lvtpc_write(APIC_DM_NMI);
}

/* LVTPC as it was on this CPU.  Interrupts off. */
static void pmi_lvtpc_restore(void)
{
	if (this_cpu_read(pmi_lvtpc_valid))
		pmi_lvtpc_write(this_cpu_read(pmi_lvtpc_saved));
	this_cpu_write(pmi_lvtpc_valid, false);
	this_cpu_write(pmi_late, false);
}

static void pmi_take_ipi(void *unused)
{
	pmi_lvtpc_take();
}

static void pmi_restore_ipi(void *unused)
{
	pmi_lvtpc_restore();
}

/*
 * A CPU comes online: PMIs come as NMIs if pctr holds the PMU.  On that
 * CPU; pmi_on does not change under the hotplug lock.
 */
static int pmi_cpu_online(unsigned int cpu)
{
	unsigned long flags;

	if (!READ_ONCE(pmi_on))
		return 0;
	local_irq_save(flags);
	pmi_lvtpc_take();
	local_irq_restore(flags);
	return 0;
}

/* A CPU goes offline: LVTPC as it was.  On that CPU. */
static int pmi_cpu_offline(unsigned int cpu)
{
	unsigned long flags;

	local_irq_save(flags);
	pmi_lvtpc_restore();
	local_irq_restore(flags);
	return 0;
}

/* The first taking: the handler, then the hotplug state.  Till unload. */
static int pmi_register(void)
{
	int cpu, ret;

	if (pmi_registered)
		return 0;
	for_each_possible_cpu(cpu)
		*per_cpu_ptr(&pmi_work, cpu) =
			IRQ_WORK_INIT_HARD(pmi_deferred_fn);
	ret = register_nmi_handler(NMI_LOCAL, pctr_x86_nmi, 0, "pctr");
	if (ret)
		return ret;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "pctr/x86:pmi",
					pmi_cpu_online, pmi_cpu_offline);
	if (ret < 0) {
		unregister_nmi_handler(NMI_LOCAL, "pctr");
		return ret;
	}
	pmi_cpuhp_state = ret;
	pmi_registered = true;
	return 0;
}

/*
 * Taking the PMU (reserve()): the handler is there before LVTPC points
 * at NMI on every CPU, so that no PMI of ours goes unclaimed, and on CPUs
 * that come online until release.  Process context, CPUs not held;
 * callers serialise reserve() and release().
 */
int pctr_x86_pmi_on(struct pctr_pmu *pmu)
{
	int ret;

	ret = pmi_register();
	if (ret) {
		pr_warn("no overflow interrupt: NMI handler or CPU state failed (%d)\n",
			ret);
		return ret;
	}
	cpus_read_lock();
	WRITE_ONCE(pmi_on, true);
	on_each_cpu(pmi_take_ipi, NULL, 1);
	cpus_read_unlock();
	return 0;
}

/*
 * Giving the PMU back (release()): every counter is stopped.  LVTPC as
 * it was on every CPU, and any deferred interrupt run.  A CPU takes the
 * IPI only once out of its NMI, so when on_each_cpu() returns no handler
 * that saw pmi_on still runs, and later ones see it off.  Process
 * context.
 */
void pctr_x86_pmi_off(struct pctr_pmu *pmu)
{
	int cpu;

	cpus_read_lock();
	WRITE_ONCE(pmi_on, false);
	on_each_cpu(pmi_restore_ipi, NULL, 1);
	cpus_read_unlock();
	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&pmi_work, cpu));
}

/* Module unload, the PMU given back: the handler and hotplug state go. */
void pctr_x86_pmi_exit(void)
{
	if (!pmi_registered)
		return;
	cpuhp_remove_state_nocalls(pmi_cpuhp_state);
	unregister_nmi_handler(NMI_LOCAL, "pctr");
	pmi_registered = false;
}
