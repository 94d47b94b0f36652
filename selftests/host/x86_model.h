/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A register model of x86 performance counters, written from the Intel
 * SDM vol. 3B chapter 20 (architectural performance monitoring versions
 * 1 to 5) and the AMD APM vol. 2 section 13.2 (legacy counters,
 * PerfCtrExtCore, PerfMonV2).  It answers CPUID and MSR accesses as the
 * hardware would, faults (#GP) where the hardware would, and counts
 * simulated events when the test "retires" them.
 *
 * It also stands in for the kernel the backends run in: the counter
 * reservation bitmaps behind reserve_perfctr_nmi()/reserve_evntsel_nmi(),
 * the TSC and the kernel log.
 */
#ifndef _PCTR_X86_MODEL_H
#define _PCTR_X86_MODEL_H

#include "host_hw.h"

/* What CPU to be: the CPUID answers and the registers behind them. */
struct model_config {
	const char	*name;
	bool		amd;
	u32		family, model;
	/* Intel: CPUID.0AH */
	u32		version;	/* EAX[7:0] */
	u32		ngeneral;	/* EAX[15:8] */
	u32		width;		/* EAX[23:16] */
	u32		ebx_len;	/* EAX[31:24] */
	u32		ebx;		/* events not available */
	u32		fixed_ecx;	/* v5: fixed counters present */
	u32		nfixed;		/* EDX[4:0] */
	u32		fixed_width;	/* EDX[12:5] */
	bool		pdcm;		/* CPUID.1:ECX[15] */
	bool		full_width;	/* PERF_CAPABILITIES[13] */
	/* AMD */
	bool		ext_core;	/* CPUID 0x80000001 ECX[23] */
	bool		perfmon_v2;	/* CPUID 0x80000022 EAX[0] */
	u32		v2_counters;	/* CPUID 0x80000022 EBX[3:0] */
	/*
	 * A hypervisor that advertises counters but stubs the MSRs out:
	 * every counter MSR reads 0 and drops writes.
	 */
	bool		drop_writes;
	/*
	 * A hybrid part: the other core type's CPUID, as a second CPU (a
	 * core type the model answers CPUID for; its registers are not
	 * modelled, the tests run on the first).
	 */
	const struct model_config *other_core;
};

#define MODEL_MAX_GENERAL	16
#define MODEL_MAX_FIXED		8
#define MODEL_TRACE		512
/* Bits the kernel's reservation bitmaps manage: NMI_MAX_COUNTER_BITS + 1 */
#define MODEL_RESERVE_BITS	67

/* Intel MSRs the backend does not use but the model has. */
#define MSR_MODEL_INTEL_GLOBAL_STATUS_SET	0x391
#define MSR_MODEL_AMD_GLOBAL_STATUS_SET		0xc0000303

struct model_access {
	u32	msr;
	u64	val;
};

#define MODEL_MAX_CPUS		2

struct x86_model {
	const struct model_config *cfg;
	const struct model_config *cpus[MODEL_MAX_CPUS];	/* CPUID of each */
	unsigned int	ncpus;
	/* Any access to this MSR raises #GP, as a failing register would. */
	u32	fail_msr;
	u32	ngeneral;		/* general counters present */
	u32	fixed_mask;		/* Intel: fixed counters */

	u64	evtsel[MODEL_MAX_GENERAL];
	u64	ctr[MODEL_MAX_GENERAL];
	bool	cond[MODEL_MAX_GENERAL];	/* last cmask result */
	u64	fixed_ctr[MODEL_MAX_FIXED];
	u64	fixed_ctrl;
	u64	global_ctrl;
	u64	global_status;
	u64	perf_cap;
	u64	perf_metrics;		/* with fixed counter 3 */

	bool	user;			/* CPL 3 if set, else 0 */
	bool	guest;			/* AMD: running a guest */
	u64	pmis;			/* overflows with INT set */

	unsigned int	nreads;		/* rdmsr executed */
	/* Accesses that raised #GP, and the last one. */
	unsigned int	faults;
	u32		fault_msr;
	/* Every successful MSR write, in order. */
	struct model_access	trace[MODEL_TRACE];
	unsigned int		ntrace;

	/* The kernel's reservation bitmaps (one byte per bit). */
	u8	perfctr_owner[MODEL_RESERVE_BITS];
	u8	evntsel_owner[MODEL_RESERVE_BITS];

	/* The kernel log. */
	unsigned int	nlog;
	unsigned int	nwarn;
	char		log[4096];

	u64	tsc;
};

/* The model the seam functions use. */
extern struct x86_model *model;

void model_init(struct x86_model *m, const struct model_config *cfg);

/* Direct access, as the rdmsr/wrmsr instructions: 0 or -EIO (#GP). */
int model_rdmsr(struct x86_model *m, u32 msr, u64 *val);
int model_wrmsr(struct x86_model *m, u32 msr, u64 val);
int model_rdpmc(struct x86_model *m, u32 idx, u64 *val);
u64 model_msr(struct x86_model *m, u32 msr);	/* must not fault */

/*
 * One cycle in which @n events (@event, with unit mask @umask) happen
 * at the current privilege level.  AMD event codes are 12 bits.
 */
void model_retire(struct x86_model *m, u32 event, u32 umask, u64 n);
void model_set_user(struct x86_model *m, bool user);

/* The fixed counter that counts @event/@umask, or -1; and back. */
int model_fixed_counter(u32 event, u32 umask);
void model_fixed_event(unsigned int i, u32 *event, u32 *umask);

/* Reservation: what the kernel's bitmaps say about a counter. */
bool model_ctr_reserved(struct x86_model *m, unsigned int bit);
bool model_evntsel_reserved(struct x86_model *m, unsigned int bit);
unsigned int model_reserved_count(struct x86_model *m);
/* Take every general counter the way perf does for a hardware event. */
void model_perf_reserve_all(struct x86_model *m);
/* Another user takes one general counter's event select only. */
void model_take_evntsel(struct x86_model *m, unsigned int i);
void model_give_evntsel(struct x86_model *m, unsigned int i);

/* Forget the write trace, reads and faults (after the probe, say). */
void model_clear_trace(struct x86_model *m);
/* Index of the first trace entry writing @msr at or after @from, or -1. */
int model_trace_find(struct x86_model *m, u32 msr, unsigned int from);

/*
 * The overflow interrupt's kernel side (pmi.c), recorded: calls of
 * pctr_x86_pmi_on() (which returns model_pmi_on_ret), pctr_x86_pmi_off(),
 * pctr_x86_pmi_exit() and pctr_x86_pmi_pending(); model_no_apic: no local
 * APIC.
 */
struct pctr_pmu;
extern unsigned int model_pmi_on, model_pmi_off, model_pmi_late;
extern unsigned int model_pmi_exit;
extern int model_pmi_on_ret;
extern bool model_no_apic;
/* The process of the thread that runs: pctr_x86_domain(). */
extern u64 model_domain;

#endif /* _PCTR_X86_MODEL_H */
