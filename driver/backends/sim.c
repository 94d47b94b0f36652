// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated PMU (pmu=sim): counters whose events are derived from the
 * TSC, so that the whole counter path -- context switch save and restore,
 * folding raw values into 64-bit sums, wraps, overflow interrupts -- runs
 * where there is no PMU, as under QEMU's TCG, with counts a test can
 * predict exactly.  It is a backend like the hardware ones, behind the
 * same ops table, and the core uses it only when asked to.
 *
 * Each CPU has a simulated register file.  A slot holds the raw value it
 * had at the TSC sample of its start() and the period, in TSC ticks, of
 * the event it counts; its value at TSC t is then
 * (val + t / period - t0 / period) & mask (see sim.h).  All slots of one
 * start(), stop() or read() share one TSC sample.
 *
 * Overflow: a counter may count at most 2^width - 1 events from the value
 * it had when it was started or its CPU's overflow was last acknowledged
 * (its "base").  When one reaches that limit, every counter started
 * with it (by the same start(): one context's, or one CPU binding's)
 * freezes, its overflow status bit is set and the emulated interrupt is
 * raised; acknowledging the overflow thaws them.  This is the spirit of
 * Intel's Freeze_PerfMon_On_PMI, and it makes the simulation exact
 * whatever the interrupt latency: under QEMU's TCG the TSC runs on while
 * the host does not run a virtual CPU, so a counter that kept counting
 * could pass several wraps before its interrupt is seen.  Between two
 * folds a counter thus never moves by 2^width or more, and the core's
 * plain masked delta is exact.  Time spent frozen is counted by no
 * counter of that start(): all of them lose it alike.  A thread's and a
 * CPU binding's counters running side by side (hw->shared) thus freeze
 * and thaw apart, as their owners fold and acknowledge apart.
 *
 * The interrupt is a per-CPU hrtimer that fires in hard-IRQ context on
 * its CPU, armed for the earliest TSC value at which a running counter
 * reaches its limit.  The core may ask for an earlier limit (hw->left,
 * PCTR_PMU_NOTIFY): overflow notification then freezes the counters at
 * exactly the event at which a 64-bit virtual value wraps.
 *
 * Suspend: at each suspend or hibernation edge (PM notifier) every CPU's
 * registers count as lost, and the first start() on each CPU afterwards
 * finds them zeroed, as firmware may leave them: a slot the core kept
 * across a suspend then counts visibly wrong (selftests/pm_test).
 *
 * The simulation cannot tell user from kernel mode: a counter whose
 * function has PCTR_EN and PCTR_U or PCTR_K counts every tick of the TSC
 * it sees while it is running, in whatever mode the CPU is.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/suspend.h>
#include <asm/irq_regs.h>

#include "../backend.h"
#include "sim.h"

/* The cycle counter the core reports (the TSC on x86), at the CPU's rate. */
static inline u64 sim_tsc(void)
{
	return pctr_arch_tsc();
}

#define SIM_MAX_FIXED	4
#define SIM_SLOTS	(PCTR_FIXED_BASE + SIM_MAX_FIXED)

/* Shortest time between two emulated overflow interrupts of one CPU. */
#define SIM_MIN_INTERVAL_NS	10000

/* The only function bits the simulation implements. */
#define SIM_FN_VALID	(PCTR_EVENT_MASK | PCTR_UM_MASK | PCTR_U | PCTR_K | \
			 PCTR_ANY | PCTR_EN)

/* A read-only parameter of the simulation, described for modinfo. */
#define SIM_PARAM(type, name, val, desc)				\
	static type name = val;						\
	module_param(name, type, 0444);					\
	MODULE_PARM_DESC(name, "pmu=sim: " desc)

SIM_PARAM(uint, sim_counters, 4, "general counters (1..16, default 4)");
SIM_PARAM(uint, sim_width, 48, "bits of a general counter (16..64, default 48)");
SIM_PARAM(uint, sim_fixed, 2, "fixed counters (0..4, default 2)");
SIM_PARAM(uint, sim_fixed_width, 64, "bits of a fixed counter (16..64, default 64)");
SIM_PARAM(uint, sim_div, 1000,
	  "TSC ticks per sim_ticks_div event (1..4294967295, default 1000)");

