// SPDX-License-Identifier: GPL-2.0
/*
 * read_bench's parts of a round (read_bench.h): each takes the PMU and
 * gives it back when it ends, since pctr and perf cannot hold it at once;
 * what each part offers, found once before the rounds (the rows that
 * cannot run, and why); and the checks that a part's reads agree, which
 * fail the run when they do not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pctr.h"
#include "read_bench.h"

/*
 * The event every general slot counts: instructions with a hardware PMU
 * (what perf's hardware event counts), else the backend's first named
 * event.  Its name in @name; -1 when there is none.
 */
int choose_event(struct bench *b, int hw, struct pctr_event *ev)
{
	static const char *const insns[] = { "INSTRUCTION_RETIRED",
		"RETIRED_INSTRUCTIONS" };
	unsigned int i, k;

	for (i = 0; hw; i++) {
		memset(ev, 0, sizeof(*ev));
		ev->pe_index = i;
		if (ioctl(b->p->fd, PCIOCEVENT, ev))
			break;
		for (k = 0; k < 2; k++)
			if (!strcmp(ev->pe_name, insns[k]))
				return 0;
	}
	memset(ev, 0, sizeof(*ev));
	if (ioctl(b->p->fd, PCIOCEVENT, ev)) {
		fprintf(stderr, "PCIOCEVENT 0: %s\n", pctr_strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * pctr's part begins: slot 0 with @ev, and slots 1..NSLOTS-1 with it too
 * while they take it, so pctr_read_n and PCIOCRD have NSLOTS to read;
 * then the page (it comes after the slots are programmed).  The number
 * of slots programmed, 0 on failure (errno set).
 */
static unsigned int pctr_part_on(struct bench *b, const struct pctr_event *ev,
				 int *map_err)
{
	uint64_t fn = ev->pe_fn | PCTR_U | PCTR_K | PCTR_EN;
	unsigned int i;
	int tries = 0;

	while (pctr_set(b->p, 0, fn))
		if (!bench_again(&tries, false))
			return 0;
	for (i = 1; i < b->p->info.pi_ngeneral && i < NSLOTS; i++) {
		if (ev->pe_slots && !(ev->pe_slots & (1ULL << i)))
			break;
		if (pctr_set(b->p, i, fn))
			break;
	}
	*map_err = pctr_map(b->p) ? errno : 0;
	if (!*map_err && pctr_page2_->p2_slot[0].p2s_index >= 0)
		b->pmc = pctr_page2_->p2_slot[0].p2s_index;
	return i;
}

/* ...and ends: the context, its page and its hold on the PMU go. */
static void pctr_part_off(struct bench *b)
{
	pctr_release(b->p);
}

/* The floor's /dev/null and perf's task-clock, open the whole run. */
static int floor_open(struct bench *b)
{
	struct perf_event_attr attr;

	b->null_fd = open("/dev/null", O_RDWR);
	if (b->null_fd < 0)
		return -errno;
	bench_perf_attr(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	b->perf_fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	return b->perf_fd < 0 ? -errno : 0;
}

/*
 * perf's part begins: a per-thread hardware instructions event, U|K,
 * pinned (on the PMU the whole time, or in error), and its user page.
 * 0 or a negative errno.
 */
static int perf_part_on(struct bench *b)
{
	struct perf_event_attr attr;
	void *pc;
	int err;

	bench_perf_attr(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	attr.pinned = 1;
	b->hw_fd = bench_perf_open(&attr, -1, false);
	if (b->hw_fd < 0)
		return -errno;
	pc = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
		  b->hw_fd, 0);
	if (pc == MAP_FAILED) {
		err = -errno;
		close(b->hw_fd);
		b->hw_fd = -1;
		return err;
	}
	b->hw_pc = pc;
	/* The page is brought up to date when the event is scheduled. */
	sched_yield();
	if (b->hw_pc->cap_user_rdpmc && b->hw_pc->index)
		b->hw_pmc = b->hw_pc->index - 1;
	return 0;
}

static void perf_part_off(struct bench *b)
{
	if (b->hw_pc)
		munmap((void *)b->hw_pc, sysconf(_SC_PAGESIZE));
	b->hw_pc = NULL;
	if (b->hw_fd >= 0)
		close(b->hw_fd);
	b->hw_fd = -1;
}

static void group_off(struct bench *b)
{
	unsigned int i;

	for (i = NSLOTS; i-- > 0; ) {
		if (b->grp_fd[i] >= 0)
			close(b->grp_fd[i]);
		b->grp_fd[i] = -1;
	}
}

/*
 * The group's part begins: b->nslots hardware instructions events, the
 * first pinned and leading, read together (PERF_FORMAT_GROUP), as
 * pctr's NSLOTS slots count.  0 or a negative errno.
 */
static int group_on(struct bench *b)
{
	struct perf_event_attr attr;
	unsigned int i;
	int err;

	for (i = 0; i < b->nslots; i++) {
		bench_perf_attr(&attr, PERF_TYPE_HARDWARE,
				PERF_COUNT_HW_INSTRUCTIONS);
		attr.pinned = !i;
		attr.read_format = PERF_FORMAT_GROUP;
		b->grp_fd[i] = bench_perf_open(&attr, i ? b->grp_fd[0] : -1,
					       false);
		if (b->grp_fd[i] < 0) {
			err = -errno;
			group_off(b);
			return err;
		}
	}
	return 0;
}

static int hw_rdpmc_ok(const struct bench *b)
{
	return b->hw_pc && b->hw_pc->cap_user_rdpmc && b->hw_pc->index;
}

/* Can slot 0 be read without a system call, and by rdpmc? */
static int slot0_inline(const struct bench *b)
{
	return b->p->page && pctr_page2_->p2_slot[0].p2s_index >= 0;
}

static int slot0_rdpmc(const struct bench *b)
{
	const volatile struct pctr_page2 *pg = pctr_page2_;

	return b->p->page && pg->p2_slot[0].p2s_index >= 0 &&
	       (pg->p2_flags & PCTR_PG_RDPMC);
}

/* Does rdpmc @idx work for this thread, or fault? */
static sigjmp_buf probe_env;
static volatile uint64_t probe_sink;

static void probe_fault(int sig)
{
	siglongjmp(probe_env, 1);
}

static int rdpmc_works(uint32_t idx)
{
	struct sigaction sa, old_segv, old_bus;
	volatile int ok = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_fault;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	if (!sigsetjmp(probe_env, 1)) {
		probe_sink += rdpmc(idx);
		ok = 1;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return ok;
}

/*
 * The reads must agree: an inline read, PCIOCRD and an inline read again
 * give non-decreasing slot 0 values; so do perf's two page reads around
 * its read() (and the group's leader, read after them).  0, or -1 with
 * what disagreed printed.
 */
static int pctr_agrees(struct bench *b)
{
	uint64_t a, c;
	struct pctrst st;

	a = pctr_read(b->p, 0);
	/* The ioctl itself: pctr_read_all() reads page version 2 if it can. */
	if (ioctl(b->p->fd, PCIOCRD, &st)) {
		fprintf(stderr, "error: PCIOCRD: %s\n", pctr_strerror(errno));
		return -1;
	}
	c = pctr_read(b->p, 0);
	if (a == (uint64_t)-1 || c == (uint64_t)-1 || a > st.pctr_hwc[0] ||
	    st.pctr_hwc[0] > c) {
		fprintf(stderr, "error: pctr_read %llu, PCIOCRD %llu, pctr_read %llu: not in order\n",
			(unsigned long long)a,
			(unsigned long long)st.pctr_hwc[0],
			(unsigned long long)c);
		return -1;
	}
	return 0;
}

static int perf_agrees(struct bench *b)
{
	uint64_t a, v, c, d;

	a = bench_perf_min_read(b->hw_pc);
	if (read(b->hw_fd, &v, sizeof(v)) != sizeof(v)) {
		fprintf(stderr, "error: perf read() of the hardware event: %s\n",
			errno ? strerror(errno) : "in error (not on the PMU)");
		return -1;
	}
	c = bench_perf_min_read(b->hw_pc);
	d = perf_scaled_read(b->hw_pc);
	if (!v || a > v || v > c || c > d) {
		fprintf(stderr, "error: perf page read %llu, read() %llu, page read %llu, scaled %llu: not in order\n",
			(unsigned long long)a, (unsigned long long)v,
			(unsigned long long)c, (unsigned long long)d);
		return -1;
	}
	return 0;
}

static int group_agrees(struct bench *b)
{
	uint64_t v[1 + NSLOTS];
	size_t len = (1 + b->nslots) * sizeof(uint64_t);

	if (read(b->grp_fd[0], v, len) != (ssize_t)len || v[0] != b->nslots ||
	    !v[1] || !v[b->nslots]) {
		fprintf(stderr, "error: perf group read(): %s\n",
			errno ? strerror(errno) : "not every event counted");
		return -1;
	}
	return 0;
}

/* Under a hypervisor (CPUID.1:ECX bit 31): emulated or virtual. */
int hypervisor(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t a = 1, b, c = 0, d;

	__asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return (c >> 31) & 1;
#else
	return 0;
#endif
}

/*
 * A part begins (@on) or ends.  Failures are said; the status main
 * returns, 0 when the part is on.
 */
int part(struct bench *b, enum part h, bool on, const struct pctr_event *ev,
	 const char **why, int r)
{
	int err = 0, m;

	switch (h) {
	case PCTR_PART:
		if (!on)
			return 0;	/* PCTR1_PART goes on from here */
		if (!pctr_part_on(b, ev, &err)) {
			fprintf(stderr, "error: round %d: PCIOCS0: %s\n", r,
				pctr_strerror(errno));
			return 1;
		}
		return !err && slot0_inline(b) && pctr_agrees(b);
	case PCTR1_PART:
		if (!on) {
			pctr_part_off(b);
			return 0;
		}
		/* Slot 0 alone, as perf's read() reads one. */
		for (m = 1; m < (int)b->nslots; m++)
			pctr_set(b->p, m, 0);
		return 0;
	case PERF_PART:
		if (!on) {
			perf_part_off(b);
			return 0;
		}
		err = perf_part_on(b);
		if (err < 0) {
			fprintf(stderr, "error: round %d: perf hardware event: %s\n",
				r, strerror(-err));
			return 1;
		}
		if (!why[M_HW_MIN] && !hw_rdpmc_ok(b)) {
			fprintf(stderr, "error: round %d: perf's page lost rdpmc\n", r);
			return 1;
		}
		return !why[M_HW_MIN] && perf_agrees(b);
	default:
		if (!on) {
			group_off(b);
			return 0;
		}
		err = group_on(b);
		if (err < 0) {
			fprintf(stderr, "error: round %d: perf group: %s\n", r,
				strerror(-err));
			return 1;
		}
		return group_agrees(b);
	}
}

/* What each part offers, found once: why[m] for each row that cannot run. */
int what_runs(struct bench *b, int hw, int sim, const struct pctr_event *ev,
	      const char **why, int *page_err, int *inline0)
{
	static char why_page[64], why_perf[96], why_hw[96], why_grp[96];
	int err;

	b->nslots = pctr_part_on(b, ev, &err);
	if (!b->nslots) {
		fprintf(stderr, "PCIOCS0: %s\n", pctr_strerror(errno));
		return 1;
	}
	*page_err = err;
	*inline0 = slot0_inline(b);
	if (err) {
		snprintf(why_page, sizeof(why_page), "pctr page not available");
		why[M_VTSC] = why[M_READ] = why[M_READ_N] = why_page;
		why[M_VTSC_NC] = why[M_READ_NC] = why[M_READ_TIMES] = why_page;
	}
	if (!slot0_rdpmc(b))
		why[M_RDPMC] = sim ? "no rdpmc: the sim computes slots from the TSC" :
			       "no user rdpmc here";
	else if (!rdpmc_works(b->pmc))
		why[M_RDPMC] = "rdpmc faulted though the page offers it";
	pctr_part_off(b);
	if (floor_open(b) < 0) {
		snprintf(why_perf, sizeof(why_perf), "%s: %s",
			 b->null_fd < 0 ? "/dev/null" : "perf", strerror(errno));
		why[M_PERF_READ] = why_perf;
		if (b->null_fd < 0)
			why[M_NULL_IOCTL] = why[M_NULL_READ] = why_perf;
	}
	if (!hw) {
		why[M_HW_READ] = why[M_HW_MIN] = why[M_HW_SCALED] =
			why[M_HW_RDPMC] = why[M_HW_GROUP] = "no hardware PMU";
		return 0;
	}
	err = perf_part_on(b);
	if (err < 0) {
		snprintf(why_hw, sizeof(why_hw), "perf hardware event: %s",
			 strerror(-err));
		why[M_HW_READ] = why[M_HW_MIN] = why[M_HW_SCALED] =
			why[M_HW_RDPMC] = why_hw;
	} else {
		if (!hw_rdpmc_ok(b))
			why[M_HW_MIN] = why[M_HW_SCALED] = why[M_HW_RDPMC] =
				"perf's page offers no rdpmc (cap_user_rdpmc, index)";
		else if (!rdpmc_works(b->hw_pmc))
			why[M_HW_MIN] = why[M_HW_SCALED] = why[M_HW_RDPMC] =
				"rdpmc of perf's counter faulted";
		perf_part_off(b);
	}
	err = group_on(b);
	if (err < 0) {
		snprintf(why_grp, sizeof(why_grp), "perf group of %u: %s",
			 b->nslots, strerror(-err));
		why[M_HW_GROUP] = why_grp;
	}
	group_off(b);
	return 0;
}
