// SPDX-License-Identifier: GPL-2.0
/*
 * x86 PMU discovery: read CPUID (and, where it is safe, one MSR) and
 * describe the counters in a struct pctr_pmu.  Nothing here programs a
 * counter.  Built for the host tests too, against a register model.
 */
#include "hw.h"
#include "x86.h"

static void x86_vendor(struct pctr_pmu *pmu, u32 *max_leaf)
{
	u32 regs[3], a;

	pctr_cpuid(0, 0, &a, &regs[0], &regs[2], &regs[1]);
	memcpy(pmu->vendor, regs, 12);
	pmu->vendor[12] = '\0';
	*max_leaf = a;
}

static void x86_family_model(struct pctr_pmu *pmu)
{
	u32 a, b, c, d, family, model;

	pctr_cpuid(1, 0, &a, &b, &c, &d);
	family = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family >= 6)
		model |= ((a >> 16) & 0xf) << 4;
	pmu->family = family;
	pmu->model = model;
}

/*
 * Does counter 0 keep a value written to it?  Hypervisors that stub the
 * registers out (QEMU's TCG among them) read fine but drop the write;
 * Linux's own PMU check makes the same test.  Done only on a counter no
 * one else has reserved: if perf holds it, perf already found the PMU
 * working.  Only the low 16 bits are compared, as legacy Intel counter
 * writes sign-extend bit 31.
 */
static int x86_counter_holds_value(struct pctr_pmu *pmu,
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
		snprintf(pmu->why, sizeof(pmu->why),
			 "counter MSR %#x does not keep a written value",
			 x->ctr_base);
	return ret ? -ENODEV : 0;
}

/* Forget the counters a failed probe described. */
static int x86_no_counters(struct pctr_pmu *pmu)
{
	pmu->ngeneral = 0;
	pmu->nfixed = 0;
	pmu->width = 0;
	pmu->fixed_width = 0;
	pmu->version = 0;
	pmu->caps &= PCTR_CAP_TSC;
	return -ENODEV;
}

/* Intel architectural performance monitoring, CPUID leaf 0xA. */
static int x86_probe_intel(struct pctr_pmu *pmu, struct pctr_x86 *x, u32 max)
{
	u32 a, b, c, d, len, fixed_mask;
	u64 perf_cap;

	if (max < 0xa) {
		snprintf(pmu->why, sizeof(pmu->why), "no CPUID leaf 0xA");
		return -ENODEV;
	}
	pctr_cpuid(0xa, 0, &a, &b, &c, &d);
	pmu->version = a & 0xff;
	pmu->ngeneral = (a >> 8) & 0xff;
	pmu->width = min((a >> 16) & 0xff, 64U);
	if (pmu->version == 0 || pmu->ngeneral == 0 || pmu->width == 0) {
		snprintf(pmu->why, sizeof(pmu->why),
			 "CPUID 0xA reports perfmon version %u, %u counters",
			 pmu->version, pmu->ngeneral);
		return x86_no_counters(pmu);
	}
	if (pmu->ngeneral > X86_MAX_GENERAL)
		pmu->ngeneral = X86_MAX_GENERAL;

	/*
	 * EBX bit i set: architectural event i is not available.  Events
	 * past the length of that bit vector (EAX[31:24]) are not either.
	 */
	len = a >> 24;
	x->arch_unavail = b | (len < 32 ? ~0U << len : 0);

	/* Fixed counters exist from version 2 on; v5 adds a bit mask. */
	if (pmu->version >= 2) {
		pmu->nfixed = d & 0x1f;
		pmu->fixed_width = min((d >> 5) & 0xff, 64U);
		fixed_mask = (1U << pmu->nfixed) - 1;
		if (pmu->version >= 5)
			fixed_mask |= c;
		x->fixed_mask = fixed_mask & ((1U << X86_MAX_FIXED) - 1);
		pmu->nfixed = x->fixed_mask ? fls(x->fixed_mask) : 0;
		pmu->caps |= PCTR_CAP_GLOBAL_CTRL;
	}
	if (pmu->version >= 3 && pmu->version < 5)
		pmu->caps |= PCTR_CAP_ANYTHREAD;

	x->evtsel_base = MSR_PCTR_INTEL_EVTSEL0;
	x->ctr_base = MSR_PCTR_INTEL_PMC0;
	x->reserve_base = MSR_PCTR_INTEL_PMC0;
	if (x86_counter_holds_value(pmu, x))
		return x86_no_counters(pmu);
	pctr_cpuid(1, 0, &a, &b, &c, &d);
	if ((c & (1U << 15)) && !pctr_rdmsr(MSR_PCTR_INTEL_PERF_CAP,
					    &perf_cap) &&
	    (perf_cap & PCTR_INTEL_PERF_CAP_FW_WRITE)) {
		x->ctr_base = MSR_PCTR_INTEL_A_PMC0;
		pmu->caps |= PCTR_CAP_FULL_WIDTH;
	}
	pmu->backend_id = PCTR_BACKEND_INTEL;
	strscpy(pmu->name, "intel", sizeof(pmu->name));
	return 0;
}

