// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance of the x86 backends to the architecture.  The real backend
 * sources (driver/arch/x86/: x86.c, probe.c, intel.c, amd.c) run against
 * the register model of x86_model.c, and every test body runs once per
 * CPU: Intel architectural perfmon versions 1 to 5, AMD legacy,
 * PerfCtrExtCore and PerfMonV2, and hypervisors that show no PMU.
 *
 * The teardown fails any test in which the backend touched a register
 * that is not there or set a reserved bit (the model's #GP count).
 */
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

FIXTURE_VARIANT_ADD(x86, intel_v1) {
	.cpu = {
		.cfg = &cpu_intel_v1, .has_pmu = true, .ngeneral = 2,
		.width = 40,
	},
};

FIXTURE_VARIANT_ADD(x86, intel_v2) {
	.cpu = {
		.cfg = &cpu_intel_v2, .has_pmu = true, .ngeneral = 2,
		.width = 40, .fixed_mask = 0x7, .nfixed = 3, .fixed_width = 40,
		.caps = PCTR_CAP_GLOBAL_CTRL,
	},
};

FIXTURE_VARIANT_ADD(x86, intel_v3) {
	.cpu = {
		.cfg = &cpu_intel_v3, .has_pmu = true, .ngeneral = 4,
		.width = 48, .fixed_mask = 0x7, .nfixed = 3, .fixed_width = 48,
		.caps = PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_ANYTHREAD,
	},
};

FIXTURE_VARIANT_ADD(x86, intel_v4) {
	.cpu = {
		.cfg = &cpu_intel_v4, .has_pmu = true, .ngeneral = 4,
		.width = 48, .fixed_mask = 0x7, .nfixed = 3, .fixed_width = 48,
		.caps = PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_ANYTHREAD |
			PCTR_CAP_FULL_WIDTH,
	},
};

FIXTURE_VARIANT_ADD(x86, intel_v4_8) {
	.cpu = {
		.cfg = &cpu_intel_v4_8, .has_pmu = true, .ngeneral = 8,
		.width = 48, .fixed_mask = 0x7, .nfixed = 3, .fixed_width = 48,
		.caps = PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_ANYTHREAD,
	},
};

FIXTURE_VARIANT_ADD(x86, intel_v4_8_fw) {
	.cpu = {
		.cfg = &cpu_intel_v4_8_fw, .has_pmu = true, .ngeneral = 8,
		.width = 48, .fixed_mask = 0x7, .nfixed = 3, .fixed_width = 48,
		.caps = PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_ANYTHREAD |
			PCTR_CAP_FULL_WIDTH,
	},
};

FIXTURE_VARIANT_ADD(x86, intel_v5) {
	.cpu = {
		.cfg = &cpu_intel_v5, .has_pmu = true, .ngeneral = 8,
		.width = 48, .fixed_mask = 0xf, .nfixed = 4, .fixed_width = 48,
		.caps = PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_FULL_WIDTH,
	},
};

FIXTURE_VARIANT_ADD(x86, intel_v5_holes) {
	.cpu = {
		.cfg = &cpu_intel_v5_holes, .has_pmu = true, .ngeneral = 8,
		.width = 48, .fixed_mask = 0x9, .nfixed = 4, .fixed_width = 48,
		.caps = PCTR_CAP_GLOBAL_CTRL,
	},
};

FIXTURE_VARIANT_ADD(x86, amd_k8) {
	.cpu = {
		.cfg = &cpu_amd_k8, .has_pmu = true, .ngeneral = 4, .width = 48,
	},
};

FIXTURE_VARIANT_ADD(x86, amd_fam10h) {
	.cpu = {
		.cfg = &cpu_amd_fam10h, .has_pmu = true, .ngeneral = 4,
		.width = 48,
	},
};

FIXTURE_VARIANT_ADD(x86, amd_fam15h) {
	.cpu = {
		.cfg = &cpu_amd_fam15h, .has_pmu = true, .ngeneral = 6,
		.width = 48,
	},
};

FIXTURE_VARIANT_ADD(x86, amd_extcore) {
	.cpu = {
		.cfg = &cpu_amd_extcore, .has_pmu = true, .ngeneral = 6,
		.width = 48,
	},
};

FIXTURE_VARIANT_ADD(x86, amd_perfmon_v2) {
	.cpu = {
		.cfg = &cpu_amd_v2, .has_pmu = true, .ngeneral = 6, .width = 48,
		.caps = PCTR_CAP_GLOBAL_CTRL,
	},
};

FIXTURE_VARIANT_ADD(x86, tcg_intel) {
	.cpu = {
		.cfg = &cpu_tcg_intel,
	},
};

FIXTURE_VARIANT_ADD(x86, tcg_amd) {
	.cpu = {
		.cfg = &cpu_tcg_amd,
	},
};

FIXTURE_VARIANT_ADD(x86, intel_no_perfmon) {
	.cpu = {
		.cfg = &cpu_intel_none,
	},
};

/* Hybrid: only the counters both core types have, 6 + 3. */
FIXTURE_VARIANT_ADD(x86, intel_hybrid_on_p_core) {
	.cpu = {
		.cfg = &cpu_intel_hybrid_p, .has_pmu = true, .ngeneral = 6,
		.width = 48, .fixed_mask = 0x7, .nfixed = 3, .fixed_width = 48,
		.caps = PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_FULL_WIDTH,
	},
};

FIXTURE_VARIANT_ADD(x86, intel_hybrid_on_e_core) {
	.cpu = {
		.cfg = &cpu_intel_hybrid_e, .has_pmu = true, .ngeneral = 6,
		.width = 48, .fixed_mask = 0x7, .nfixed = 3, .fixed_width = 48,
		.caps = PCTR_CAP_GLOBAL_CTRL | PCTR_CAP_FULL_WIDTH,
	},
};

FIXTURE_SETUP(x86)
{
	model_init(&self->m, variant->cpu.cfg);
	model_pmi_on = model_pmi_off = model_pmi_late = 0;
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
static bool need_pmu(struct __test_metadata *_metadata,
		     const struct cpu_expect *v, int probe_ret)
{
	if (!v->has_pmu)
		SKIP(return false, "%s has no counters", v->cfg->name);
	ASSERT_EQ(0, probe_ret);
	return true;
}

static bool need_fixed(struct __test_metadata *_metadata,
		       const struct cpu_expect *v, int probe_ret)
{
	if (!need_pmu(_metadata, v, probe_ret))
		return false;
	if (!v->fixed_mask)
		SKIP(return false, "%s has no fixed counters", v->cfg->name);
	return true;
}

/* Register numbers, from the SDM and the APM. */
static bool amd_ext(const struct cpu_expect *v)
{
	return v->cfg->ext_core || v->cfg->perfmon_v2;
}

static u32 evtsel_msr(const struct cpu_expect *v, unsigned int i)
{
	if (!v->cfg->amd)
		return 0x186 + i;
	return amd_ext(v) ? 0xc0010200 + 2 * i : 0xc0010000 + i;
}

static u32 ctr_msr(const struct cpu_expect *v, unsigned int i)
{
	if (!v->cfg->amd)
		return (v->caps & PCTR_CAP_FULL_WIDTH ? 0x4c1 : 0xc1) + i;
	return amd_ext(v) ? 0xc0010201 + 2 * i : 0xc0010004 + i;
}

static u32 global_ctrl_msr(const struct cpu_expect *v)
{
	return v->cfg->amd ? 0xc0000301 : 0x38f;
}

#define FIXED_CTR_CTRL	0x38d
#define FIXED_CTR(i)	(0x309 + (i))

static u64 width_mask(unsigned int width)
{
	return width >= 64 ? ~0ULL : (1ULL << width) - 1;
}

static u32 general_slots(const struct cpu_expect *v)
{
	return (1U << v->ngeneral) - 1;
}

static u32 all_slots(const struct cpu_expect *v)
{
	return general_slots(v) | v->fixed_mask << PCTR_FIXED_BASE;
}

/* GLOBAL_CTRL bits of a set of slots. */
static u64 global_bits(u32 slots)
{
	return (slots & 0xffff) | (u64)(slots >> PCTR_FIXED_BASE) << 32;
}

/*
 * Overflow notification: Intel from version 2 (GLOBAL_STATUS), AMD
 * always (PerfMonV2's status, or a legacy counter's top bit).
 */
static bool has_notify(const struct cpu_expect *v)
{
	return v->has_pmu && (v->cfg->amd || v->cfg->version >= 2);
}

/* Encode @fn for @slot (unprivileged) into @hw, to start at @val. */
static int set_slot(struct pctr_pmu *pmu, struct pctr_hw *hw,
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
static void slot_event(unsigned int slot, u64 fn, u32 *event, u32 *umask)
{
	if (slot >= PCTR_FIXED_BASE) {
		model_fixed_event(slot - PCTR_FIXED_BASE, event, umask);
		return;
	}
	*event = (fn & PCTR_EVENT_MASK) |
		 ((fn & PCTR_EVENT_HI_MASK) >> (PCTR_EVENT_HI_SHIFT - 8));
	*umask = (fn & PCTR_UM_MASK) >> PCTR_UM_SHIFT;
}

TEST_F(x86, probe)
{
	const struct cpu_expect *v = &variant->cpu;
	const struct model_config *c = v->cfg;
	struct pctr_pmu *pmu = &self->pmu;

	EXPECT_EQ(0, self->probe_faults);
	/* The probe's own check of counter 0 gives its reservation back. */
	EXPECT_EQ(0, model_reserved_count(&self->m));

	if (!v->has_pmu) {
		EXPECT_EQ(-ENODEV, self->probe_ret);
		EXPECT_EQ(NULL, pmu->ops);
		EXPECT_EQ(PCTR_CAP_TSC, pmu->caps);
		EXPECT_EQ(0, pmu->ngeneral);
		EXPECT_EQ(0, pmu->nfixed);
		EXPECT_NE(0, strlen(pmu->why));
		if (c->drop_writes)
			EXPECT_NE(NULL, strstr(pmu->why, "does not keep"));
		return;
	}

	ASSERT_EQ(0, self->probe_ret) TH_LOG("why: %s", pmu->why);
	ASSERT_NE(NULL, pmu->ops);
	EXPECT_EQ(c->amd ? PCTR_BACKEND_AMD : PCTR_BACKEND_INTEL,
		  pmu->backend_id);
	EXPECT_STREQ(c->amd ? "amd" : "intel", pmu->name);
	EXPECT_STREQ("", pmu->why);
	EXPECT_EQ(c->amd ? (c->perfmon_v2 ? 2 : 1) : c->version,
		  pmu->version);
	EXPECT_EQ(v->ngeneral, pmu->ngeneral);
	EXPECT_EQ(v->width, pmu->width);
	EXPECT_EQ(v->nfixed, pmu->nfixed);
	EXPECT_EQ(v->fixed_width, pmu->fixed_width);
	EXPECT_EQ(PCTR_CAP_TSC | PCTR_CAP_COUNTERS | PCTR_CAP_USER_RDPMC |
		  (has_notify(v) ? PCTR_CAP_NOTIFY : 0) | v->caps, pmu->caps);
	ASSERT_NE(NULL, self->x);
	EXPECT_EQ(v->fixed_mask, self->x->fixed_mask);
	EXPECT_NE(NULL, pmu->events);
	EXPECT_NE(0, pmu->nevents);

	EXPECT_NE(NULL, pmu->ops->encode);
	EXPECT_NE(NULL, pmu->ops->start);
	EXPECT_NE(NULL, pmu->ops->stop);
	EXPECT_NE(NULL, pmu->ops->read);
	EXPECT_NE(NULL, pmu->ops->rdpmc_index);
	/* Overflow ops where there is an overflow interrupt. */
	EXPECT_EQ(has_notify(v), pmu->ops->overflow_status != NULL);
	EXPECT_EQ(has_notify(v), pmu->ops->overflow_ack != NULL);
	EXPECT_EQ(has_notify(v), !!(pmu->flags & PCTR_PMU_NOTIFY));
	EXPECT_NE(NULL, pmu->ops->reserve);
	EXPECT_NE(NULL, pmu->ops->release);
}

/*
 * Who the CPU is comes from CPUID alone, before and apart from the
 * counters: identify() touches no MSR and takes no counter, and what it
 * found survives a probe that finds no counters, into the none backend.
 */
TEST_F(x86, identity_apart_from_counters)
{
	const struct model_config *c = variant->cpu.cfg;
	struct pctr_cpu_id cpu;
	struct pctr_pmu none;
	char want[64];

	model_init(&self->m, c);
	memset(&cpu, 0xa5, sizeof(cpu));
	pctr_arch.identify(&cpu);
	EXPECT_STREQ(c->amd ? "AuthenticAMD" : "GenuineIntel", cpu.vendor);
	EXPECT_EQ(c->family, cpu.family);
	EXPECT_EQ(c->model, cpu.model);
	EXPECT_EQ(2000000, cpu.tsc_khz);
	EXPECT_TRUE(cpu.tsc);
	EXPECT_EQ(0, self->m.nreads);
	EXPECT_EQ(0, self->m.ntrace);
	EXPECT_EQ(0, model_reserved_count(&self->m));
	/* The fixture's identity was taken the same way. */
	EXPECT_EQ(0, memcmp(&cpu, &self->cpu, sizeof(cpu)));

	snprintf(want, sizeof(want), "%s family %u model %u", cpu.vendor,
		 cpu.family, cpu.model);
	if (variant->cpu.has_pmu) {
		EXPECT_NE(NULL, strstr(self->pmu.desc, want))
			TH_LOG("desc \"%s\"", self->pmu.desc);
		return;
	}
	memset(&none, 0xa5, sizeof(none));
	pctr_none_probe(&none, &cpu, self->pmu.why);
	EXPECT_EQ(PCTR_BACKEND_NONE, none.backend_id);
	EXPECT_EQ(NULL, none.ops);
	EXPECT_EQ(PCTR_CAP_TSC, none.caps);
	EXPECT_EQ(0, none.ngeneral);
	EXPECT_STREQ(self->pmu.why, none.why);
	EXPECT_NE(NULL, strstr(none.desc, want)) TH_LOG("desc \"%s\"", none.desc);
	EXPECT_NE(NULL, strstr(none.desc, self->pmu.why));
}

/* A slot is accepted exactly when the CPU has its counter. */
TEST_F(x86, encode_slots)
{
	const struct cpu_expect *v = &variant->cpu;
	unsigned int slot;
	u64 fn, ctl;
	int want;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	for (slot = 0; slot < PCTR_NUM + 8; slot++) {
		fn = slot < PCTR_FIXED_BASE ? PCTR_FN(0xc0, 0, UKE) : UKE;
		want = slot < PCTR_NUM && (all_slots(v) & (1U << slot)) ?
		       0 : -EINVAL;
		EXPECT_EQ(want, self->ops->encode(&self->pmu, slot, fn, true,
						  &ctl))
			TH_LOG("slot %u", slot);
	}
	/* encode() never touches the hardware. */
	EXPECT_EQ(0, self->m.ntrace);
	EXPECT_EQ(0, self->m.nreads);
}

/* What the ABI says of function bit @b on a general counter of this CPU. */
static int general_bit_result(const struct cpu_expect *v, unsigned int b,
			      bool privileged)
{
	const struct model_config *c = v->cfg;

	if (b == 19 || b == 20)		/* pin control; INT (reserved) */
		return -EINVAL;
	if (b == 21) {			/* AnyThread: Intel v3 and v4 */
		if (!(v->caps & PCTR_CAP_ANYTHREAD))
			return -EINVAL;
		return privileged ? 0 : -EPERM;
	}
	if (b < 32)
		return 0;
	if (!c->amd || c->family < 0x10)
		return -EINVAL;
	/* AMD EventSelect[11:8], GuestOnly, HostOnly */
	return b <= 35 || b == 40 || b == 41 ? 0 : -EINVAL;
}

/*
 * Every bit of a general counter's function, alone on top of a valid
 * one: accepted or refused with the right errno, and whatever is
 * accepted is an event select the CPU takes without #GP.
 */
TEST_F(x86, encode_general_bits)
{
	const struct cpu_expect *v = &variant->cpu;
	unsigned int slots[2] = { 0, v->ngeneral - 1 }, s, b, p;
	u64 fn, ctl;
	int want, ret;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	for (s = 0; s < 2; s++) {
		for (b = 0; b < 64; b++) {
			for (p = 0; p < 2; p++) {
				fn = PCTR_FN(0xc0, 0, PCTR_U | PCTR_EN) |
				     1ULL << b;
				want = general_bit_result(v, b, p);
				ctl = 0;
				ret = self->ops->encode(&self->pmu, slots[s],
							fn, p, &ctl);
				EXPECT_EQ(want, ret)
					TH_LOG("slot %u bit %u privileged %u",
					       slots[s], b, p);
				if (ret)
					continue;
				EXPECT_EQ(fn, ctl);
				EXPECT_EQ(0, model_wrmsr(&self->m,
						evtsel_msr(v, slots[s]),
						ctl))
					TH_LOG("bit %u faults", b);
			}
		}
	}
}

/* The rules that are not about one bit. */
TEST_F(x86, encode_rules)
{
	const struct cpu_expect *v = &variant->cpu;
	bool any = v->caps & PCTR_CAP_ANYTHREAD;
	struct pctr_pmu *pmu = &self->pmu;
	const struct pctr_pmu_ops *ops = self->ops;
	u64 ctl = ~0ULL;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	/* A function of 0 frees a counter. */
	EXPECT_EQ(0, ops->encode(pmu, 0, 0, false, &ctl));
	EXPECT_EQ(0, ctl);
	/* Set up but not enabled is fine... */
	EXPECT_EQ(0, ops->encode(pmu, 0, PCTR_FN(0xc0, 0, PCTR_U | PCTR_K),
				 false, &ctl));
	/* ...enabled at no privilege level is not. */
	EXPECT_EQ(-EINVAL, ops->encode(pmu, 0, PCTR_FN(0xc0, 0, PCTR_EN),
				       true, &ctl));
	EXPECT_EQ(-EINVAL, ops->encode(pmu, 0, PCTR_FN(0xc0, 0, PCTR_EN |
				       PCTR_E | PCTR_I), true, &ctl));
	EXPECT_EQ(0, ops->encode(pmu, 0, PCTR_FN(0xc0, 0, PCTR_K | PCTR_EN),
				 false, &ctl));
	/* PCTR_INT is reserved, whoever asks. */
	EXPECT_EQ(-EINVAL, ops->encode(pmu, 0, PCTR_FN(0xc0, 0,
				       UKE | PCTR_INT), true, &ctl));
	/* AnyThread: CAP_PERFMON where it exists, EINVAL where not. */
	EXPECT_EQ(any ? -EPERM : -EINVAL,
		  ops->encode(pmu, 0, PCTR_FN(0xc0, 0, UKE | PCTR_ANY),
			      false, &ctl));
	EXPECT_EQ(any ? 0 : -EINVAL,
		  ops->encode(pmu, 0, PCTR_FN(0xc0, 0, UKE | PCTR_ANY),
			      true, &ctl));
	/* A bit the CPU lacks outranks a missing privilege. */
	EXPECT_EQ(-EINVAL, ops->encode(pmu, 0, PCTR_FN(0xc0, 0, UKE |
				       PCTR_ANY | PCTR_INT), false, &ctl));
	/* Counter mask, invert and edge are the user's business. */
	EXPECT_EQ(0, ops->encode(pmu, 0, PCTR_FN(0xc0, 0, UKE | PCTR_E |
				 PCTR_I | (3ULL << PCTR_CM_SHIFT)), false,
				 &ctl));
	/* AMD's twelve-bit events from family 10h. */
	EXPECT_EQ(v->cfg->amd && v->cfg->family >= 0x10 ?
		  0 : -EINVAL,
		  ops->encode(pmu, 0, PCTR_FN(0x1c0, 0, UKE), false, &ctl));
}

/* A fixed counter takes mode bits only, as a FIXED_CTR_CTRL field. */
TEST_F(x86, encode_fixed)
{
	const struct cpu_expect *v = &variant->cpu;
	bool any = v->caps & PCTR_CAP_ANYTHREAD;
	static const u64 not_mode[] = {
		PCTR_FN(0xc0, 0, 0), PCTR_FN(0, 1, 0), PCTR_E, PCTR_I,
		1ULL << 19, PCTR_INT, 1ULL << PCTR_CM_SHIFT,
		1ULL << PCTR_EVENT_HI_SHIFT, 1ULL << PCTR_HG_SHIFT,
		1ULL << 63,
	};
	const struct pctr_pmu_ops *ops;
	struct pctr_pmu *pmu = &self->pmu;
	unsigned int i, j, slot;
	u64 ctl;

	if (!need_fixed(_metadata, v, self->probe_ret))
		return;
	ops = self->ops;
	for (i = 0; i < X86_MAX_FIXED; i++) {
		slot = PCTR_FIXED(i);
		if (!(v->fixed_mask & (1U << i))) {
			EXPECT_EQ(-EINVAL, ops->encode(pmu, slot, UKE, true,
						       &ctl));
			continue;
		}
		for (j = 0; j < ARRAY_SIZE(not_mode); j++)
			EXPECT_EQ(-EINVAL, ops->encode(pmu, slot,
						       UKE | not_mode[j],
						       true, &ctl))
				TH_LOG("fixed %u, bits %#llx", i,
				       (unsigned long long)not_mode[j]);
		EXPECT_EQ(-EINVAL, ops->encode(pmu, slot, PCTR_EN, true, &ctl));

		EXPECT_EQ(0, ops->encode(pmu, slot, PCTR_K | PCTR_EN, false,
					 &ctl));
		EXPECT_EQ(0x1, ctl);
		EXPECT_EQ(0, ops->encode(pmu, slot, PCTR_U | PCTR_EN, false,
					 &ctl));
		EXPECT_EQ(0x2, ctl);
		EXPECT_EQ(0, ops->encode(pmu, slot, UKE, false, &ctl));
		EXPECT_EQ(0x3, ctl);
		EXPECT_EQ(0, ops->encode(pmu, slot, PCTR_U | PCTR_K, false,
					 &ctl));
		EXPECT_EQ(0, ctl);
		EXPECT_EQ(0, ops->encode(pmu, slot, 0, false, &ctl));
		EXPECT_EQ(0, ctl);

		EXPECT_EQ(any ? -EPERM : -EINVAL,
			  ops->encode(pmu, slot, UKE | PCTR_ANY, false, &ctl));
		ctl = 0;
		EXPECT_EQ(any ? 0 : -EINVAL,
			  ops->encode(pmu, slot, UKE | PCTR_ANY, true, &ctl));
		EXPECT_EQ(any ? 0x7 : 0, ctl);
	}
}

/*
 * Start every counter from its own value, count distinct events, read
 * while running, stop: each ends at its start value plus its events.
 */
TEST_F(x86, start_read_stop)
{
	const struct cpu_expect *v = &variant->cpu;
	struct x86_model *m = &self->m;
	struct pctr_hw hw = { 0 }, rd;
	unsigned int i, f;
	u32 event, umask;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	for (i = 0; i < v->ngeneral; i++)
		ASSERT_EQ(0, set_slot(&self->pmu, &hw, i,
				      PCTR_FN(0x10 + i, i, UKE),
				      1000 * i + 7));
	for (f = 0; f < X86_MAX_FIXED; f++)
		if (v->fixed_mask & (1U << f))
			ASSERT_EQ(0, set_slot(&self->pmu, &hw, PCTR_FIXED(f),
					      UKE, 500 * f + 3));
	self->ops->start(&self->pmu, &hw);

	for (i = 0; i < v->ngeneral; i++) {
		EXPECT_EQ(hw.ctl[i], m->evtsel[i]);
		EXPECT_EQ(1000 * i + 7, m->ctr[i]);
	}
	for (f = 0; f < X86_MAX_FIXED; f++)
		if (v->fixed_mask & (1U << f))
			EXPECT_EQ(500 * f + 3, m->fixed_ctr[f]);

	for (i = 0; i < v->ngeneral; i++)
		model_retire(m, 0x10 + i, i, 10 * (i + 1));
	for (f = 0; f < X86_MAX_FIXED; f++) {
		model_fixed_event(f, &event, &umask);
		model_retire(m, event, umask, 3 * (f + 1));
	}

	rd = hw;
	self->ops->read(&self->pmu, &rd);
	for (i = 0; i < v->ngeneral; i++) {
		EXPECT_EQ(1000 * i + 7 + 10 * (i + 1), rd.val[i]);
		EXPECT_EQ(hw.ctl[i], m->evtsel[i]);	/* still running */
	}
	for (f = 0; f < X86_MAX_FIXED; f++)
		if (v->fixed_mask & (1U << f))
			EXPECT_EQ(500 * f + 3 + 3 * (f + 1),
				  rd.val[PCTR_FIXED(f)]);

	for (i = 0; i < v->ngeneral; i++)
		model_retire(m, 0x10 + i, i, 1);
	self->ops->stop(&self->pmu, &hw);
	for (i = 0; i < v->ngeneral; i++) {
		EXPECT_EQ(1000 * i + 7 + 10 * (i + 1) + 1, hw.val[i]);
		EXPECT_EQ(0, m->evtsel[i]);
	}
	for (f = 0; f < X86_MAX_FIXED; f++)
		if (v->fixed_mask & (1U << f))
			EXPECT_EQ(500 * f + 3 + 3 * (f + 1),
				  hw.val[PCTR_FIXED(f)]);
	if (v->caps & PCTR_CAP_GLOBAL_CTRL)
		EXPECT_EQ(0, m->global_ctrl);
	EXPECT_EQ(0, m->fixed_ctrl);

	/* Stopped counters do not count. */
	for (i = 0; i < v->ngeneral; i++) {
		model_retire(m, 0x10 + i, i, 5);
		EXPECT_EQ(hw.val[i], m->ctr[i]);
	}
}

/* Slots the CPU lacks are ignored, not written. */
TEST_F(x86, start_ignores_absent_slots)
{
	const struct cpu_expect *v = &variant->cpu;
	struct pctr_hw hw;
	unsigned int s;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	memset(&hw, 0, sizeof(hw));
	hw.mask = ~all_slots(v);
	for (s = 0; s < PCTR_NUM; s++)
		hw.ctl[s] = PCTR_FN(0xc0, 0, UKE);
	self->ops->start(&self->pmu, &hw);
	self->ops->read(&self->pmu, &hw);
	self->ops->stop(&self->pmu, &hw);
	for (s = 0; s < PCTR_MAX_GENERAL; s++)
		if (s < v->ngeneral)
			EXPECT_EQ(0, self->m.evtsel[s]);
}

/* PCTR_U counts at CPL 3 only, PCTR_K at CPL 0 only. */
TEST_F(x86, privilege_levels)
{
	const struct cpu_expect *v = &variant->cpu;
	struct x86_model *m = &self->m;
	struct pctr_hw hw = { 0 };
	u32 event, umask;
	unsigned int f;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	ASSERT_EQ(0, set_slot(&self->pmu, &hw, 0,
			      PCTR_FN(0xc0, 0, PCTR_U | PCTR_EN), 0));
	ASSERT_EQ(0, set_slot(&self->pmu, &hw, 1,
			      PCTR_FN(0xc0, 0, PCTR_K | PCTR_EN), 0));
	for (f = 0; f < X86_MAX_FIXED; f++)
		if (v->fixed_mask & (1U << f))
			ASSERT_EQ(0, set_slot(&self->pmu, &hw, PCTR_FIXED(f),
					      (f & 1 ? PCTR_K : PCTR_U) |
					      PCTR_EN, 0));
	self->ops->start(&self->pmu, &hw);

	model_set_user(m, true);
	model_retire(m, 0xc0, 0, 5);
	for (f = 1; f < X86_MAX_FIXED; f++) {
		model_fixed_event(f, &event, &umask);
		model_retire(m, event, umask, 5);
	}
	model_set_user(m, false);
	model_retire(m, 0xc0, 0, 7);
	for (f = 1; f < X86_MAX_FIXED; f++) {
		model_fixed_event(f, &event, &umask);
		model_retire(m, event, umask, 7);
	}

	self->ops->stop(&self->pmu, &hw);
	EXPECT_EQ(5, hw.val[0]);
	EXPECT_EQ(7, hw.val[1]);
	for (f = 0; f < X86_MAX_FIXED; f++)
		if (v->fixed_mask & (1U << f))
			EXPECT_EQ(f & 1 ? 7 : 5, hw.val[PCTR_FIXED(f)])
				TH_LOG("fixed counter %u", f);
}

/* AMD HostOnly and GuestOnly pass through to the event select. */
TEST_F(x86, amd_host_guest)
{
	const struct cpu_expect *v = &variant->cpu;
	struct x86_model *m = &self->m;
	struct pctr_hw hw = { 0 };

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	if (!v->cfg->amd || v->cfg->family < 0x10)
		SKIP(return, "no host/guest bits");
	ASSERT_EQ(0, set_slot(&self->pmu, &hw, 2,
			      PCTR_FN(0xc0, 0, UKE) | 2ULL << PCTR_HG_SHIFT,
			      0));
	ASSERT_EQ(0, set_slot(&self->pmu, &hw, 3,
			      PCTR_FN(0xc0, 0, UKE) | 1ULL << PCTR_HG_SHIFT,
			      0));
	self->ops->start(&self->pmu, &hw);
	model_retire(m, 0xc0, 0, 4);
	m->guest = true;
	model_retire(m, 0xc0, 0, 9);
	self->ops->stop(&self->pmu, &hw);
	EXPECT_EQ(4, hw.val[2]);
	EXPECT_EQ(9, hw.val[3]);
}

static bool is_counter_msr(const struct cpu_expect *v, u32 msr)
{
	unsigned int i;

	for (i = 0; i < v->ngeneral; i++)
		if (msr == ctr_msr(v, i))
			return true;
	return !v->cfg->amd && msr >= FIXED_CTR(0) &&
	       msr < FIXED_CTR(X86_MAX_FIXED);
}

static bool is_control_msr(const struct cpu_expect *v, u32 msr)
{
	unsigned int i;

	for (i = 0; i < v->ngeneral; i++)
		if (msr == evtsel_msr(v, i))
			return true;
	return !v->cfg->amd && msr == FIXED_CTR_CTRL;
}

/*
 * start() loads every value before any control, and the global enable
 * last, so nothing counts a half-programmed state; stop() clears the
 * global enable first.  With the global bit of a counter clear, that
 * counter does not count.
 */
TEST_F(x86, global_ctrl_gating)
{
	const struct cpu_expect *v = &variant->cpu;
	struct x86_model *m = &self->m;
	u32 slots = 1U | 1U << (v->ngeneral - 1);
	struct pctr_hw hw = { 0 };
	int last_value = -1, first_control = -1, gctl;
	unsigned int i, f, last;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	ASSERT_EQ(0, set_slot(&self->pmu, &hw, 0, PCTR_FN(0xc0, 0, UKE), 1));
	ASSERT_EQ(0, set_slot(&self->pmu, &hw, v->ngeneral - 1,
			      PCTR_FN(0xc0, 0, UKE), 2));
	for (f = 0; f < X86_MAX_FIXED; f++)
		if (v->fixed_mask & (1U << f)) {
			ASSERT_EQ(0, set_slot(&self->pmu, &hw, PCTR_FIXED(f),
					      UKE, 3));
			slots |= 1U << PCTR_FIXED(f);
		}
	self->ops->start(&self->pmu, &hw);

	ASSERT_NE(0, m->ntrace);
	for (i = 0; i < m->ntrace; i++) {
		if (is_counter_msr(v, m->trace[i].msr))
			last_value = i;
		if (is_control_msr(v, m->trace[i].msr) &&
		    first_control < 0)
			first_control = i;
	}
	ASSERT_LE(0, last_value);
	ASSERT_LE(0, first_control);
	EXPECT_LT(last_value, first_control);

	gctl = model_trace_find(m, global_ctrl_msr(v), 0);
	if (!(v->caps & PCTR_CAP_GLOBAL_CTRL)) {
		EXPECT_EQ(-1, gctl);
		return;
	}
	last = m->ntrace - 1;
	EXPECT_EQ(global_ctrl_msr(v), m->trace[last].msr);
	EXPECT_EQ(global_bits(slots), m->trace[last].val);
	EXPECT_EQ(global_bits(slots), m->global_ctrl);

	/* Counter 0 enabled, but gated off. */
	ASSERT_EQ(0, model_wrmsr(m, global_ctrl_msr(v),
				 global_bits(slots & ~1U)));
	model_retire(m, 0xc0, 0, 5);
	EXPECT_EQ(1, m->ctr[0]);
	EXPECT_EQ(2 + 5, m->ctr[v->ngeneral - 1]);

	last = m->ntrace;
	self->ops->stop(&self->pmu, &hw);
	EXPECT_EQ(global_ctrl_msr(v), m->trace[last].msr);
	EXPECT_EQ(0, m->trace[last].val);

	/* A start enables exactly its own counters. */
	hw.mask = 1U << 1;
	self->ops->start(&self->pmu, &hw);
	EXPECT_EQ(1U << 1, m->global_ctrl);
	self->ops->stop(&self->pmu, &hw);
}

/*
 * Slots in hw->keep (PCTR_PMU_KEEP) are not rewritten: their registers
 * still hold what stop() read, even a value a 32-bit write could not
 * restore.  Without keep, the value goes through the write rules again.
 */
TEST_F(x86, keep_skips_value_writes)
{
	const struct cpu_expect *v = &variant->cpu;
	bool exact = v->cfg->amd || (v->caps & PCTR_CAP_FULL_WIDTH);
	u64 mask = width_mask(v->width), big = 0x80000010ULL;
	struct pctr_pmu *pmu = &self->pmu;
	struct x86_model *m = &self->m;
	struct pctr_hw hw = { 0 };
	unsigned int f, i, at;
	u32 event, umask;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	EXPECT_TRUE(pmu->flags & PCTR_PMU_KEEP);
	ASSERT_EQ(0, set_slot(pmu, &hw, 0, PCTR_FN(0xc0, 0, UKE),
			      big - 0x20));
	for (f = 0; f < X86_MAX_FIXED; f++)
		if (v->fixed_mask & (1U << f))
			ASSERT_EQ(0, set_slot(pmu, &hw, PCTR_FIXED(f), UKE,
					      100));
	pmu->ops->start(pmu, &hw);
	model_retire(m, 0xc0, 0, 0x20);
	for (f = 1; f < X86_MAX_FIXED; f++) {
		model_fixed_event(f, &event, &umask);
		model_retire(m, event, umask, 0x20);
	}
	pmu->ops->stop(pmu, &hw);
	ASSERT_EQ(big, hw.val[0]);

	hw.keep = hw.mask;
	at = m->ntrace;
	pmu->ops->start(pmu, &hw);
	for (i = at; i < m->ntrace; i++)
		EXPECT_FALSE(is_counter_msr(v, m->trace[i].msr))
			TH_LOG("MSR %#x rewritten", m->trace[i].msr);
	EXPECT_EQ(big, m->ctr[0]);
	model_retire(m, 0xc0, 0, 1);
	for (f = 1; f < X86_MAX_FIXED; f++) {
		model_fixed_event(f, &event, &umask);
		model_retire(m, event, umask, 1);
	}
	pmu->ops->stop(pmu, &hw);
	EXPECT_EQ(big + 1, hw.val[0]);
	for (f = 0; f < X86_MAX_FIXED; f++)
		if (v->fixed_mask & (1U << f))
			EXPECT_EQ(100 + 0x20 + 1, hw.val[PCTR_FIXED(f)]);

	hw.keep = 0;
	pmu->ops->start(pmu, &hw);
	EXPECT_EQ(exact ? big + 1 : (mask & ~0x7fffffffULL) | 0x11,
		  m->ctr[0]);
	pmu->ops->stop(pmu, &hw);
}

/* FIXED_CTR_CTRL: four bits per counter, at 4 * i. */
TEST_F(x86, fixed_ctrl_fields)
{
	const struct cpu_expect *v = &variant->cpu;
	static const u64 modes[] = {
		PCTR_K | PCTR_EN, PCTR_U | PCTR_EN, UKE,
	};
	struct x86_model *m = &self->m;
	u64 all = 0, want;
	struct pctr_hw hw;
	unsigned int f, j;
	u32 event, umask;

	if (!need_fixed(_metadata, v, self->probe_ret))
		return;
	for (f = 0; f < X86_MAX_FIXED; f++) {
		if (!(v->fixed_mask & (1U << f)))
			continue;
		model_fixed_event(f, &event, &umask);
		for (j = 0; j < ARRAY_SIZE(modes); j++) {
			memset(&hw, 0, sizeof(hw));
			ASSERT_EQ(0, set_slot(&self->pmu, &hw, PCTR_FIXED(f),
					      modes[j], 0));
			self->ops->start(&self->pmu, &hw);
			EXPECT_EQ((u64)(j + 1) << (4 * f), m->fixed_ctrl);
			EXPECT_EQ(1ULL << (32 + f), m->global_ctrl);
			model_set_user(m, true);
			model_retire(m, event, umask, 4);
			model_set_user(m, false);
			model_retire(m, event, umask, 6);
			self->ops->stop(&self->pmu, &hw);
			EXPECT_EQ(0, m->fixed_ctrl);
			want = (modes[j] & PCTR_U ? 4 : 0) +
			       (modes[j] & PCTR_K ? 6 : 0);
			EXPECT_EQ(want, hw.val[PCTR_FIXED(f)])
				TH_LOG("fixed %u mode %u", f, j);
		}
	}

	/* All at once, each its own mode. */
	memset(&hw, 0, sizeof(hw));
	for (f = 0; f < X86_MAX_FIXED; f++) {
		if (!(v->fixed_mask & (1U << f)))
			continue;
		j = f % ARRAY_SIZE(modes);
		ASSERT_EQ(0, set_slot(&self->pmu, &hw, PCTR_FIXED(f),
				      modes[j], 0));
		all |= (u64)(j + 1) << (4 * f);
	}
	self->ops->start(&self->pmu, &hw);
	EXPECT_EQ(all, m->fixed_ctrl);
	EXPECT_EQ((u64)v->fixed_mask << 32, m->global_ctrl);
	self->ops->stop(&self->pmu, &hw);

	/* AnyThread, where there is such a thing. */
	if (v->caps & PCTR_CAP_ANYTHREAD) {
		memset(&hw, 0, sizeof(hw));
		ASSERT_EQ(0, self->ops->encode(&self->pmu, PCTR_FIXED(0),
					       UKE | PCTR_ANY, true,
					       &hw.ctl[PCTR_FIXED(0)]));
		hw.mask = 1U << PCTR_FIXED(0);
		self->ops->start(&self->pmu, &hw);
		EXPECT_EQ(0x7, m->fixed_ctrl);
		self->ops->stop(&self->pmu, &hw);
	}
}

/* Start slot 0 from @val and report what the counter holds. */
static u64 start_from(struct __test_metadata *_metadata,
		      struct pctr_pmu *pmu, const struct x86_model *m, u64 val)
{
	struct pctr_hw hw = { 0 };
	u64 held;

	EXPECT_EQ(0, set_slot(pmu, &hw, 0, PCTR_FN(0xc0, 0, UKE), val));
	pmu->ops->start(pmu, &hw);
	held = m->ctr[0];
	pmu->ops->stop(pmu, &hw);
	return held;
}

/*
 * Counters wrap at their width.  Without full-width writes a value is
 * what sign extension from bit 31 makes of it; with them, or on AMD, it
 * is written as given (masked to the width).
 */
TEST_F(x86, width_and_sign_extension)
{
	const struct cpu_expect *v = &variant->cpu;
	bool exact = v->cfg->amd || (v->caps & PCTR_CAP_FULL_WIDTH);
	u64 mask = width_mask(v->width), fmask;
	struct pctr_pmu *pmu = &self->pmu;
	struct x86_model *m = &self->m;
	struct pctr_hw hw = { 0 };
	u32 event, umask;
	unsigned int f;
	int at;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	/* The top 2^31 values are writable either way. */
	ASSERT_EQ(0, set_slot(&self->pmu, &hw, 0, PCTR_FN(0xc0, 0, UKE),
			      mask - 4));
	self->ops->start(&self->pmu, &hw);
	EXPECT_EQ(mask - 4, m->ctr[0]);
	model_retire(m, 0xc0, 0, 10);
	self->ops->stop(&self->pmu, &hw);
	EXPECT_EQ(5, hw.val[0]);

	/* Which register took the value. */
	at = model_trace_find(m, ctr_msr(v, 0), 0);
	EXPECT_LE(0, at);
	if (!v->cfg->amd)
		EXPECT_EQ(-1, model_trace_find(m, exact ? 0xc1 : 0x4c1, 0));

	EXPECT_EQ(exact ? 0x123456789ULL : 0x23456789ULL,
		  start_from(_metadata, pmu, m, 0x123456789ULL));
	EXPECT_EQ(exact ? 0x80000000ULL : mask & ~0x7fffffffULL,
		  start_from(_metadata, pmu, m, 0x80000000ULL));
	EXPECT_EQ(0x7fffffffULL, start_from(_metadata, pmu, m, 0x7fffffffULL));
	/* Bits above the width never reach the register. */
	EXPECT_EQ(mask, start_from(_metadata, pmu, m, ~0ULL));
	EXPECT_EQ(0x5ULL, start_from(_metadata, pmu, m, (1ULL << 60) | 5));

	for (f = 0; f < X86_MAX_FIXED; f++) {
		if (!(v->fixed_mask & (1U << f)))
			continue;
		fmask = width_mask(v->fixed_width);
		memset(&hw, 0, sizeof(hw));
		ASSERT_EQ(0, set_slot(&self->pmu, &hw, PCTR_FIXED(f), UKE,
				      ~0ULL - 2));
		self->ops->start(&self->pmu, &hw);
		EXPECT_EQ(fmask - 2, m->fixed_ctr[f]);
		model_fixed_event(f, &event, &umask);
		model_retire(m, event, umask, 5);
		self->ops->stop(&self->pmu, &hw);
		EXPECT_EQ(2, hw.val[PCTR_FIXED(f)]);
	}
}

/*
 * Started from 2^32 - 2, a counter without full-width writes holds
 * 2^width - 2 and wraps two events later; with them (or on AMD) it
 * holds 2^32 - 2 and does not.
 */
TEST_F(x86, wrap_after_sign_extension)
{
	const struct cpu_expect *v = &variant->cpu;
	bool exact = v->cfg->amd || (v->caps & PCTR_CAP_FULL_WIDTH);
	u64 mask = width_mask(v->width);
	struct pctr_pmu *pmu = &self->pmu;
	struct pctr_hw hw = { 0 };

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	ASSERT_EQ(0, set_slot(pmu, &hw, 0, PCTR_FN(0xc0, 0, UKE),
			      0xfffffffeULL));
	self->ops->start(pmu, &hw);
	EXPECT_EQ(exact ? 0xfffffffeULL : mask - 1, self->m.ctr[0]);
	model_retire(&self->m, 0xc0, 0, 2);
	self->ops->stop(pmu, &hw);
	EXPECT_EQ(exact ? 0x100000000ULL : 0, hw.val[0]);
}

/* The value rdpmc would read from the counter of @slot. */
static u64 counter_reg(struct x86_model *m, unsigned int slot)
{
	if (slot < PCTR_FIXED_BASE)
		return m->ctr[slot];
	return m->fixed_ctr[slot - PCTR_FIXED_BASE];
}

/* Writes of 0 to counter registers (not controls) since trace entry @at. */
static unsigned int counter_zeroings(struct x86_model *m,
				     const struct cpu_expect *v,
				     unsigned int at)
{
	unsigned int i, s, n = 0;

	for (i = at; i < m->ntrace; i++)
		for (s = 0; s < PCTR_NUM; s++)
			if ((all_slots(v) & (1U << s)) && !m->trace[i].val &&
			    m->trace[i].msr == (s < PCTR_FIXED_BASE ?
						ctr_msr(v, s) :
						FIXED_CTR(s - PCTR_FIXED_BASE)))
				n++;
	return n;
}

/*
 * A context's counts left on a CPU must not be readable by the next
 * thread that reads counters in user mode: when a context with
 * user_read starts, every counter register it does not own reads 0.
 * Without user_read nothing extra is written, and a thread that follows
 * itself, the common case, costs no writes either.
 */
TEST_F(x86, user_read_scrubs_foreign_counts)
{
	const struct cpu_expect *v = &variant->cpu;
	struct pctr_pmu *pmu = &self->pmu;
	struct x86_model *m = &self->m;
	struct pctr_hw a = { 0 }, b = { 0 }, c = { 0 };
	unsigned int s, at;
	u32 event, umask;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	/* Context a counts on every counter and leaves its values. */
	for (s = 0; s < PCTR_NUM; s++)
		if (all_slots(v) & (1U << s))
			ASSERT_EQ(0, set_slot(pmu, &a, s, s < PCTR_FIXED_BASE ?
					      PCTR_FN(0xc0, 0, UKE) : UKE,
					      1000 + s));
	self->ops->start(pmu, &a);
	model_retire(m, 0xc0, 0, 5);
	for (s = 0; s < v->nfixed; s++) {
		model_fixed_event(s, &event, &umask);
		if (event != 0xc0)
			model_retire(m, event, umask, 5);
	}
	self->ops->stop(pmu, &a);
	for (s = 0; s < PCTR_NUM; s++)
		if (all_slots(v) & (1U << s))
			ASSERT_EQ(1005 + s, counter_reg(m, s));

	/* Context c, no user reads: a's values stay, nothing is zeroed. */
	at = m->ntrace;
	ASSERT_EQ(0, set_slot(pmu, &c, 0, PCTR_FN(0xc0, 0, UKE), 7));
	self->ops->start(pmu, &c);
	self->ops->stop(pmu, &c);
	EXPECT_EQ(0, counter_zeroings(m, v, at));
	EXPECT_EQ(1006, counter_reg(m, 1));

	/* Context b, user reads, owns slot 1 only: the rest reads 0. */
	ASSERT_EQ(0, set_slot(pmu, &b, 1, PCTR_FN(0xc0, 0, UKE), 42));
	b.user_read = true;
	self->ops->start(pmu, &b);
	EXPECT_EQ(0, b.err);
	for (s = 0; s < PCTR_NUM; s++)
		if (s != 1 && (all_slots(v) & (1U << s)))
			EXPECT_EQ(0, counter_reg(m, s)) TH_LOG("slot %u", s);
	EXPECT_EQ(42, counter_reg(m, 1));
	self->ops->stop(pmu, &b);

	/* b again, kept: every other register is clean, nothing to write. */
	at = m->ntrace;
	b.keep = b.mask;
	self->ops->start(pmu, &b);
	self->ops->stop(pmu, &b);
	EXPECT_EQ(0, counter_zeroings(m, v, at));
}

/* The core's backend, which the arch seam's inline helpers consult. */
struct pctr_pmu pctr_pmu;
extern bool model_pce;

/*
 * CR4.PCE (user-mode rdpmc) is only ever turned on with
 * PCTR_CAP_USER_RDPMC: the core clears it for user_rdpmc=0, and then
 * nothing that asks can turn rdpmc on.
 */
TEST_F(x86, user_rdpmc_only_with_the_cap)
{
	if (!need_pmu(_metadata, &variant->cpu, self->probe_ret))
		return;
	pctr_pmu = self->pmu;
	ASSERT_TRUE(pctr_pmu.caps & PCTR_CAP_USER_RDPMC);
	model_pce = false;
	pctr_arch_user_rdpmc(true);
	EXPECT_TRUE(model_pce);
	pctr_arch_user_rdpmc(false);
	EXPECT_FALSE(model_pce);

	pctr_pmu.caps &= ~PCTR_CAP_USER_RDPMC;	/* user_rdpmc=0 */
	pctr_arch_user_rdpmc(true);
	EXPECT_FALSE(model_pce);
}

/* Inject a #GP on @msr for the next call; the fixture must see none. */
static void fail_once(struct x86_model *m, u32 msr)
{
	m->fail_msr = msr;
	m->nwarn = 0;
	m->log[0] = '\0';
}

static void fail_none(struct x86_model *m)
{
	m->fail_msr = 0;
	m->faults = 0;
}

/*
 * A counter register that faults in start(), stop() or read() is not
 * ignored: hw->err says EIO, and one warning names the MSR.
 */
TEST_F(x86, failed_register_access_is_reported)
{
	const struct cpu_expect *v = &variant->cpu;
	struct pctr_pmu *pmu = &self->pmu;
	struct x86_model *m = &self->m;
	struct pctr_hw hw = { 0 };
	char msr[16];

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	ASSERT_EQ(0, set_slot(pmu, &hw, 0, PCTR_FN(0xc0, 0, UKE), 5));

	fail_once(m, evtsel_msr(v, 0));
	self->ops->start(pmu, &hw);
	EXPECT_EQ(-EIO, hw.err);
	EXPECT_EQ(1, m->nwarn);
	snprintf(msr, sizeof(msr), "%#x", evtsel_msr(v, 0));
	EXPECT_NE(NULL, strstr(m->log, msr)) TH_LOG("log: %s", m->log);
	fail_none(m);

	hw.err = 0;
	fail_once(m, ctr_msr(v, 0));
	self->ops->read(pmu, &hw);
	EXPECT_EQ(-EIO, hw.err);
	snprintf(msr, sizeof(msr), "%#x", ctr_msr(v, 0));
	EXPECT_NE(NULL, strstr(m->log, msr)) TH_LOG("log: %s", m->log);
	hw.err = 0;
	self->ops->stop(pmu, &hw);
	EXPECT_EQ(-EIO, hw.err);
	fail_none(m);

	/* Accesses that work leave err alone. */
	hw.err = 0;
	self->ops->start(pmu, &hw);
	self->ops->read(pmu, &hw);
	self->ops->stop(pmu, &hw);
	EXPECT_EQ(0, hw.err);
}

TEST_F(x86, rdpmc_index)
{
	const struct cpu_expect *v = &variant->cpu;
	unsigned int s;
	int want;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	for (s = 0; s < PCTR_NUM + 4; s++) {
		if (s < v->ngeneral)
			want = s;
		else if (s >= PCTR_FIXED_BASE && s < PCTR_NUM &&
			 (v->fixed_mask & (1U << (s - PCTR_FIXED_BASE))))
			want = 1 << 30 | (s - PCTR_FIXED_BASE);
		else
			want = -1;
		EXPECT_EQ(want, self->ops->rdpmc_index(&self->pmu, s))
			TH_LOG("slot %u", s);
	}
}

/*
 * reserve() takes every general counter and event select, release()
 * gives back exactly those.
 */
TEST_F(x86, reserve_and_release)
{
	const struct cpu_expect *v = &variant->cpu;
	struct x86_model *m = &self->m;
	unsigned int i, before;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	ASSERT_EQ(0, self->ops->reserve(&self->pmu));
	for (i = 0; i < v->ngeneral; i++) {
		EXPECT_TRUE(model_ctr_reserved(m, i)) TH_LOG("counter %u", i);
		EXPECT_TRUE(model_evntsel_reserved(m, i)) TH_LOG("sel %u", i);
	}
	EXPECT_EQ(2 * v->ngeneral, model_reserved_count(m));
	EXPECT_EQ(0, self->ops->reserve(&self->pmu));
	EXPECT_EQ(2 * v->ngeneral, model_reserved_count(m));

	self->ops->release(&self->pmu);
	EXPECT_EQ(0, model_reserved_count(m));
	self->ops->release(&self->pmu);
	EXPECT_EQ(0, model_reserved_count(m));

	/* Releasing what it does not hold leaves others' alone. */
	model_perf_reserve_all(m);
	before = model_reserved_count(m);
	EXPECT_NE(0, before);
	self->ops->release(&self->pmu);
	EXPECT_EQ(before, model_reserved_count(m));
	EXPECT_EQ(0, m->nwarn);
}

/* With perf (or the NMI watchdog) holding the counters: EBUSY, one line. */
TEST_F(x86, reserve_busy_with_perf)
{
	const struct cpu_expect *v = &variant->cpu;
	struct x86_model *m = &self->m;
	unsigned int before;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	model_perf_reserve_all(m);
	before = model_reserved_count(m);
	EXPECT_EQ(-EBUSY, self->ops->reserve(&self->pmu));
	EXPECT_EQ(before, model_reserved_count(m));
	EXPECT_EQ(1, m->nwarn);
	EXPECT_NE(NULL, strstr(m->log, "sysctl kernel.nmi_watchdog=0"))
		TH_LOG("log: %s", m->log);
	EXPECT_EQ(-EBUSY, self->ops->reserve(&self->pmu));
	EXPECT_EQ(2, m->nwarn);
}

/* Whichever counter is taken, a refusal leaves nothing of pctr's. */
TEST_F(x86, reserve_busy_unwinds)
{
	const struct cpu_expect *v = &variant->cpu;
	struct x86_model *m = &self->m;
	unsigned int i;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	for (i = 0; i < v->ngeneral; i++) {
		model_take_evntsel(m, i);
		EXPECT_EQ(-EBUSY, self->ops->reserve(&self->pmu));
		EXPECT_EQ(1, model_reserved_count(m)) TH_LOG("taken: %u", i);
		model_give_evntsel(m, i);
	}
	EXPECT_EQ(v->ngeneral, m->nwarn);
	EXPECT_EQ(0, self->ops->reserve(&self->pmu));
	self->ops->release(&self->pmu);
}

/* --- overflow interrupts (PCTR_PMU_NOTIFY) ------------------------------ */

static bool need_notify(struct __test_metadata *_metadata,
			const struct cpu_expect *v, int probe_ret)
{
	if (!need_pmu(_metadata, v, probe_ret))
		return false;
	if (!has_notify(v))
		SKIP(return false, "%s has no overflow status: no notification",
		     v->cfg->name);
	return true;
}

/* The counter register of @slot, as the model holds it. */
static u64 model_ctr(struct x86_model *m, unsigned int slot)
{
	if (slot >= PCTR_FIXED_BASE)
		return m->fixed_ctr[slot - PCTR_FIXED_BASE];
	return m->ctr[slot];
}

/* reserve() turns the PMI on (or fails with it, unwound), release() off. */
TEST_F(x86, reserve_turns_pmi_on)
{
	const struct cpu_expect *v = &variant->cpu;
	struct x86_model *m = &self->m;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	ASSERT_EQ(0, self->ops->reserve(&self->pmu));
	EXPECT_EQ(has_notify(v) ? 1 : 0, model_pmi_on);
	EXPECT_EQ(0, model_pmi_off);
	self->ops->release(&self->pmu);
	EXPECT_EQ(has_notify(v) ? 1 : 0, model_pmi_off);
	EXPECT_EQ(0, model_reserved_count(m));
	if (!has_notify(v))
		return;
	model_pmi_on_ret = -EINVAL;
	EXPECT_EQ(-EINVAL, self->ops->reserve(&self->pmu));
	EXPECT_EQ(0, model_reserved_count(m));
	EXPECT_EQ(1, model_pmi_off);
	model_pmi_on_ret = 0;
}

/* Without a local APIC there is no PMI: no notification. */
TEST_F(x86, no_apic_no_notify)
{
	const struct cpu_expect *v = &variant->cpu;
	struct pctr_pmu pmu = { 0 };

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	model_init(&self->m, v->cfg);
	model_no_apic = true;
	ASSERT_EQ(0, pctr_arch.probe(&pmu, &self->cpu));
	EXPECT_FALSE(pmu.caps & PCTR_CAP_NOTIFY);
	EXPECT_FALSE(pmu.flags & PCTR_PMU_NOTIFY);
}

/*
 * A slot the core asks to interrupt after P events (hw->left) is loaded
 * with -P and its INT bit, and hw->val says so; the others as given.
 * P - 1 events raise nothing, the P-th one PMI and the overflow status
 * of that slot alone, which the ack clears.  Every general counter and
 * every fixed one, in turn.
 */
TEST_F(x86, overflow_interrupt_at_left)
{
	const struct cpu_expect *v = &variant->cpu;
	struct x86_model *m = &self->m;
	const u64 P = 1000;
	unsigned int s, o, w;
	u32 event, umask, slots = all_slots(v);
	u64 fn;

	if (!need_notify(_metadata, v, self->probe_ret))
		return;
	for (s = 0; s < PCTR_NUM; s++) {
		struct pctr_hw hw = { 0 };

		if (!(slots & BIT(s)))
			continue;
		fn = s < PCTR_FIXED_BASE ? PCTR_FN(0x10, 1, UKE) : UKE;
		ASSERT_EQ(0, set_slot(&self->pmu, &hw, s, fn, 77));
		/* Another slot counts the same, unarmed. */
		o = s == 0 ? 1 : 0;
		ASSERT_EQ(0, set_slot(&self->pmu, &hw, o, PCTR_FN(0x10, 1, UKE),
				      5));
		hw.left[s] = P;
		m->pmis = 0;
		model_pmi_late = 0;
		self->ops->start(&self->pmu, &hw);
		w = s < PCTR_FIXED_BASE ? v->width : v->fixed_width;
		EXPECT_EQ(-P & width_mask(w), hw.val[s]) TH_LOG("slot %u", s);
		EXPECT_EQ(-P & width_mask(w), model_ctr(m, s));
		EXPECT_EQ(5, hw.val[o]);
		EXPECT_EQ(5, m->ctr[o]);
		if (s < PCTR_FIXED_BASE) {
			EXPECT_EQ(hw.ctl[s] | PCTR_INT, m->evtsel[s]);
		} else {
			EXPECT_EQ(8, (m->fixed_ctrl >> (4 * (s - PCTR_FIXED_BASE)))
				  & 8);
		}
		EXPECT_EQ(hw.ctl[o], m->evtsel[o]);
		EXPECT_EQ(0, self->ops->overflow_status(&self->pmu));

		if (s < PCTR_FIXED_BASE) {
			event = 0x10;
			umask = 1;
		} else {
			model_fixed_event(s - PCTR_FIXED_BASE, &event, &umask);
		}
		model_retire(m, event, umask, P - 1);
		EXPECT_EQ(0, m->pmis) TH_LOG("slot %u", s);
		EXPECT_EQ(0, self->ops->overflow_status(&self->pmu));
		model_retire(m, event, umask, 1);
		EXPECT_EQ(1, m->pmis) TH_LOG("slot %u", s);
		EXPECT_EQ(BIT(s), self->ops->overflow_status(&self->pmu) &
				  BIT(s));
		EXPECT_EQ(0, model_ctr(m, s));
		/* stop() saw the overflow: its PMI may come after it. */
		self->ops->stop(&self->pmu, &hw);
		EXPECT_EQ(0, hw.val[s]);
		EXPECT_EQ(1, model_pmi_late) TH_LOG("slot %u", s);
		self->ops->overflow_ack(&self->pmu, BIT(s));
		if (v->cfg->amd && !v->cfg->perfmon_v2)
			continue;	/* legacy: the counter is the status */
		EXPECT_EQ(0, self->ops->overflow_status(&self->pmu) & BIT(s));
	}
}

/*
 * A distance beyond what the counter can be armed for arms it as far as
 * it goes: 2^31 through a legacy Intel PMCx (32-bit writes), else half
 * the width, so a legacy AMD counter's top bit is set while armed.  The
 * interrupt then comes early, and the core arms again.
 */
TEST_F(x86, overflow_arms_within_reach)
{
	const struct cpu_expect *v = &variant->cpu;
	struct x86_model *m = &self->m;
	struct pctr_hw hw = { 0 };
	u64 reach;

	if (!need_notify(_metadata, v, self->probe_ret))
		return;
	ASSERT_EQ(0, set_slot(&self->pmu, &hw, 0, PCTR_FN(0x10, 1, UKE), 0));
	hw.left[0] = 1ULL << 60;
	self->ops->start(&self->pmu, &hw);
	reach = !v->cfg->amd && !(v->caps & PCTR_CAP_FULL_WIDTH) ?
		1ULL << 31 : 1ULL << (v->width - 1);
	EXPECT_EQ(-reach & width_mask(v->width), hw.val[0]);
	EXPECT_EQ(-reach & width_mask(v->width), m->ctr[0]);
	model_retire(m, 0x10, 1, reach - 1);
	EXPECT_EQ(0, m->pmis);
	model_retire(m, 0x10, 1, 1);
	EXPECT_EQ(1, m->pmis);
	EXPECT_EQ(1, self->ops->overflow_status(&self->pmu) & 1);
	self->ops->stop(&self->pmu, &hw);
}

/*
 * A slot armed while kept (the core's keep shortcut) is written anyway:
 * the distance changed.  Unarmed, no slot has its INT bit, and nothing
 * says an overflow is ours: a wrap of a plain counter is no PMI.
 */
TEST_F(x86, overflow_arming_overrides_keep)
{
	const struct cpu_expect *v = &variant->cpu;
	struct x86_model *m = &self->m;
	struct pctr_hw hw = { 0 };

	if (!need_notify(_metadata, v, self->probe_ret))
		return;
	ASSERT_EQ(0, set_slot(&self->pmu, &hw, 0, PCTR_FN(0x10, 1, UKE), 9));
	self->ops->start(&self->pmu, &hw);
	EXPECT_EQ(hw.ctl[0], m->evtsel[0]);
	self->ops->stop(&self->pmu, &hw);
	hw.keep = 1;
	hw.left[0] = 3;
	self->ops->start(&self->pmu, &hw);
	EXPECT_EQ(-3ULL & width_mask(v->width), m->ctr[0]);
	EXPECT_EQ(hw.ctl[0] | PCTR_INT, m->evtsel[0]);
	self->ops->stop(&self->pmu, &hw);
	hw.left[0] = 0;
	hw.val[0] = width_mask(v->width);
	hw.keep = 0;
	self->ops->start(&self->pmu, &hw);
	model_retire(m, 0x10, 1, 2);
	EXPECT_EQ(0, m->pmis);
	EXPECT_EQ(0, self->ops->overflow_status(&self->pmu) &
		     (v->cfg->amd && !v->cfg->perfmon_v2 ? ~0U : 0));
	self->ops->stop(&self->pmu, &hw);
	EXPECT_EQ(0, model_pmi_late);
}

/* The Intel architectural events, in CPUID.0AH:EBX order. */
static const struct {
	const char	*name;
	u64		fn;
} intel_arch[] = {
	{ "UNHALTED_CORE_CYCLES", PCTR_FN(0x3c, 0x00, 0) },
	{ "INSTRUCTION_RETIRED", PCTR_FN(0xc0, 0x00, 0) },
	{ "UNHALTED_REFERENCE_CYCLES", PCTR_FN(0x3c, 0x01, 0) },
	{ "LLC_REFERENCES", PCTR_FN(0x2e, 0x4f, 0) },
	{ "LLC_MISSES", PCTR_FN(0x2e, 0x41, 0) },
	{ "BRANCH_INSTRUCTIONS_RETIRED", PCTR_FN(0xc4, 0x00, 0) },
	{ "MISPREDICTED_BRANCH_RETIRED", PCTR_FN(0xc5, 0x00, 0) },
	{ "TOPDOWN_SLOTS", PCTR_FN(0xa4, 0x01, 0) },
};

static const char *const intel_fixed[] = {
	"INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD",
	"CPU_CLK_UNHALTED.REF_TSC", "TOPDOWN.SLOTS",
};

static const struct pctr_event_desc *find_event(const struct pctr_pmu *pmu,
						const char *name)
{
	unsigned int i;

	for (i = 0; i < pmu->nevents; i++)
		if (!strcmp(pmu->events[i].name, name))
			return &pmu->events[i];
	return NULL;
}

/* The named events are the ones the CPU has, and count what they say. */
/* Architectural event @i on every core type of @c (CPUID 0xA EBX). */
static bool arch_event_avail(const struct model_config *c, unsigned int i)
{
	const struct model_config *o = c->other_core;

	if (o && !(i < o->ebx_len && !(o->ebx & (1U << i))))
		return false;
	return i < c->ebx_len && !(c->ebx & (1U << i));
}

TEST_F(x86, named_events)
{
	const struct cpu_expect *v = &variant->cpu;
	const struct model_config *c = v->cfg;
	struct pctr_pmu *pmu = &self->pmu;
	const struct pctr_event_desc *e;
	unsigned int i, j, s, want = 0;
	struct pctr_hw hw;
	u32 event, umask;
	bool avail;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	for (i = 0; i < pmu->nevents; i++) {
		e = &pmu->events[i];
		ASSERT_NE(NULL, e->name);
		ASSERT_NE(NULL, e->desc);
		EXPECT_LT(0, strlen(e->name));
		EXPECT_GT(48, strlen(e->name));
		EXPECT_LT(0, strlen(e->desc));
		EXPECT_GT(80, strlen(e->desc)) TH_LOG("%s", e->desc);
		EXPECT_EQ(0, e->fn & ~(PCTR_EVENT_MASK | PCTR_UM_MASK |
				      PCTR_EVENT_HI_MASK));
		EXPECT_NE(0, e->slots);
		EXPECT_EQ(0, e->slots & ~(u64)all_slots(v));
		for (j = 0; j < i; j++)
			EXPECT_STRNE(e->name, pmu->events[j].name);

		for (s = 0; s < PCTR_NUM; s++) {
			if (!(e->slots & (1ULL << s)))
				continue;
			memset(&hw, 0, sizeof(hw));
			ASSERT_EQ(0, set_slot(pmu, &hw, s, e->fn | UKE, 0))
				TH_LOG("%s on slot %u", e->name, s);
			self->ops->start(pmu, &hw);
			slot_event(s, e->fn, &event, &umask);
			model_retire(&self->m, event, umask, 7);
			self->ops->stop(pmu, &hw);
			EXPECT_EQ(7, hw.val[s]) TH_LOG("%s on slot %u",
						       e->name, s);
		}
	}

	if (c->amd) {
		EXPECT_NE(NULL, find_event(pmu, "CYCLES_NOT_IN_HALT"));
		EXPECT_NE(NULL, find_event(pmu, "RETIRED_INSTRUCTIONS"));
		EXPECT_NE(NULL, find_event(pmu, "RETIRED_BRANCH_INSTRUCTIONS"));
		EXPECT_NE(NULL, find_event(pmu,
				"RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED"));
		for (i = 0; i < pmu->nevents; i++)
			EXPECT_EQ(general_slots(v),
				  pmu->events[i].slots);
		return;
	}

	/* Intel: EBX bit i set, or i past EAX[31:24], means no event i. */
	for (i = 0; i < ARRAY_SIZE(intel_arch); i++) {
		avail = arch_event_avail(c, i);
		e = find_event(pmu, intel_arch[i].name);
		if (!avail) {
			EXPECT_EQ(NULL, e) TH_LOG("%s", intel_arch[i].name);
			continue;
		}
		want++;
		ASSERT_NE(NULL, e) TH_LOG("%s", intel_arch[i].name);
		EXPECT_EQ(intel_arch[i].fn, e->fn);
		EXPECT_EQ(general_slots(v), e->slots);
	}
	for (i = 0; i < ARRAY_SIZE(intel_fixed); i++) {
		e = find_event(pmu, intel_fixed[i]);
		if (!(v->fixed_mask & (1U << i))) {
			EXPECT_EQ(NULL, e) TH_LOG("%s", intel_fixed[i]);
			continue;
		}
		want++;
		ASSERT_NE(NULL, e) TH_LOG("%s", intel_fixed[i]);
		EXPECT_EQ(0, e->fn);
		EXPECT_EQ(1ULL << PCTR_FIXED(i), e->slots);
	}
	EXPECT_EQ(want, pmu->nevents);
}

/*
 * Hybrid parts: the probe offers only what every core type has, and
 * says so; a counter only the bigger cores have is refused, so no
 * thread can program (or rdpmc) a counter its next CPU lacks.
 */
TEST_F(x86, hybrid_offers_common_counters)
{
	const struct model_config *c = variant->cpu.cfg;
	struct pctr_pmu *pmu = &self->pmu;
	u64 ctl;

	if (!c->other_core)
		SKIP(return, "%s is not hybrid", c->name);
	ASSERT_EQ(0, self->probe_ret);
	EXPECT_NE(NULL, strstr(pmu->desc, "hybrid")) TH_LOG("%s", pmu->desc);
	EXPECT_EQ(-EINVAL, self->ops->encode(pmu, 6, PCTR_FN(0xc0, 0, UKE),
					     false, &ctl));
	EXPECT_EQ(-EINVAL, self->ops->encode(pmu, PCTR_FIXED(3), UKE, false,
					     &ctl));
	EXPECT_EQ(-1, self->ops->rdpmc_index(pmu, 6));
	EXPECT_EQ(-1, self->ops->rdpmc_index(pmu, PCTR_FIXED(3)));
	EXPECT_EQ(NULL, find_event(pmu, "TOPDOWN_SLOTS"));
	EXPECT_EQ(NULL, find_event(pmu, "TOPDOWN.SLOTS"));
}

/*
 * A hybrid part whose other core type comes online only after load (the
 * probe saw one kind): that CPU is kept offline, saying why, unless it
 * has every counter offered.  A CPU of a kind the probe saw is welcome.
 */
TEST(hybrid_cpu_online_after_load)
{
	static const struct {
		const struct model_config *cfg;
		int	online;	/* cpu_check() of the other core type */
	} cases[] = {
		{ &cpu_intel_hybrid_p, -EOPNOTSUPP },	/* 8+4 offered, 6+3 */
		{ &cpu_intel_hybrid_e, 0 },		/* 6+3 offered, 8+4 */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct x86_model m;
		struct pctr_cpu_id cpu;
		struct pctr_pmu pmu = {};
		const struct pctr_pmu_ops *ops;

		model_init(&m, cases[i].cfg);
		m.ncpus = 1;			/* only the loading CPU's kind */
		pctr_arch.identify(&cpu);
		ASSERT_EQ(0, pctr_arch.probe(&pmu, &cpu));
		EXPECT_EQ(NULL, strstr(pmu.desc, "hybrid")) TH_LOG("%s", pmu.desc);
		ops = pmu.ops;
		ASSERT_NE(NULL, ops->cpu_check);
		m.ncpus = 2;			/* the other kind comes online */
		m.nwarn = 0;
		m.log[0] = '\0';
		EXPECT_EQ(0, ops->cpu_check(&pmu, 0));
		EXPECT_EQ(cases[i].online, ops->cpu_check(&pmu, 1))
			TH_LOG("%s", cases[i].cfg->name);
		if (cases[i].online) {
			EXPECT_EQ(1, m.nwarn);
			EXPECT_NE(NULL, strstr(m.log, "CPU 1 has fewer counters (6 general"))
				TH_LOG("%s", m.log);
			EXPECT_NE(NULL, strstr(m.log, "stays offline"));
		} else {
			EXPECT_EQ(0, m.nwarn) TH_LOG("%s", m.log);
		}
		if (ops->exit)
			ops->exit(&pmu);
	}
}

/* AMD's cores are all alike: nothing to check when one comes online. */
TEST(amd_cpu_online_needs_no_check)
{
	struct x86_model m;
	struct pctr_cpu_id cpu;
	struct pctr_pmu pmu = {};

	model_init(&m, &cpu_amd_v2);
	pctr_arch.identify(&cpu);
	ASSERT_EQ(0, pctr_arch.probe(&pmu, &cpu));
	EXPECT_EQ(NULL, pmu.ops->cpu_check);
}

TEST_HARNESS_MAIN
