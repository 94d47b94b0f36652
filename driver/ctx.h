/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting engine's internals, shared by its three files: ctx.c (the
 * engine: counting, the scheduler's hooks, contexts' lives, CPU
 * bindings' registers), thread.c (what a thread asks of its own counters,
 * and inheritance) and bind.c (descriptors bound to a CPU or to another
 * process's thread).
 *
 * The rule all three keep: a context's counting state changes only on
 * the CPU its thread runs on, with interrupts off -- in the thread's own
 * calls, its switch-in and switch-out, the fold timer and overflow
 * interrupt while it runs, or an IPI to that CPU.
 */
#ifndef _PCTR_CTX_H
#define _PCTR_CTX_H

#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/refcount.h>
#include <linux/types.h>

#include "engine.h"
#include "pmu.h"

struct page;
struct pid;
struct task_struct;

/* A thread's counters. */
struct pctr_ctx {
	struct preempt_notifier	pn;
	u64		id;		/* unique for the module's life */
	u64		fn[PCTR_NUM];	/* functions, as the user set them */
	u64		sum[PCTR_NUM];	/* 64-bit virtual values */
	u64		prev[PCTR_NUM];	/* raw value at the last fold */
	u64		preset[PCTR_NUM]; /* where restart and children start */
	struct pctr_hw	hw;		/* what the backend loads and stops */
	int		last_cpu;	/* CPU of the last stop, or -1 */
	bool		running;	/* the thread is on a CPU */
	bool		dirty;		/* registers must be rewritten */
	bool		pce;		/* user rdpmc turned on for it */
	bool		frozen;		/* stopped by an overflow */
	bool		disabled;	/* stopped by PCIOCDISABLE */
	bool		remote;		/* programmed by a thread binding */
	bool		dead;		/* the thread's side has ended */
	bool		released;	/* a binder let go: ends at once */
	u32		notify;		/* slots with PCTR_INT */
	u32		ovf;		/* of which wrapped, until restart */
	u32		opts;		/* PCTR_O_* */
	int		signo;		/* the overflow signal */
	unsigned long	epoch;		/* CPU-binding epoch it belongs to */
	u32		seq;		/* odd while running: remote reads */
	int		cpu;		/* where it runs, while seq is odd */
	u64		vtsc;		/* TSC cycles run up to tsc_in */
	u64		tsc_in;		/* TSC at the last switch-in */
	struct page	*page;		/* the page user space maps, or NULL */
	struct pctr_page *upage;	/* its kernel address */
	u32		published;	/* slots the page describes */
	refcount_t	ref;
	struct pid	*pid;		/* the thread, for signals */
	unsigned long	ovf_pc;		/* user PC at the last overflow */
	struct callback_head ovf_work;	/* sends the overflow signal */
	bool		ovf_queued;	/* ovf_work waits to run */
	struct callback_head end_work;	/* a thread binding's end */
};

struct pctr_cpu {
	struct pctr_ctx	*cur;		/* counting on this CPU now */
	struct pctr_cpub *cpub;		/* the CPU's binding, if any */
	u64		last_id;	/* whose state the registers hold */
	struct hrtimer	fold;		/* folds while a context runs */
	unsigned long	kept;		/* starts that only re-enabled */
	unsigned long	loaded;		/* starts that rewrote registers */
};

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

DECLARE_PER_CPU(struct pctr_cpu, pctr_cpu);

/* ctx.c: the engine.  Counting calls: interrupts off, on the CPU. */
bool ctx_epoch(unsigned long *epoch);
bool ctx_valid(const struct pctr_ctx *ctx);
bool ctx_counts(const struct pctr_ctx *ctx);
void ctx_start(struct pctr_ctx *ctx);
void ctx_stop(struct pctr_ctx *ctx);
void ctx_update(struct pctr_ctx *ctx);
void ctx_publish(struct pctr_ctx *ctx);
bool ctx_check_ovf(struct pctr_ctx *ctx);
void ctx_values(struct pctr_ctx *ctx, unsigned long m, u64 *fn, u64 *val);

/* Contexts' lives (process context unless said). */
struct pctr_ctx *ctx_current(void);
struct pctr_ctx *ctx_current_live(void);
struct pctr_ctx *ctx_create(bool counting);
void ctx_destroy(struct pctr_ctx *ctx);		/* any but NMI */
void ctx_destroy_current(struct pctr_ctx *ctx);
void ctx_get(struct pctr_ctx *ctx);
void ctx_put(struct pctr_ctx *ctx);		/* any but NMI */

/* A task_work callback of ours was queued: module exit must wait. */
void pctr_note_task_work(void);

/* CPU bindings' registers: process context; each runs an IPI. */
unsigned int pctr_cpu_bindings(void);
void pctr_cpub_begin(void);	/* before install: invalidate threads */
void pctr_cpub_end(void);	/* after remove */
int pctr_cpub_install(struct pctr_cpub *cb);
void pctr_cpub_remove(struct pctr_cpub *cb);
void pctr_cpub_read(struct pctr_cpub *cb, u64 *val);

/* thread.c */
int pctr_ctx_encode_all(u32 mask, const u64 *fn, u64 *ctl, bool privileged);
void pctr_probe_fork(void *data, struct task_struct *parent,
		     struct task_struct *child);

/* bind.c: the thread-binding half the target runs, and the binder's. */
struct pctr_ctx *pctr_ctx_remote_new(u32 mask, const u64 *fn,
				     const u64 *ctl, const u64 *preset);
int pctr_ctx_remote_read(struct pctr_ctx *ctx, u64 *fn, u64 *val, u32 *mask);
void pctr_ctx_remote_end(struct pctr_ctx *ctx);

#endif /* _PCTR_CTX_H */
