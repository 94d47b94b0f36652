// SPDX-License-Identifier: GPL-2.0
/*
 * The "none" backend: no counters, the TSC only.  Chosen by pmu=none, or
 * by pmu=auto when the arch's probe finds no PMU (as under QEMU's TCG).
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "../backend.h"

/* @why may point into @pmu (a failed probe's reason). */
void pctr_none_probe(struct pctr_pmu *pmu, const struct pctr_cpu_id *cpu,
		     const char *why)
{
	char reason[sizeof(pmu->why)];

	strscpy(reason, why, sizeof(reason));
	memset(pmu, 0, sizeof(*pmu));
	pmu->backend_id = PCTR_BACKEND_NONE;
	pmu->caps = cpu->tsc ? PCTR_CAP_TSC : 0;
	strscpy(pmu->name, "none", sizeof(pmu->name));
	strscpy(pmu->why, reason, sizeof(pmu->why));
	snprintf(pmu->desc, sizeof(pmu->desc),
		 "%s family %u model %u: no PMU (%s); offering the TSC only",
		 cpu->vendor[0] ? cpu->vendor : "unknown CPU", cpu->family,
		 cpu->model, reason);
}
