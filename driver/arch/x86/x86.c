// SPDX-License-Identifier: GPL-2.0
/*
 * The x86 entry points of the backend seam: probe the CPU and pick the
 * Intel or AMD backend, and read the TSC.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/smp.h>
#include <asm/tsc.h>

#include "x86.h"

static struct pctr_x86 pctr_x86;

int pctr_arch_probe(struct pctr_pmu *pmu)
{
	int ret;

	/* The probe's register checks must stay on one CPU. */
	get_cpu();
	ret = pctr_x86_probe(pmu, &pctr_x86);
	put_cpu();
	pmu->tsc_khz = tsc_khz;
	return ret;
}

u64 pctr_arch_tsc(void)
{
	return rdtsc_ordered();
}
