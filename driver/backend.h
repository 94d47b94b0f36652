/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The backend seam: what the generic core and the code that knows a CPU
 * family's registers say to each other.  Two tables:
 *
 *  - struct pctr_arch, one per architecture directory (driver/arch/x86,
 *    driver/arch/sparc, or driver/arch/generic where pctr has no backend
 *    yet): who the CPU is, its counter probe, its cycle counter, user-mode
 *    counter reads and user call chains;
 *  - struct pctr_pmu_ops, one per backend: an arch's own (Intel and AMD
 *    in arch/x86, UltraSPARC and Niagara in arch/sparc) or one every
 *    arch has (driver/backends: sim; none has no counters and no ops),
 *    described by the struct pctr_pmu its probe fills (counts, widths,
 *    capabilities, the load-time log line).
 *
 * The core never asks "Intel or AMD?", nor which architecture it runs
 * on: it only calls through these tables.
 */
#ifndef _PCTR_BACKEND_H
#define _PCTR_BACKEND_H

#include <linux/types.h>
#include <linux/pctr.h>

/* kernel_chain's scratch: the handler's own frames before the sample's. */
#define PCTR_KCHAIN_SLACK	24

struct mm_struct;
struct pctr_pmu;

/* Raw per-slot state handed between the core and a backend. */
struct pctr_hw {
	u64	ctl[PCTR_NUM];		/* backend encoding of each function */
	u64	val[PCTR_NUM];		/* raw counter values */
	u32	mask;			/* slots in use: bit s for slot s */
	/*
	 * Slots whose registers still hold exactly what this hw's last
	 * stop() left on this CPU: start() must not rewrite them (a legacy
	 * Intel counter write sign-extends bit 31, so not every value can
	 * be written back), only re-enable them.  Set by the core only for
	 * backends with PCTR_PMU_KEEP; val[] then holds those values.
	 */
	u32	keep;
	/*
	 * With PCTR_PMU_NOTIFY: for each slot, 0 or the number of events
	 * after which the backend must raise its overflow interrupt (and,
	 * freezing, freeze), counted from start().  The core asks for it
	 * where a slot's 64-bit value will wrap within the counter's reach.
	 * A backend whose interrupt comes from the counter itself may load
	 * such a slot with another raw value than hw->val (x86 arms it at
	 * -left, or earlier); it then stores in hw->val what it loaded, and
	 * the core folds from there.  The interrupt may come earlier than
	 * asked (the core then finds no wrap and arms again), never later.
	 */
	u64	left[PCTR_NUM];
	/*
	 * Set by the core before start() when the thread will run with
	 * user-mode counter reads on (CR4.PCE on x86), only ever with
	 * @thread: start() must then leave every counter register outside
	 * @mask reading zero, so no count of another context (or of a CPU
	 * binding) is visible, and its own registers free of another
	 * process's counts.
	 */
	bool	user_read;
	/*
	 * Set by the core before start() when this CPU's registers may not
	 * hold what the last start() or stop() left there (the CPU was
	 * offline, the machine slept, an access failed, a CPU binding let
	 * go): start() must write every control it relies on.
	 */
	bool	forgotten;
	/*
	 * Set by the core when any starting raw value will do: start() may
	 * then leave a slot that is neither kept nor armed counting on from
	 * what its register holds, rather than load hw->val, and stores
	 * that value in hw->val (x86: a register write fewer per slot and
	 * switch).  The core folds from hw->val after start().
	 */
	bool	adopt;
	/*
	 * Set by the core for a thread's counters (not a CPU's): their
	 * counts are the thread's process's, and start() runs on the thread.
	 */
	bool	thread;
	/*
	 * Set by the core, only for a backend with PCTR_PMU_SHARE, while a
	 * CPU binding's counters and a thread's count on this CPU at once:
	 * start() and stop() must then touch only the slots in @mask,
	 * merging their bits into registers the slots share (a global
	 * enable, a fixed-counter control) and leaving every other counter
	 * as it is.  Never with @user_read.
	 */
	bool	shared;
	/*
	 * Set by a backend when a register access failed in start(),
	 * stop() or read() (-EIO); the backend reports it once, naming the
	 * register.  The core ends that context's counting with the error.
	 */
	int	err;
};

/* pctr_pmu.flags: how the core may drive the backend. */
#define PCTR_PMU_KEEP		(1U << 0)	/* start() honours hw->keep */
/*
 * Counters freeze when one has counted 2^width - 1 events since it was
 * started or the overflow last acknowledged, until acknowledged: the core
 * acknowledges after every fold, and then never misses a wrap.  Those
 * started by one start() freeze together; with hw->shared, another
 * start()'s counters count on, and the core acknowledges each owner's
 * slots after its own fold.
 */
