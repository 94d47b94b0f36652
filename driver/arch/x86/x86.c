// SPDX-License-Identifier: GPL-2.0
/*
 * The x86 entry points of the backend seam (probe the CPU, read the TSC)
 * and what the Intel and AMD backends share: the function check, the
 * named event table, counter reservation, and overflow detection where
 * there is no overflow status register.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "hw.h"
#include "x86.h"

static struct pctr_x86 pctr_x86;

/*
 * The general counters this CPU started from a value with the top bit
 * set.  Without an overflow status register (Intel version 1, AMD before
 * PerfMonV2) such a counter that reads with the top bit clear has
 * wrapped.  Only touched with interrupts off, on the CPU it describes.
 */
static DEFINE_PER_CPU(u32, pctr_x86_armed);

int pctr_arch_probe(struct pctr_pmu *pmu)
{
	int ret;

	/* The probe's register checks must stay on one CPU. */
	get_cpu();
	ret = pctr_x86_probe(pmu, &pctr_x86);
	put_cpu();
	pmu->tsc_khz = pctr_tsc_khz();
	return ret;
}

u64 pctr_arch_tsc(void)
{
	return pctr_rdtsc();
}

void pctr_arch_user_rdpmc(bool on)
{
	pctr_set_pce(on);
}

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

/* Of the general @slots just started, @armed began with the top bit set. */
void pctr_x86_arm(u32 slots, u32 armed)
{
	u32 old = this_cpu_read(pctr_x86_armed);

	this_cpu_write(pctr_x86_armed, (old & ~slots) | (armed & slots));
}

void pctr_x86_disarm(u32 slots)
{
	u32 old = this_cpu_read(pctr_x86_armed);

	if (old & slots)
		this_cpu_write(pctr_x86_armed, old & ~slots);
}

/*
 * The armed counters that have wrapped since they were started.  Runs
 * on the counters' CPU with interrupts off; acknowledging disarms them.
 */
u32 pctr_x86_legacy_overflow(const struct pctr_pmu *pmu)
{
	const struct pctr_x86 *x = pmu->priv;
	u32 armed = this_cpu_read(pctr_x86_armed), slots = 0;
	u64 top = 1ULL << (pmu->width - 1), val;
	unsigned int i;

	for (i = 0; i < pmu->ngeneral; i++) {
		if (!(armed & BIT(i)))
			continue;
		if (!pctr_rdmsr(pctr_x86_ctr(x, i), &val) && !(val & top))
			slots |= BIT(i);
	}
	return slots;
}