/*
 * For testing the core's own paths: sim_overflow=0 leaves out the
 * overflow interrupt and freezing (only the core's periodic fold then
 * keeps up with wraps), and sim_busy=1 makes taking the counters fail as
 * when perf or the NMI watchdog holds them.
 */
SIM_PARAM(bool, sim_overflow, true,
	  "emulate overflow interrupts and freezing (default 1)");
SIM_PARAM(bool, sim_busy, false,
	  "behave as if the counters were taken (default 0)");

/*
 * start() and stop() touch only the slots asked, so a thread counts
 * beside a CPU binding on its CPU (PCTR_PMU_SHARE); sim_share=0 leaves
 * the flag out, for the core's other path: such a thread starves there,
 * as on a backend that owns the whole PMU in each start() (SPARC).
 */
SIM_PARAM(bool, sim_share, true,
	  "threads count beside a CPU binding on its CPU (default 1)");

/*
 * Fault injection for the core's failure path: every start() on CPU
 * sim_fail_cpu fails as a faulting counter register write would (a core
 * without that counter, a register firmware took), and says so.
 */
SIM_PARAM(int, sim_fail_cpu, -1,
	  "start() on this CPU fails like a faulting register write (default -1: never)");

/* One simulated counter of one CPU. */
struct sim_ctr {
	u64	ctl;		/* as encode() made it */
	u64	val;		/* raw value at @t0; when stopped, the value */
	u64	t0;		/* TSC sample of the last start() or stop() */
	u64	period;		/* TSC ticks per event, 0 when not counting */
	u64	wrap;		/* TSC value at which it reaches its limit */
	u64	left;		/* the core's hw->left: an earlier limit */
	u32	grp;		/* the slots its start() started: they freeze together */
};

struct sim_cpu {
	struct hrtimer	timer;		/* the emulated overflow interrupt */
	struct sim_ctr	ctr[SIM_SLOTS];
	u32		running;	/* slots counting */
	u32		ovf;		/* overflow status, until acknowledged */
	u32		pending;	/* of which not yet signalled */
	bool		in_timer;	/* within the timer's callback */
	bool		lost;		/* a suspend edge since the last start */
};

struct sim_pmu {
	struct sim_cpu __percpu *cpus;
	u64	mask;			/* general counter width mask */
	u64	fixed_mask;		/* fixed counter width mask */
	u64	div;			/* sim_div */
	u64	khz;			/* TSC rate */
	u32	slots;			/* slots that exist */
	bool	dying;			/* exit() began: arm no more timers */
};

static struct sim_pmu sim_pmu;

static struct pctr_event_desc sim_event_table[] = {
	{
		.name	= "sim_ticks",
		.desc	= "One per TSC tick (also fixed counter 0)",
		.fn	= PCTR_FN(SIM_EV_TICKS, 0, 0),
	}, {
		.name	= "sim_ticks_div",
		.desc	= "One per sim_div TSC ticks (also fixed counter 1)",
		.fn	= PCTR_FN(SIM_EV_TICKS_DIV, 0, 0),
	}, {
		.name	= "sim_ticks_div_umask",
		.desc	= "One per (umask + 1) * sim_div TSC ticks",
		.fn	= PCTR_FN(SIM_EV_TICKS_DIV_UMASK, 0, 0),
	},
};

static inline u64 sim_slot_mask(unsigned int slot)
{
	return slot < PCTR_FIXED_BASE ? sim_pmu.mask : sim_pmu.fixed_mask;
}

/* TSC ticks per event of @slot programmed with @ctl; 0: it does not count. */
static u64 sim_ctl_period(unsigned int slot, u64 ctl)
{
	if (!(ctl & PCTR_EN) || !(ctl & (PCTR_U | PCTR_K)))
		return 0;
	if (slot >= PCTR_FIXED_BASE)
		return sim_fixed_period(slot - PCTR_FIXED_BASE, sim_pmu.div);
	return sim_period(ctl, sim_pmu.div);
}

