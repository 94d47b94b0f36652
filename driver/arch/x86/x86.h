/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Data the x86 backends share: where a family keeps its registers.
 */
#ifndef _PCTR_X86_H
#define _PCTR_X86_H

#include "../../pctr.h"

#define X86_MAX_GENERAL		PCTR_MAX_GENERAL
#define X86_MAX_FIXED		8

/* Intel SDM vol. 4, architectural MSRs. */
#define MSR_PCTR_INTEL_PMC0		0x000000c1
#define MSR_PCTR_INTEL_EVTSEL0		0x00000186
#define MSR_PCTR_INTEL_FIXED_CTR0	0x00000309
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

struct pctr_x86 {
	u32	evtsel_base;	/* first event select MSR */
	u32	ctr_base;	/* first counter MSR */
	u32	stride;		/* MSR distance between counters */
	u32	reserve_base;	/* counter 0 as the reservation API names it */
	u32	fixed_mask;	/* Intel: fixed counters present */
};

int pctr_x86_probe(struct pctr_pmu *pmu, struct pctr_x86 *x);

#endif /* _PCTR_X86_H */