/* AMD core counters: legacy four, PerfCtrExtCore six, PerfMonV2. */
static int x86_probe_amd(struct pctr_pmu *pmu, struct pctr_x86 *x)
{
	u32 a, b, c, d, ext_max;
	u64 val;

	pctr_cpuid(0x80000000, 0, &ext_max, &b, &c, &d);
	x->evtsel_base = MSR_PCTR_AMD_EVTSEL0;
	x->ctr_base = MSR_PCTR_AMD_CTR0;
	x->stride = 1;
	pmu->ngeneral = 4;
	pmu->version = 1;
	if (ext_max >= 0x80000001) {
		pctr_cpuid(0x80000001, 0, &a, &b, &c, &d);
		if (c & (1U << 23)) {
			x->evtsel_base = MSR_PCTR_AMD_EXT_CTL0;
			x->ctr_base = MSR_PCTR_AMD_EXT_CTR0;
			x->stride = 2;
			pmu->ngeneral = 6;
		}
	}
	if (ext_max >= 0x80000022) {
		pctr_cpuid(0x80000022, 0, &a, &b, &c, &d);
		if (a & 1) {
			/* PerfMonV2 counters are the PerfCtrExtCore ones. */
			x->evtsel_base = MSR_PCTR_AMD_EXT_CTL0;
			x->ctr_base = MSR_PCTR_AMD_EXT_CTR0;
			x->stride = 2;
			pmu->version = 2;
			pmu->caps |= PCTR_CAP_GLOBAL_CTRL;
			if (b & 0xf)
				pmu->ngeneral = b & 0xf;
		}
	}
	pmu->width = 48;
	x->reserve_base = x->ctr_base;

	/*
	 * There is no CPUID bit for the legacy counters, and hypervisors
	 * often do not implement them: a faulting read, or a counter that
	 * does not keep its value, means there is nothing to drive.
	 */
	if (pctr_rdmsr(x->evtsel_base, &val)) {
		snprintf(pmu->why, sizeof(pmu->why),
			 "performance counter MSR %#x faults", x->evtsel_base);
		return x86_no_counters(pmu);
	}
	if (x86_counter_holds_value(pmu, x))
		return x86_no_counters(pmu);
	pmu->backend_id = PCTR_BACKEND_AMD;
	strscpy(pmu->name, "amd", sizeof(pmu->name));
	return 0;
}

/*
 * Describe the CPU's counters in @pmu and, when there are any, hand it
 * to the Intel or AMD backend: ops, valid function bits, named events.
 */
int pctr_x86_probe(struct pctr_pmu *pmu, struct pctr_x86 *x)
{
	u32 max;
	int ret;

	memset(x, 0, sizeof(*x));
	x->stride = 1;
	x86_vendor(pmu, &max);
	if (max >= 1)
		x86_family_model(pmu);
	pmu->caps |= PCTR_CAP_TSC;

	if (!strcmp(pmu->vendor, "GenuineIntel")) {
		ret = x86_probe_intel(pmu, x, max);
	} else if (!strcmp(pmu->vendor, "AuthenticAMD") ||
		   !strcmp(pmu->vendor, "HygonGenuine")) {
		ret = x86_probe_amd(pmu, x);
	} else {
		snprintf(pmu->why, sizeof(pmu->why),
			 "no counter support for %s", pmu->vendor);
		ret = -ENODEV;
	}
	if (ret)
		return ret;

	pmu->why[0] = '\0';
	pmu->priv = x;
	pmu->caps |= PCTR_CAP_COUNTERS | PCTR_CAP_USER_RDPMC |
		     PCTR_CAP_OVERFLOW;
	if (pmu->backend_id == PCTR_BACKEND_INTEL)
		pctr_intel_setup(pmu, x);
	else
		pctr_amd_setup(pmu, x);
	return 0;
}
