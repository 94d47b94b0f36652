// SPDX-License-Identifier: GPL-2.0
/*
 * The x86 overflow interrupt (PMI), while pctr holds the PMU: the local
 * APIC's LVTPC entry delivers it as an NMI on every CPU, and an NMI
 * handler claims the NMIs whose overflow status shows counters of ours
 * (the vendor's overflow_status(): Intel's and PerfMonV2's status
 * registers, or a legacy AMD counter armed at -left whose top bit went
 * clear).  Every other NMI is left to the kernel's other handlers, and
 * the handler is gone, LVTPC as it was, once the PMU is handed back: so
 * perf's PMIs and the NMI watchdog work as before.
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
static bool pmi_on;

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

/* A CPU while pctr holds the PMU: PMIs come as NMIs.  On that CPU. */
static int pmi_cpu_online(unsigned int cpu)
{
	unsigned long flags;

	local_irq_save(flags);
	this_cpu_write(pmi_lvtpc_saved, pmi_lvtpc_read());
	this_cpu_write(pmi_lvtpc_valid, true);
	pmi_lvtpc_write(APIC_DM_NMI);
	local_irq_restore(flags);
	return 0;
}

/* The PMU handed back (or the CPU going offline): LVTPC as it was. */
static int pmi_cpu_offline(unsigned int cpu)
{
	unsigned long flags;

	local_irq_save(flags);
	if (this_cpu_read(pmi_lvtpc_valid))
		pmi_lvtpc_write(this_cpu_read(pmi_lvtpc_saved));
	this_cpu_write(pmi_lvtpc_valid, false);
	this_cpu_write(pmi_late, false);
	local_irq_restore(flags);
	return 0;
}

/*
 * Taking the PMU (reserve()): the handler first, so that no PMI of ours
 * goes unclaimed, then LVTPC on every CPU, and on CPUs that come online
 * until release.  Process context, CPUs not held.
 */
int pctr_x86_pmi_on(struct pctr_pmu *pmu)
{
	int cpu, ret;

	for_each_possible_cpu(cpu)
		*per_cpu_ptr(&pmi_work, cpu) =
			IRQ_WORK_INIT_HARD(pmi_deferred_fn);
	WRITE_ONCE(pmi_on, true);
	ret = register_nmi_handler(NMI_LOCAL, pctr_x86_nmi, 0, "pctr");
	if (ret)
		goto off;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "pctr/x86:pmi",
				pmi_cpu_online, pmi_cpu_offline);
	if (ret < 0)
		goto unregister;
	pmi_cpuhp_state = ret;
	return 0;

unregister:
	unregister_nmi_handler(NMI_LOCAL, "pctr");
off:
	WRITE_ONCE(pmi_on, false);
	pr_warn("no overflow interrupt: NMI handler or CPU state failed (%d)\n",
		ret);
	return ret;
}

/*
 * Giving the PMU back (release()): every counter is stopped.  LVTPC as
 * it was, the handler gone (unregistering waits for a running one), and
 * any deferred interrupt run.  Process context.
 */
void pctr_x86_pmi_off(struct pctr_pmu *pmu)
{
	int cpu;

	cpuhp_remove_state(pmi_cpuhp_state);
	WRITE_ONCE(pmi_on, false);
	unregister_nmi_handler(NMI_LOCAL, "pctr");
	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&pmi_work, cpu));
}
