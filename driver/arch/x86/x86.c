// SPDX-License-Identifier: GPL-2.0
/*
 * What the Intel and AMD backends share: the function check, the named
 * event table, counter reservation, and the probe's test that the
 * counters are real.  The bottom layer of arch/x86: it calls only hw.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "hw.h"
#include "x86.h"

/*
 * The checks every counter function passes, in this order: bits the
 * counter does not implement (@valid never has PCTR_INT, which is
 * reserved, nor PCTR_ANY where there is no AnyThread), an enable that
 * would count at no privilege level, and AnyThread, which sees the
 * other SMT thread and so needs CAP_PERFMON.
 */
int pctr_x86_check_fn(u64 fn, u64 valid, bool privileged)
{
	if (fn & ~valid)
		return -EINVAL;
	if ((fn & PCTR_EN) && !(fn & (PCTR_U | PCTR_K)))
		return -EINVAL;
	if ((fn & PCTR_ANY) && !privileged)
		return -EPERM;
	return 0;
}

void pctr_x86_add_event(struct pctr_pmu *pmu, struct pctr_x86 *x,
			const char *name, const char *desc, u64 fn, u64 slots)
{
	struct pctr_event_desc *e;

	if (!slots || pmu->nevents >= X86_MAX_EVENTS)
		return;
	e = &x->events[pmu->nevents++];
	e->name = name;
	e->desc = desc;
	e->fn = fn;
	e->slots = slots;
	pmu->events = x->events;
}

/*
 * Per CPU, what the backend knows of the counter registers, so that a
 * switch writes only what must change.  Only touched with interrupts
 * off, on the CPU it describes (regs and metrics also by the probe,
 * before anything counts).
 *
 * dirty: the slots whose registers may hold counts, because they
 * counted or were written since they were last zeroed; owner[s]: whose
 * counts register s holds then (a pctr_x86_domain(), 0 when not known
 * to be one process's alone, as when a thread counted on from another
 * process's count).  Taking
 * the counters back from perf starts a new pctr_x86_epoch, in which
 * every register (PERF_METRICS too) is dirty and every control unknown.
 *
 * ctl[], fixed_ctrl: what the event selects and FIXED_CTR_CTRL hold, for
 * the general slots in ctl_known (and PCTR_FIXED_BASE for fixed_ctrl):
 * start() writes a control only when it differs.
 *
 * held, val[]: the slots whose counters stopped holding val[s], as the
 * last stop() read them; a start() that adopts what a register holds
 * (pctr_x86_load()) takes it from there instead of reading it again.
 * Nothing but start() writes a counter, and only start() runs one; it
 * forgets them all.
 */
struct pctr_x86_cpu {
	u32	regs;		/* every counter rdpmc reads here, as slots */
	bool	metrics;	/* and PERF_METRICS (with fixed counter 3) */
	u32	epoch;
	u32	dirty;
	bool	dirty_metrics;
	u64	owner[PCTR_NUM];
	u32	ctl_known;
	u64	ctl[X86_MAX_GENERAL];
	u64	fixed_ctrl;
	u32	held;
	u64	val[PCTR_NUM];
};

static DEFINE_PER_CPU(struct pctr_x86_cpu, pctr_x86_cpu);
static u32 pctr_x86_epoch = 1;

/*
 * The probe: the counter registers rdpmc can read on @cpu, as slots, more
 * than the PMU offers where core types differ (hybrid parts) or the CPU
 * has counters pctr does not use; @metrics: PERF_METRICS may be there.
 */
void pctr_x86_set_regs(unsigned int cpu, u32 regs, bool metrics)
{
	struct pctr_x86_cpu *c = per_cpu_ptr(&pctr_x86_cpu, cpu);

	c->regs = regs;
	c->metrics = metrics;
}

