/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting engine's internals, from the bottom up:
 *
 *   page.c   the counter page (page.h), rewritten by ctx.c;
 *   notify.c a context's references and its overflow signal (notify.h);
 *   cpub.c   the registers of the counters a CPU owns (a CPU
 *            binding's, system mode's), the state each CPU's counting
 *            shares with ctx.c (cpub_private.h, for those two alone);
 *   ctx.c    the mechanism: counting, the scheduler's hooks, the fold
 *            timer and overflow interrupt;
 *   cpu_bind.c CPU bindings: made, read and ended by IPIs;
 *   prog.c   contexts' lives, and prog_load(), the one call that
 *            programs a context: the only one that takes the PMU;
 *   hotplug.c CPU hotplug and suspend, which ctx.c's keep shortcut must
 *            not trust registers across;
 *   policy.c who may do what (prog.c, bind.c and system.c ask it).
 *
 * thread.c (a thread's calls on its own counters, inheritance, the
 * exit/exec/fork hooks), bind.c (descriptors bound to a CPU or to
 * another process's thread) and system.c (system mode) sit above them
 * and change a context only through prog.c.
 *
 * The rule they all keep: a context's counting state changes only on
 * the CPU its thread runs on, with interrupts off -- in the thread's own
 * calls, its switch-in and switch-out, the fold timer and overflow
 * interrupt while it runs, or an IPI to that CPU.
 */
#ifndef _PCTR_CTX_H
#define _PCTR_CTX_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/types.h>

#include "backend.h"
#include "ctx_types.h"
#include "notify.h"
#include "policy.h"

struct page;
struct pctr_sampler;
struct pid;
struct task_struct;

/*
 * Does the context count when its thread runs?  (Not on a CPU a CPU
 * binding holds: ctx.c.)
 */
static inline bool ctx_counts(const struct pctr_ctx *ctx)
{
	return pctr_pmu.ops && ctx->hw.mask && !ctx->frozen &&
	       !ctx->disabled && !ctx->err;
}

/*
 * What prog_load() loads into a context: the one description of a
 * change to a thread's counters.  Functions are checked and encoded by
 * prog_encode(), or copied from a context by prog_of() (inheritance).
 */
struct pctr_prog {
	u32	mask;		/* slots given fn[s], encoded as ctl[s] */
	u32	preset;		/* slots whose value and preset become val[s] */
	u32	flags;		/* PCTR_PROG_* */
	u32	opts;		/* with PCTR_PROG_OPTS: PCTR_O_* */
	int	signo;		/* with PCTR_PROG_OPTS: 0 for SIGIO */
	u64	fn[PCTR_NUM];
	u64	ctl[PCTR_NUM];
	u64	val[PCTR_NUM];
};

#define PCTR_PROG_ZERO		BIT(0)	/* every value to 0 */
#define PCTR_PROG_RESTART	BIT(1)	/* every value to its preset, thawed */
#define PCTR_PROG_ENABLE	BIT(2)	/* count again after DISABLE */
#define PCTR_PROG_DISABLE	BIT(3)	/* stop counting, keep everything */
#define PCTR_PROG_OPTS		BIT(4)	/* opts and signo */
/*
 * Inheritance, as Solaris does it: a slot that notifies starts at
 * 2^64 - 1, frozen, and the thread is signalled at once so that it can
 * preset and restart.
 */
#define PCTR_PROG_FIRE		BIT(5)
/*
 * Inheritance again: the slots are the creator's, so a slot a CPU
 * binding holds is copied rather than refused (EBUSY otherwise).
 */
#define PCTR_PROG_INHERIT	BIT(6)

/* ctx.c: the engine.  Counting calls: interrupts off, on the CPU. */
void ctx_start(struct pctr_ctx *ctx);
void ctx_stop(struct pctr_ctx *ctx);
void ctx_update(struct pctr_ctx *ctx);
bool ctx_check_ovf(struct pctr_ctx *ctx);
int ctx_values(struct pctr_ctx *ctx, unsigned long m, u64 *fn, u64 *val);
void ctx_times(const struct pctr_ctx *ctx, unsigned long m, u64 *enabled,
	       u64 *running);

/* The calling thread's context, or NULL; hooking one to it, unhooking. */
struct pctr_ctx *ctx_current(void);
void ctx_attach(struct pctr_ctx *ctx);
void ctx_detach(struct pctr_ctx *ctx);		/* irqs off */

/*
 * A CPU's own counters, a CPU binding's or system mode's: they count on
 * one CPU whatever runs there.  Their sums change only on that CPU, with
 * interrupts off (IPIs, the fold timer, the overflow interrupt), so
 * reading them goes through an IPI.
 */
struct pctr_cpub {
	u64		id;		/* shares the context ID space */
	unsigned int	cpu;
	int		err;		/* a register access failed: -EIO */
	u64		fn[PCTR_NUM];
	u64		sum[PCTR_NUM];
	u64		prev[PCTR_NUM];
	struct pctr_hw	hw;
	bool		sys;		/* system mode's (system.c) */
	/* A CPU binding that samples (PCIOCSAMPLE): its slots, sample.c's. */
	struct pctr_sampler *smp;
	u32		sampling;
	u32		throttled;
};

/*
 * The engine's half of a CPU's own counters (cpub.c; ctx_new_id() and
 * ctx_cpub_start(), which starts them beside a thread's or takes the
 * counters from it, are ctx.c's), for cpu_bind.c and system.c: irqs off, on the CPU, but
 * ctx_new_id() (any context) and ctx_cpub_begin() and ctx_cpub_end() (a
 * CPU binding is made, is gone).
 */
u64 ctx_new_id(void);
void ctx_cpub_begin(u32 held);
void ctx_cpub_end(u32 held);
void ctx_cpub_start(struct pctr_cpub *cb);
bool ctx_cpub_stop(struct pctr_cpub *cb);
void ctx_cpub_leave(struct pctr_cpub *cb);
bool ctx_cpub_fold(struct pctr_cpub *cb);
void ctx_cpub_drop(struct pctr_cpub *cb);
bool ctx_cpub_sample(struct pctr_cpub *cb, struct pctr_sampler *smp,
		     unsigned int slot, u64 ctl, u64 period);

/* cpu_bind.c: CPU bindings.  Process context; each runs an IPI. */
struct pctr_cpub *cpu_bind(unsigned int cpu, const struct pctr_prog *prog);
void cpu_unbind(struct pctr_cpub *cb);
int cpu_bind_read(struct pctr_cpub *cb, u64 *fn, u64 *val, u32 *mask);
int cpu_bind_sample(struct pctr_cpub *cb, struct pctr_sampler *smp,
		    unsigned int slot, u64 ctl, u64 period);

/* Set-up, from thread.c's. */
void ctx_engine_init(void);
void ctx_engine_exit(void);

/* For hotplug.c: the registers lost their state (irqs off); trust them? */
void ctx_forget_registers(void);
void ctx_trust_registers(bool on);

/* hotplug.c: CPU hotplug and suspend forget the registers' state. */
int hotplug_init(void);
void hotplug_exit(void);

/*
 * prog.c: contexts' lives, and the one call that programs one.  Process
 * context: the calling thread's own context, unless said.
 */
#define PROG_REMOTE	BIT(0)	/* set up for a thread binding's binder */
struct pctr_ctx *prog_create(unsigned int flags);
int prog_load(struct pctr_ctx *ctx, const struct pctr_prog *prog);
void prog_destroy(struct pctr_ctx *ctx);	/* any but NMI */
void prog_destroy_current(struct pctr_ctx *ctx);
struct pctr_ctx *prog_current_live(void);
void prog_of(const struct pctr_ctx *ctx, struct pctr_prog *prog);
int prog_encode(struct pctr_prog *prog, unsigned int slot, u64 fn,
		unsigned int rights);
int prog_check_set(const struct pctr_ctx *ctx, const struct pctr_prog *prog);
int prog_encode_pcr(struct pctr_prog *prog, const struct pctr_pcr *pcr,
		    unsigned int rights);
void prog_fns_to_pcr(const u64 *fn, struct pctr_pcr *pcr);

void prog_end_remote(struct pctr_ctx *ctx);
struct page *prog_page(struct pctr_ctx *ctx, u8 abi);


#endif /* _PCTR_CTX_H */
