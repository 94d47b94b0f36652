// SPDX-License-Identifier: GPL-2.0
/*
 * The Intel backend: architectural performance monitoring versions 1 to
 * 5 (SDM vol. 3B, chapter 20).  General counter i is PMCx/PERFEVTSELx,
 * whose layout is that of a pctr function, so the encoding of a general
 * slot is the function itself.  Fixed counter i has a four-bit field in
 * FIXED_CTR_CTRL; the encoding of a fixed slot is that field.  From
 * version 2 on GLOBAL_CTRL gates every counter and GLOBAL_STATUS holds
 * their overflow bits.
 *
 * Counter writes.  With PERF_CAPABILITIES.FW_WRITE the full-width alias
 * A_PMCx takes any value of the counter's width.  Without it a write to
 * PMCx sets bits 31:0 and copies bit 31 into every bit above, so only
 * values whose bits from 31 to the top are all equal (0..2^31-1, and the
 * top 2^31 values of the counter's range) are written as given; any other
 * value is written as the sign extension of its low 32 bits.  Fixed
 * counters are always written at their full width.  Slots in hw->keep
 * (PCTR_PMU_KEEP) are not rewritten at all: their registers still hold
 * the raw values stop() read, which a 32-bit write might not restore;
 * nor, with hw->adopt, are the others, unless armed, scrubbed, or in the
 * top half of their range (written 0): a thread's counters count on from
 * what the registers hold.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "hw.h"
#include "x86.h"

/*
 * PERFEVTSELx: every defined bit but PC (19) and INT, which is the
 * core's (PCTR_INT: start() sets it on a slot it arms, hw->left).
 */
#define INTEL_FN_GENERAL	(PCTR_EVENT_MASK | PCTR_UM_MASK | PCTR_U | \
				 PCTR_K | PCTR_E | PCTR_ANY | PCTR_EN | \
				 PCTR_I | PCTR_CM_MASK)

/* A FIXED_CTR_CTRL field is four bits, as GETPCR has it (backend.h). */
#define INTEL_FIXED_BITS	4

static u32 intel_fixed_slots(const struct pctr_x86 *x)
{
	return x->fixed_mask << PCTR_FIXED_BASE;
}

static int intel_encode(const struct pctr_pmu *pmu, unsigned int slot,
			u64 fn, bool privileged, u64 *ctl)
{
	const struct pctr_x86 *x = pmu->priv;
	int ret;

	if (slot < PCTR_FIXED_BASE) {
		if (slot >= pmu->ngeneral)
			return -EINVAL;
		ret = pctr_x86_check_fn(fn, x->fn_valid, privileged);
		if (!ret)
			*ctl = fn;
		return ret;
	}

	/* A fixed counter's event is its own: only the mode bits apply. */
	if (slot >= PCTR_NUM || !(intel_fixed_slots(x) & BIT(slot)))
		return -EINVAL;
	ret = pctr_x86_check_fn(fn, x->fn_valid & PCTR_X86_MODE_BITS,
				privileged);
	if (!ret)
		*ctl = pctr_fn_to_fixed_field(fn);
	return ret;
}

/* The value a general counter holds after being written @val. */
static u64 intel_counter_value(const struct pctr_pmu *pmu, u64 val)
{
	if (!(pmu->caps & PCTR_CAP_FULL_WIDTH))
		val = (u64)(s64)(s32)val;
	return val & pctr_width_mask(pmu->width);
}

/*
 * Beside another owner's counters (hw->shared): the fields of
 * FIXED_CTR_CTRL that are not those of @hw's fixed slots @fixed, to keep
 * as they are.
 */
static u64 intel_fixed_others(const struct pctr_pmu *pmu, struct pctr_hw *hw,
			      u32 fixed)
{
	u64 own = 0;
	u32 m;

	for (m = fixed; m; m &= m - 1)
		own |= pctr_width_mask(INTEL_FIXED_BITS) <<
		       (INTEL_FIXED_BITS * (__ffs(m) - PCTR_FIXED_BASE));
	return pctr_x86_read_ctl(pmu, hw, PCTR_FIXED_BASE,
				 MSR_PCTR_INTEL_FIXED_CTRL) & ~own;
}

