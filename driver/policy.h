/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.c: who may do what, in one place (Documentation/security.rst).
 * It calls nothing of the engine's: every layer may ask it.
 */
#ifndef _PCTR_POLICY_H
#define _PCTR_POLICY_H

#include <linux/bits.h>
#include <linux/types.h>

struct pid;
struct task_struct;
struct user_struct;

/* The calling thread's rights: */
#define PCTR_MAY_OTHERS	BIT(0)	/* bits that count other threads: EPERM */
#define PCTR_MAY_KERNEL	BIT(1)	/* count in kernel mode: EACCES */
#define PCTR_MAY_CPU	BIT(2)	/* bind a CPU: EACCES */
unsigned int pctr_rights(void);
bool pctr_may_bind_cpu(void);
unsigned int pctr_bind_rights(bool cpu);
unsigned int pctr_sys_rights(void);
int pctr_policy_fn(u64 fn, unsigned int rights);
bool pctr_may_bind_thread(struct task_struct *t, struct pid *binder);
bool pctr_may_read_system_all(void);

/* Sampling rings' memory, charged to a user within its allowance. */
int pctr_charge_ring(struct user_struct *user, unsigned long pages);
void pctr_uncharge_ring(struct user_struct *user, unsigned long pages);

/* Sampling's limits per CPU and tick (max_sample_rate, cpu_time_max_percent). */
void pctr_sample_limits(u32 *samples, u64 *ns);

#endif /* _PCTR_POLICY_H */
