// SPDX-License-Identifier: GPL-2.0
/*
 * x86 conformance (x86_conformance.h): a function encoded into the event
 * select or fixed-counter control register, bit by bit, on each CPU.
 */
#include "x86_conformance.h"

/* A slot is accepted exactly when the CPU has its counter. */
TEST_F(x86, encode_slots)
{
	unsigned int slot;
	u64 fn, ctl;
	int want;

	X86_START(need_pmu);
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

/* PCTR_U counts at CPL 3 only, PCTR_K at CPL 0 only. */
TEST_F(x86, privilege_levels)
{
	struct pctr_hw hw = { 0 };
	u32 event, umask;
	unsigned int f;

	X86_START(need_pmu);
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
	struct pctr_hw hw = { 0 };

	X86_START(need_pmu);
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
			/* GLOBAL_CTRL stops it; the field stays for next time. */
			EXPECT_EQ(0, m->global_ctrl);
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

TEST_HARNESS_MAIN