/*
 * start() in full: scrub, load, arm, write the controls that changed.
 * Beside another owner's counters (hw->shared, never with user reads, so
 * the scrub writes nothing), every register the slots share is merged:
 * FIXED_CTR_CTRL, GLOBAL_CTRL and the armed set keep the other's bits.
 */
static noinline void intel_start_all(const struct pctr_pmu *pmu,
				     struct pctr_hw *hw)
{
	const struct pctr_x86 *x = pmu->priv;
	u32 general = hw->mask & pctr_x86_general_slots(pmu);
	u32 fixed = hw->mask & intel_fixed_slots(x);
	u64 fctrl = 0, field, reach;
	u32 armed = 0, zeroed, m;
	unsigned int i, s;

	zeroed = pctr_x86_scrub(pmu, hw);
	/*
	 * Values first, while the counters are stopped (by GLOBAL_CTRL, or
	 * before version 2 by the event selects stop() cleared), then the
	 * controls that changed, then the global enable.  With hw->adopt a
	 * counter starts from what its register holds (pctr_x86_load()); a
	 * slot armed for its overflow interrupt is always written.
	 */
	reach = pmu->caps & PCTR_CAP_FULL_WIDTH ? BIT_ULL(pmu->width - 1) :
						  BIT_ULL(31);
	for (m = general; m; m &= m - 1) {
		i = __ffs(m);
		if (hw->left[i] && pctr_x86_arm(pmu, hw, i, reach)) {
			armed |= BIT(i);
			pctr_x86_wrmsr(hw, pctr_x86_ctr(x, i),
				       intel_counter_value(pmu, hw->val[i]));
		} else if (!(hw->keep & BIT(i)) &&
			   !pctr_x86_loaded(pmu, hw, i, zeroed)) {
			pctr_x86_load(pmu, hw, i, zeroed,
				      intel_counter_value(pmu, hw->val[i]));
		}
	}
	for (m = fixed; m; m &= m - 1) {
		s = __ffs(m);
		i = s - PCTR_FIXED_BASE;
		field = hw->ctl[s];
		if (hw->left[s] &&
		    pctr_x86_arm(pmu, hw, s, BIT_ULL(pmu->fixed_width - 1))) {
			armed |= BIT(s);
			field |= PCTR_FIXED_FIELD_PMI;
			pctr_x86_wrmsr(hw, MSR_PCTR_INTEL_FIXED_CTR0 + i,
				       hw->val[s] &
				       pctr_width_mask(pmu->fixed_width));
		} else if (!(hw->keep & BIT(s)) &&
			   !pctr_x86_loaded(pmu, hw, s, zeroed)) {
			pctr_x86_load(pmu, hw, s, zeroed, hw->val[s] &
				      pctr_width_mask(pmu->fixed_width));
		}
		fctrl |= field << (INTEL_FIXED_BITS * i);
	}
	/* No stale overflow of an armed counter: its PMI is what counts. */
	if (armed)
		pctr_x86_wrmsr(hw, MSR_PCTR_INTEL_GLOBAL_OVF,
			       pctr_x86_global_bits(pmu, armed));
	pctr_x86_write_ctls(pmu, hw, general, armed);
	if (fixed && unlikely(hw->shared))
		fctrl |= intel_fixed_others(pmu, hw, fixed);
	if (fixed)
		pctr_x86_write_ctl(pmu, hw, PCTR_FIXED_BASE,
				   MSR_PCTR_INTEL_FIXED_CTRL, fctrl);
	if (unlikely(hw->shared)) {
		/* Beside another owner: its slots armed and enabled too. */
		pctr_x86_set_armed((pctr_x86_armed() & ~hw->mask) | armed);
		if (pmu->version >= 2)
			pctr_x86_global_merge(hw, MSR_PCTR_INTEL_GLOBAL_CTRL,
					      pctr_x86_global_bits(pmu,
								   general | fixed),
					      true);
		return;
	}
	pctr_x86_set_armed(armed);

