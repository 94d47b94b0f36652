// SPDX-License-Identifier: GPL-2.0
/*
 * x86 conformance (x86_conformance.h): starting, reading and stopping
 * the counters on each CPU, GLOBAL_CTRL, counter widths, what user-mode
 * reads may see, failed register accesses, and reserving the counters.
 */
#include "x86_conformance.h"

/*
 * Start every counter from its own value, count distinct events, read
 * while running, stop: each ends at its start value plus its events.
 */
TEST_F(x86, start_read_stop)
{
	struct pctr_hw hw = { 0 }, rd;
	unsigned int i, f;
	u32 event, umask;

	X86_START(need_pmu);
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
	/*
	 * GLOBAL_CTRL stops every counter at once, the controls left for
	 * the next start(); without it the event selects are cleared.
	 */
	for (i = 0; i < v->ngeneral; i++) {
		EXPECT_EQ(1000 * i + 7 + 10 * (i + 1) + 1, hw.val[i]);
		if (!(v->caps & PCTR_CAP_GLOBAL_CTRL))
			EXPECT_EQ(0, m->evtsel[i]);
	}
	for (f = 0; f < X86_MAX_FIXED; f++)
		if (v->fixed_mask & (1U << f))
			EXPECT_EQ(500 * f + 3 + 3 * (f + 1),
				  hw.val[PCTR_FIXED(f)]);
	if (v->caps & PCTR_CAP_GLOBAL_CTRL)
		EXPECT_EQ(0, m->global_ctrl);

	/* Stopped counters do not count. */
	for (i = 0; i < v->ngeneral; i++) {
		model_retire(m, 0x10 + i, i, 5);
		EXPECT_EQ(hw.val[i], m->ctr[i]);
	}
}

