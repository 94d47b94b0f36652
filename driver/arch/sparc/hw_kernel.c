// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's side of the SPARC seam (sparc.h): the PCR and PIC, %tick
 * and %ver, the NMI watchdog and the die notifier.  Kernel only; the
 * host tests supply these from a register model.
 *
 * UltraSPARC III and later go through the kernel's pcr_ops, which knows
 * how each of them reaches its registers (Niagara's through the
 * hypervisor for some bits).  The kernel sets no pcr_ops on UltraSPARC
 * I/II, whose counters it does not use: there pctr reads and writes the
 * registers itself.
 */
#include <linux/kdebug.h>
#include <linux/notifier.h>
#include <linux/smp.h>
#include <asm/cpudata.h>
#include <asm/nmi.h>
#include <asm/pcr.h>
#include <asm/pil.h>
#include <asm/pstate.h>
#include <asm/ptrace.h>
#include <asm/spitfire.h>
#include <asm/timer_64.h>

#include "hw.h"
#include "sparc.h"

static u64 spitfire_rd_pcr(unsigned long reg)
{
	u64 v;

	__asm__ __volatile__("rd %%pcr, %0" : "=r" (v));
	return v;
}

static void spitfire_wr_pcr(unsigned long reg, u64 v)
{
	__asm__ __volatile__("wr %0, 0, %%pcr" : : "r" (v));
}

static u64 spitfire_rd_pic(unsigned long reg)
{
	u64 v;

	__asm__ __volatile__("rd %%pic, %0" : "=r" (v));
	return v;
}

/*
 * Some UltraSPARC II parts may lose a PIC write that is not at the start
 * of an instruction fetch group: branch to a 64-byte aligned write, and
 * read the PIC back (into %g0) to let it settle.
 */
static void spitfire_wr_pic(unsigned long reg, u64 v)
{
	__asm__ __volatile__("ba,pt %%xcc, 1f\n\t"
			     " nop\n\t"
			     ".align 64\n"
			     "1:\twr %0, 0, %%pic\n\t"
			     "rd %%pic, %%g0"
			     : : "r" (v));
}

/*
 * UltraSPARC I/II, where the kernel sets no pcr_ops, as a pcr_ops of our
 * own: the kernel's direct_pcr_ops for UltraSPARC III reaches the
 * registers the same way.
 */
static const struct pcr_ops spitfire_pcr_ops = {
	.read_pcr	= spitfire_rd_pcr,
	.write_pcr	= spitfire_wr_pcr,
	.read_pic	= spitfire_rd_pic,
	.write_pic	= spitfire_wr_pic,
};

static const struct pcr_ops *sparc_pcr_ops(void)
{
	return pcr_ops ?: &spitfire_pcr_ops;
}

u64 pctr_sparc_rd_pcr(void)
{
	return sparc_pcr_ops()->read_pcr(0);
}

void pctr_sparc_wr_pcr(u64 val)
{
	sparc_pcr_ops()->write_pcr(0, val);
}

u64 pctr_sparc_rd_pic(void)
{
	return sparc_pcr_ops()->read_pic(0);
}

void pctr_sparc_wr_pic(u64 val)
{
	sparc_pcr_ops()->write_pic(0, val);
}

/* %tick: what user space reads too (Linux lets it). */
u64 pctr_sparc_tick(void)
{
	u64 v;

	__asm__ __volatile__("rd %%tick, %0" : "=r" (v));
	return v;
}

u64 pctr_sparc_tick_khz(void)
{
	return sparc64_get_clock_tick(raw_smp_processor_id()) / 1000;
}

unsigned long pctr_sparc_cache_bytes(void)
{
	return cpu_data(smp_processor_id()).ecache_size;
}

/*
 * The chip from the kernel's own findings: the MMU type tells the sun4u
 * families apart, the hypervisor's chip type the sun4v ones.
 */
void pctr_sparc_identify_cpu(struct pctr_sparc_id *id)
{
	u64 ver;

	if (tlb_type != hypervisor) {
		__asm__ __volatile__("rdpr %%ver, %0" : "=r" (ver));
		id->manuf = ver >> 48;
		id->impl = (ver >> 32) & 0xffff;
		id->mask = (ver >> 24) & 0xff;
	}
	switch (tlb_type) {
	case spitfire:
		id->kind = PCTR_SPARC_US12;
		break;
	case cheetah:
	case cheetah_plus:
		if (pcr_ops)
			id->kind = PCTR_SPARC_US3;
		else
			id->why = "the kernel has no PCR access for this chip";
		break;
	case hypervisor:
		id->sun4v = true;
		id->impl = sun4v_chip_type;
		if (pcr_ops && (sun4v_chip_type == SUN4V_CHIP_NIAGARA2 ||
				sun4v_chip_type == SUN4V_CHIP_NIAGARA3))
			id->kind = PCTR_SPARC_N2;
		else
			id->why = "no counter support for this sun4v chip (Niagara 2/3 only)";
		break;
	default:
		id->why = "no counter support for this SPARC";
		break;
	}
}

bool pctr_sparc_watchdog_on(void)
{
	return atomic_read(&nmi_active) > 0;
}

static int pctr_sparc_die(struct notifier_block *nb, unsigned long cmd,
			  void *data)
{
	struct die_args *args = data;
	bool off;

	if (cmd != DIE_NMI)
		return NOTIFY_DONE;
	/* The PIL the interrupted code ran at: 14 is local_irq_disable(). */
	off = ((args->regs->tstate & TSTATE_PIL) >> 20) >= PIL_NORMAL_MAX;
	return pctr_sparc_overflow(args->regs, off) ? NOTIFY_STOP : NOTIFY_DONE;
}

static struct notifier_block pctr_sparc_die_nb = {
	.notifier_call	= pctr_sparc_die,
};

int pctr_sparc_die_register(void)
{
	return register_die_notifier(&pctr_sparc_die_nb);
}

void pctr_sparc_die_unregister(void)
{
	unregister_die_notifier(&pctr_sparc_die_nb);
}