/*
 * The TSC value at which the running counters of @grp (one start()'s
 * slots) freeze: their first limit.
 */
static u64 sim_freeze_tsc(const struct sim_cpu *sc, u32 grp)
{
	unsigned long running = sc->running & grp;
	u64 first = U64_MAX;
	unsigned int s;

	if (!sim_overflow)
		return U64_MAX;
	for_each_set_bit(s, &running, SIM_SLOTS)
		first = min(first, sc->ctr[s].wrap);
	return first;
}

/* ... of the counter in @slot. */
static inline u64 sim_ctr_freeze(const struct sim_cpu *sc, unsigned int slot)
{
	return sim_freeze_tsc(sc, sc->ctr[slot].grp);
}

/* Raw value of counter @c, in @slot, at TSC @t (frozen time included). */
static inline u64 sim_ctr_value(const struct sim_ctr *c, unsigned int slot,
				u64 t)
{
	return sim_value(c->val, c->t0, t, c->period, sim_slot_mask(slot));
}

/*
 * Counter @c, in @slot, takes its present value as its base at TSC @now:
 * it may count 2^width - 1 more events.
 */
static void sim_set_wrap(struct sim_ctr *c, unsigned int slot, u64 now)
{
	u64 mask = sim_slot_mask(slot);

	if (c->left && c->left <= mask)
		c->wrap = sim_wrap_tsc(now, c->period, c->left);
	else
		c->wrap = mask == U64_MAX ? U64_MAX :
			  sim_wrap_tsc(now, c->period, mask);
}

/*
 * If counters froze by TSC sample @now, set the status bits of those
 * that reached their limit, as hardware sets them at the overflow itself
 * however late its interrupt comes.
 */
static void sim_latch(struct sim_cpu *sc, u64 now)
{
	unsigned long running = sc->running;
	unsigned int s;
	u32 hit = 0;

	for_each_set_bit(s, &running, SIM_SLOTS)
		if (now >= sc->ctr[s].wrap &&
		    sc->ctr[s].wrap == sim_ctr_freeze(sc, s))
			hit |= BIT(s);
	sc->pending |= hit & ~sc->ovf;
	sc->ovf |= hit;
}

/*
 * An overflow was acknowledged at TSC @now: the running counters of each
 * start() none of whose overflows is left unacknowledged, if they froze,
 * take the values they froze at as their new bases and count on from
 * @now.
 */
static void sim_thaw(struct sim_cpu *sc, u64 now)
{
	unsigned long running = sc->running;
	u64 freeze[SIM_SLOTS];
	unsigned int s;

	for_each_set_bit(s, &running, SIM_SLOTS)
		freeze[s] = sim_ctr_freeze(sc, s);
	for_each_set_bit(s, &running, SIM_SLOTS) {
		struct sim_ctr *c = &sc->ctr[s];

		if ((sc->ovf & c->grp) || now < freeze[s])
			continue;
		c->val = sim_value(c->val, c->t0, freeze[s], c->period,
				   sim_slot_mask(s));
		c->t0 = now;
		/* The core's limit was relative to the last start. */
		c->left = 0;
		sim_set_wrap(c, s, now);
	}
}

/*
 * When the timer must fire: at once for an overflow not yet signalled,
 * else at the earliest wrap of a running counter.  False if never.
 */
static bool sim_next_expiry(struct sim_cpu *sc, u64 now, ktime_t *expires)
{
	unsigned long running = sc->running;
	u64 first = U64_MAX;
	unsigned int s;

	if (READ_ONCE(sim_pmu.dying))
		return false;
	/* Frozen and signalled: nothing happens until the acknowledgement. */
	for_each_set_bit(s, &running, SIM_SLOTS)
		if (!(sc->ovf & sc->ctr[s].grp))
			first = min(first, sc->ctr[s].wrap);
	if (sc->pending)
		first = now;
	if (!sim_overflow && !sc->pending)
		return false;
	if (first == U64_MAX)
		return false;
	/* A limit that is already past, not latched yet, is due at once. */
	*expires = ktime_add_ns(hrtimer_cb_get_time(&sc->timer),
				first > now ?
				sim_ticks_to_ns(first - now, sim_pmu.khz) : 0);
	return true;
}

