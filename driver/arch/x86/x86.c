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
 * Stop the general counters of @hw: from perfmon version 2 on one write
 * of the global control register @global_ctrl stops them all at the same
 * instant; then clear their event selects.
 */
void pctr_x86_stop_general(const struct pctr_pmu *pmu,
			   const struct pctr_hw *hw, u32 global_ctrl)
{
	const struct pctr_x86 *x = pmu->priv;
	u32 general = hw->mask & pctr_x86_general_slots(pmu);
	unsigned int i;

	if (pmu->version >= 2)
		pctr_wrmsr(global_ctrl, 0);
	for (i = 0; i < pmu->ngeneral; i++)
		if (general & BIT(i))
			pctr_wrmsr(pctr_x86_evtsel(x, i), 0);
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
	x->reserved = true;
	return 0;

busy:
	while (i--) {
		pctr_release_evntsel(pctr_x86_evtsel(x, i));
		pctr_release_ctr(x->reserve_base + i * x->stride);
	}
	pr_warn_ratelimited("performance counters in use by perf or the NMI watchdog; free them with 'sysctl kernel.nmi_watchdog=0' and by ending perf sessions\n");
	return -EBUSY;
}

/* Give back what reserve() took, and nothing else. */
void pctr_x86_release(struct pctr_pmu *pmu)
{
	struct pctr_x86 *x = pmu->priv;
	unsigned int i;

	if (!x->reserved)
		return;
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
 */
int pctr_x86_counter_holds_value(struct pctr_pmu *pmu,
				 const struct pctr_x86 *x)
{
	u64 old, val;
	int ret;

	if (!pctr_reserve_ctr(x->reserve_base))
		return 0;
	ret = pctr_rdmsr(x->ctr_base, &old);
	if (!ret)
		ret = pctr_wrmsr(x->ctr_base, old ^ 0xffff);
	if (!ret) {
		ret = pctr_rdmsr(x->ctr_base, &val);
		if (!ret && ((val ^ old) & 0xffff) != 0xffff)
			ret = -ENODEV;
		pctr_wrmsr(x->ctr_base, old);
	}
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