/* This CPU's state, every register dirty in a new epoch. */
static __always_inline struct pctr_x86_cpu *
pctr_x86_this_cpu(const struct pctr_pmu *pmu)
{
	const struct pctr_x86 *x = pmu->priv;
	struct pctr_x86_cpu *c = this_cpu_ptr(&pctr_x86_cpu);
	u32 epoch = READ_ONCE(pctr_x86_epoch);

	if (!c->regs)
		c->regs = pctr_x86_general_slots(pmu) |
			  x->fixed_mask << PCTR_FIXED_BASE;
	if (c->epoch != epoch) {
		c->epoch = epoch;
		c->dirty = c->regs;
		c->dirty_metrics = c->metrics;
		memset(c->owner, 0, sizeof(c->owner));
		c->ctl_known = 0;
		c->held = 0;
	}
	return c;
}

/* Write control register @msr of @slot unless it is known to hold @val. */
static __always_inline void pctr_x86_ctl(struct pctr_x86_cpu *c, struct pctr_hw *hw,
			 unsigned int slot, u32 msr, u64 val)
{
	u64 *known = slot < PCTR_FIXED_BASE ? &c->ctl[slot] : &c->fixed_ctrl;

	if ((c->ctl_known & BIT(slot)) && *known == val)
		return;
	if (unlikely(pctr_wrmsr(msr, val))) {
		c->ctl_known = 0;
		pctr_x86_failed(hw, msr, true);
		return;
	}
	*known = val;
	c->ctl_known |= BIT(slot);
}

/*
 * Write control register @msr (an event select, or FIXED_CTR_CTRL for
 * @slot PCTR_FIXED_BASE) unless it is known to hold @val already.
 */
void pctr_x86_write_ctl(const struct pctr_pmu *pmu, struct pctr_hw *hw,
			unsigned int slot, u32 msr, u64 val)
{
	pctr_x86_ctl(pctr_x86_this_cpu(pmu), hw, slot, msr, val);
}

/*
 * start(): the event selects of the general slots in @general, INT set
 * on those @armed, each written unless it is known to hold that already.
 */
void pctr_x86_write_ctls(const struct pctr_pmu *pmu, struct pctr_hw *hw,
			 u32 general, u32 armed)
{
	const struct pctr_x86 *x = pmu->priv;
	struct pctr_x86_cpu *c = pctr_x86_this_cpu(pmu);
	unsigned int i;

	for (; general; general &= general - 1) {
		i = __ffs(general);
		pctr_x86_ctl(c, hw, i, pctr_x86_evtsel(x, i),
			     hw->ctl[i] | (armed & BIT(i) ? PCTR_INT : 0));
	}
}

/*
 * Give back: every control of this CPU cleared, as perf expects to find
 * them (it enables all counters in GLOBAL_CTRL and relies on the event
 * selects of those it does not use being off).  Interrupts off.
 */
static void pctr_x86_clear_ctl(void *arg)
{
	const struct pctr_pmu *pmu = arg;
	const struct pctr_x86 *x = pmu->priv;
	struct pctr_x86_cpu *c = this_cpu_ptr(&pctr_x86_cpu);
	unsigned int i;

	for (i = 0; i < pmu->ngeneral; i++)
		pctr_wrmsr(pctr_x86_evtsel(x, i), 0);
	if (x->fixed_mask)
		pctr_wrmsr(MSR_PCTR_INTEL_FIXED_CTRL, 0);
	c->ctl_known = 0;
}

/*
 * Overflow interrupts (PCTR_PMU_NOTIFY).  The core asks start() to
 * interrupt after hw->left[s] events of slot s.  The counter is loaded
 * with -n, n = min(left, @reach), and counts with its INT bit on: it
 * overflows, and raises its PMI, after n events.  @reach is what the
 * counter can be armed for: 2^31 where only 32-bit writes are possible
 * (legacy Intel PMCx, sign-extended), else 2^(width - 1), so that the
 * top bit is set while armed (how legacy AMD tells an overflow).  An
 * earlier interrupt than asked finds no 64-bit wrap: the core folds and
 * arms again.  n is at least 2, as perf arms a counter: some CPUs
 * misbehave armed one event from the wrap, and a later interrupt than
 * asked is a fold that finds the wrap.  hw->val[s] takes the value
 * loaded; the core folds from it.  Returns n, or 0 if the slot is not
 * armed.
 */
