// SPDX-License-Identifier: GPL-2.0
/*
 * The AMD backend (APM vol. 2, section 13.2): the four legacy counters,
 * the six of PerfCtrExtCore, and PerfMonV2's global control and overflow
 * status.  PerfEvtSeln has the layout of a pctr function, bits 35:32 and
 * the host/guest bits included, so a slot's encoding is the function.
 * Counters are written at their full 48 bits, except the slots in
 * hw->keep (PCTR_PMU_KEEP), whose registers still hold their values.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "hw.h"
#include "x86.h"

/*
 * PerfEvtSeln: bits 19 and 21 are reserved; INT is the core's (PCTR_INT:
 * start() sets it on a slot it arms, hw->left).
 */
#define AMD_FN_GENERAL		(PCTR_EVENT_MASK | PCTR_UM_MASK | PCTR_U | \
				 PCTR_K | PCTR_E | PCTR_EN | PCTR_I | \
				 PCTR_CM_MASK)
/* Family 10h added EventSelect[11:8] and HostOnly/GuestOnly. */
#define AMD_FN_FAM10H		(PCTR_EVENT_HI_MASK | PCTR_HG_MASK)

static int amd_encode(const struct pctr_pmu *pmu, unsigned int slot, u64 fn,
		      bool privileged, u64 *ctl)
{
	const struct pctr_x86 *x = pmu->priv;
	int ret;

	if (slot >= pmu->ngeneral)
		return -EINVAL;
	ret = pctr_x86_check_fn(fn, x->fn_valid, privileged);
	if (!ret)
		*ctl = fn;
	return ret;
}

/*
 * The slots whose counters overflowed.  PerfMonV2 flags them in its
 * global status register; the legacy counters flag nothing, but a slot
 * armed at -n (n at most 2^47) has its top bit set until it overflows.
 */
static u32 amd_overflow_status(const struct pctr_pmu *pmu)
{
	const struct pctr_x86 *x = pmu->priv;
	u32 armed, ovf = 0;
	unsigned int i;
	u64 val;

	if (pmu->version >= 2) {
		if (pctr_rdmsr(MSR_PCTR_AMD_GLOBAL_STATUS, &val))
			return 0;
		return val & pctr_x86_general_slots(pmu);
	}
	armed = pctr_x86_armed();
	for (i = 0; i < pmu->ngeneral; i++)
		if ((armed & BIT(i)) && !pctr_rdmsr(pctr_x86_ctr(x, i), &val) &&
		    !(val & BIT_ULL(pmu->width - 1)))
			ovf |= BIT(i);
	return ovf;
}

/* PerfMonV2 clears status bits; legacy counters are armed anew. */
static void amd_overflow_ack(const struct pctr_pmu *pmu, u32 slots)
{
	if (pmu->version >= 2)
		pctr_wrmsr(MSR_PCTR_AMD_GLOBAL_STATUS_CLR, slots);
}

/*
 * The overflow interrupt's fast path (the core's rearm): each slot in
 * @slots, armed and running, is loaded with -n for hw->left as
 * amd_start() loads it; its control keeps its INT bit.  One write a
 * slot.
 */
static void amd_rearm(const struct pctr_pmu *pmu, struct pctr_hw *hw,
		      u32 slots)
{
	const struct pctr_x86 *x = pmu->priv;
	unsigned int i;

	for (slots &= pctr_x86_general_slots(pmu); slots; slots &= slots - 1) {
		i = __ffs(slots);
		pctr_x86_arm(pmu, hw, i, BIT_ULL(pmu->width - 1));
		pctr_x86_wrmsr(hw, pctr_x86_ctr(x, i), hw->val[i] &
			       pctr_width_mask(pmu->width));
	}
}

/*
 * start() in full: scrub, load, arm, write the controls that changed.
 * Beside another owner's counters (hw->shared, never with user reads, so
 * the scrub writes nothing), PerfMonV2's GLOBAL_CTL and the armed set
 * keep the other's bits; before it each counter has its own enable.
 */
static noinline void amd_start_all(const struct pctr_pmu *pmu,
				   struct pctr_hw *hw)
{
	const struct pctr_x86 *x = pmu->priv;
	u32 general = hw->mask & pctr_x86_general_slots(pmu);
	u32 armed = 0, zeroed, m;
	unsigned int i;