/* Slots the CPU lacks are ignored, not written. */
TEST_F(x86, start_ignores_absent_slots)
{
	struct pctr_hw hw;
	unsigned int s;

	X86_START(need_pmu);
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

/* Add what each counter of @slots counted since @before. */
static void counted(struct x86_model *m, const u64 *before, u32 slots,
		    u64 *out)
{
	unsigned int s;

	for (s = 0; s < PCTR_NUM; s++)
		if (slots & (1U << s))
			out[s] = (s < PCTR_FIXED_BASE ?
				  m->ctr[s] : m->fixed_ctr[s - PCTR_FIXED_BASE]) -
				 before[s];
}

static void snap(struct x86_model *m, u64 *before)
{
	unsigned int s;

	memset(before, 0, PCTR_NUM * sizeof(*before));
	for (s = 0; s < PCTR_FIXED_BASE && s < MODEL_MAX_GENERAL; s++)
		before[s] = m->ctr[s];
	for (s = 0; s < X86_MAX_FIXED && s < MODEL_MAX_FIXED; s++)
		before[PCTR_FIXED_BASE + s] = m->fixed_ctr[s];
}

/*
 * Two owners on one CPU (hw->shared, PCTR_PMU_SHARE: a CPU binding and
 * a thread beside it): each start() and stop() leaves the other's
 * counters counting, its global enable bits, its FIXED_CTR_CTRL field
 * and its armed slots as they were.  The binding has general counter 0
 * and the first fixed counter, the thread the last general counter and
 * the second fixed counter, each armed where there are overflow
 * interrupts.
 */
TEST_F(x86, shared_owners_leave_each_other_counting)
{
	struct pctr_hw b = { 0 }, t = { 0 };
	u64 before[PCTR_NUM], got[PCTR_NUM];
	u32 bs, ts, event, umask;
	unsigned int gt, f, s, nfix = 0, step;
	u64 want;

	X86_START(need_pmu);
	EXPECT_TRUE(self->pmu.flags & PCTR_PMU_SHARE);
	if (v->ngeneral < 2)
		SKIP(return, "one general counter");
	gt = v->ngeneral - 1;
	ASSERT_EQ(0, set_slot(&self->pmu, &b, 0, PCTR_FN(0x10, 0, UKE), 100));
	ASSERT_EQ(0, set_slot(&self->pmu, &t, gt, PCTR_FN(0x11, 0, UKE), 200));
	for (f = 0; f < X86_MAX_FIXED && nfix < 2; f++)
		if (v->fixed_mask & (1U << f))
			ASSERT_EQ(0, set_slot(&self->pmu, nfix++ ? &t : &b,
					      PCTR_FIXED(f), UKE, 300));
	if (has_notify(v)) {
		b.left[0] = 1000;
		t.left[gt] = 1000;
	}
	b.shared = true;
	t.shared = true;
	bs = b.mask;
	ts = t.mask;

	/* Both, then the binding alone, then the thread alone. */
	for (step = 0; step < 3; step++) {
		if (step == 0) {
			self->ops->start(&self->pmu, &b);
			self->ops->start(&self->pmu, &t);
		} else if (step == 1) {
			self->ops->stop(&self->pmu, &t);
		} else {
			self->ops->start(&self->pmu, &t);
			self->ops->stop(&self->pmu, &b);
		}
		if (has_notify(v))
			EXPECT_EQ((step < 2 ? 1U : 0) |
				  (step != 1 ? 1U << gt : 0), pctr_x86_armed())
				TH_LOG("step %u", step);
		snap(m, before);
		for (s = 0; s < PCTR_NUM; s++)
			if ((bs | ts) & (1U << s)) {
				slot_event(s, s < PCTR_FIXED_BASE ?
					   (s ? t.ctl[s] : b.ctl[s]) : 0,
					   &event, &umask);
				model_retire(m, event, umask, 5 + s);
			}
		counted(m, before, bs | ts, got);
		for (s = 0; s < PCTR_NUM; s++) {
			if (!((bs | ts) & (1U << s)))
				continue;
			want = ((bs & (1U << s)) && step < 2) ||
			       ((ts & (1U << s)) && step != 1) ? 5 + s : 0;
			EXPECT_EQ(want, got[s])
				TH_LOG("step %u, slot %u", step, s);
		}
	}
	self->ops->stop(&self->pmu, &t);
	/* Other bits (the reset value's) are left as they were. */
	if (v->caps & PCTR_CAP_GLOBAL_CTRL)
		EXPECT_EQ(0, m->global_ctrl & global_bits(bs | ts));
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

	/*
	 * Context b, user reads (only ever a thread's), owns slot 1 only:
	 * the rest reads 0.
	 */
	ASSERT_EQ(0, set_slot(pmu, &b, 1, PCTR_FN(0xc0, 0, UKE), 42));
	b.user_read = b.thread = true;
	model_domain = 1;
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

/*
 * rdpmc reads every counter the CPU has, not only those pctr offers: on
 * a hybrid part's P-core general counters 6 and 7, fixed counter 3 and
 * PERF_METRICS, which the E-cores lack (issue 26).  Whatever perf left
 * in any of them reads zero once a thread with user reads starts.
 */
TEST_F(x86, user_read_scrubs_registers_not_offered)
{
	const struct cpu_expect *v = &variant->cpu;
	struct pctr_pmu *pmu = &self->pmu;
	struct x86_model *m = &self->m;
	struct pctr_hw b = { 0 };
	unsigned int i, f;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	if (v->cfg == &cpu_intel_hybrid_p)
		EXPECT_LT(pmu->ngeneral + pmu->nfixed,
			  m->ngeneral + __builtin_popcount(m->fixed_mask));
	/* What perf left, in every counter the CPU has. */
	for (i = 0; i < m->ngeneral; i++)
		m->ctr[i] = 1000 + i;
	for (f = 0; f < MODEL_MAX_FIXED; f++)
		if (m->fixed_mask & (1U << f))
			m->fixed_ctr[f] = 2000 + f;
	m->perf_metrics = 0x12345678;
	model_domain = 1;
	ASSERT_EQ(0, set_slot(pmu, &b, 0, PCTR_FN(0xc0, 0, UKE), 0));
	b.user_read = true;
	b.thread = true;
	self->ops->start(pmu, &b);
	EXPECT_EQ(0, b.err);
	for (i = 1; i < m->ngeneral; i++)
		EXPECT_EQ(0, m->ctr[i]) TH_LOG("general %u of %u", i,
					       m->ngeneral);
	for (f = 0; f < MODEL_MAX_FIXED; f++)
		if (m->fixed_mask & (1U << f))
			EXPECT_EQ(0, m->fixed_ctr[f]) TH_LOG("fixed %u", f);
	if (m->fixed_mask & (1U << 3))
		EXPECT_EQ(0, m->perf_metrics);
	self->ops->stop(pmu, &b);
}

/*
 * With hw->adopt a counter starts from what its register holds: nothing
 * is written at a switch between two threads of one process counting
 * the same functions but GLOBAL_CTRL, twice (stop, start), where there
 * is one, and nothing read at start: the values stop() read are still
 * there.  Registers forgotten (hw->forgotten: the CPU slept) are read
 * again.  Another process's counts are zeroed for a thread with user
 * reads, in its own slots too.
 */
TEST_F(x86, adopted_counters_and_the_writes_of_a_switch)
{
	const struct cpu_expect *v = &variant->cpu;
	struct pctr_pmu *pmu = &self->pmu;
	struct x86_model *m = &self->m;
	struct pctr_hw a = { 0 }, b = { 0 }, c = { 0 };
	unsigned int at, want, n, reads;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	ASSERT_EQ(0, set_slot(pmu, &a, 0, PCTR_FN(0xc0, 0, UKE), 0));
	ASSERT_EQ(0, set_slot(pmu, &a, 1, PCTR_FN(0xc4, 0, UKE), 0));
	a.user_read = a.thread = a.adopt = true;
	b = a;
	c = a;
	model_domain = 1;
	self->ops->start(pmu, &a);
	model_retire(m, 0xc0, 0, 5);
	self->ops->stop(pmu, &a);
	ASSERT_EQ(5, a.val[0]);

	/* a to b and back, one process: counters adopted, not written. */
	for (n = 0; n < 3; n++) {
		at = m->ntrace;
		reads = m->nreads;
		self->ops->start(pmu, &b);
		EXPECT_EQ(0, b.err);
		EXPECT_EQ(5 + 7 * n, b.val[0]);
		EXPECT_EQ(reads, m->nreads) TH_LOG("switch %u: start read %u",
						   n, m->nreads - reads);
		model_retire(m, 0xc0, 0, 7);
		self->ops->stop(pmu, &b);
		EXPECT_EQ(5 + 7 * (n + 1), b.val[0]);
		want = v->caps & PCTR_CAP_GLOBAL_CTRL ? 2 : 2 * 2;
		EXPECT_EQ(want, m->ntrace - at)
			TH_LOG("switch %u: %u writes, first %#x", n,
			       m->ntrace - at, m->trace[at].msr);
	}

	/* What the registers held was lost meanwhile: read again. */
	m->ctr[0] = 40;
	b.forgotten = true;
	self->ops->start(pmu, &b);
	EXPECT_EQ(40, b.val[0]);
	self->ops->stop(pmu, &b);
	b.forgotten = false;

	/* Another process, with user reads: its own slots start from 0. */
	model_domain = 2;
	self->ops->start(pmu, &c);
	EXPECT_EQ(0, c.val[0]);
	EXPECT_EQ(0, m->ctr[0]);
	model_retire(m, 0xc0, 0, 3);
	self->ops->stop(pmu, &c);
	EXPECT_EQ(3, c.val[0]);
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
	unsigned int s;
	int want;

	X86_START(need_pmu);
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
	unsigned int i, before;

	X86_START(need_pmu);
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
	unsigned int before;

	X86_START(need_pmu);
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
	unsigned int i;

	X86_START(need_pmu);
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

TEST_HARNESS_MAIN