	if (pmu->version >= 2)
		pctr_x86_wrmsr(hw, MSR_PCTR_INTEL_GLOBAL_CTRL,
			       pctr_x86_global_bits(pmu, general | fixed));
}

/*
 * The common switch first, from version 2 on: every control holds what
 * @hw wants, every value is what the last stop left (x86.c), and only
 * GLOBAL_CTRL is written.
 */
static void intel_start(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	const struct pctr_x86 *x = pmu->priv;
	u32 general = hw->mask & pctr_x86_general_slots(pmu);
	u32 fixed = hw->mask & intel_fixed_slots(x);
	u64 fctrl = 0;
	unsigned int s;
	u32 m;

	for (m = fixed; m; m &= m - 1) {
		s = __ffs(m);
		fctrl |= hw->ctl[s] <<
			 (INTEL_FIXED_BITS * (s - PCTR_FIXED_BASE));
	}
	if (pmu->version < 2 || unlikely(hw->shared) ||
	    !pctr_x86_start_held(pmu, hw, general, fctrl,
				 MSR_PCTR_INTEL_GLOBAL_CTRL, general |
				 (u64)(fixed >> PCTR_FIXED_BASE) <<
				 PCTR_X86_GLOBAL_FIXED0))
		intel_start_all(pmu, hw);
}

static void intel_read(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	const struct pctr_x86 *x = pmu->priv;
	u32 m;

	for (m = hw->mask & (pctr_x86_general_slots(pmu) |
			     intel_fixed_slots(x)); m; m &= m - 1)
		pctr_x86_rdctr(pmu, hw, __ffs(m), &hw->val[__ffs(m)]);
}

/* The slots whose overflow bit GLOBAL_STATUS has set (version 2 on). */
static u32 intel_overflow_status(const struct pctr_pmu *pmu)
{
	const struct pctr_x86 *x = pmu->priv;
	u64 st;

	if (pctr_rdmsr(MSR_PCTR_INTEL_GLOBAL_STATUS, &st))
		return 0;
	return (st & pctr_x86_general_slots(pmu)) |
	       (u32)((st >> PCTR_X86_GLOBAL_FIXED0) & x->fixed_mask) <<
	       PCTR_FIXED_BASE;
}

static void intel_overflow_ack(const struct pctr_pmu *pmu, u32 slots)
{
	pctr_wrmsr(MSR_PCTR_INTEL_GLOBAL_OVF, pctr_x86_global_bits(pmu, slots));
}

/*
 * The overflow interrupt's fast path (the core's rearm): each slot in
 * @slots, armed and running, is loaded with -n for hw->left as
 * intel_start() loads it; its control keeps its PMI bit.  One write a
 * slot.
 */
static void intel_rearm(const struct pctr_pmu *pmu, struct pctr_hw *hw,
			u32 slots)
{
	const struct pctr_x86 *x = pmu->priv;
	unsigned int s, i;

	for (; slots; slots &= slots - 1) {
		s = __ffs(slots);
		if (s < PCTR_FIXED_BASE) {
			pctr_x86_arm(pmu, hw, s, pmu->caps & PCTR_CAP_FULL_WIDTH ?
				     BIT_ULL(pmu->width - 1) : BIT_ULL(31));
			pctr_x86_wrmsr(hw, pctr_x86_ctr(x, s),
				       intel_counter_value(pmu, hw->val[s]));
			continue;
		}
		i = s - PCTR_FIXED_BASE;
		pctr_x86_arm(pmu, hw, s, BIT_ULL(pmu->fixed_width - 1));
		pctr_x86_wrmsr(hw, MSR_PCTR_INTEL_FIXED_CTR0 + i,
			       hw->val[s] & pctr_width_mask(pmu->fixed_width));
	}
}