	zeroed = pctr_x86_scrub(pmu, hw);
	/* With hw->adopt a counter starts from what it holds (intel.c). */
	for (m = general; m; m &= m - 1) {
		i = __ffs(m);
		if (hw->left[i] &&
		    pctr_x86_arm(pmu, hw, i, BIT_ULL(pmu->width - 1))) {
			armed |= BIT(i);
			pctr_x86_wrmsr(hw, pctr_x86_ctr(x, i), hw->val[i] &
				       pctr_width_mask(pmu->width));
		} else if (!(hw->keep & BIT(i)) &&
			   !pctr_x86_loaded(pmu, hw, i, zeroed)) {
			pctr_x86_load(pmu, hw, i, zeroed, hw->val[i] &
				      pctr_width_mask(pmu->width));
		}
	}
	/* No stale overflow of an armed counter: its PMI is what counts. */
	if (armed && pmu->version >= 2)
		pctr_x86_wrmsr(hw, MSR_PCTR_AMD_GLOBAL_STATUS_CLR, armed);
	pctr_x86_write_ctls(pmu, hw, general, armed);
	if (unlikely(hw->shared)) {
		/* Beside another owner: its slots armed and enabled too. */
		pctr_x86_set_armed((pctr_x86_armed() & ~hw->mask) | armed);
		if (pmu->version >= 2)
			pctr_x86_global_merge(hw, MSR_PCTR_AMD_GLOBAL_CTL,
					      general, true);
		return;
	}
	pctr_x86_set_armed(armed);

	if (pmu->version >= 2)
		pctr_x86_wrmsr(hw, MSR_PCTR_AMD_GLOBAL_CTL, general);
}

/*
 * PerfMonV2's common switch first: every control holds what @hw wants,
 * every value is what the last stop left (x86.c), and only GLOBAL_CTL
 * is written.
 */
static void amd_start(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	u32 general = hw->mask & pctr_x86_general_slots(pmu);

	if (pmu->version < 2 || unlikely(hw->shared) ||
	    !pctr_x86_start_held(pmu, hw, general, 0, MSR_PCTR_AMD_GLOBAL_CTL,
				 general))
		amd_start_all(pmu, hw);
}

static void amd_read(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	u32 m;

	for (m = hw->mask & pctr_x86_general_slots(pmu); m; m &= m - 1)
		pctr_x86_rdctr(pmu, hw, __ffs(m), &hw->val[__ffs(m)]);
}

static void amd_stop(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	u32 armed = pctr_x86_armed() & hw->mask;
	unsigned int i;

	pctr_x86_stop(pmu, hw, MSR_PCTR_AMD_GLOBAL_CTL);
	if (!armed)
		return;
	/* An armed counter overflowed: its PMI may come after this. */
	for (i = 0; i < pmu->ngeneral; i++)
		if ((armed & BIT(i)) && !(hw->val[i] & BIT_ULL(pmu->width - 1)))
			pctr_x86_pmi_pending();
	pctr_x86_set_armed(pctr_x86_armed() & ~hw->mask);
}

static int amd_rdpmc_index(const struct pctr_pmu *pmu, unsigned int slot)
{
	return slot < pmu->ngeneral ? (int)slot : -1;
}

static const struct pctr_pmu_ops pctr_amd_ops = {
	PCTR_X86_OPS(amd),
	.overflow_status = amd_overflow_status,
	.overflow_ack	= amd_overflow_ack,
	.rearm		= amd_rearm,
};

struct amd_event {
	const char	*name;
	const char	*desc;
	u16		event;
};

/*
 * Core events every family from K8 to Zen 4 counts with the same code
 * on any counter (libpfm4 names them so from family 17h on).
 */
static const struct amd_event amd_events[] = {
	{ "CYCLES_NOT_IN_HALT", "Core cycles while not halted", 0x76 },
	{ "RETIRED_INSTRUCTIONS", "Instructions retired", 0xc0 },
	{ "RETIRED_BRANCH_INSTRUCTIONS", "Branch instructions retired", 0xc2 },
	{ "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED",
	  "Mispredicted branch instructions retired", 0xc3 },
	{ "RETIRED_TAKEN_BRANCH_INSTRUCTIONS",
	  "Taken branch instructions retired", 0xc4 },
	{ "RETIRED_TAKEN_BRANCH_INSTRUCTIONS_MISPREDICTED",
	  "Mispredicted taken branch instructions retired", 0xc5 },
	{ "RETIRED_FAR_CONTROL_TRANSFERS", "Far control transfers retired",
	  0xc6 },
	{ "RETIRED_NEAR_RETURNS", "Near returns retired", 0xc8 },
	{ "RETIRED_NEAR_RETURNS_MISPREDICTED",
	  "Mispredicted near returns retired", 0xc9 },
};

