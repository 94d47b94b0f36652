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

/* PerfEvtSeln: bits 19 and 21 are reserved, INT is reserved by pctr. */
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

static void amd_start(const struct pctr_pmu *pmu, const struct pctr_hw *hw)
{
	const struct pctr_x86 *x = pmu->priv;
	u32 general = hw->mask & pctr_x86_general_slots(pmu);
	u64 top = 1ULL << (pmu->width - 1), val;
	u32 armed = 0;
	unsigned int i;

	for (i = 0; i < pmu->ngeneral; i++) {
		if (!(general & BIT(i)))
			continue;
		val = hw->val[i] & pctr_width_mask(pmu->width);
		if (!(hw->keep & BIT(i)))
			pctr_wrmsr(pctr_x86_ctr(x, i), val);
		if (val & top)
			armed |= BIT(i);
	}
	for (i = 0; i < pmu->ngeneral; i++)
		if (general & BIT(i))
			pctr_wrmsr(pctr_x86_evtsel(x, i), hw->ctl[i]);

	if (pmu->version >= 2)
		pctr_wrmsr(MSR_PCTR_AMD_GLOBAL_CTL, general);
	else
		pctr_x86_arm(general, armed);
}

static void amd_read(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	const struct pctr_x86 *x = pmu->priv;
	unsigned int i;

	for (i = 0; i < pmu->ngeneral; i++)
		if (hw->mask & BIT(i))
			pctr_rdmsr(pctr_x86_ctr(x, i), &hw->val[i]);
}

static void amd_stop(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	const struct pctr_x86 *x = pmu->priv;
	u32 general = hw->mask & pctr_x86_general_slots(pmu);
	unsigned int i;

	if (pmu->version >= 2)
		pctr_wrmsr(MSR_PCTR_AMD_GLOBAL_CTL, 0);
	else
		pctr_x86_disarm(general);
	for (i = 0; i < pmu->ngeneral; i++)
		if (general & BIT(i))
			pctr_wrmsr(pctr_x86_evtsel(x, i), 0);
	amd_read(pmu, hw);
}

static int amd_rdpmc_index(const struct pctr_pmu *pmu, unsigned int slot)
{
	return slot < pmu->ngeneral ? (int)slot : -1;
}

static u32 amd_overflow_status(const struct pctr_pmu *pmu)
{
	u64 status;

	if (pmu->version < 2)
		return pctr_x86_legacy_overflow(pmu);
	if (pctr_rdmsr(MSR_PCTR_AMD_GLOBAL_STATUS, &status))
		return 0;
	return (u32)status & pctr_x86_general_slots(pmu);
}

static void amd_overflow_ack(const struct pctr_pmu *pmu, u32 slots)
{
	slots &= pctr_x86_general_slots(pmu);
	if (pmu->version < 2)
		pctr_x86_disarm(slots);
	else if (slots)
		pctr_wrmsr(MSR_PCTR_AMD_GLOBAL_STATUS_CLR, slots);
}

static const struct pctr_pmu_ops pctr_amd_ops = {
	.encode			= amd_encode,
	.start			= amd_start,
	.stop			= amd_stop,
	.read			= amd_read,
	.rdpmc_index		= amd_rdpmc_index,
	.overflow_status	= amd_overflow_status,
	.overflow_ack		= amd_overflow_ack,
	.reserve		= pctr_x86_reserve,
	.release		= pctr_x86_release,
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

void pctr_amd_setup(struct pctr_pmu *pmu, struct pctr_x86 *x)
{
	const struct amd_event *e;
	unsigned int i;

	pmu->ops = &pctr_amd_ops;
	pmu->flags |= PCTR_PMU_KEEP;
	x->fn_valid = AMD_FN_GENERAL;
	if (pmu->family >= 0x10)
		x->fn_valid |= AMD_FN_FAM10H;

	pmu->nevents = 0;
	for (i = 0; i < ARRAY_SIZE(amd_events); i++) {
		e = &amd_events[i];
		pctr_x86_add_event(pmu, x, e->name, e->desc,
				   PCTR_FN(e->event, 0, 0),
				   pctr_x86_general_slots(pmu));
	}
}