static void intel_stop(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	u32 armed = pctr_x86_armed() & hw->mask;

	/* Fixed counters exist from version 2 on: GLOBAL_CTRL stops them. */
	pctr_x86_stop(pmu, hw, MSR_PCTR_INTEL_GLOBAL_CTRL);
	/* An armed counter overflowed: its PMI may come after this. */
	if (armed) {
		if (intel_overflow_status(pmu) & armed)
			pctr_x86_pmi_pending();
		pctr_x86_set_armed(pctr_x86_armed() & ~hw->mask);
	}
}

static int intel_rdpmc_index(const struct pctr_pmu *pmu, unsigned int slot)
{
	const struct pctr_x86 *x = pmu->priv;

	if (slot < PCTR_FIXED_BASE)
		return slot < pmu->ngeneral ? (int)slot : -1;
	if (slot >= PCTR_NUM || !(intel_fixed_slots(x) & BIT(slot)))
		return -1;
	return (1 << 30) | (slot - PCTR_FIXED_BASE);
}

static int intel_cpu_check(const struct pctr_pmu *pmu, unsigned int cpu);

/* Version 2 on: overflow interrupts (pmi.c), with GLOBAL_STATUS. */
static const struct pctr_pmu_ops pctr_intel_ops = {
	PCTR_X86_OPS(intel),
	.cpu_check	= intel_cpu_check,
	.overflow_status = intel_overflow_status,
	.overflow_ack	= intel_overflow_ack,
	.rearm		= intel_rearm,
};

/* Version 1: no global status register, no overflow interrupt. */
static const struct pctr_pmu_ops pctr_intel_v1_ops = {
	PCTR_X86_OPS(intel),
	.cpu_check	= intel_cpu_check,
};

struct intel_event {
	const char	*name;
	const char	*desc;
	u8		event;
	u8		umask;
};

/* The architectural events, in the order of CPUID.0AH:EBX's bits. */
static const struct intel_event intel_arch_events[] = {
	{ "UNHALTED_CORE_CYCLES", "Core cycles while not halted", 0x3c, 0x00 },
	{ "INSTRUCTION_RETIRED", "Instructions retired", 0xc0, 0x00 },
	{ "UNHALTED_REFERENCE_CYCLES",
	  "Reference cycles while not halted", 0x3c, 0x01 },
	{ "LLC_REFERENCES", "Last level cache references", 0x2e, 0x4f },
	{ "LLC_MISSES", "Last level cache misses", 0x2e, 0x41 },
	{ "BRANCH_INSTRUCTIONS_RETIRED", "Branch instructions retired",
	  0xc4, 0x00 },
	{ "MISPREDICTED_BRANCH_RETIRED", "Mispredicted branches retired",
	  0xc5, 0x00 },
	{ "TOPDOWN_SLOTS", "Issue slots available to the pipeline (topdown)",
	  0xa4, 0x01 },
};

struct intel_fixed_event {
	const char	*name;
	const char	*desc;
};

/* What fixed counter i counts; its function has no event of its own. */
static const struct intel_fixed_event intel_fixed_events[] = {
	{ "INST_RETIRED.ANY", "Instructions retired (fixed counter 0)" },
	{ "CPU_CLK_UNHALTED.THREAD",
	  "Core cycles while not halted (fixed counter 1)" },
	{ "CPU_CLK_UNHALTED.REF_TSC",
	  "Reference cycles at the TSC rate, not halted (fixed counter 2)" },
	{ "TOPDOWN.SLOTS", "Issue slots available (fixed counter 3)" },
};

