/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Conformance of the x86 backends to the architecture.  The real backend
 * sources (driver/arch/x86/: x86.c, probe.c, intel.c, amd.c) run against
 * the register model of x86_model.c, and every test body runs once per
 * CPU: Intel architectural perfmon versions 1 to 5, AMD legacy,
 * PerfCtrExtCore and PerfMonV2, and hypervisors that show no PMU.
 *
 * The teardown fails any test in which the backend touched a register
 * that is not there or set a reserved bit (the model's #GP count).
 *
 * This header is the fixture, its CPUs and the register numbers; the
 * tests are by subject: x86_probe_test.c (what the probe finds, the
 * named events, hybrid parts), x86_encode_test.c (functions into
 * registers), x86_counting_test.c (start, read, stop, widths, user
 * reads, reservation) and x86_overflow_test.c (overflow interrupts).
 */
#ifndef _X86_CONFORMANCE_H
#define _X86_CONFORMANCE_H

#include "x86_cpus.h"
#include "x86_model.h"
#include "x86.h"

#include "kselftest_harness.h"

#define UKE		(PCTR_U | PCTR_K | PCTR_EN)

FIXTURE(x86) {
	struct x86_model	m;
	struct pctr_cpu_id	cpu;
	struct pctr_pmu		pmu;
	struct pctr_x86		*x;
	const struct pctr_pmu_ops *ops;
	int			probe_ret;
	unsigned int		probe_faults;
};

/* What the probe must find on a CPU. */
struct cpu_expect {
	const struct model_config *cfg;
	bool	has_pmu;
	u32	ngeneral, width;
	u32	fixed_mask, nfixed, fixed_width;
	u32	caps;	/* beyond TSC, COUNTERS, USER_RDPMC */
};

FIXTURE_VARIANT(x86) {
	struct cpu_expect cpu;
};

/*
 * The CPUs, one variant each: X86_PMU(name, its model in x86_cpus.c,
 * general counters, their width, fixed counters' mask and number, caps)
 * for a CPU whose PMU the probe must find, its fixed counters as wide as
 * the general ones; X86_NO_PMU(name, model) for one where it finds none.
 */
#define X86_PMU(name, model, ng, w, fmask, nfix, c)			\
	FIXTURE_VARIANT_ADD(x86, name) {				\
		.cpu = {						\
			.cfg = &model, .has_pmu = true,			\
			.ngeneral = ng, .width = w,			\
			.fixed_mask = fmask, .nfixed = nfix,		\
			.fixed_width = (nfix) ? (w) : 0, .caps = c,	\
		},							\
	}
#define X86_NO_PMU(name, model)						\
	FIXTURE_VARIANT_ADD(x86, name) { .cpu = { .cfg = &model } }

X86_PMU(intel_v1, cpu_intel_v1, 2, 40, 0, 0, 0);
X86_PMU(intel_v2, cpu_intel_v2, 2, 40, 0x7, 3, PCTR_CAP_GLOBAL_CTRL);
X86_PMU(intel_v3, cpu_intel_v3, 4, 48, 0x7, 3,
	PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_ANYTHREAD);
X86_PMU(intel_v4, cpu_intel_v4, 4, 48, 0x7, 3,
	PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_ANYTHREAD | PCTR_CAP_FULL_WIDTH);
X86_PMU(intel_v4_8, cpu_intel_v4_8, 8, 48, 0x7, 3,
	PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_ANYTHREAD);
X86_PMU(intel_v4_8_fw, cpu_intel_v4_8_fw, 8, 48, 0x7, 3,
	PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_ANYTHREAD | PCTR_CAP_FULL_WIDTH);
X86_PMU(intel_v5, cpu_intel_v5, 8, 48, 0xf, 4,
	PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_FULL_WIDTH);
X86_PMU(intel_v5_holes, cpu_intel_v5_holes, 8, 48, 0x9, 4,
	PCTR_CAP_GLOBAL_CTRL);
X86_PMU(amd_k8, cpu_amd_k8, 4, 48, 0, 0, 0);
X86_PMU(amd_fam10h, cpu_amd_fam10h, 4, 48, 0, 0, 0);
X86_PMU(amd_fam15h, cpu_amd_fam15h, 6, 48, 0, 0, 0);
X86_PMU(amd_extcore, cpu_amd_extcore, 6, 48, 0, 0, 0);
X86_PMU(amd_perfmon_v2, cpu_amd_v2, 6, 48, 0, 0, PCTR_CAP_GLOBAL_CTRL);
X86_NO_PMU(tcg_intel, cpu_tcg_intel);
X86_NO_PMU(tcg_amd, cpu_tcg_amd);
X86_NO_PMU(intel_no_perfmon, cpu_intel_none);
/* Hybrid: only the counters both core types have, 6 + 3. */
X86_PMU(intel_hybrid_on_p_core, cpu_intel_hybrid_p, 6, 48, 0x7, 3,
	PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_FULL_WIDTH);
X86_PMU(intel_hybrid_on_e_core, cpu_intel_hybrid_e, 6, 48, 0x7, 3,
	PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_FULL_WIDTH);

FIXTURE_SETUP(x86)
{
	model_init(&self->m, variant->cpu.cfg);
	model_pmi_on = model_pmi_off = model_pmi_late = 0;
	model_pmi_exit = 0;
	model_pmi_on_ret = 0;
	model_no_apic = false;
	pctr_arch.identify(&self->cpu);
	self->probe_ret = pctr_arch.probe(&self->pmu, &self->cpu);
	self->x = self->pmu.priv;
	self->ops = self->pmu.ops;
	self->probe_faults = self->m.faults;
	model_clear_trace(&self->m);
}

FIXTURE_TEARDOWN(x86)
{
	EXPECT_EQ(0, self->m.faults)
		TH_LOG("MSR %#x raised #GP", self->m.fault_msr);
}

/* Counting tests skip on CPUs without counters, fail if the probe missed. */
static inline bool need_pmu(struct __test_metadata *_metadata,
			    const struct cpu_expect *v, int probe_ret)
{
	if (!v->has_pmu)
		SKIP(return false, "%s has no counters", v->cfg->name);
	ASSERT_EQ(0, probe_ret);
	return true;
}

static inline bool need_fixed(struct __test_metadata *_metadata,
			      const struct cpu_expect *v, int probe_ret)
{
	if (!need_pmu(_metadata, v, probe_ret))
		return false;
	if (!v->fixed_mask)
		SKIP(return false, "%s has no fixed counters", v->cfg->name);
	return true;
}

/*
 * A test's start, after its own declarations (none of which needs these
 * two): v, the CPU's expectations, and m, its model; then the test ends
 * here, skipped or failed, unless @need (need_pmu, need_fixed, ...)
 * holds.
 */
#define X86_START(need)							\
	const struct cpu_expect *v = &variant->cpu;			\
	struct x86_model *m __attribute__((unused)) = &self->m;	\
	if (!need(_metadata, v, self->probe_ret))			\
		return

/* Register numbers, from the SDM and the APM. */
static inline bool amd_ext(const struct cpu_expect *v)
{
	return v->cfg->ext_core || v->cfg->perfmon_v2;
}

static inline u32 evtsel_msr(const struct cpu_expect *v, unsigned int i)
{
	if (!v->cfg->amd)
		return 0x186 + i;
	return amd_ext(v) ? 0xc0010200 + 2 * i : 0xc0010000 + i;
}

static inline u32 ctr_msr(const struct cpu_expect *v, unsigned int i)
{
	if (!v->cfg->amd)
		return (v->caps & PCTR_CAP_FULL_WIDTH ? 0x4c1 : 0xc1) + i;
	return amd_ext(v) ? 0xc0010201 + 2 * i : 0xc0010004 + i;
}

static inline u32 global_ctrl_msr(const struct cpu_expect *v)
{
	return v->cfg->amd ? 0xc0000301 : 0x38f;
}

#define FIXED_CTR_CTRL	0x38d
#define FIXED_CTR(i)	(0x309 + (i))

static inline u64 width_mask(unsigned int width)
{
	return width >= 64 ? ~0ULL : (1ULL << width) - 1;
}

static inline u32 general_slots(const struct cpu_expect *v)
{
	return (1U << v->ngeneral) - 1;
}

static inline u32 all_slots(const struct cpu_expect *v)
{
	return general_slots(v) | v->fixed_mask << PCTR_FIXED_BASE;
}

/* GLOBAL_CTRL bits of a set of slots. */
static inline u64 global_bits(u32 slots)
{
	return (slots & 0xffff) | (u64)(slots >> PCTR_FIXED_BASE) << 32;
}

/*
 * Overflow notification: Intel from version 2 (GLOBAL_STATUS), AMD
 * always (PerfMonV2's status, or a legacy counter's top bit).
 */
static inline bool has_notify(const struct cpu_expect *v)
{
	return v->has_pmu && (v->cfg->amd || v->cfg->version >= 2);
}

/* Encode @fn for @slot (unprivileged) into @hw, to start at @val. */
static inline int set_slot(struct pctr_pmu *pmu, struct pctr_hw *hw,
			   unsigned int slot, u64 fn, u64 val)
{
	int ret = pmu->ops->encode(pmu, slot, fn, false, &hw->ctl[slot]);

	if (!ret) {
		hw->mask |= 1U << slot;
		hw->val[slot] = val;
	}
	return ret;
}

/* The event a slot's function counts: its own, or its fixed counter's. */
static inline void slot_event(unsigned int slot, u64 fn, u32 *event,
			      u32 *umask)
{
	if (slot >= PCTR_FIXED_BASE) {
		model_fixed_event(slot - PCTR_FIXED_BASE, event, umask);
		return;
	}
	*event = (fn & PCTR_EVENT_MASK) |
		 ((fn & PCTR_EVENT_HI_MASK) >> (PCTR_EVENT_HI_SHIFT - 8));
	*umask = (fn & PCTR_UM_MASK) >> PCTR_UM_SHIFT;
}

#endif /* _X86_CONFORMANCE_H */
