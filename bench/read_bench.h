/* SPDX-License-Identifier: GPL-2.0 */
/*
 * read_bench's two files: read_bench.c times the reads, one loop a
 * method, and prints their table and verdicts; read_bench_parts.c holds
 * the parts of a round, each taking the PMU (pctr's slots, perf's event
 * and its page, perf's group) and giving it back, with the checks that
 * a part's reads agree.  What both use is here: the methods, the state
 * of a run and perf's time-scaled page read (inline: a row times it).
 */
#ifndef PCTR_BENCH_READ_BENCH_H
#define PCTR_BENCH_READ_BENCH_H

#include "bench.h"

#define NSLOTS	4	/* pctr's slots read at once, perf's group */

enum method {
	M_RDTSC, M_RDPMC, M_VTSC, M_VTSC_NC, M_READ, M_READ_NC, M_READ_TIMES,
	M_READ_N,
	M_READ_ALL, M_IOCTL, M_IOCTL1, M_NULL_IOCTL, M_NULL_READ,
	M_HW_RDPMC, M_HW_MIN, M_HW_SCALED, M_HW_READ, M_HW_GROUP, M_PERF_READ,
	NMETHODS
};

struct bench {
	pctr_t		*p;
	unsigned int	nslots;		/* general slots programmed, from 0 */
	uint32_t	pmc;		/* rdpmc index of slot 0 */
	int		null_fd;	/* /dev/null */
	int		perf_fd;	/* task-clock */
	int		hw_fd;		/* the hardware event, in perf's part */
	const volatile struct perf_event_mmap_page *hw_pc;
	uint32_t	hw_pmc;		/* its rdpmc index */
	int		grp_fd[NSLOTS];	/* the group, in its part; [0] leads */
	int		err;		/* errno of a failed read */
};

/*
 * The parts of a round: pctr with NSLOTS slots, then slot 0 alone;
 * perf's one event and its page; perf's group.
 */
enum part { PCTR_PART, PCTR1_PART, PERF_PART, GROUP_PART, NPARTS };

/* Count scaled by enabled/running time, as perf_event.h shows it. */
static inline uint64_t
perf_scale(const volatile struct perf_event_mmap_page *pc, uint64_t count,
	   uint64_t enabled, uint64_t running, uint32_t idx, uint64_t cyc,
	   uint64_t toff, uint32_t mult, uint16_t shift)
{
	uint64_t quot, rem, delta;

	if (pc->cap_user_time_short)
		cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
	quot = cyc >> shift;
	rem = cyc & (((uint64_t)1 << shift) - 1);
	delta = toff + quot * mult + ((rem * mult) >> shift);
	enabled += delta;
	if (idx)
		running += delta;
	if (!running)
		return count;
	quot = count / running;
	rem = count % running;
	return quot * enabled + (rem * enabled) / running;
}

/*
 * The same with time scaling, for an event that may be multiplexed: the
 * enabled and running times too, and when they differ the time since
 * the page was written, from the TSC by time_mult, time_shift and
 * time_offset, the count scaled by enabled / running.
 */
static inline uint64_t perf_scaled_read(const volatile struct perf_event_mmap_page *pc)
{
	uint64_t count, enabled, running, cyc = 0, toff = 0;
	uint32_t seq, idx, mult = 0;
	uint16_t shift = 0;
	int timed;

	do {
		seq = pc->lock;
		pctr_barrier();
		enabled = pc->time_enabled;
		running = pc->time_running;
		timed = pc->cap_user_time && enabled != running;
		if (timed) {
			cyc = rdtsc();
			toff = pc->time_offset;
			mult = pc->time_mult;
			shift = pc->time_shift;
		}
		count = bench_perf_count(pc, &idx);
		pctr_barrier();
	} while (pc->lock != seq);
	if (timed)
		count = perf_scale(pc, count, enabled, running, idx, cyc, toff,
				   mult, shift);
	return count;
}

int choose_event(struct bench *b, int hw, struct pctr_event *ev);
int part(struct bench *b, enum part h, bool on, const struct pctr_event *ev,
	 const char **why, int r);
int what_runs(struct bench *b, int hw, int sim, const struct pctr_event *ev,
	      const char **why, int *page_err, int *inline0);
int hypervisor(void);

#endif /* PCTR_BENCH_READ_BENCH_H */
