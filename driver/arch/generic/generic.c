// SPDX-License-Identifier: GPL-2.0
/*
 * The arch table for an architecture pctr has no backend for yet: the
 * module builds and loads, and offers what every architecture has, the
 * none and sim backends.  The cycle counter is get_cycles(), which reads
 * 0 where the architecture has none; its rate is not known here, so the
 * sim (which needs it) refuses to load.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/timex.h>

#include "../../backend.h"

static void generic_identify(struct pctr_cpu_id *cpu)
{
	memset(cpu, 0, sizeof(*cpu));
}

static int generic_probe(struct pctr_pmu *pmu, const struct pctr_cpu_id *cpu)
{
	strscpy(pmu->why, "no counter support for this architecture",
		sizeof(pmu->why));
	return -ENODEV;
}

static u64 generic_cycles(void)
{
	return get_cycles();
}

const struct pctr_arch pctr_arch = {
	.identify	= generic_identify,
	.probe		= generic_probe,
	.tsc		= generic_cycles,
};