u64 pctr_x86_arm(const struct pctr_pmu *pmu, struct pctr_hw *hw,
		 unsigned int slot, u64 reach)
{
	u64 n = hw->left[slot];

	if (!n || !(pmu->flags & PCTR_PMU_NOTIFY))
		return 0;
	if (n < 2)
		n = 2;
	if (n > reach)
		n = reach;
	hw->val[slot] = -n & pctr_width_mask(pctr_slot_width(pmu, slot));
	return n;
}

/* A register access of start(), stop() or read() failed. */
void pctr_x86_failed(struct pctr_hw *hw, u32 msr, bool write)
{
	hw->err = -EIO;
	pr_warn_ratelimited("%s of counter MSR %#x failed on CPU %d; its context stops counting (EIO)\n",
			    write ? "write" : "read", msr, smp_processor_id());
}

/*
 * Before perfmon version 2, stop the general counters of @hw by clearing
 * their event selects.  From version 2 on one write of the global
 * control register stops every counter at the same instant, and the
 * event selects are left as they are (the next start() rewrites only
 * those that change; the global control keeps the others from counting).
 */
static void pctr_x86_stop_general(const struct pctr_pmu *pmu,
				  struct pctr_hw *hw)
{
	const struct pctr_x86 *x = pmu->priv;
	u32 general = hw->mask & pctr_x86_general_slots(pmu);
	unsigned int i;

	for (i = 0; i < pmu->ngeneral; i++)
		if (general & BIT(i))
			pctr_x86_write_ctl(pmu, hw, i, pctr_x86_evtsel(x, i), 0);
}

/*
 * Beside another owner's counters (hw->shared): set (@on) or clear @hw's
 * bits @bits in the global control register @msr, leaving the others'
 * as they are.  A read and a write, only on a shared CPU.
 */
void pctr_x86_global_merge(struct pctr_hw *hw, u32 msr, u64 bits, bool on)
{
	u64 val;

	if (unlikely(pctr_rdmsr(msr, &val))) {
		pctr_x86_failed(hw, msr, false);
		return;
	}
	pctr_x86_wrmsr(hw, msr, on ? val | bits : val & ~bits);
}

/*
 * What control register @msr of @slot (an event select, or Intel's
 * FIXED_CTR_CTRL for PCTR_FIXED_BASE) holds: as last written, or read.
 * For a start() beside another owner's counters, which merges its
 * fields into the fixed counters' one control.
 */
u64 pctr_x86_read_ctl(const struct pctr_pmu *pmu, struct pctr_hw *hw,
		      unsigned int slot, u32 msr)
{
	struct pctr_x86_cpu *c = pctr_x86_this_cpu(pmu);
	u64 val;

	if (c->ctl_known & BIT(slot))
		return slot < PCTR_FIXED_BASE ? c->ctl[slot] : c->fixed_ctrl;
	if (unlikely(pctr_rdmsr(msr, &val))) {
		pctr_x86_failed(hw, msr, false);
		return 0;
	}
	return val;
}

/* stop() beside another owner's counters: only @hw's are stopped. */
static noinline void pctr_x86_stop_shared(const struct pctr_pmu *pmu,
					  struct pctr_hw *hw, u32 global_ctrl)
{
	if (pmu->version >= 2)
		pctr_x86_global_merge(hw, global_ctrl,
				      pctr_x86_global_bits(pmu, hw->mask),
				      false);
	else
		pctr_x86_stop_general(pmu, hw);
}

/*
 * stop(): stop @hw's counters (@global_ctrl: the vendor's global control
 * register) and read them into hw->val.  The registers hold those values
 * until the next start() (held).  Beside another owner's counters
 * (hw->shared) only @hw's bits are cleared there; alone, one write of 0
 * stops them all.
 */
void pctr_x86_stop(const struct pctr_pmu *pmu, struct pctr_hw *hw,
		   u32 global_ctrl)
{
	struct pctr_x86_cpu *c = pctr_x86_this_cpu(pmu);
	unsigned int s;
	u32 m;

	if (unlikely(hw->shared))
		pctr_x86_stop_shared(pmu, hw, global_ctrl);
	else if (pmu->version >= 2)
		pctr_x86_wrmsr(hw, global_ctrl, 0);
	else
		pctr_x86_stop_general(pmu, hw);
	for (m = hw->mask & c->regs; m; m &= m - 1) {
		s = __ffs(m);
		pctr_x86_rdctr(pmu, hw, s, &hw->val[s]);
		c->val[s] = hw->val[s];
	}
	c->held = hw->err ? 0 : hw->mask & c->regs;
}