static void amd_setup(struct pctr_pmu *pmu, const struct pctr_cpu_id *cpu,
		      struct pctr_x86 *x)
{
	const struct amd_event *e;
	unsigned int i;

	pmu->ops = &pctr_amd_ops;
	/* With hw->shared start() and stop() touch only the slots asked. */
	pmu->flags |= PCTR_PMU_KEEP | PCTR_PMU_SHARE;
	pmu->caps |= PCTR_CAP_CPU_SHARE;
	/* Overflow notification, where a local APIC delivers the PMI. */
	if (pctr_x86_pmi_available()) {
		pmu->flags |= PCTR_PMU_NOTIFY;
		pmu->caps |= PCTR_CAP_NOTIFY;
	}
	x->fn_valid = AMD_FN_GENERAL;
	if (cpu->family >= 0x10)
		x->fn_valid |= AMD_FN_FAM10H;

	pmu->nevents = 0;
	for (i = 0; i < ARRAY_SIZE(amd_events); i++) {
		e = &amd_events[i];
		pctr_x86_add_event(pmu, x, e->name, e->desc,
				   PCTR_FN(e->event, 0, 0),
				   pctr_x86_general_slots(pmu));
	}
}

/*
 * AMD core counters: legacy four, PerfCtrExtCore six, PerfMonV2.
 * Describe them in @pmu and set up the backend, or say why not.
 */
int pctr_amd_probe(struct pctr_pmu *pmu, const struct pctr_cpu_id *cpu,
		   struct pctr_x86 *x)
{
	u32 a, b, c, d, ext_max, regs;
	unsigned int n;
	u64 val;

	pctr_cpuid(0x80000000, 0, &ext_max, &b, &c, &d);
	x->evtsel_base = MSR_PCTR_AMD_EVTSEL0;
	x->ctr_base = MSR_PCTR_AMD_CTR0;
	x->stride = 1;
	pmu->ngeneral = 4;
	pmu->version = 1;
	if (ext_max >= 0x80000001) {
		pctr_cpuid(0x80000001, 0, &a, &b, &c, &d);
		if (c & (1U << 23)) {
			x->evtsel_base = MSR_PCTR_AMD_EXT_CTL0;
			x->ctr_base = MSR_PCTR_AMD_EXT_CTR0;
			x->stride = 2;
			pmu->ngeneral = 6;
		}
	}
	if (ext_max >= 0x80000022) {
		pctr_cpuid(0x80000022, 0, &a, &b, &c, &d);
		if (a & 1) {
			/* PerfMonV2 counters are the PerfCtrExtCore ones. */
			x->evtsel_base = MSR_PCTR_AMD_EXT_CTL0;
			x->ctr_base = MSR_PCTR_AMD_EXT_CTR0;
			x->stride = 2;
			pmu->version = 2;
			pmu->caps |= PCTR_CAP_GLOBAL_CTRL;
			if (b & 0xf)
				pmu->ngeneral = b & 0xf;
		}
	}
	pmu->width = 48;
	x->reserve_base = x->ctr_base;
	/*
	 * rdpmc reads every core counter, those pctr does not offer too
	 * (PerfCtrExtCore's six where PerfMonV2 names fewer): the scrub
	 * covers them.  Indices past them (the L3 and data fabric counters)
	 * are shared by a CCX or the socket, not a thread's: see
	 * Documentation/security.rst.
	 */
	n = max(pmu->ngeneral, x->stride == 2 ? 6U : 4U);
	regs = (u32)pctr_width_mask(n);
	pctr_cpus_lock();
	pctr_for_each_cpu(n)
		pctr_x86_set_regs(n, regs, false);
	pctr_cpus_unlock();

	/*
	 * There is no CPUID bit for the legacy counters, and hypervisors
	 * often do not implement them: a faulting read, or a counter that
	 * does not keep its value, means there is nothing to drive.
	 */
	if (pctr_rdmsr(x->evtsel_base, &val))
		return pctr_x86_no_counters(pmu,
					    "performance counter MSR %#x faults",
					    x->evtsel_base);
	if (pctr_x86_counter_holds_value(pmu, x))
		return -ENODEV;
	pmu->backend_id = PCTR_BACKEND_AMD;
	strscpy(pmu->name, "amd", sizeof(pmu->name));
	amd_setup(pmu, cpu, x);
	return 0;
}