#define PCTR_PMU_FREEZE		(1U << 1)
/* start() honours hw->left: overflow notification works (PCTR_CAP_NOTIFY). */
#define PCTR_PMU_NOTIFY		(1U << 2)
/*
 * A thread's counters start from the low bits of its 64-bit values, not
 * from 0, so that a raw user-mode read is always those low bits (SPARC:
 * Perfmon programs compare raw "rd %pic" values across switches).
 */
#define PCTR_PMU_RAW_SUM	(1U << 3)
/*
 * Every thread counting its own events may read its counters in user
 * mode (hw->user_read with or without a mapped page), as under Sun's
 * Perfmon on SPARC.  Never a binding: a CPU binding's counts are the
 * CPU's, a thread binding's its binder's.
 */
#define PCTR_PMU_USER_ALWAYS	(1U << 4)
/*
 * start() and stop() honour hw->shared: a thread counts in its slots on
 * a CPU whose binding holds others (PCTR_CAP_CPU_SHARE).  Without it,
 * a thread running on a bound CPU counts nothing there (it starves).
 */
#define PCTR_PMU_SHARE		(1U << 5)

/* A named event a backend knows (PCIOCEVENT). */
struct pctr_event_desc {
	const char	*name;
	const char	*desc;
	u64		fn;		/* function for PCIOCS, flags not set */
	u64		slots;		/* bit s: slot s can count it */
};

/*
 * Calling conventions.  encode() may be called in any context and must
 * not touch hardware.  start(), stop(), read() and the overflow calls run
 * on the CPU whose counters they touch, with interrupts disabled (from
 * the scheduler's preempt notifiers, an IPI, or the overflow interrupt);
 * they must not sleep or take a lock that is not IRQ-safe.  reserve() and
 * release() run in process context and may sleep.  Counter values are
 * raw: the core keeps 64-bit sums and masks deltas by the width.
 */
struct pctr_pmu_ops {
	/*
	 * Check a user function for @slot and translate it into the
	 * backend's control encoding.  Returns -EINVAL for reserved or
	 * unsupported bits or an absent slot, -EPERM for bits that need
	 * CAP_PERFMON when @privileged is false.
	 */
	int	(*encode)(const struct pctr_pmu *pmu, unsigned int slot,
			  u64 fn, bool privileged, u64 *ctl);
	/*
	 * Load hw->val and hw->ctl into the slots in hw->mask (with
	 * hw->adopt, leave the values there and report them in hw->val),
	 * start them; with hw->user_read, leave every other counter
	 * reading zero.
	 */
	void	(*start)(const struct pctr_pmu *pmu, struct pctr_hw *hw);
	/* Stop the slots in hw->mask and store their raw values. */
	void	(*stop)(const struct pctr_pmu *pmu, struct pctr_hw *hw);
	/* Read the raw values of the slots in hw->mask, leaving them run. */
	void	(*read)(const struct pctr_pmu *pmu, struct pctr_hw *hw);
	/* The rdpmc instruction's index for @slot, or -1 if it has none. */
	int	(*rdpmc_index)(const struct pctr_pmu *pmu, unsigned int slot);
	/*
	 * Optional, both or neither: a backend that cannot deliver overflow
	 * interrupts (or has no handler for them) leaves them NULL.  The
	 * slots whose counters overflowed; acknowledge them.
	 */
	u32	(*overflow_status)(const struct pctr_pmu *pmu);
	void	(*overflow_ack)(const struct pctr_pmu *pmu, u32 slots);
	/*
	 * Optional, the overflow interrupt's fast path: load the running
	 * slots in @slots, armed by the last start(), with their next
	 * distance to the wrap (hw->left) as start() would, and store the
	 * values loaded in hw->val; leave every control as it is.
	 */
	void	(*rearm)(const struct pctr_pmu *pmu, struct pctr_hw *hw,
			 u32 slots);
	/* Take the counters from the rest of the kernel, and give back. */
	int	(*reserve)(struct pctr_pmu *pmu);
	void	(*release)(struct pctr_pmu *pmu);
	/* Undo what probe set up (timers, per-CPU state); module unload. */
	void	(*exit)(struct pctr_pmu *pmu);
	/*
	 * Optional: fill the user-read fields of the counter page a backend
	 * without rdpmc offers instead (the sim's ps_sim_* and pg_sim_limit)
	 * for the running slots in hw->mask.  Interrupts off, on the CPU.
	 */
	void	(*user_page)(const struct pctr_pmu *pmu,
			     const struct pctr_hw *hw, struct pctr_page *pg);
	/*
	 * Optional: a CPU comes online after load.  0 if it has every
	 * counter and event the probe offered; else say why, once, and
	 * return an error, which keeps it offline (on hybrid parts a
	 * thread that migrated there would count nothing and fault on
	 * rdpmc).  Process context, on @cpu, CPUs held.
	 */
	int	(*cpu_check)(const struct pctr_pmu *pmu, unsigned int cpu);
	/*
	 * Optional, for counters that share control bits (SPARC's one PCR
	 * holds one user/supervisor mode for both counters): may functions
	 * @fn of the slots in @mask count together?  0 or -EINVAL.  Any
	 * context; checked whenever a context's functions change.
	 */
	int	(*check_set)(const struct pctr_pmu *pmu, const u64 *fn,
			     u32 mask);
	/*
	 * Optional, both or neither: a PMU with one control register
	 * (SPARC's PCR) has GETPCR/SETPCR carry it in its own layout.
	 * pcr_to_fns() checks @pcr and gives each slot's function in
	 * fn[PCTR_NUM] (0: free), -EINVAL for what the chip or pctr does
	 * not allow; fns_to_pcr() is its inverse.  Any context.
	 */
	int	(*pcr_to_fns)(const struct pctr_pmu *pmu, u64 pcr, u64 *fn);
	u64	(*fns_to_pcr)(const struct pctr_pmu *pmu, const u64 *fn);
};