/*
 * At start(), before @hw is loaded.  With hw->user_read, zero every
 * counter register outside hw->mask that may hold counts, since
 * user-mode rdpmc reads any counter, not only the thread's own; those
 * rdpmc reads but pctr does not offer too (a hybrid part's counters the
 * other core type lacks, PERF_METRICS).  The thread's own slots that
 * count on from what their registers hold (hw->adopt, or hw->keep) are
 * zeroed too unless the counts there are its own process's alone.  A
 * thread's own counter may thus start from what another thread of its
 * process left, as perf clears dirty counters only when switching to
 * another mm: such threads read each other's memory, pages included.
 * Zeroing at stop() instead would cost every context a write per
 * counter at every switch-out; tracking dirty registers costs writes
 * only when a thread with user reads follows other counts, and none in
 * the common cases of one counting thread on a CPU, or threads of one
 * process counting the same slots.  Returns the slots of @hw whose
 * hw->val is what their registers hold: those zeroed (hw->val 0) and,
 * with hw->adopt, those the last stop() left here (held).
 */
u32 pctr_x86_scrub(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	const struct pctr_x86 *x = pmu->priv;
	struct pctr_x86_cpu *c = pctr_x86_this_cpu(pmu);
	u64 dom = hw->thread ? pctr_x86_domain() : 0;
	u32 own = hw->adopt ? hw->mask : hw->keep;
	u32 stale = 0, zeroed = 0, held, msr, m;
	unsigned int s;

	if (hw->forgotten) {
		c->ctl_known = 0;
		c->held = 0;
	}
	if (hw->user_read) {
		stale = c->dirty & c->regs & ~hw->mask;
		for (m = c->dirty & own; m; m &= m - 1)
			if (!dom || c->owner[__ffs(m)] != dom)
				stale |= BIT(__ffs(m));
	}
	for (m = stale; m; m &= m - 1) {
		s = __ffs(m);
		msr = pctr_x86_ctr_msr(x, s);
		if (pctr_wrmsr(msr, 0)) {
			/* One pctr does not offer is absent after all. */
			if (BIT(s) & ~pctr_x86_general_slots(pmu) &
			    ~(x->fixed_mask << PCTR_FIXED_BASE))
				c->regs &= ~BIT(s);
			else
				pctr_x86_failed(hw, msr, true);
			continue;
		}
		c->dirty &= ~BIT(s);
		if (hw->mask & BIT(s)) {
			hw->val[s] = 0;
			zeroed |= BIT(s);
		}
	}
	if (hw->user_read && c->dirty_metrics) {
		/* Absent after all (an E-core's): nothing there to read. */
		if (pctr_wrmsr(MSR_PCTR_INTEL_PERF_METRICS, 0))
			c->metrics = false;
		c->dirty_metrics = false;
	}
	/*
	 * What counts here now: its own, or mixed with what was there; and
	 * what an adopted counter holds, if the last stop left it known.
	 */
	held = hw->adopt ? c->held & hw->mask & ~zeroed : 0;
	for (m = hw->mask; m; m &= m - 1) {
		s = __ffs(m);
		if (!(c->dirty & own & BIT(s)))
			c->owner[s] = dom;
		else if (c->owner[s] != dom)
			c->owner[s] = 0;
		if (held & BIT(s))
			hw->val[s] = c->val[s];
	}
	c->dirty |= hw->mask;
	/* Those about to run hold nothing known any more. */
	c->held = 0;
	return zeroed | held;
}

