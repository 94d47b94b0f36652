// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling: a slot in sampling mode writes a record to a ring buffer
 * each time its period has passed (uapi/linux/pctr.h, "Sampling";
 * Documentation/abi.rst).
 *
 * A sampling slot is an overflow-notifying slot (PCTR_INT) preset to
 * 2^64 - period: the engine arms the backend for the exact distance to
 * the wrap, and its overflow path (ctx.c's check after every fold) hands
 * the wrapped sampling slots to sample_overflow(), which writes a record
 * and reloads the slot with the next period instead of freezing the
 * context.  That runs on the thread's CPU with interrupts off, from the
 * backend's overflow interrupt -- an NMI on x86 -- or from a fold that
 * found the wrap first (a switch-out, the fold timer).  So everything
 * here that the overflow path calls is NMI-safe: no locks, no
 * allocation, user memory read with page faults disabled, the reader
 * woken through irq_work.
 *
 * Each CPU takes a bounded number of samples a tick, in a bounded time
 * (policy.c's limits, perf's defaults): a sample past either throttles
 * its slot.  A throttled slot is left unarmed by the engine (ctx.c's
 * ctx_set_left()), so it interrupts no more and its counter counts on;
 * the periods that pass meanwhile are counted, not recorded, and its
 * first fold or switch-in on a later tick arms it again.  Records in the
 * ring say when a throttle starts and ends.
 *
 * The ring (ring.c) belongs to a descriptor (PCIOCRING), which keeps it
 * while it is open or mapped; each sampling context holds a reference too, so a
 * thread may go on sampling after the descriptor was closed.  It has one
 * ring per CPU, each written only on its CPU: writers never contend,
 * and the only nesting -- an NMI in the middle of a record written from
 * a fold -- is caught by a per-CPU busy mark and counted as lost.
 *
 * A context's sampler (which ring, the periods, what to record, the
 * thread's pid and tid as the ring's maker sees them, the address space
 * it samples) is made by
 * PCIOCSAMPLE in the thread itself (for a thread binding, by a task_work
 * of its binder's in the thread: bind.c), or copied to a thread it
 * creates (inheritance), and ends with the thread's side of the context.
 *
 * A CPU binding samples too (PCIOCSAMPLE on it: pctr record -a): its
 * sampler (sample_cpu_new()) is held by the binding (cpub.c), records
 * whatever thread its CPU runs -- that thread's pid, tid and name, read
 * in the interrupt -- and writes to a ring for every CPU or, made on the
 * bound descriptor, for that CPU alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/coredump.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <asm/irq_regs.h>

#include "backend.h"
#include "compat.h"
#include "ctx_types.h"
#include "policy.h"
#include "ring.h"
#include "sample.h"

#define SAMPLE_DEFAULT_DEPTH	64
struct pctr_sampler {
	struct pctr_ring	*ring;
	u64			period[PCTR_NUM];
	u32			slots;
	u32			flags;		/* PCTR_SA_* */
	u32			depth;		/* call chain entries, or 0 */
	bool			kaddr;		/* may record kernel addresses */
	bool			kchain;		/* and kernel frames, asked */
	bool			cpu;		/* a CPU's: whatever thread runs */
	u32			pid, tid;	/* in ring->ns */
	/* The address space it samples: compared, never followed. */
	const struct mm_struct	*mm;
	unsigned long		throttled_at;	/* jiffies */
	u64			skipped[PCTR_NUM];	/* while throttled */
};

/*
 * A CPU's samples in its current tick, against policy.c's limits: how
 * many, and the time spent in the overflow interrupts that took them
 * (those between sample_irq_enter() and sample_irq_exit()).
 */
struct sample_tick {
	unsigned long	tick;		/* jiffies */
	u32		samples;
	u64		ns;
	u64		t0;		/* this interrupt's start */
	bool		sampled;	/* it took a sample */
};

static DEFINE_PER_CPU(struct sample_tick, sample_tick);

/* --- writing a record: NMI-safe ---------------------------------------- */

static void ring_lost(struct pctr_ring *r, unsigned int cpu)
{
	r->kcpu[cpu].lost++;
	WRITE_ONCE(r->ucpu[cpu].rc_lost, r->kcpu[cpu].lost);
}

/* Where a record is being written: ring_begin() to ring_end(). */
struct ring_pos {
	struct pctr_ring	*r;
	unsigned int		cpu;		/* its ring's index */
	u64			head, tail;
};

/*
 * Room in this CPU's ring for a record of at most @max bytes: where to
 * write it, or NULL when it is lost (counted).  The CPU's ring is busy
 * until ring_end().
 */
static void *ring_begin(struct pctr_ring *r, u64 max, struct ring_pos *p)
{
	unsigned int cpu = smp_processor_id() - r->first;
	struct pctr_sample_rec *rec;
	struct ring_kcpu *kc;
	u64 used, off, pad;
	char *data;

	if (cpu >= r->ncpu)
		return NULL;
	kc = &r->kcpu[cpu];
	/* An NMI in the middle of this CPU's record: that one is lost. */
	if (kc->busy) {
		ring_lost(r, cpu);
		return NULL;
	}
	kc->busy = true;
	barrier();
	p->r = r;
	p->cpu = cpu;
	data = (char *)r->base + r->ctl_size + cpu * r->data_size;
	p->head = kc->head;
	p->tail = READ_ONCE(r->ucpu[cpu].rc_tail);
	/* The tail before the data: pairs with the reader's release. */
	smp_mb();
	used = p->head - p->tail;
	off = p->head & (r->data_size - 1);
	pad = r->data_size - off < max ? r->data_size - off : 0;
	if (used > r->data_size || r->data_size - used < pad + max) {
		ring_lost(r, cpu);
		barrier();
		kc->busy = false;
		return NULL;
	}
	if (pad) {
		rec = (struct pctr_sample_rec *)(data + off);
		rec->sr_type = PCTR_REC_PAD;
		rec->sr_size = pad;
		p->head += pad;
		off = 0;
	}
	return data + off;
}

/* The record of @size bytes at ring_begin()'s place is written. */
static void ring_end(struct ring_pos *p, u64 size)
{
	struct pctr_ring *r = p->r;
	struct ring_kcpu *kc = &r->kcpu[p->cpu];

	p->head += size;
	kc->head = p->head;
	/* The record before the head: pairs with the reader's acquire. */
	smp_store_release(&r->ucpu[p->cpu].rc_head, p->head);
	if (p->head - p->tail >= r->watermark)
		irq_work_queue(&r->wake);
	barrier();
	kc->busy = false;
}

/*
 * Write one record for @slot to this CPU's ring, or count it lost.
 * Inline in the overflow paths, as it always was in the thread's.
 */
static __always_inline void sample_record(struct pctr_sampler *smp,
					  unsigned int slot,
					  struct pt_regs *regs)
{
	struct pctr_ring *r = smp->ring;
	unsigned int cpu = smp_processor_id();
	struct pctr_sample_rec *rec;
	struct pt_regs *uregs;
	struct ring_pos pos;
	unsigned int nr = 0;
	u64 size, comm = smp->cpu ? PCTR_SR_COMM_LEN : 0;
	u16 flags;

	/*
	 * Not the program it was set up for: an exec installed a new
	 * address space (exec_mmap(), before the new credentials) and
	 * thread.c has not yet dropped or kept the sampler.  Nothing of
	 * that program is recorded: no address, no frame read.
	 */
	if (!smp->cpu && current->mm != READ_ONCE(smp->mm))
		return;
	rec = ring_begin(r, sizeof(*rec) + comm + sizeof(u64) *
			 (smp->depth + 1 + (smp->kchain ?
					    smp->depth + PCTR_KCHAIN_SLACK : 0)),
			 &pos);
	if (!rec)
		return;
	memset(rec, 0, sizeof(*rec));
	rec->sr_type = PCTR_REC_SAMPLE;
	if (smp->cpu) {
		/*
		 * A CPU's sampler: whoever runs here (rcu: NMI-safe).  A
		 * thread its parent has already reaped, running its last
		 * instructions in exit, has no pid left to look up: in the
		 * initial namespace its numbers are still its own.
		 */
		rec->sr_pid = task_tgid_nr_ns(current, r->ns);
		rec->sr_tid = task_pid_nr_ns(current, r->ns);
		if (!rec->sr_tid && r->ns == &init_pid_ns) {
			rec->sr_pid = current->tgid;
			rec->sr_tid = current->pid;
		}
	} else {
		rec->sr_pid = smp->pid;
		rec->sr_tid = smp->tid;
	}
	rec->sr_cpu = cpu;
	rec->sr_slot = slot;
	rec->sr_tsc = pctr_arch_tsc();
	/* A fold in the timer interrupt: what it interrupted. */
	if (!regs && in_hardirq())
		regs = get_irq_regs();
	if (regs && user_mode(regs)) {
		flags = PCTR_SR_USER;
		rec->sr_ip = instruction_pointer(regs);
		uregs = regs;
	} else {
		flags = PCTR_SR_KERNEL;
		if (regs && smp->kaddr) {
			flags |= PCTR_SR_KADDR;
			rec->sr_ip = instruction_pointer(regs);
			/* Its callers, by the kernel's unwinder. */
			if (smp->kchain) {
				nr = pctr_arch.kernel_chain(rec->sr_chain,
							    smp->depth, regs);
				flags |= nr << PCTR_SR_KNR_SHIFT;
			}
		}
		/*
		 * Where the thread entered the kernel from, if from user (a
		 * CPU's sampler also meets kernel threads, with no user
		 * state).
		 */
		uregs = task_pt_regs(current);
		if (!(current->flags & PF_KTHREAD) && user_mode(uregs) &&
		    instruction_pointer(uregs) < TASK_SIZE_MAX)
			rec->sr_chain[nr++] = instruction_pointer(uregs);
		else
			uregs = NULL;
	}
	/* The arch walks the user stack (sample_check() saw it can). */
	if (smp->depth && uregs)
		nr += pctr_arch.user_chain(&rec->sr_chain[nr], smp->depth,
					   uregs);
	rec->sr_nr = nr;
	size = sizeof(*rec) + nr * sizeof(u64);
	if (comm) {
		/* The name may change meanwhile: a torn one is still ended. */
		BUILD_BUG_ON(sizeof(current->comm) != PCTR_SR_COMM_LEN);
		memcpy((char *)rec + size, current->comm, comm);
		((char *)rec)[size + comm - 1] = '\0';
		flags |= PCTR_SR_COMM;
		size += comm;
	}
	rec->sr_flags = flags;
	rec->sr_size = size;
	ring_end(&pos, size);
}

/* A throttle of @slot starts or ends (@flags: PCTR_TR_*): its record. */
static void sample_throttle_record(struct pctr_sampler *smp,
				   unsigned int slot, u16 flags, u64 skipped)
{
	struct pctr_throttle_rec *rec;
	struct ring_pos pos;

	rec = ring_begin(smp->ring, sizeof(*rec), &pos);
	if (!rec)
		return;
	memset(rec, 0, sizeof(*rec));
	rec->tr_type = PCTR_REC_THROTTLE;
	rec->tr_size = sizeof(*rec);
	rec->tr_flags = flags;
	rec->tr_pid = smp->pid;
	rec->tr_tid = smp->tid;
	rec->tr_cpu = smp_processor_id();
	rec->tr_slot = slot;
	rec->tr_tsc = pctr_arch_tsc();
	rec->tr_skipped = skipped;
	ring_end(&pos, sizeof(*rec));
}

/* The overflow interrupt starts (ctx.c): its time may count. */
void sample_irq_enter(void)
{
	this_cpu_write(sample_tick.t0, local_clock());
}

/* ... and ends: the time of one that took samples counts. */
void sample_irq_exit(void)
{
	struct sample_tick *st = this_cpu_ptr(&sample_tick);

	if (st->sampled) {
		st->ns += local_clock() - st->t0;
		st->sampled = false;
	}
}

/* May this CPU take one more sample in this tick?  0, or PCTR_TR_*. */
static __always_inline u16 sample_limited(void)
{
	struct sample_tick *st = this_cpu_ptr(&sample_tick);
	unsigned long now = READ_ONCE(jiffies);
	u32 max;
	u64 ns;

	if (st->tick != now) {
		st->tick = now;
		st->samples = 0;
		st->ns = 0;
	}
	pctr_sample_limits(&max, &ns);
	if (st->samples >= max)
		return PCTR_TR_RATE;
	if (ns && st->ns > ns)
		return PCTR_TR_TIME;
	st->samples++;
	st->sampled = true;
	return 0;
}

/* Throttle @slot (its bit into *@throttled): no sample until a later tick. */
static void sample_throttle(struct pctr_sampler *smp, u32 *throttled,
			    unsigned int slot, u16 why)
{
	struct pctr_ring *r = smp->ring;
	unsigned int cpu = smp_processor_id() - r->first;

	*throttled |= BIT(slot);
	smp->throttled_at = READ_ONCE(jiffies);
	if (cpu < r->ncpu)
		WRITE_ONCE(r->ucpu[cpu].rc_throttles,
			   ++r->kcpu[cpu].throttles);
	sample_throttle_record(smp, slot, why, 0);
}

/*
 * The sampling slots @m of @smp wrapped, their sums in @sum, those
 * throttled in *@throttled: record each (or count it skipped) and
 * reload it with its next period.  NMI-safe.  Inline in a thread's
 * overflow path (sample_overflow()), as it was before a CPU binding
 * sampled too.
 */
static __always_inline void sample_wrapped_(struct pctr_sampler *smp,
					    unsigned long m, u64 *sum,
					    u32 *throttled,
					    struct pt_regs *regs)
{
	unsigned int s;
	u64 over, period, rem;
	u16 why;

	for_each_set_bit(s, &m, PCTR_NUM) {
		period = smp->period[s];
		over = sum[s];
		if (!(*throttled & BIT(s))) {
			why = sample_limited();
			if (!why) {
				sample_record(smp, s, regs);
				/* The next period, less what counted past the wrap. */
				sum[s] = over < period ? over - period : -period;
				continue;
			}
			sample_throttle(smp, throttled, s, why);
		}
		/* Not armed: a fold found the wrap, maybe periods later. */
		smp->skipped[s] += 1 + div64_u64_rem(over, period, &rem);
		sum[s] = rem - period;
	}
}

void sample_wrapped(struct pctr_sampler *smp, unsigned long m, u64 *sum,
		    u32 *throttled, struct pt_regs *regs)
{
	sample_wrapped_(smp, m, sum, throttled, regs);
}

bool sample_overflow(struct pctr_ctx *ctx, struct pt_regs *regs)
{
	unsigned long m = ctx->ovf & ctx->sampling;

	if (!ctx->smp)
		return ctx->ovf != 0;
	ctx->ovf &= ~m;
	sample_wrapped_(ctx->smp, m, ctx->sum, &ctx->throttled, regs);
	return ctx->ovf != 0;
}

/* The throttles in *@throttled end: records say what each slot missed. */
void sample_throttles_end(struct pctr_sampler *smp, u32 *throttled)
{
	unsigned long m = *throttled;
	unsigned int s;

	*throttled = 0;
	if (!smp)
		return;
	for_each_set_bit(s, &m, PCTR_NUM) {
		sample_throttle_record(smp, s, PCTR_TR_END, smp->skipped[s]);
		smp->skipped[s] = 0;
	}
}

/*
 * The engine arms the slots of @smp (ctx.c, cpub.c): those throttled,
 * in *@throttled, on an earlier tick are armed again.  True if none is
 * left throttled.  On the CPU, interrupts off.
 */
bool sample_rearm(struct pctr_sampler *smp, u32 *throttled)
{
	if (smp && READ_ONCE(jiffies) == smp->throttled_at)
		return false;
	sample_throttles_end(smp, throttled);
	return true;
}

bool sample_unthrottle(struct pctr_ctx *ctx)
{
	return sample_rearm(ctx->smp, &ctx->throttled);
}

/* --- contexts' samplers ------------------------------------------------- */

void sample_free(struct pctr_sampler *smp)
{
	if (!smp)
		return;
	sample_ring_put(smp->ring);
	kfree(smp);
}

/* Hook @smp to the calling thread's @ctx, which has none.  Process context. */
void sample_attach(struct pctr_ctx *ctx, struct pctr_sampler *smp)
{
	unsigned long flags;

	smp->pid = task_tgid_nr_ns(current, smp->ring->ns);
	smp->tid = task_pid_nr_ns(current, smp->ring->ns);
	WRITE_ONCE(smp->mm, current->mm);
	local_irq_save(flags);
	ctx->smp = smp;
	ctx->sampling = smp->slots;
	local_irq_restore(flags);
}

/* The thread's side ended: nothing folds @ctx any more. */
void sample_ctx_end(struct pctr_ctx *ctx)
{
	struct pctr_sampler *smp = ctx->smp;
	unsigned long flags;

	if (!smp)
		return;
	/* A throttle ends with the sampling, whatever tick it is. */
	if (ctx->throttled) {
		local_irq_save(flags);
		sample_throttles_end(smp, &ctx->throttled);
		local_irq_restore(flags);
	}
	ctx->sampling = 0;
	ctx->smp = NULL;
	sample_free(smp);
}

/* A copy for a thread @ctx's thread creates.  Atomic context. */
struct pctr_sampler *sample_inherit(const struct pctr_ctx *ctx)
{
	struct pctr_sampler *smp;

	if (!ctx->smp)
		return NULL;
	smp = kmemdup(ctx->smp, sizeof(*smp), GFP_NOWAIT | __GFP_NOWARN);
	if (smp) {
		memset(smp->skipped, 0, sizeof(smp->skipped));
		ring_get(smp->ring);
	}
	return smp;
}

/*
 * At exec (sched_process_exec, before the new program's first user
 * instruction): does sampling go on into the new program?  Only if
 * asked (PCTR_SA_EXEC) and the program is one its caller could trace:
 * not set-id, readable (the dumpable rule ptrace follows).  If so, the
 * new address space is the sampler's from here; until here, since
 * exec_mmap(), sample_record() wrote nothing.
 */
bool sample_keep_on_exec(struct pctr_ctx *ctx)
{
	if (!ctx->smp || !(ctx->smp->flags & PCTR_SA_EXEC) || ctx->remote ||
	    !current->mm || get_dumpable(current->mm) != SUID_DUMP_USER)
		return false;
	WRITE_ONCE(ctx->smp->mm, current->mm);
	return true;
}

/*
 * PCIOCSAMPLE's checks, the caller's own and a binder's alike, before
 * anything is changed: a ring to sample into (ENXIO), the argument
 * (EINVAL, EOPNOTSUPP for call chains the arch cannot walk), a backend
 * that can interrupt (EOPNOTSUPP).
 */
int sample_check(const struct pctr_ring *r, const struct pctr_sample_attr *sa)
{
	unsigned int i;

	if (!r)
		return -ENXIO;
	for (i = 0; i < ARRAY_SIZE(sa->sa_reserved); i++)
		if (sa->sa_reserved[i])
			return -EINVAL;
	if (sa->sa_reserved0 || (sa->sa_flags & ~(PCTR_SA_CALLCHAIN |
						   PCTR_SA_EXEC |
						   PCTR_SA_KCHAIN)))
		return -EINVAL;
	/* Kernel frames are part of a call chain. */
	if ((sa->sa_flags & PCTR_SA_KCHAIN) &&
	    !(sa->sa_flags & PCTR_SA_CALLCHAIN))
		return -EINVAL;
	if (!sa->sa_period || sa->sa_period > (1ULL << 62) ||
	    sa->sa_depth > PCTR_SAMPLE_MAX_DEPTH || !sa->sa_fn ||
	    !(sa->sa_fn & PCTR_EN) || sa->sa_slot >= PCTR_NUM)
		return -EINVAL;
	/* Call chains where the arch can walk user stacks. */
	if ((sa->sa_flags & PCTR_SA_CALLCHAIN) && !pctr_arch.user_chain)
		return -EOPNOTSUPP;
	if (!(pctr_pmu.caps & PCTR_CAP_NOTIFY))
		return -EOPNOTSUPP;
	return 0;
}

/*
 * Put slot sa->sa_slot of the calling thread's @ctx in sampling mode
 * into @r, before thread.c loads its function and period: its sampler
 * is made if it has none (-EBUSY if it samples into another ring).
 * @kaddr: the caller may record kernel addresses.  Process context.
 */
int sample_config(struct pctr_ctx *ctx, struct pctr_ring *r,
		  const struct pctr_sample_attr *sa, bool kaddr)
{
	struct pctr_sampler *smp = ctx->smp;
	unsigned long flags;

	/* A thread runs anywhere: not into one CPU's ring. */
	if (r->ncpu != nr_cpu_ids)
		return -EINVAL;
	if (smp && smp->ring != r)
		return -EBUSY;
	if (!smp) {
		smp = kzalloc(sizeof(*smp), GFP_KERNEL);
		if (!smp)
			return -ENOMEM;
		ring_get(r);
		smp->ring = r;
		sample_attach(ctx, smp);
	}
	/* The overflow path reads these on this CPU, interrupts off. */
	local_irq_save(flags);
	smp->period[sa->sa_slot] = sa->sa_period;
	smp->flags = sa->sa_flags;
	smp->depth = 0;
	if (sa->sa_flags & PCTR_SA_CALLCHAIN)
		smp->depth = sa->sa_depth ?: SAMPLE_DEFAULT_DEPTH;
	smp->kaddr = kaddr;
	/* Only for whom may see kernel addresses, where the arch can. */
	smp->kchain = kaddr && smp->depth && pctr_arch.kernel_chain &&
		      (sa->sa_flags & PCTR_SA_KCHAIN);
	smp->slots |= BIT(sa->sa_slot);
	ctx->sampling = smp->slots;
	local_irq_restore(flags);
	return 0;
}

/* Undo sample_config() for @slot when its load failed. */
void sample_unconfig(struct pctr_ctx *ctx, unsigned int slot)
{
	unsigned long flags;

	if (!ctx->smp)
		return;
	local_irq_save(flags);
	ctx->smp->slots &= ~BIT(slot);
	ctx->sampling = ctx->smp->slots;
	ctx->throttled &= ctx->sampling;
	local_irq_restore(flags);
	if (!ctx->sampling)
		sample_ctx_end(ctx);
}

/*
 * A sampler for CPU @cpu's binding (cpu_bind.c), of slot sa->sa_slot
 * into @r, a ring for every CPU or for @cpu alone (else EINVAL), its
 * argument already checked (sample_check()).  Its records name whatever
 * thread they interrupt.  @kaddr: the caller may record kernel
 * addresses.  Process context.
 */
struct pctr_sampler *sample_cpu_new(struct pctr_ring *r,
				    const struct pctr_sample_attr *sa,
				    bool kaddr, unsigned int cpu)
{
	struct pctr_sampler *smp;

	if (r->ncpu != nr_cpu_ids && r->first != cpu)
		return ERR_PTR(-EINVAL);
	smp = kzalloc(sizeof(*smp), GFP_KERNEL);
	if (!smp)
		return ERR_PTR(-ENOMEM);
	ring_get(r);
	smp->ring = r;
	smp->cpu = true;
	smp->period[sa->sa_slot] = sa->sa_period;
	smp->slots = BIT(sa->sa_slot);
	smp->flags = sa->sa_flags & ~PCTR_SA_EXEC;
	if (sa->sa_flags & PCTR_SA_CALLCHAIN)
		smp->depth = sa->sa_depth ?: SAMPLE_DEFAULT_DEPTH;
	smp->kaddr = kaddr;
	smp->kchain = kaddr && smp->depth && pctr_arch.kernel_chain &&
		      (sa->sa_flags & PCTR_SA_KCHAIN);
	return smp;
}