/*
 * After start(), stop() or read(): arm the timer for what comes next, or
 * stop it.  With interrupts off on this CPU its callback cannot be
 * running, so hrtimer_try_to_cancel() does cancel.  Within the callback
 * (the core's overflow handling may read, stop and start counters), the
 * callback re-arms when the core is done.
 */
static void sim_update_timer(struct sim_cpu *sc, u64 now)
{
	ktime_t expires;

	if (sc->in_timer)
		return;
	if (sim_next_expiry(sc, now, &expires))
		hrtimer_start(&sc->timer, expires,
			      HRTIMER_MODE_ABS_PINNED_HARD);
	else
		hrtimer_try_to_cancel(&sc->timer);
}

/*
 * The emulated overflow interrupt, in hard-IRQ context on its CPU.  The
 * timer may fire early (the clock it runs on drifts from the TSC) or
 * late; only the TSC decides which counters wrapped.
 */
static enum hrtimer_restart sim_timer_fn(struct hrtimer *timer)
{
	struct sim_cpu *sc = container_of(timer, struct sim_cpu, timer);
	ktime_t expires, soonest;
	u64 now;

	/*
	 * A CPU going offline hands its timers to another CPU: never touch
	 * a register file from the wrong CPU.  The next start() there arms
	 * the timer on its own CPU again.
	 */
	if (READ_ONCE(sim_pmu.dying) || sc != this_cpu_ptr(sim_pmu.cpus))
		return HRTIMER_NORESTART;

	now = sim_tsc();
	sim_latch(sc, now);
	if (sc->pending) {
		sc->pending = 0;
		sc->in_timer = true;
		pctr_pmu_interrupt(get_irq_regs());
		sc->in_timer = false;
		/* Counters may have reached a limit again meanwhile. */
		now = sim_tsc();
		sim_latch(sc, now);
	}
	if (!sim_next_expiry(sc, now, &expires))
		return HRTIMER_NORESTART;
	/* Counters that overflow faster than the core folds get throttled. */
	soonest = ktime_add_ns(hrtimer_cb_get_time(timer), SIM_MIN_INTERVAL_NS);
	hrtimer_set_expires(timer, ktime_after(expires, soonest) ?
			    expires : soonest);
	return HRTIMER_RESTART;
}

/*
 * The simulation cannot tell user from kernel mode, so PCTR_U and PCTR_K
 * only decide whether an enabled counter counts at all.
 */
static int sim_encode(const struct pctr_pmu *pmu, unsigned int slot, u64 fn,
		      bool privileged, u64 *ctl)
{
	u64 event = fn & PCTR_EVENT_MASK, umask = fn & PCTR_UM_MASK;

	if (!pctr_slot_exists(pmu, slot))
		return -EINVAL;
	if (fn & ~SIM_FN_VALID)
		return -EINVAL;
	if ((fn & PCTR_EN) && !(fn & (PCTR_U | PCTR_K)))
		return -EINVAL;
	if (slot >= PCTR_FIXED_BASE) {
		/* A fixed counter's event is its own. */
		if (event || umask)
			return -EINVAL;
	} else if (fn) {
		/* Any function but 0, which frees the counter, needs an event. */
		if (!sim_period(fn, 1) ||
		    (umask && event != SIM_EV_TICKS_DIV_UMASK))
			return -EINVAL;
	}
	/*
	 * Like AnyThread on Intel perfmon v3-v4 (the simulated core has one
	 * thread, so it counts the same): a well-formed function that sees
	 * beyond the calling thread needs CAP_PERFMON.
	 */
	if ((fn & PCTR_ANY) && !privileged)
		return -EPERM;
	*ctl = fn;
	return 0;
}

/*
 * This CPU's register file as of TSC sample @now, overflows latched: how
 * start(), stop() and read() begin.  Interrupts off.
 */
