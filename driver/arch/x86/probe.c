// SPDX-License-Identifier: GPL-2.0
/*
 * The x86 arch table (struct pctr_arch): who the CPU is, which vendor's
 * backend drives its counters, the TSC, user-mode rdpmc and user call
 * chains.  The top
 * layer of arch/x86: it calls the vendor files, never the other way.
 * Built for the host tests too, against a register model.
 */
#include "hw.h"
#include "x86.h"

/* The backend's data (pmu->priv); one PMU per machine. */
static struct pctr_x86 pctr_x86;

static void x86_identify(struct pctr_cpu_id *cpu)
{
	u32 regs[3], max, a, b, c, d;

	memset(cpu, 0, sizeof(*cpu));
	pctr_cpuid(0, 0, &max, &regs[0], &regs[2], &regs[1]);
	memcpy(cpu->vendor, regs, 12);
	cpu->vendor[12] = '\0';
	if (max >= 1) {
		pctr_cpuid(1, 0, &a, &b, &c, &d);
		cpu->family = (a >> 8) & 0xf;
		cpu->model = (a >> 4) & 0xf;
		if (cpu->family == 0xf)
			cpu->family += (a >> 20) & 0xff;
		if (cpu->family >= 6)
			cpu->model |= ((a >> 16) & 0xf) << 4;
	}
	cpu->tsc = true;
	cpu->tsc_khz = pctr_tsc_khz();
}

static int x86_probe_vendor(struct pctr_pmu *pmu,
			    const struct pctr_cpu_id *cpu, struct pctr_x86 *x)
{
	if (!strcmp(cpu->vendor, "GenuineIntel"))
		return pctr_intel_probe(pmu, cpu, x);
	if (!strcmp(cpu->vendor, "AuthenticAMD") ||
	    !strcmp(cpu->vendor, "HygonGenuine"))
		return pctr_amd_probe(pmu, cpu, x);
	snprintf(pmu->why, sizeof(pmu->why), "no counter support for %s",
		 cpu->vendor);
	return -ENODEV;
}

/*
 * Describe the CPU's counters in @pmu and, when there are any, hand them
 * to the Intel or AMD backend: ops, valid function bits, named events.
 */
static int x86_probe(struct pctr_pmu *pmu, const struct pctr_cpu_id *cpu)
{
	struct pctr_x86 *x = &pctr_x86;
	int ret;

	memset(x, 0, sizeof(*x));
	x->stride = 1;
	pmu->caps |= PCTR_CAP_TSC;
	ret = x86_probe_vendor(pmu, cpu, x);
	if (ret)
		return ret;

	pmu->why[0] = '\0';
	pmu->priv = x;
	pmu->caps |= PCTR_CAP_COUNTERS | PCTR_CAP_USER_RDPMC;
	snprintf(pmu->desc, sizeof(pmu->desc),
		 "%s: %s family %u model %u, perfmon v%u, %u general counters (%u bits), %u fixed (%u bits)%s",
		 pmu->name, cpu->vendor, cpu->family, cpu->model,
		 pmu->version, pmu->ngeneral, pmu->width, pmu->nfixed,
		 pmu->fixed_width,
		 x->hybrid ? "; hybrid CPU: only the counters every core type has" : "");
	return 0;
}

const struct pctr_arch pctr_arch = {
	.identify	= x86_identify,
	.probe		= x86_probe,
	.tsc		= pctr_rdtsc,
	.user_read	= pctr_set_pce,
	.user_read_mm	= pctr_mm_user_read,
	.cache_bytes	= pctr_cache_bytes,
#ifdef CONFIG_X86_64
	/* Frame-pointer walks of 64-bit user stacks (stack.c). */
	.user_chain	= pctr_x86_user_chain,
	/* The kernel's own unwinder (stack.c). */
	.kernel_chain	= pctr_x86_kernel_chain,
#endif
};
