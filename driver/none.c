// SPDX-License-Identifier: GPL-2.0
/*
 * The "none" backend: no counters, the TSC only.  Chosen by pmu=none, or
 * by pmu=auto when the probe finds no PMU (as under QEMU's TCG).
 */
#include <linux/string.h>

#include "pmu.h"

void pctr_none_probe(struct pctr_pmu *pmu, const char *why)
{
	char vendor[sizeof(pmu->vendor)], reason[sizeof(pmu->why)];
	u32 family = pmu->family, model = pmu->model;
	u64 khz = pmu->tsc_khz;

	/* Keep what the probe learned of the CPU, drop any counters. */
	memcpy(vendor, pmu->vendor, sizeof(vendor));
	strscpy(reason, why, sizeof(reason));
	memset(pmu, 0, sizeof(*pmu));
	memcpy(pmu->vendor, vendor, sizeof(vendor));
	pmu->family = family;
	pmu->model = model;
	pmu->tsc_khz = khz;
	pmu->backend_id = PCTR_BACKEND_NONE;
	pmu->caps = PCTR_CAP_TSC;
	strscpy(pmu->name, "none", sizeof(pmu->name));
	strscpy(pmu->why, reason, sizeof(pmu->why));
}