static void intel_setup(struct pctr_pmu *pmu, struct pctr_x86 *x)
{
	const struct intel_fixed_event *fe;
	const struct intel_event *e;
	unsigned int i;

	pmu->ops = &pctr_intel_v1_ops;
	/*
	 * With hw->shared start() and stop() touch only the slots asked
	 * (before version 2 each general counter has its own enable): a
	 * thread counts beside a CPU binding.
	 */
	pmu->flags |= PCTR_PMU_KEEP | PCTR_PMU_SHARE;
	pmu->caps |= PCTR_CAP_CPU_SHARE;
	/*
	 * Overflow notification: an interrupt at a given count needs the
	 * overflow status of version 2 and a local APIC to deliver it.
	 */
	if (pmu->version >= 2 && pctr_x86_pmi_available()) {
		pmu->ops = &pctr_intel_ops;
		pmu->flags |= PCTR_PMU_NOTIFY;
		pmu->caps |= PCTR_CAP_NOTIFY;
	}
	x->fn_valid = INTEL_FN_GENERAL;
	if (!(pmu->caps & PCTR_CAP_ANYTHREAD))
		x->fn_valid &= ~PCTR_ANY;

	pmu->nevents = 0;
	for (i = 0; i < ARRAY_SIZE(intel_arch_events); i++) {
		e = &intel_arch_events[i];
		if (x->arch_unavail & BIT(i))
			continue;
		pctr_x86_add_event(pmu, x, e->name, e->desc,
				   PCTR_FN(e->event, e->umask, 0),
				   pctr_x86_general_slots(pmu));
	}
	for (i = 0; i < ARRAY_SIZE(intel_fixed_events); i++) {
		fe = &intel_fixed_events[i];
		if (x->fixed_mask & BIT(i))
			pctr_x86_add_event(pmu, x, fe->name, fe->desc, 0,
					   BIT_ULL(PCTR_FIXED(i)));
	}
}

/* What CPUID leaf 0xA says of one CPU's counters. */
struct intel_leaf_a {
	u32	version;
	u32	ngeneral;
	u32	width;
	u32	fixed_mask;
	u32	fixed_width;
	u32	unavail;	/* bit i set: architectural event i absent */
};

static int intel_leaf_a(unsigned int cpu, struct intel_leaf_a *l)
{
	u32 a, b, c, d, len;
	int ret;

	ret = pctr_cpuid_on(cpu, 0xa, 0, &a, &b, &c, &d);
	if (ret)
		return ret;
	memset(l, 0, sizeof(*l));
	l->version = a & 0xff;
	l->ngeneral = min((a >> 8) & 0xff, (u32)X86_MAX_GENERAL);
	l->width = min((a >> 16) & 0xff, 64U);
	/*
	 * EBX bit i set: architectural event i is not available.  Events
	 * past the length of that bit vector (EAX[31:24]) are not either.
	 */
	len = a >> 24;
	l->unavail = b | (len < 32 ? ~0U << len : 0);
	/* Fixed counters exist from version 2 on; v5 adds a bit mask. */
	if (l->version >= 2) {
		l->fixed_mask = (u32)pctr_width_mask(d & 0x1f);
		if (l->version >= 5)
			l->fixed_mask |= c;
		l->fixed_mask &= (1U << X86_MAX_FIXED) - 1;
		l->fixed_width = min((d >> 5) & 0xff, 64U);
	}
	return 0;
}

/*
 * What rdpmc reads on @cpu, for the scrub: all its counters, those the
 * other core type lacks too, and PERF_METRICS, which comes with fixed
 * counter 3 (TOPDOWN.SLOTS).
 */
static void intel_set_regs(unsigned int cpu, const struct intel_leaf_a *l)
{
	pctr_x86_set_regs(cpu, (u32)pctr_width_mask(l->ngeneral) |
			  l->fixed_mask << PCTR_FIXED_BASE,
			  l->fixed_mask & BIT(3));
}

/*
 * The counters every online CPU has.  Hybrid parts (P-cores and E-cores)
 * have core types with different counters: offering only the common
 * ones means a thread counts, and its rdpmc works, wherever it runs.
 * True if the CPUs differ.
 */
static bool intel_common_counters(struct intel_leaf_a *all)
{
	struct intel_leaf_a one;
	bool first = true, differ = false;
	unsigned int cpu;

	pctr_cpus_lock();
	pctr_for_each_cpu(cpu) {
		if (intel_leaf_a(cpu, &one))
			continue;
		intel_set_regs(cpu, &one);
		if (first) {
			*all = one;
			first = false;
			continue;
		}
		differ |= memcmp(all, &one, sizeof(one)) != 0;
		all->version = min(all->version, one.version);
		all->ngeneral = min(all->ngeneral, one.ngeneral);
		all->width = min(all->width, one.width);
		all->fixed_mask &= one.fixed_mask;
		all->fixed_width = min(all->fixed_width, one.fixed_width);
		all->unavail |= one.unavail;
	}
	pctr_cpus_unlock();
	if (first)
		memset(all, 0, sizeof(*all));
	return differ;
}