/*
 * start()'s shortcut for the common switch, between threads of one
 * process counting with the same functions, from perfmon version 2 on:
 * every slot of @hw counts on from what the last stop() left in its
 * register (hw->adopt, and held), none is armed, none is to be zeroed
 * for user reads nor rewritten for being in the top half of its range,
 * and every control holds what @hw wants already (the event selects of
 * the slots in @general hw->ctl; Intel's FIXED_CTR_CTRL @fixed_ctrl
 * where @hw has fixed slots).  Then it does what pctr_x86_scrub(), the
 * loads and the control writes would have done, writes @on to the global
 * control register @global_ctrl, and returns true.  Else false, having
 * changed nothing: the full start() runs.
 */
bool pctr_x86_start_held(const struct pctr_pmu *pmu, struct pctr_hw *hw,
			 u32 general, u64 fixed_ctrl, u32 global_ctrl, u64 on)
{
	struct pctr_x86_cpu *c = pctr_x86_this_cpu(pmu);
	u32 mask = hw->mask;
	unsigned int s;
	u64 dom;
	u32 m;

	if ((c->held & mask) != mask || (c->ctl_known & general) != general ||
	    !hw->adopt || hw->forgotten)
		return false;
	if (mask != general && (!(c->ctl_known & BIT(PCTR_FIXED_BASE)) ||
				c->fixed_ctrl != fixed_ctrl))
		return false;
	if (hw->user_read && ((c->dirty & c->regs & ~mask) || c->dirty_metrics))
		return false;
	dom = hw->thread ? pctr_x86_domain() : 0;
	for (m = mask; m; m &= m - 1) {
		s = __ffs(m);
		if (hw->left[s] || c->val[s] >> (pctr_slot_width(pmu, s) - 1) ||
		    (s < PCTR_FIXED_BASE && c->ctl[s] != hw->ctl[s]))
			return false;
		/* What the scrub would zero: another process's counts. */
		if (hw->user_read && (c->dirty & BIT(s)) &&
		    (!dom || c->owner[s] != dom))
			return false;
	}
	for (m = mask; m; m &= m - 1) {
		s = __ffs(m);
		if (!(c->dirty & BIT(s)))
			c->owner[s] = dom;
		else if (c->owner[s] != dom)
			c->owner[s] = 0;
		hw->val[s] = c->val[s];
	}
	c->dirty |= mask;
	c->held = 0;
	pctr_x86_set_armed(0);
	pctr_x86_wrmsr(hw, global_ctrl, on);
	return true;
}

/*
 * Load the counter of @slot (neither kept nor armed) with hw->val, the
 * value written as @val.  With hw->adopt it rather starts from what its
 * register holds (the last owner's count, or 0 after a scrub), which
 * saves a write at every switch: the core folds from hw->val.  @have:
 * the slots whose hw->val already is that (pctr_x86_scrub()), the others
 * are read.  A value in the top half of the counter's range is rewritten
 * to 0 then, so that a thread's raw counter is far from wrapping
 * whenever it starts.
 */
void pctr_x86_load(const struct pctr_pmu *pmu, struct pctr_hw *hw,
		   unsigned int slot, u32 have, u64 val)
{
	const struct pctr_x86 *x = pmu->priv;
	u32 msr = pctr_x86_ctr_msr(x, slot);

	if (!hw->adopt) {
		pctr_x86_wrmsr(hw, msr, val);
		return;
	}
	if (have & BIT(slot))
		val = hw->val[slot];
	else
		pctr_x86_rdctr(pmu, hw, slot, &val);
	val &= pctr_width_mask(pctr_slot_width(pmu, slot));
	if (val >> (pctr_slot_width(pmu, slot) - 1)) {
		val = 0;
		pctr_x86_wrmsr(hw, msr, 0);
	}
	hw->val[slot] = val;
}

/*
 * Take every general counter and its event select from the kernel's
 * reservation bitmap, all or nothing.  perf takes them all while it has
 * any hardware event (the NMI watchdog is one), so a failure means the
 * admin has to stop those users; say so once in a while, not per call.
 * The fixed counters are not in the bitmap.  Callers serialise
 * reserve() and release().
 */
