// SPDX-License-Identifier: GPL-2.0
/*
 * x86 conformance (x86_conformance.h): overflow interrupts
 * (PCTR_PMU_NOTIFY) on each CPU that has them.
 */
#include "x86_conformance.h"

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

/*
 * Instructions retired, user and kernel, on @slot: event 0x10 unit mask
 * 1 on a general counter (the model's), a fixed counter's own event.
 */
static u64 insns_fn(unsigned int slot)
{
	return slot < PCTR_FIXED_BASE ? PCTR_FN(0x10, 1, UKE) : UKE;
}

/*
 * reserve() turns the PMI on (or fails with it, unwound), release() off;
 * the handler itself goes only with exit(), at unload.
 */
TEST_F(x86, reserve_turns_pmi_on)
{
	X86_START(need_pmu);
	ASSERT_EQ(0, self->ops->reserve(&self->pmu));
	EXPECT_EQ(has_notify(v) ? 1 : 0, model_pmi_on);
	EXPECT_EQ(0, model_pmi_off);
	self->ops->release(&self->pmu);
	EXPECT_EQ(has_notify(v) ? 1 : 0, model_pmi_off);
	EXPECT_EQ(0, model_reserved_count(m));
	EXPECT_EQ(0, model_pmi_exit);
	ASSERT_NE(NULL, self->ops->exit);
	self->ops->exit(&self->pmu);
	EXPECT_EQ(has_notify(v) ? 1 : 0, model_pmi_exit);
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
	struct pctr_pmu pmu = { 0 };

	X86_START(need_pmu);
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

	if (!need_notify(_metadata, v, self->probe_ret))
		return;
	for (s = 0; s < PCTR_NUM; s++) {
		struct pctr_hw hw = { 0 };

		if (!(slots & BIT(s)))
			continue;
		ASSERT_EQ(0, set_slot(&self->pmu, &hw, s, insns_fn(s), 77));
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
	struct pctr_hw hw = { 0 };
	u64 reach;

	X86_START(need_notify);
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
 * A slot asked to interrupt after one event is armed two from the wrap,
 * as perf arms a counter: the first event raises nothing, the second the
 * PMI.  The core then finds its wrap one event late.
 */
TEST_F(x86, overflow_arms_two_events_at_least)
{
	struct pctr_hw hw = { 0 };

	X86_START(need_notify);
	ASSERT_EQ(0, set_slot(&self->pmu, &hw, 0, PCTR_FN(0x10, 1, UKE), 0));
	hw.left[0] = 1;
	m->pmis = 0;
	self->ops->start(&self->pmu, &hw);
	EXPECT_EQ(-2ULL & width_mask(v->width), hw.val[0]);
	EXPECT_EQ(-2ULL & width_mask(v->width), m->ctr[0]);
	model_retire(m, 0x10, 1, 1);
	EXPECT_EQ(0, m->pmis);
	model_retire(m, 0x10, 1, 1);
	EXPECT_EQ(1, m->pmis);
	self->ops->stop(&self->pmu, &hw);
}

/*
 * The overflow interrupt's fast path: rearm() loads an overflowed slot
 * with its next distance, one write and no read, leaving every control
 * as start() set it; the next PMI comes after that many events.  Every
 * general counter and every fixed one, in turn.
 */
TEST_F(x86, overflow_rearm_writes_the_counter_only)
{
	const struct cpu_expect *v = &variant->cpu;
	struct x86_model *m = &self->m;
	const u64 P = 1000, Q = 300;
	unsigned int s, w;
	u32 slots = all_slots(v), event, umask;

	if (!need_notify(_metadata, v, self->probe_ret))
		return;
	ASSERT_NE(NULL, self->ops->rearm);
	for (s = 0; s < PCTR_NUM; s++) {
		struct pctr_hw hw = { 0 };

		if (!(slots & BIT(s)))
			continue;
		ASSERT_EQ(0, set_slot(&self->pmu, &hw, s, insns_fn(s), 0));
		event = 0x10;
		umask = 1;
		if (s >= PCTR_FIXED_BASE)
			model_fixed_event(s - PCTR_FIXED_BASE, &event, &umask);
		hw.left[s] = P;
		m->pmis = 0;
		self->ops->start(&self->pmu, &hw);
		model_retire(m, event, umask, P);
		ASSERT_EQ(1, m->pmis) TH_LOG("slot %u", s);
		self->ops->overflow_ack(&self->pmu,
					self->ops->overflow_status(&self->pmu));
		model_clear_trace(m);
		hw.left[s] = Q;
		self->ops->rearm(&self->pmu, &hw, BIT(s));
		w = s < PCTR_FIXED_BASE ? v->width : v->fixed_width;
		EXPECT_EQ(0, hw.err);
		EXPECT_EQ(-Q & width_mask(w), hw.val[s]) TH_LOG("slot %u", s);
		EXPECT_EQ(-Q & width_mask(w), model_ctr(m, s));
		EXPECT_EQ(1, m->ntrace) TH_LOG("slot %u", s);
		EXPECT_EQ(0, m->nreads);
		model_retire(m, event, umask, Q - 1);
		EXPECT_EQ(1, m->pmis) TH_LOG("slot %u", s);
		model_retire(m, event, umask, 1);
		EXPECT_EQ(2, m->pmis) TH_LOG("slot %u", s);
		self->ops->stop(&self->pmu, &hw);
	}
}

/*
 * A slot armed while kept (the core's keep shortcut) is written anyway:
 * the distance changed.  Unarmed, no slot has its INT bit, and nothing
 * says an overflow is ours: a wrap of a plain counter is no PMI.
 */
TEST_F(x86, overflow_arming_overrides_keep)
{
	struct pctr_hw hw = { 0 };

	X86_START(need_notify);
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

TEST_HARNESS_MAIN