/*
 * A CPU that comes online after load must have what the probe offered
 * (a hybrid part's smaller core type, online only later, may not): a
 * thread migrating there would count nothing and its rdpmc would fault.
 */
static int intel_cpu_check(const struct pctr_pmu *pmu, unsigned int cpu)
{
	const struct pctr_x86 *x = pmu->priv;
	struct intel_leaf_a l;

	if (intel_leaf_a(cpu, &l))
		return -EIO;
	intel_set_regs(cpu, &l);
	if (l.version >= pmu->version && l.ngeneral >= pmu->ngeneral &&
	    l.width >= pmu->width &&
	    (l.fixed_mask & x->fixed_mask) == x->fixed_mask &&
	    (!x->fixed_mask || l.fixed_width >= pmu->fixed_width) &&
	    !(l.unavail & ~x->arch_unavail))
		return 0;
	pr_warn("CPU %u has fewer counters (%u general of %u bits, fixed %#x) than loaded pctr offers (%u of %u bits, fixed %#x); it stays offline until pctr is unloaded\n",
		cpu, l.ngeneral, l.width, l.fixed_mask, pmu->ngeneral,
		pmu->width, x->fixed_mask);
	return -EOPNOTSUPP;
}

/*
 * Intel architectural performance monitoring, CPUID leaf 0xA on every
 * CPU: describe the counters in @pmu and set up the backend, or say why
 * not.  Process context.
 */
int pctr_intel_probe(struct pctr_pmu *pmu, const struct pctr_cpu_id *cpu,
		     struct pctr_x86 *x)
{
	struct intel_leaf_a l;
	u32 a, b, c, d;
	u64 perf_cap;
	bool hybrid;

	pctr_cpuid(0, 0, &a, &b, &c, &d);
	if (a < 0xa)
		return pctr_x86_no_counters(pmu, "no CPUID leaf 0xA");
	hybrid = intel_common_counters(&l);
	pmu->version = l.version;
	pmu->ngeneral = l.ngeneral;
	pmu->width = l.width;
	if (pmu->version == 0 || pmu->ngeneral == 0 || pmu->width == 0)
		return pctr_x86_no_counters(pmu,
					    "CPUID 0xA reports perfmon version %u, %u counters",
					    pmu->version, pmu->ngeneral);
	x->arch_unavail = l.unavail;
	x->fixed_mask = l.fixed_mask;
	pmu->nfixed = fls(x->fixed_mask);
	pmu->fixed_width = pmu->nfixed ? l.fixed_width : 0;
	if (pmu->version >= 2)
		pmu->caps |= PCTR_CAP_GLOBAL_CTRL;
	if (pmu->version >= 3 && pmu->version < 5)
		pmu->caps |= PCTR_CAP_ANYTHREAD;

	x->evtsel_base = MSR_PCTR_INTEL_EVTSEL0;
	x->ctr_base = MSR_PCTR_INTEL_PMC0;
	x->reserve_base = MSR_PCTR_INTEL_PMC0;
	if (pctr_x86_counter_holds_value(pmu, x))
		return -ENODEV;
	pctr_cpuid(1, 0, &a, &b, &c, &d);
	if ((c & (1U << 15)) && !pctr_rdmsr(MSR_PCTR_INTEL_PERF_CAP,
					    &perf_cap) &&
	    (perf_cap & PCTR_INTEL_PERF_CAP_FW_WRITE)) {
		x->ctr_base = MSR_PCTR_INTEL_A_PMC0;
		pmu->caps |= PCTR_CAP_FULL_WIDTH;
	}
	pmu->backend_id = PCTR_BACKEND_INTEL;
	strscpy(pmu->name, "intel", sizeof(pmu->name));
	x->hybrid = hybrid;
	intel_setup(pmu, x);
	return 0;
}
