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
 * Per CPU: the counter slots whose registers may hold counts of another
 * context than the one starting next, because they counted or were
 * written since they were last zeroed; and the pctr_x86_epoch they are
 * of.  Taking the counters back from perf starts a new epoch, in which
 * every register is dirty until zeroed.  Only touched with interrupts
 * off, on the CPU they describe.
 */
static DEFINE_PER_CPU(u32, pctr_x86_dirty);
static DEFINE_PER_CPU(u32, pctr_x86_dirty_epoch);
static u32 pctr_x86_epoch = 1;

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

/* The counter register of @slot (general, or Intel fixed). */
static u32 pctr_x86_ctr_msr(const struct pctr_x86 *x, unsigned int slot)
{
	if (slot < PCTR_FIXED_BASE)
		return pctr_x86_ctr(x, slot);
	return MSR_PCTR_INTEL_FIXED_CTR0 + slot - PCTR_FIXED_BASE;
}

/*
 * At start(), before @hw is loaded: with hw->user_read, zero every
 * counter register outside hw->mask that may hold another context's
 * counts, since user-mode rdpmc reads any counter, not only the thread's
 * own.  Zeroing at stop() instead would cost every context a write per
 * counter at every switch-out; tracking dirty registers costs writes only
 * when a thread with user reads follows one that used other counters,
 * and none in the common case of one counting thread on a CPU.
 */
void pctr_x86_scrub(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	const struct pctr_x86 *x = pmu->priv;
	u32 all = pctr_x86_general_slots(pmu) | x->fixed_mask << PCTR_FIXED_BASE;
	u32 dirty = this_cpu_read(pctr_x86_dirty), epoch, stale, msr;
	unsigned int s;

	epoch = READ_ONCE(pctr_x86_epoch);
	if (this_cpu_read(pctr_x86_dirty_epoch) != epoch) {
		this_cpu_write(pctr_x86_dirty_epoch, epoch);
		dirty = all;
	}
	stale = dirty & all & ~hw->mask;
	for (s = 0; hw->user_read && stale && s < PCTR_NUM; s++) {
		if (!(stale & BIT(s)))
			continue;
		msr = pctr_x86_ctr_msr(x, s);
		if (pctr_wrmsr(msr, 0))
			pctr_x86_failed(hw, msr, true);
		else
			dirty &= ~BIT(s);
	}
	this_cpu_write(pctr_x86_dirty, dirty | hw->mask);
}

/*
 * Stop the general counters of @hw: from perfmon version 2 on one write
 * of the global control register @global_ctrl stops them all at the same
 * instant; then clear their event selects.
 */
void pctr_x86_stop_general(const struct pctr_pmu *pmu, struct pctr_hw *hw,
			   u32 global_ctrl)
{
	const struct pctr_x86 *x = pmu->priv;
	u32 general = hw->mask & pctr_x86_general_slots(pmu);
	unsigned int i;

	if (pmu->version >= 2)
		pctr_x86_wrmsr(hw, global_ctrl, 0);
	for (i = 0; i < pmu->ngeneral; i++)
		if (general & BIT(i))
			pctr_x86_wrmsr(hw, pctr_x86_evtsel(x, i), 0);
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
	for (i = 0; i < pmu->ngeneral; i++) {
		pctr_release_evntsel(pctr_x86_evtsel(x, i));
		pctr_release_ctr(x->reserve_base + i * x->stride);
	}
	x->reserved = false;
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