int pctr_x86_reserve(struct pctr_pmu *pmu)
{
	struct pctr_x86 *x = pmu->priv;
	unsigned int i;
	int ret;

	if (x->reserved)
		return 0;
	for (i = 0; i < pmu->ngeneral; i++) {
		if (!pctr_reserve_ctr(x->reserve_base + i * x->stride))
			goto busy;
		if (!pctr_reserve_evntsel(pctr_x86_evtsel(x, i))) {
			pctr_release_ctr(x->reserve_base + i * x->stride);
			goto busy;
		}
	}
	/* Overflow interrupts come as NMIs while the counters are ours. */
	if (pmu->flags & PCTR_PMU_NOTIFY) {
		ret = pctr_x86_pmi_on(pmu);
		if (ret)
			goto release;
	}
	x->reserved = true;
	/* perf may have counted in them meanwhile: all are dirty again. */
	WRITE_ONCE(pctr_x86_epoch, pctr_x86_epoch + 1);
	return 0;

busy:
	ret = -EBUSY;
	pr_warn_ratelimited("performance counters in use by perf or the NMI watchdog; free them with 'sysctl kernel.nmi_watchdog=0' and by ending perf sessions\n");
release:
	while (i--) {
		pctr_release_evntsel(pctr_x86_evtsel(x, i));
		pctr_release_ctr(x->reserve_base + i * x->stride);
	}
	return ret;
}

/* Give back what reserve() took, and nothing else. */
void pctr_x86_release(struct pctr_pmu *pmu)
{
	struct pctr_x86 *x = pmu->priv;
	unsigned int i;

	if (!x->reserved)
		return;
	if (pmu->flags & PCTR_PMU_NOTIFY)
		pctr_x86_pmi_off(pmu);
	pctr_cpus_lock();
	pctr_on_each_cpu(pctr_x86_clear_ctl, pmu);
	pctr_cpus_unlock();
	for (i = 0; i < pmu->ngeneral; i++) {
		pctr_release_evntsel(pctr_x86_evtsel(x, i));
		pctr_release_ctr(x->reserve_base + i * x->stride);
	}
	x->reserved = false;
}

/*
 * Module unload, the PMU given back: what the first reserve() set up
 * to stay (the NMI handler, the hotplug state) goes.
 */
void pctr_x86_exit(struct pctr_pmu *pmu)
{
	if (pmu->flags & PCTR_PMU_NOTIFY)
		pctr_x86_pmi_exit();
}

/*
 * Does counter 0 keep a value written to it?  Hypervisors that stub the
 * registers out (QEMU's TCG among them) read fine but drop the write;
 * Linux's own PMU check makes the same test.  Done only on a counter no
 * one else has reserved: if perf holds it, perf already found the PMU
 * working.  Only the low 16 bits are compared, as legacy Intel counter
 * writes sign-extend bit 31.  0, or -ENODEV with the reason in pmu->why.
 * The writes and reads must stay on one CPU.
 */
int pctr_x86_counter_holds_value(struct pctr_pmu *pmu,
				 const struct pctr_x86 *x)
{
	u64 old, val;
	int ret;

	if (!pctr_reserve_ctr(x->reserve_base))
		return 0;
	get_cpu();
	ret = pctr_rdmsr(x->ctr_base, &old);
	if (!ret)
		ret = pctr_wrmsr(x->ctr_base, old ^ 0xffff);
	if (!ret) {
		ret = pctr_rdmsr(x->ctr_base, &val);
		if (!ret && ((val ^ old) & 0xffff) != 0xffff)
			ret = -ENODEV;
		pctr_wrmsr(x->ctr_base, old);
	}
	put_cpu();
	pctr_release_ctr(x->reserve_base);
	if (ret)
		return pctr_x86_no_counters(pmu,
					    "counter MSR %#x does not keep a written value",
					    x->ctr_base);
	return 0;
}

/* A probe found nothing to drive: forget the counters, say why. */
int pctr_x86_no_counters(struct pctr_pmu *pmu, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pmu->why, sizeof(pmu->why), fmt, ap);
	va_end(ap);
	pmu->ngeneral = 0;
	pmu->nfixed = 0;
	pmu->width = 0;
	pmu->fixed_width = 0;
	pmu->version = 0;
	pmu->caps &= PCTR_CAP_TSC;
	return -ENODEV;
}
