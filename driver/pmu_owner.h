/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmu_owner.c: taking the counters from the rest of the kernel (perf,
 * the NMI watchdog) while any context, CPU binding or system-mode
 * function needs them, and giving them back.
 */
#ifndef _PCTR_PMU_OWNER_H
#define _PCTR_PMU_OWNER_H

#include <linux/types.h>

int pctr_pmu_get(void);
void pctr_pmu_put(void);
void pctr_pmu_settle(void);
unsigned int pctr_pmu_users_count(void);
bool pctr_pmu_is_taken(void);
void pctr_pmu_exit(void);

#endif /* _PCTR_PMU_OWNER_H */
