/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the counting engine (ctx.c) shares with the bindings (bind.c):
 * the engine owns every register and per-CPU state; bind.c owns the
 * descriptors, privileges and the requests that reach other threads.
 */
#ifndef _PCTR_CTX_H
#define _PCTR_CTX_H

#include <linux/types.h>

#include "pctr.h"

struct pctr_ctx;

/*
 * A CPU binding: counters that count on one CPU whatever runs there.
 * Its sums change only on that CPU, with interrupts off (IPIs, the fold
 * timer, the overflow interrupt), so reading them goes through an IPI.
 */
struct pctr_cpub {
	u64		id;		/* shares the context ID space */
	unsigned int	cpu;
	u64		fn[PCTR_NUM];
	u64		sum[PCTR_NUM];
	u64		prev[PCTR_NUM];
	struct pctr_hw	hw;
};

/* How many CPU bindings exist: while any does, threads cannot count. */
unsigned int pctr_cpu_bindings(void);

/* Encode @fn[s] for each slot of @mask into @ctl (as PCIOCS would). */
int pctr_ctx_encode_all(u32 mask, const u64 *fn, u64 *ctl, bool privileged);

/* CPU bindings: process context; each runs an IPI on the CPU. */
int pctr_cpub_install(struct pctr_cpub *cb);
void pctr_cpub_remove(struct pctr_cpub *cb);
void pctr_cpub_read(struct pctr_cpub *cb, u64 *val);
void pctr_cpub_begin(void);	/* before install: invalidate threads */
void pctr_cpub_end(void);	/* after remove */

/*
 * Thread bindings.  pctr_ctx_remote_new() runs in the target thread
 * itself and returns its new context with a reference for the binder.
 */
struct pctr_ctx *pctr_ctx_remote_new(u32 mask, const u64 *fn,
				     const u64 *ctl, const u64 *preset);
int pctr_ctx_remote_read(struct pctr_ctx *ctx, u64 *fn, u64 *val, u32 *mask);
void pctr_ctx_remote_end(struct pctr_ctx *ctx);

/* A task_work callback of ours was queued: module exit must wait. */
void pctr_note_task_work(void);

#endif /* _PCTR_CTX_H */
