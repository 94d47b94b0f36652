/* SPDX-License-Identifier: GPL-2.0 */
/*
 * notify.c: a context's references, its overflow signal, and the module's
 * task_work callbacks.  Below the engine (ctx.h includes it).
 */
#ifndef _PCTR_NOTIFY_H
#define _PCTR_NOTIFY_H

#include <linux/types.h>

struct pctr_ctx;

void ctx_get(struct pctr_ctx *ctx);
void ctx_put(struct pctr_ctx *ctx);		/* any but NMI */

/* A task_work callback of ours was queued: module exit must wait. */
void ctx_note_task_work(void);
bool ctx_task_works(void);

/* Freeze @ctx and signal its thread.  Interrupts off, on its CPU. */
void notify_overflow(struct pctr_ctx *ctx);

/* Set-up, from ctx.c's. */
void notify_init(void);
void notify_exit(void);

#endif /* _PCTR_NOTIFY_H */
