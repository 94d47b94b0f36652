/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x86 backends' only window on the machine: CPUID and the *_safe MSR
 * accessors.  In the kernel these are the real instructions; the host
 * conformance tests (tests/host/) build the same backend sources against
 * a register model that provides these functions instead.
 */
#ifndef _PCTR_X86_HW_H
#define _PCTR_X86_HW_H

#ifdef __KERNEL__
#include <asm/msr.h>
#include <asm/nmi.h>
#include <asm/processor.h>

static inline void pctr_cpuid(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c,
			      u32 *d)
{
	cpuid_count(leaf, sub, a, b, c, d);
}

static inline int pctr_rdmsr(u32 msr, u64 *val)
{
	return rdmsrl_safe(msr, val);
}

static inline int pctr_wrmsr(u32 msr, u64 val)
{
	return wrmsrl_safe(msr, val);
}

/* The kernel's counter reservation (shared with perf): 1 if taken. */
static inline int pctr_reserve_ctr(u32 msr)
{
	return reserve_perfctr_nmi(msr);
}

static inline void pctr_release_ctr(u32 msr)
{
	release_perfctr_nmi(msr);
}
#else
#include "host_hw.h"
#endif

#endif /* _PCTR_X86_HW_H */