/*
 * Who the CPU is, probed once at load by the arch (pctr_arch.identify),
 * apart from its counters: a backend reads it, the none backend keeps it.
 */
struct pctr_cpu_id {
	char	vendor[16];		/* CPUID vendor string, or "" */
	u32	family;
	u32	model;
	u64	tsc_khz;		/* rate of pctr_arch_tsc(), 0 if unknown */
	bool	tsc;			/* pctr_arch_tsc() is a real TSC */
};

struct pctr_pmu {
	const struct pctr_pmu_ops *ops;	/* NULL when there are no counters */
	u32	backend_id;		/* PCTR_BACKEND_* */
	char	name[16];		/* backend name, as in pctr_info */
	u32	caps;			/* PCTR_CAP_* */
	u32	version;		/* perfmon version */
	u32	ngeneral;
	u32	nfixed;
	u32	width;			/* bits in a general counter */
	u32	fixed_width;		/* bits in a fixed counter */
	char	why[64];		/* with no counters: the reason */
	char	desc[160];		/* the load-time log line */
	const struct pctr_event_desc *events;
	u32	nevents;
	u32	flags;			/* PCTR_PMU_* */
	void	*priv;			/* the backend's own data */
};

/* Width mask of a slot's counter. */
static inline u64 pctr_width_mask(unsigned int bits)
{
	return bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

/* Bits of the counter in @slot. */
static inline unsigned int pctr_slot_width(const struct pctr_pmu *pmu,
					   unsigned int slot)
{
	return slot < PCTR_FIXED_BASE ? pmu->width : pmu->fixed_width;
}

/*
 * The events a counter of @bits counted from raw value @prev to @now, as
 * long as it wrapped at most once in between.
 */
static inline u64 pctr_delta(u64 prev, u64 now, unsigned int bits)
{
	return (now - prev) & pctr_width_mask(bits);
}

/*
 * GETPCR/SETPCR carry a fixed counter's function as a four-bit field of
 * the fixed-counter control register: bit 0 kernel, 1 user, 2 any
 * thread, 3 interrupt.  A field of 0 is a free counter.
 */
#define PCTR_FIXED_FIELD_OS	0x1ULL
#define PCTR_FIXED_FIELD_USR	0x2ULL
#define PCTR_FIXED_FIELD_ANY	0x4ULL
#define PCTR_FIXED_FIELD_PMI	0x8ULL

/* The function bit of each field bit, in the field's order. */
static inline u64 pctr_fixed_field_bit_fn(unsigned int i)
{
	switch (i) {
	case 0:
		return PCTR_K;
	case 1:
		return PCTR_U;
	case 2:
		return PCTR_ANY;
	}
	return PCTR_INT;
}

static inline u64 pctr_fixed_field_to_fn(u64 field)
{
	u64 fn = 0;
	unsigned int i;

	for (i = 0; i < 4; i++)
		if (field & (1ULL << i))
			fn |= pctr_fixed_field_bit_fn(i);
	return fn ? fn | PCTR_EN : 0;
}

/* A function's field: 0 unless enabled, as the hardware has it. */
static inline u64 pctr_fn_to_fixed_field(u64 fn)
{
	u64 field = 0;
	unsigned int i;

	for (i = 0; i < 4 && (fn & PCTR_EN); i++)
		if (fn & pctr_fixed_field_bit_fn(i))
			field |= 1ULL << i;
	return field;
}

static inline bool pctr_slot_exists(const struct pctr_pmu *pmu,
				    unsigned int slot)
{
	if (slot < PCTR_FIXED_BASE)
		return slot < pmu->ngeneral;
	return slot - PCTR_FIXED_BASE < pmu->nfixed && slot < PCTR_NUM;
}

/* core.c */
extern struct pctr_pmu pctr_pmu;
extern struct pctr_cpu_id pctr_cpu_id;

struct pt_regs;

/*
 * Called by a backend, on the CPU concerned and with interrupts disabled,
 * when its counters overflowed: the core folds the running context's
 * counters into their 64-bit sums (and records samples, for which @regs
 * is the interrupted state), then acknowledges.  From hard-IRQ context,
 * or from an NMI that interrupted a context with interrupts on (a backend
 * defers the others, as x86's pmi.c does).  @regs: the interrupted
 * context.
 */
void pctr_pmu_interrupt(struct pt_regs *regs);

/*
 * The same, from a backend whose interrupt read and acknowledged the
 * overflowed slots, @ovf: where they are all sampling slots of the
 * context counting here, the core records and re-arms them without
 * stopping the counters (the backend's rearm()); else as above.
 */
void pctr_pmu_overflow(struct pt_regs *regs, u32 ovf);

/*
 * The arch seam: what an architecture directory (driver/arch/<arch>/)
 * provides, in one table, pctr_arch.  identify() and probe() run once,
 * at load, in process context; the others in any context.
 */
struct pctr_arch {
	/* Who the CPU is: vendor, family, model, the TSC and its rate. */
	void	(*identify)(struct pctr_cpu_id *cpu);
	/*
	 * Describe the CPU's counters in @pmu (zeroed by the caller) and
	 * hand them to a backend: ops, name, desc.  0, or -ENODEV with the
	 * reason in pmu->why.
	 */
	int	(*probe)(struct pctr_pmu *pmu, const struct pctr_cpu_id *cpu);
	/* The cycle counter the core timestamps with (the TSC on x86). */
	u64	(*tsc)(void);
	/*
	 * Optional, needed for PCTR_CAP_USER_RDPMC: allow user-mode counter
	 * reads on this CPU, or not.  Interrupts off.
	 */
	void	(*user_read)(bool on);
	/*
	 * Optional, system mode's user-mode counter reads: let the threads
	 * of @mm read the counters in user mode (on), or take back one such
	 * leave (each on is matched by one off).  Process context.
	 */
	void	(*user_read_mm)(struct mm_struct *mm, bool on);
	/*
	 * Optional, needed for call chains in samples (PCTR_SA_CALLCHAIN,
	 * else EOPNOTSUPP): the user return addresses above @uregs, a
	 * thread's user-mode registers, innermost first, at most @max into
	 * @out; how many.  Any context, NMIs included: user memory is read
	 * with page faults off, and a frame that cannot be read ends it.
	 */
	unsigned int (*user_chain)(u64 *out, unsigned int max,
				   struct pt_regs *uregs);
	/*
	 * Optional, for kernel frames in samples (PCTR_SA_KCHAIN; none
	 * without): the kernel return addresses above @regs, the kernel
	 * state a sample interrupted, innermost first, at most @max into
	 * @out; how many.  @out has room for @max + PCTR_KCHAIN_SLACK
	 * entries (the walk starts in the interrupt handler).  Any context,
	 * NMIs included.
	 */
	unsigned int (*kernel_chain)(u64 *out, unsigned int max,
				     struct pt_regs *regs);
	/*
	 * Optional, for PCIOCFLUSH: the size in bytes of the calling CPU's
	 * largest cache, 0 if unknown.  Migration off.
	 */
	unsigned long (*cache_bytes)(void);
	/* Register /dev/perfmon by default (perfmon=): Sun's Perfmon's arch. */
	bool	perfmon;
};

extern const struct pctr_arch pctr_arch;

static inline u64 pctr_arch_tsc(void)
{
	return pctr_arch.tsc();
}

/*
 * Allow user-mode rdpmc on this CPU, or not.  Interrupts off.  Never on
 * without PCTR_CAP_USER_RDPMC: not where the backend has no rdpmc, and
 * not when the admin turned it off (user_rdpmc=0).
 */
static inline void pctr_arch_user_rdpmc(bool on)
{
	if (on && !(pctr_pmu.caps & PCTR_CAP_USER_RDPMC))
		return;
	if (pctr_arch.user_read)
		pctr_arch.user_read(on);
}

/* The backends that are not an arch's own (driver/backends). */
void pctr_none_probe(struct pctr_pmu *pmu, const struct pctr_cpu_id *cpu,
		     const char *why);
int pctr_sim_probe(struct pctr_pmu *pmu, const struct pctr_cpu_id *cpu);

#endif /* _PCTR_BACKEND_H */
