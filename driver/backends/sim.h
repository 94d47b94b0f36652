/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulated PMU's arithmetic, free of kernel state so that a host
 * test can include this file and check it without a kernel.
 *
 * A simulated event has a period P in TSC ticks and is counted each time
 * the TSC reaches a multiple of P (P = 1 counts every tick).  Between TSC
 * samples t0 and t1 it counts t1 / P - t0 / P events.  Counts over
 * adjacent intervals add up exactly wherever the samples fall, so two
 * counters of one event started and stopped together agree whatever
 * their widths, once their raw values are folded.
 */
#ifndef _PCTR_SIM_H
#define _PCTR_SIM_H

#ifdef __KERNEL__
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/types.h>
#else
#include <stdint.h>
#include <linux/types.h>
#ifndef _PCTR_HOST_HW_H		/* the host tests' kernel shims have these */
typedef __u64 u64;
#endif
#ifndef U64_MAX
#define U64_MAX	UINT64_MAX
#endif
#endif

#include <linux/pctr.h>

/* The events of a general counter. */
#define SIM_EV_TICKS		0x01	/* one per TSC tick */
#define SIM_EV_TICKS_DIV	0x02	/* one per sim_div ticks */
#define SIM_EV_TICKS_DIV_UMASK	0x03	/* one per (umask + 1) * sim_div */

/*
 * Longest overflow timer delay in TSC ticks: a wrap further away is
 * re-examined when the timer fires.  Keeps the conversion to ns within
 * 64 bits for any TSC rate.
 */
#define SIM_MAX_TIMER_TICKS	(1ULL << 40)

static inline u64 sim_div64(u64 a, u64 b)
{
#ifdef __KERNEL__
	return div64_u64(a, b);
#else
	return a / b;
#endif
}

/*
 * TSC ticks per event of a general counter's function, 0 for an unknown
 * event.  @div is sim_div, at most 2^32 - 1, so nothing overflows.
 */
static inline u64 sim_period(u64 fn, u64 div)
{
	u64 umask = (fn & PCTR_UM_MASK) >> PCTR_UM_SHIFT;

	switch (fn & PCTR_EVENT_MASK) {
	case SIM_EV_TICKS:
		return 1;
	case SIM_EV_TICKS_DIV:
		return div;
	case SIM_EV_TICKS_DIV_UMASK:
		return (umask + 1) * div;
	}
	return 0;
}

/*
 * Fixed counter @i: 0 counts sim_ticks, i >= 1 one event per i * sim_div
 * ticks (fixed 1 counts sim_ticks_div, fixed 2 what sim_ticks_div_umask
 * with umask 1 counts, and so on).
 */
static inline u64 sim_fixed_period(unsigned int i, u64 div)
{
	return i ? i * div : 1;
}

/* Events counted between TSC samples @t0 and @t1; none if @period is 0. */
static inline u64 sim_events(u64 t0, u64 t1, u64 period)
{
	if (period <= 1)
		return period ? t1 - t0 : 0;
	return sim_div64(t1, period) - sim_div64(t0, period);
}

/* Raw value at @t1 of a counter that held @val at @t0. */
static inline u64 sim_value(u64 val, u64 t0, u64 t1, u64 period, u64 mask)
{
	return (val + sim_events(t0, t1, period)) & mask;
}

/*
 * Events until a counter holding @val wraps to zero: 2^width - val,
 * saturated at U64_MAX for a 64-bit counter holding 0.
 */
static inline u64 sim_to_wrap(u64 val, u64 mask)
{
	u64 n = mask - (val & mask) + 1;

	return n ? n : U64_MAX;
}

/*
 * The TSC value at which @n >= 1 more events than at @now have been
 * counted: the @n-th multiple of @period after @now.  Always > @now;
 * U64_MAX if beyond the TSC's range.
 */
static inline u64 sim_wrap_tsc(u64 now, u64 period, u64 n)
{
	u64 q = sim_div64(now, period);

	if (n > sim_div64(U64_MAX, period) - q)
		return U64_MAX;
	return (q + n) * period;
}

/*
 * Nanoseconds, rounded up, that @ticks TSC ticks take at @khz (non-zero),
 * capped at SIM_MAX_TIMER_TICKS ticks.
 */
static inline u64 sim_ticks_to_ns(u64 ticks, u64 khz)
{
	if (ticks > SIM_MAX_TIMER_TICKS)
		ticks = SIM_MAX_TIMER_TICKS;
	return sim_div64(ticks * 1000000 + khz - 1, khz);
}

#endif /* _PCTR_SIM_H */
