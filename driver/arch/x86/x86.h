/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Data the x86 backends share: where a family keeps its registers, and
 * the helpers both the Intel and the AMD backend use (x86.c).  Include
 * after hw.h.
 */
#ifndef _PCTR_X86_H
#define _PCTR_X86_H

#include "../../backend.h"

#define X86_MAX_GENERAL		PCTR_MAX_GENERAL
#define X86_MAX_FIXED		8
#define X86_MAX_EVENTS		16

/* Intel SDM vol. 4, architectural MSRs. */
#define MSR_PCTR_INTEL_PMC0		0x000000c1
#define MSR_PCTR_INTEL_EVTSEL0		0x00000186
#define MSR_PCTR_INTEL_FIXED_CTR0	0x00000309
#define MSR_PCTR_INTEL_PERF_METRICS	0x00000329
#define MSR_PCTR_INTEL_PERF_CAP		0x00000345
#define MSR_PCTR_INTEL_FIXED_CTRL	0x0000038d
#define MSR_PCTR_INTEL_GLOBAL_STATUS	0x0000038e
#define MSR_PCTR_INTEL_GLOBAL_CTRL	0x0000038f
#define MSR_PCTR_INTEL_GLOBAL_OVF	0x00000390
#define MSR_PCTR_INTEL_A_PMC0		0x000004c1
#define PCTR_INTEL_PERF_CAP_FW_WRITE	(1ULL << 13)

/* AMD APM vol. 2, section 13.2. */
#define MSR_PCTR_AMD_EVTSEL0		0xc0010000
#define MSR_PCTR_AMD_CTR0		0xc0010004
#define MSR_PCTR_AMD_EXT_CTL0		0xc0010200
#define MSR_PCTR_AMD_EXT_CTR0		0xc0010201
#define MSR_PCTR_AMD_GLOBAL_STATUS	0xc0000300
#define MSR_PCTR_AMD_GLOBAL_CTL		0xc0000301
#define MSR_PCTR_AMD_GLOBAL_STATUS_CLR	0xc0000302

/* The enable, user, kernel and any-thread bits of a function. */
#define PCTR_X86_MODE_BITS	(PCTR_U | PCTR_K | PCTR_ANY | PCTR_EN)

struct pctr_x86 {
	u32	evtsel_base;	/* first event select MSR */
	u32	ctr_base;	/* first counter MSR */
	u32	stride;		/* MSR distance between counters */
	u32	reserve_base;	/* counter 0 as the reservation API names it */
	u32	fixed_mask;	/* Intel: fixed counters present */
	u32	arch_unavail;	/* Intel: bit i set, architectural event i absent */
	u64	fn_valid;	/* function bits a general counter implements */
	bool	reserved;	/* the general counters are ours */
	bool	hybrid;		/* CPUs differ: only what all of them have */
	struct pctr_event_desc events[X86_MAX_EVENTS];
};

static inline u32 pctr_x86_evtsel(const struct pctr_x86 *x, unsigned int i)
{
	return x->evtsel_base + i * x->stride;
}

static inline u32 pctr_x86_ctr(const struct pctr_x86 *x, unsigned int i)
{
	return x->ctr_base + i * x->stride;
}

/* Slot bits of the general counters a PMU has. */
static inline u32 pctr_x86_general_slots(const struct pctr_pmu *pmu)
{
	return (u32)pctr_width_mask(pmu->ngeneral);
}

/* Bit of the first fixed counter in Intel's global registers. */
#define PCTR_X86_GLOBAL_FIXED0	32

/*
 * The bits of @slots in the global registers (control, status, overflow
 * reset): Intel's layout, the general counters from bit 0 and the fixed
 * ones from bit 32; AMD's PerfMonV2 has the general ones alone (and no
 * fixed slots).
 */
static inline u64 pctr_x86_global_bits(const struct pctr_pmu *pmu, u32 slots)
{
	const struct pctr_x86 *x = pmu->priv;

	return (slots & pctr_x86_general_slots(pmu)) |
	       (u64)((slots >> PCTR_FIXED_BASE) & x->fixed_mask) <<
	       PCTR_X86_GLOBAL_FIXED0;
}

void pctr_x86_failed(struct pctr_hw *hw, u32 msr, bool write);

/*
 * The register accesses of start(), stop() and read() (writes here, the
 * counters' reads in pctr_x86_rdctr()): a failure ends the context's
 * counting (hw->err) and is reported, never ignored.
 */
static inline void pctr_x86_wrmsr(struct pctr_hw *hw, u32 msr, u64 val)
{
	if (unlikely(pctr_wrmsr(msr, val)))
		pctr_x86_failed(hw, msr, true);
}

/* The counter register of @slot (general, or Intel fixed). */
static inline u32 pctr_x86_ctr_msr(const struct pctr_x86 *x,
				   unsigned int slot)
{
	if (slot < PCTR_FIXED_BASE)
		return pctr_x86_ctr(x, slot);
	return MSR_PCTR_INTEL_FIXED_CTR0 + slot - PCTR_FIXED_BASE;
}

/*
 * Read the counter of @slot, running here, into *@val by in-kernel
 * rdpmc rather than rdmsr: the same register (a general counter's
 * index, or Intel's fixed counter with bit 30), masked to its width,
 * without rdmsr's serialisation.  It cannot fail on hardware; a failure
 * (the host tests' model) ends the context's counting as a failed
 * rdmsr does, naming the counter's MSR.
 */