static struct sim_cpu *sim_this_cpu(u64 *now)
{
	struct sim_cpu *sc;

	lockdep_assert_irqs_disabled();
	sc = this_cpu_ptr(sim_pmu.cpus);
	*now = sim_tsc();
	sim_latch(sc, *now);
	return sc;
}

/*
 * Every start() and stop() touches only the slots in hw->mask (and the
 * CPU's overflow state of those): hw->shared needs nothing more.
 */
static void sim_start(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	unsigned long slots = hw->mask & sim_pmu.slots;
	struct sim_cpu *sc;
	unsigned int s;
	u64 now;

	if (unlikely(sim_fail_cpu >= 0 && slots &&
		     smp_processor_id() == sim_fail_cpu)) {
		hw->err = -EIO;
		pr_warn_ratelimited("write of simulated counter register %lu failed on CPU %d; its context stops counting (EIO)\n",
				    __ffs(slots), smp_processor_id());
		return;
	}
	sc = sim_this_cpu(&now);
	/*
	 * Firmware may clear the counters while the machine sleeps: the
	 * first start on each CPU after a suspend edge finds them zeroed,
	 * so a slot the core kept across a suspend counts visibly wrong.
	 */
	if (unlikely(READ_ONCE(sc->lost))) {
		WRITE_ONCE(sc->lost, false);
		/* A counter running beside (hw->shared) was started since. */
		for (s = 0; s < SIM_SLOTS; s++)
			if (!(sc->running & BIT(s)))
				sc->ctr[s].val = 0;
	}
	for_each_set_bit(s, &slots, SIM_SLOTS) {
		struct sim_ctr *c = &sc->ctr[s];

		/*
		 * A kept slot continues from what its register holds, as
		 * hardware would: if the core kept a slot that something
		 * else used meanwhile, its counts come out visibly wrong.
		 */
		if (!(hw->keep & BIT(s)))
			c->val = hw->val[s] & sim_slot_mask(s);
		c->ctl = hw->ctl[s];
		c->grp = slots;
		c->t0 = now;
		c->left = hw->left[s];
		c->period = sim_ctl_period(s, c->ctl);
		if (c->period) {
			sim_set_wrap(c, s, now);
			sc->running |= BIT(s);
		} else {
			sc->running &= ~BIT(s);
		}
	}
	/* A freshly loaded counter has no overflow pending. */
	sc->ovf &= ~slots;
	sc->pending &= ~slots;
	sim_update_timer(sc, now);
}

/* Raw values of @hw's slots at TSC sample @now; absent slots read 0. */
static void sim_values(struct sim_cpu *sc, struct pctr_hw *hw, u64 now)
{
	unsigned long slots = hw->mask;
	unsigned int s;

	for_each_set_bit(s, &slots, PCTR_NUM)
		hw->val[s] = sim_pmu.slots & BIT(s) ?
			     sim_ctr_value(&sc->ctr[s], s,
					   min(now, sim_ctr_freeze(sc, s))) : 0;
}

static void sim_stop(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	unsigned long slots = hw->mask & sim_pmu.slots;
	struct sim_cpu *sc;
	unsigned int s;
	u64 now;

	sc = sim_this_cpu(&now);
	sim_values(sc, hw, now);
	/* The registers keep their values, as hardware counters do. */
	for_each_set_bit(s, &slots, SIM_SLOTS) {
		struct sim_ctr *c = &sc->ctr[s];

		c->val = hw->val[s];
		c->t0 = now;
		c->period = 0;
	}
	sc->running &= ~(u32)slots;
	sim_update_timer(sc, now);
}

static void sim_read(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	struct sim_cpu *sc;
	u64 now;

	sc = sim_this_cpu(&now);
	sim_values(sc, hw, now);
	if (sc->pending)
		sim_update_timer(sc, now);
}

/* There is no rdpmc under TCG to give the simulated counters to. */
static int sim_rdpmc_index(const struct pctr_pmu *pmu, unsigned int slot)
{
	return -1;
}

