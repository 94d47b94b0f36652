// SPDX-License-Identifier: GPL-2.0
/*
 * The SPARC arch table (struct pctr_arch): who the CPU is, which chip's
 * PCR layout its counters have, %tick as the cycle counter.  The top
 * layer of arch/sparc; built for the host tests too, against a model.
 */
#include "hw.h"
#include "sparc.h"

static struct pctr_sparc_id pctr_sparc_id;

static void sparc_identify(struct pctr_cpu_id *cpu)
{
	struct pctr_sparc_id *id = &pctr_sparc_id;

	memset(cpu, 0, sizeof(*cpu));
	memset(id, 0, sizeof(*id));
	pctr_sparc_identify_cpu(id);
	strscpy(cpu->vendor, id->sun4v ? "sun4v" : "sun4u", sizeof(cpu->vendor));
	cpu->family = id->impl;
	cpu->model = id->mask;
	cpu->tsc = true;
	cpu->tsc_khz = pctr_sparc_tick_khz();
}

static int sparc_probe(struct pctr_pmu *pmu, const struct pctr_cpu_id *cpu)
{
	const struct pctr_sparc *sp;
	int ret;

	pmu->caps |= PCTR_CAP_TSC;
	ret = pctr_sparc_probe(pmu, &pctr_sparc_id);
	if (ret)
		return ret;
	sp = pmu->priv;
	snprintf(pmu->desc, sizeof(pmu->desc),
		 "%s: %s (%s impl 0x%x), %u counters (%u bits) in one PIC, folded by the timer%s",
		 pmu->name, sp->chip->name, cpu->vendor, cpu->family,
		 pmu->ngeneral, pmu->width,
		 sp->chip->overflow_irq ? " and at each wrap's level-15 interrupt" : "");
	return 0;
}

const struct pctr_arch pctr_arch = {
	.identify	= sparc_identify,
	.probe		= sparc_probe,
	.tsc		= pctr_sparc_tick,
	.cache_bytes	= pctr_sparc_cache_bytes,
	/* Sun's Perfmon programs come from here: /dev/perfmon by default. */
	.perfmon	= true,
};