static inline void pctr_x86_rdctr(const struct pctr_pmu *pmu,
				  struct pctr_hw *hw, unsigned int slot,
				  u64 *val)
{
	u32 idx = slot < PCTR_FIXED_BASE ? slot :
		  BIT(30) | (slot - PCTR_FIXED_BASE);

	if (unlikely(pctr_rdpmc(idx, val)))
		pctr_x86_failed(hw, pctr_x86_ctr_msr(pmu->priv, slot), false);
	*val &= pctr_width_mask(pctr_slot_width(pmu, slot));
}

/* A vendor's ops, in its table: its own calls and the reservation both share. */
#define PCTR_X86_OPS(vendor)						\
	.encode		= vendor##_encode,				\
	.start		= vendor##_start,				\
	.stop		= vendor##_stop,				\
	.read		= vendor##_read,				\
	.rdpmc_index	= vendor##_rdpmc_index,				\
	.reserve	= pctr_x86_reserve,				\
	.release	= pctr_x86_release,				\
	.exit		= pctr_x86_exit

/*
 * The layers, each calling only those below it:
 *   probe.c       the arch table: identify the CPU, pick the vendor
 *   intel.c amd.c a vendor's probe, ops and events
 *   x86.c         what both vendors share (below)
 *   pmi.c stack.c the overflow interrupt, user call chains: kernel only
 *   hw.h          CPUID, MSRs, reservation, TSC: the kernel's or, for the
 *                 host tests, a register model's
 */

/* intel.c, amd.c: describe the counters and set up the backend. */
int pctr_intel_probe(struct pctr_pmu *pmu, const struct pctr_cpu_id *cpu,
		     struct pctr_x86 *x);
int pctr_amd_probe(struct pctr_pmu *pmu, const struct pctr_cpu_id *cpu,
		   struct pctr_x86 *x);

/*
 * pmi.c, or the host tests' model: the overflow interrupt while pctr
 * holds the PMU (reserve() turns it on, release() off); an overflow of
 * an armed counter that stop() saw, whose PMI may come late; and whether
 * there is a local APIC to deliver it.
 */
int pctr_x86_pmi_on(struct pctr_pmu *pmu);
void pctr_x86_pmi_off(struct pctr_pmu *pmu);
void pctr_x86_pmi_exit(void);
void pctr_x86_pmi_pending(void);
bool pctr_x86_pmi_available(void);

/* stack.c, x86-64 kernels only: pctr_arch.user_chain and kernel_chain. */
struct pt_regs;
unsigned int pctr_x86_user_chain(u64 *out, unsigned int max,
				 struct pt_regs *uregs);
unsigned int pctr_x86_kernel_chain(u64 *out, unsigned int max,
				   struct pt_regs *regs);

/* x86.c */
u64 pctr_x86_arm(const struct pctr_pmu *pmu, struct pctr_hw *hw,
		 unsigned int slot, u64 reach);
void pctr_x86_set_armed(u32 slots);
u32 pctr_x86_armed(void);
int pctr_x86_check_fn(u64 fn, u64 valid, bool privileged);
void pctr_x86_add_event(struct pctr_pmu *pmu, struct pctr_x86 *x,
			const char *name, const char *desc, u64 fn, u64 slots);
void pctr_x86_set_regs(unsigned int cpu, u32 regs, bool metrics);
u32 pctr_x86_scrub(const struct pctr_pmu *pmu, struct pctr_hw *hw);
bool pctr_x86_start_held(const struct pctr_pmu *pmu, struct pctr_hw *hw,
			 u32 general, u64 fixed_ctrl, u32 global_ctrl, u64 on);
void pctr_x86_stop(const struct pctr_pmu *pmu, struct pctr_hw *hw,
		   u32 global_ctrl);
void pctr_x86_global_merge(struct pctr_hw *hw, u32 msr, u64 bits, bool on);
u64 pctr_x86_read_ctl(const struct pctr_pmu *pmu, struct pctr_hw *hw,
		      unsigned int slot, u32 msr);
void pctr_x86_load(const struct pctr_pmu *pmu, struct pctr_hw *hw,
		   unsigned int slot, u32 have, u64 val);
void pctr_x86_write_ctl(const struct pctr_pmu *pmu, struct pctr_hw *hw,
			unsigned int slot, u32 msr, u64 val);
void pctr_x86_write_ctls(const struct pctr_pmu *pmu, struct pctr_hw *hw,
			 u32 general, u32 armed);

/*
 * start(): hw->val of @slot already is what pctr_x86_load() would leave
 * there (a counter adopted as it is, its value known: @have).
 */
static inline bool pctr_x86_loaded(const struct pctr_pmu *pmu,
				   const struct pctr_hw *hw,
				   unsigned int slot, u32 have)
{
	return hw->adopt && (have & BIT(slot)) &&
	       hw->val[slot] < BIT_ULL(pctr_slot_width(pmu, slot) - 1);
}
int pctr_x86_reserve(struct pctr_pmu *pmu);
void pctr_x86_release(struct pctr_pmu *pmu);
void pctr_x86_exit(struct pctr_pmu *pmu);
int pctr_x86_counter_holds_value(struct pctr_pmu *pmu,
				 const struct pctr_x86 *x);
int pctr_x86_no_counters(struct pctr_pmu *pmu, const char *fmt, ...)
	__printf(2, 3);

#endif /* _PCTR_X86_H */