/*
 * The slots that reached their limit, freezing the CPU's counters, as of
 * the TSC sample of the last read(), stop() or interrupt on this CPU.
 */
static u32 sim_overflow_status(const struct pctr_pmu *pmu)
{
	return this_cpu_ptr(sim_pmu.cpus)->ovf;
}

/*
 * Once each overflow of a start()'s counters is acknowledged, they count
 * on.  Counters that reached their limit since the status was read stay
 * frozen, their overflow pending: another owner's acknowledgement (a
 * thread's beside a CPU binding's) must not thaw them unseen.
 */
static void sim_overflow_ack(const struct pctr_pmu *pmu, u32 slots)
{
	struct sim_cpu *sc;
	u64 now;

	sc = sim_this_cpu(&now);
	sc->ovf &= ~slots;
	sc->pending &= ~slots;
	sim_thaw(sc, now);
	sim_update_timer(sc, now);
}

/* Nobody else uses simulated counters. */
static int sim_reserve(struct pctr_pmu *pmu)
{
	if (sim_busy) {
		pr_warn_once("sim: the simulated counters are taken (sim_busy=1); reload without it\n");
		return -EBUSY;
	}
	return 0;
}

static void sim_release(struct pctr_pmu *pmu)
{
}

/*
 * A suspend or hibernation, at its start and at its end (the PM test
 * modes run these edges too): every CPU's registers count as lost.
 */
