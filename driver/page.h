/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counter page (page.c), below the engine: ctx.c rewrites it
 * whenever a thread's counters change state.  Interrupts off, on the
 * thread's CPU.
 */
#ifndef _PCTR_PAGE_H
#define _PCTR_PAGE_H

#include <linux/types.h>

struct pctr_ctx;

/*
 * @live: its counters are in this CPU's registers and count; @valid: no
 * CPU binding has invalidated it (the engine's epoch).
 */
void page_publish(struct pctr_ctx *ctx, bool live, bool valid);
void page_publish_dead(struct pctr_ctx *ctx);

#endif /* _PCTR_PAGE_H */
