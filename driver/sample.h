/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sampling (sample.c): a slot that writes a record to its descriptor's
 * ring buffer each time its period has passed.  What the rest of the
 * engine calls.
 */
#ifndef _PCTR_SAMPLE_H
#define _PCTR_SAMPLE_H

#include <linux/poll.h>
#include <linux/types.h>

struct file;
struct pctr_ctx;
struct pctr_ring;
struct pctr_ring_attr;
struct pctr_sample_attr;
struct pctr_sampler;
struct pt_regs;
struct vm_area_struct;
union pctr_ioc_arg;

/*
 * The overflow path (ctx.c): sampling slots of @ctx whose values wrapped
 * are recorded and reloaded.  @regs: the interrupted state, or NULL when
 * the wrap was found by a fold outside the overflow interrupt.  NMI-safe.
 * True if other overflows are left for the notification path.
 */
bool sample_overflow(struct pctr_ctx *ctx, struct pt_regs *regs);

/*
 * ctx.c, arming @ctx's slots: true if none is throttled (any throttled
 * on an earlier tick is armed again).  Around each overflow interrupt,
 * so that its time counts against the CPU's limit.  NMI-safe.
 */
bool sample_unthrottle(struct pctr_ctx *ctx);
void sample_irq_enter(void);
void sample_irq_exit(void);

/*
 * The same for a sampler's slots held elsewhere (a CPU binding's,
 * cpub.c): @m wrapped in @sum, *@throttled throttled; arming again;
 * the throttles ended when the sampling ends.  On the CPU, irqs off.
 */
void sample_wrapped(struct pctr_sampler *smp, unsigned long m, u64 *sum,
		    u32 *throttled, struct pt_regs *regs);
bool sample_rearm(struct pctr_sampler *smp, u32 *throttled);
void sample_throttles_end(struct pctr_sampler *smp, u32 *throttled);

/* prog.c: the thread's side of @ctx ended (process context). */
void sample_ctx_end(struct pctr_ctx *ctx);

/* thread.c: inheritance and exec. */
struct pctr_sampler *sample_inherit(const struct pctr_ctx *ctx);
void sample_attach(struct pctr_ctx *ctx, struct pctr_sampler *smp);
void sample_free(struct pctr_sampler *smp);
bool sample_keep_on_exec(struct pctr_ctx *ctx);

/* Module load and unload (thread.c's set-up). */
int sample_init(void);
void sample_exit(void);

/* The device: ioctls (PCIOCSAMPLE's is thread.c's), mmap, poll, close. */
struct pctr_ring *sample_ring_of(struct pctr_ring **slot);
int sample_ring_create(struct pctr_ring **slot, struct pctr_ring_attr *ra,
		       int cpu);
int sample_check(const struct pctr_ring *r, const struct pctr_sample_attr *sa);
int sample_config(struct pctr_ctx *ctx, struct pctr_ring *ring,
		  const struct pctr_sample_attr *sa, bool kaddr);
void sample_unconfig(struct pctr_ctx *ctx, unsigned int slot);
struct pctr_sampler *sample_cpu_new(struct pctr_ring *r,
				    const struct pctr_sample_attr *sa,
				    bool kaddr, unsigned int cpu);
int sample_mmap(struct pctr_ring *ring, struct vm_area_struct *vma);
__poll_t sample_poll(struct pctr_ring *ring, struct file *file,
		     poll_table *wait);
void sample_ring_put(struct pctr_ring *ring);
void sample_ring_hold(struct pctr_ring *ring);

#endif /* _PCTR_SAMPLE_H */