static int sim_pm_notify(struct notifier_block *nb, unsigned long action,
			 void *data)
{
	unsigned int cpu;

	switch (action) {
	case PM_HIBERNATION_PREPARE:
	case PM_SUSPEND_PREPARE:
	case PM_POST_HIBERNATION:
	case PM_POST_SUSPEND:
	case PM_POST_RESTORE:
		for_each_possible_cpu(cpu)
			WRITE_ONCE(per_cpu_ptr(sim_pmu.cpus, cpu)->lost, true);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block sim_pm_nb = {
	.notifier_call = sim_pm_notify,
};

/*
 * Module unload, in process context.  Once every start() and timer
 * callback that could have missed the dying flag has returned (they run
 * with interrupts off, so an RCU grace period waits for them), no timer
 * can be armed again; cancel each, waiting for a running callback.
 */
static void sim_exit(struct pctr_pmu *pmu)
{
	unsigned int cpu;

	if (!sim_pmu.cpus)
		return;
	unregister_pm_notifier(&sim_pm_nb);
	WRITE_ONCE(sim_pmu.dying, true);
	synchronize_rcu();
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(sim_pmu.cpus, cpu)->timer);
	free_percpu(sim_pmu.cpus);
	sim_pmu.cpus = NULL;
}

/*
 * The counter page's recipe for reading a running sim counter without a
 * system call: its value at (ps_sim_t0, ps_sim_val) and its period, and
 * the TSC at which the CPU's counters freeze.  A counter that is not
 * counting gets an endless period: it keeps its value.
 */
static void sim_user_page(const struct pctr_pmu *pmu, const struct pctr_hw *hw,
			  struct pctr_page *pg)
{
	unsigned long slots = hw->mask & sim_pmu.slots;
	struct sim_cpu *sc = this_cpu_ptr(sim_pmu.cpus);
	unsigned int s;

	lockdep_assert_irqs_disabled();
	for_each_set_bit(s, &slots, SIM_SLOTS) {
		const struct sim_ctr *c = &sc->ctr[s];
		struct pctr_page_slot *ps = &pg->pg_slot[s];

		ps->ps_sim_period = c->period ?: U64_MAX;
		ps->ps_sim_t0 = c->t0;
		ps->ps_sim_val = c->val;
	}
	pg->pg_sim_limit = sim_freeze_tsc(sc, slots);
}

static const struct pctr_pmu_ops sim_ops = {
	.encode			= sim_encode,
	.start			= sim_start,
	.stop			= sim_stop,
	.read			= sim_read,
	.rdpmc_index		= sim_rdpmc_index,
	.overflow_status	= sim_overflow_status,
	.overflow_ack		= sim_overflow_ack,
	.reserve		= sim_reserve,
	.release		= sim_release,
	.exit			= sim_exit,
	.user_page		= sim_user_page,
};

static int sim_check_param(const char *name, unsigned int val,
			   unsigned int min, unsigned int max)
{
	if (val >= min && val <= max)
		return 0;
	pr_err("%s=%u is out of range %u..%u\n", name, val, min, max);
	return -EINVAL;
}

/* Linux 6.13 replaced this pair with hrtimer_setup(); 6.15 removed it. */
static void sim_timer_init(struct hrtimer *timer)
{
	hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	timer->function = sim_timer_fn;
}

int pctr_sim_probe(struct pctr_pmu *pmu, const struct pctr_cpu_id *id)
{
	struct sim_cpu __percpu *cpus;
	unsigned int cpu, i;
	u64 khz;

	if (sim_check_param("sim_counters", sim_counters, 1,
			    PCTR_MAX_GENERAL) ||
	    sim_check_param("sim_width", sim_width, 16, 64) ||
	    sim_check_param("sim_fixed", sim_fixed, 0, SIM_MAX_FIXED) ||
	    sim_check_param("sim_fixed_width", sim_fixed_width, 16, 64) ||
	    sim_check_param("sim_div", sim_div, 1, UINT_MAX))
		return -EINVAL;
	khz = id->tsc_khz;
	if (!khz) {
		pr_err("sim: the TSC rate is unknown\n");
		return -ENODEV;
	}
	if (WARN_ON_ONCE(sim_pmu.cpus))
		return -EBUSY;

	cpus = alloc_percpu(struct sim_cpu);
	if (!cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		sim_timer_init(&per_cpu_ptr(cpus, cpu)->timer);

	sim_pmu.mask = pctr_width_mask(sim_width);
	sim_pmu.fixed_mask = pctr_width_mask(sim_fixed_width);
	sim_pmu.div = sim_div;
	sim_pmu.khz = khz;
	sim_pmu.slots = GENMASK(sim_counters - 1, 0);
	if (sim_fixed)
		sim_pmu.slots |= GENMASK(PCTR_FIXED_BASE + sim_fixed - 1,
					 PCTR_FIXED_BASE);
	WRITE_ONCE(sim_pmu.dying, false);
	sim_pmu.cpus = cpus;
	if (register_pm_notifier(&sim_pm_nb)) {
		sim_pmu.cpus = NULL;
		free_percpu(cpus);
		return -ENOMEM;
	}
	for (i = 0; i < ARRAY_SIZE(sim_event_table); i++)
		sim_event_table[i].slots = GENMASK(sim_counters - 1, 0);

	memset(pmu, 0, sizeof(*pmu));
	pmu->ops = &sim_ops;
	pmu->backend_id = PCTR_BACKEND_SIM;
	strscpy(pmu->name, "sim", sizeof(pmu->name));
	pmu->caps = PCTR_CAP_TSC | PCTR_CAP_COUNTERS | PCTR_CAP_ANYTHREAD;
	pmu->flags = PCTR_PMU_KEEP;
	if (sim_share) {
		pmu->caps |= PCTR_CAP_CPU_SHARE;
		pmu->flags |= PCTR_PMU_SHARE;
	}
	if (sim_overflow) {
		pmu->caps |= PCTR_CAP_OVERFLOW | PCTR_CAP_NOTIFY;
		pmu->flags |= PCTR_PMU_FREEZE | PCTR_PMU_NOTIFY;
	}
	pmu->version = 1;
	pmu->ngeneral = sim_counters;
	pmu->nfixed = sim_fixed;
	pmu->width = sim_width;
	pmu->fixed_width = sim_fixed_width;
	pmu->events = sim_event_table;
	pmu->nevents = ARRAY_SIZE(sim_event_table);
	snprintf(pmu->desc, sizeof(pmu->desc),
		 "SIMULATED PMU (pmu=sim, for tests; counts nothing real): %u general counters (%u bits), %u fixed (%u bits)",
		 pmu->ngeneral, pmu->width, pmu->nfixed, pmu->fixed_width);
	return 0;
}
