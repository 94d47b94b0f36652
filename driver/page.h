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
struct pctr_page;

/* The layouts a context's page is kept in (ctx->page_abi). */
#define PAGE_ABI_V1	BIT(0)		/* struct pctr_page at byte 0 */
#define PAGE_ABI_V2	BIT(1)		/* struct pctr_page2 */

/* All online CPUs' idle time (pctr_idl), cached for a jiffy. */
u64 page_idle_ns(void);

/* A new page, zeroed: its versions, and no slot readable inline. */
void page_init(struct pctr_page *pg);

/* @live: its counters are in this CPU's registers and count. */
void page_publish(struct pctr_ctx *ctx, bool live);
void page_publish_dead(struct pctr_ctx *ctx);

/*
 * For a version 2 page, whose reader adds the raw counter to an offset:
 * true when a counter, as last read into ctx->hw.val, has gone past the
 * point where it must start from zero again (page_rebase).
 */
bool page_rebase_due(const struct pctr_ctx *ctx);

#endif /* _PCTR_PAGE_H */
