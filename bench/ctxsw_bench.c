// SPDX-License-Identifier: GPL-2.0
/*
 * ctxsw_bench: what a context switch costs with per-thread counters.
 *
 * Two threads pinned to one CPU ping-pong a byte through two pipes, so
 * every round trip is two context switches.  Both threads count, or
 * neither.  The modes, interleaved round by round so drift in the
 * machine hits them alike:
 *
 * with a hardware PMU (the intel or amd backend):
 *   baseline            no counters
 *   pctr insns          pctr counts instructions (U|K) on one slot
 *   pctr insns+cycles   pctr counts instructions and cycles (two slots)
 *   perf insns          a per-thread PERF_TYPE_HARDWARE instructions event
 *   perf insns+cycles   a group of instructions and cycles events
 *   pctr insns, inline  pctr insns, each side's page mapped (its own
 *                       handle) and read inline (pctr_read) once a trip
 *   perf insns, inline  perf insns, each side's user page mapped and
 *                       read by perf's minimal page read once a trip
 *   pctr insns, one side, perf insns, one side
 *                       only one of the two threads counts: every
 *                       switch is between a counting thread and one
 *                       that does not count
 * without one (pmu=sim):
 *   baseline, pctr (the backend's first named event) and a perf
 *   task-clock event, the only per-thread counter perf has there.
 *
 * pctr and perf cannot hold the PMU at once (each gets EBUSY while the
 * other counts), so every run gives it back when it ends: pctr's
 * threads release their contexts, perf's close their events.
 *
 * Prints the median cost of a switch in each mode, the median over the
 * rounds of what each mode added to that round's baseline, and the
 * ratio pctr added / perf added against issue 27's target (<= 0.2),
 * with a verdict.  The inline modes' added cost includes the read each
 * side makes a trip (one a switch).  After the timed rounds one more run
 * of each mode counts the kernel's MSR accesses (bench.h), printed per
 * switch over the baseline's, and judged against issue 27's target of
 * at most 2 MSR writes a switch for pctr counting instructions.  Lines
 * starting "@" are for bench/bench.
 *
 *   ctxsw_bench [-i] [round-trips] [rounds]
 *
 * -i: the guest runs under QEMU's -icount shift=0, where one nanosecond
 * of the guest's clock is one instruction: the figures are instructions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pctr.h"
#include "bench.h"

#define TARGET	0.2	/* pctr's added cost at most a fifth of perf's */
#define WRMSR_TARGET	2	/* MSR writes a switch, pctr counting */

enum mode {
	BASELINE, PCTR_1, PCTR_2, PERF_1, PERF_2, PCTR_INL, PERF_INL,
	PCTR_ONE, PERF_ONE, PERF_CLOCK, NMODES
};

static int hw;			/* a hardware PMU: the hardware modes */

static const struct {
	const char	*name;		/* the table's */
	const char	*key;		/* the "@" lines' */
	int		hw;		/* 1: with a hardware PMU only, 0: without */
	int		both;		/* run either way */
} modes[NMODES] = {
	[BASELINE]	= { "baseline",			"baseline",	0, 1 },
	[PCTR_1]	= { "pctr insns",		"pctr_ins",	1, 1 },
	[PCTR_2]	= { "pctr insns+cycles",	"pctr_ins_cyc",	1, 0 },
	[PERF_1]	= { "perf insns",		"perf_ins",	1, 0 },
	[PERF_2]	= { "perf insns+cycles",	"perf_ins_cyc",	1, 0 },
	[PCTR_INL]	= { "pctr insns, inline",	"pctr_inline",	1, 0 },
	[PERF_INL]	= { "perf insns, inline",	"perf_inline",	1, 0 },
	[PCTR_ONE]	= { "pctr insns, one side",	"pctr_one",	1, 0 },
	[PERF_ONE]	= { "perf insns, one side",	"perf_one",	1, 0 },
	[PERF_CLOCK]	= { "perf task-clock",		"perf_clock",	0, 0 },
};

/* What the pctr modes program, found once (PCIOCEVENT). */
static uint64_t fn_insns, fn_cycles;
static int have_fixed;		/* sim: enable fixed slot 0 too, if any */

struct side {
	int		rfd, wfd;
	long		trips;
	enum mode	mode;
	int		pctr_fd;
	pctr_t		*own;		/* PCTR_INL: this side's handle */
	int		perf_fd[2];
	const volatile struct perf_event_mmap_page *pc;	/* PERF_INL */
	uint64_t	sum;		/* the inline reads' */
	int		err;
	const char	*why;	/* what failed, for err */
	pthread_barrier_t *go;
	pid_t		tid;	/* set by the side's thread */
};

/*
 * The times thread @tid was switched out (voluntary or not), from
 * /proc; -1 if unknown.  The MSR counts are a switch of the two sides'
 * own: another task preempting a counting side costs the counting its
 * switch too, and would otherwise be charged to the ping-pong's.
 */
static double switches_of(pid_t tid)
{
	char path[64], line[128];
	double n = 0, v;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %lf", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %lf", &v) == 1) {
			n += v;
			found++;
		}
	fclose(f);
	return found == 2 ? n : -1;
}

static const char *mode_name(enum mode m)
{
	return m == PCTR_1 && !hw ? "pctr" : modes[m].name;
}

static int pctr_program(struct side *s, unsigned int slot, uint64_t fn)
{
	int tries = 0;

	while (ioctl(s->pctr_fd, PCIOCS64(slot), &fn)) {
		if (!bench_again(&tries, false)) {
			s->why = "pctr PCIOCS64";
			return -errno;
		}
	}
	return 0;
}

static int perf_open(struct side *s, unsigned int i, uint32_t type,
		     uint64_t config, int group)
{
	struct perf_event_attr attr;
	int fd;

	bench_perf_attr(&attr, type, config);
	/* On the PMU the whole run, or in error (read() says 0). */
	attr.pinned = type == PERF_TYPE_HARDWARE && group < 0;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = bench_perf_open(&attr, group, false);
	if (fd < 0) {
		s->why = "perf_event_open";
		return -errno;
	}
	s->perf_fd[i] = fd;
	return 0;
}

/* PERF_INL: the event's user page, read by rdpmc once scheduled. */
static int perf_map(struct side *s)
{
	void *pc = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
			s->perf_fd[0], 0);

	if (pc == MAP_FAILED) {
		s->why = "perf mmap";
		return -errno;
	}
	s->pc = pc;
	sched_yield();
	if (!s->pc->cap_user_rdpmc || !s->pc->index) {
		s->why = "perf's page offers no rdpmc";
		return -EOPNOTSUPP;
	}
	return 0;
}

static int counters_on(struct side *s)
{
	uint64_t on = PCTR_U | PCTR_K | PCTR_EN, fn;
	int err = 0;

	s->perf_fd[0] = s->perf_fd[1] = -1;
	s->own = NULL;
	s->pc = NULL;
	switch (s->mode) {
	case PCTR_INL:
		/* A handle of its own: a page belongs to the thread mapping it. */
		s->own = pctr_open(O_RDWR);
		if (!s->own) {
			s->why = "pctr_open";
			return -errno;
		}
		s->pctr_fd = s->own->fd;
		err = pctr_program(s, 0, fn_insns | on);
		if (!err && pctr_map(s->own)) {
			s->why = "pctr_map";
			err = -errno;
		}
		if (!err && pctr_page2_->p2_slot[0].p2s_index < 0) {
			s->why = "pctr's page offers no rdpmc";
			err = -EOPNOTSUPP;
		}
		break;
	case PCTR_1:
	case PCTR_2:
		err = pctr_program(s, 0, fn_insns | on);
		if (!err && s->mode == PCTR_2)
			err = pctr_program(s, 1, fn_cycles | on);
		/* sim: fixed slot 0 too, if it takes one (as before) */
		if (!err && !hw && have_fixed) {
			fn = on;
			ioctl(s->pctr_fd, PCIOCSF64(0), &fn);
		}
		break;
	case PERF_1:
	case PERF_2:
		err = perf_open(s, 0, PERF_TYPE_HARDWARE,
				PERF_COUNT_HW_INSTRUCTIONS, -1);
		if (!err && s->mode == PERF_2)
			err = perf_open(s, 1, PERF_TYPE_HARDWARE,
					PERF_COUNT_HW_CPU_CYCLES,
					s->perf_fd[0]);
		break;
	case PERF_INL:
		err = perf_open(s, 0, PERF_TYPE_HARDWARE,
				PERF_COUNT_HW_INSTRUCTIONS, -1);
		if (!err)
			err = perf_map(s);
		break;
	case PERF_CLOCK:
		err = perf_open(s, 0, PERF_TYPE_SOFTWARE,
				PERF_COUNT_SW_TASK_CLOCK, -1);
		break;
	default:
		break;
	}
	return err;
}

/* One read by this side's mode, once a trip: inline, or none. */
static inline void side_read(struct side *s)
{
	if (s->own)
		s->sum += pctr_read(s->own, 0);
	else if (s->pc)
		s->sum += bench_perf_min_read(s->pc);
}

/*
 * Did the counters count the whole run?  A perf event that was not on
 * the PMU all the time (running < enabled) or in error (read() of 0
 * bytes), or a pctr slot that counted nothing, makes the run invalid:
 * its figure would be the cost of counting nothing.
 */
static int counted_all(struct side *s)
{
	uint64_t v[3];
	struct pctrst st;
	int i;

	if (s->mode == PCTR_1 || s->mode == PCTR_2 || s->mode == PCTR_INL) {
		if (ioctl(s->pctr_fd, PCIOCRD, &st)) {
			s->why = "pctr PCIOCRD";
			return -errno;
		}
		for (i = 0; i < (s->mode == PCTR_2 ? 2 : 1); i++) {
			if (!st.pctr_hwc[i]) {
				s->why = "pctr slot counted nothing";
				return -EIO;
			}
		}
		return 0;
	}
	for (i = 0; i < 2; i++) {
		if (s->perf_fd[i] < 0)
			continue;
		if (read(s->perf_fd[i], v, sizeof(v)) != sizeof(v) ||
		    !v[0] || v[2] != v[1]) {
			s->why = "perf event not counting the whole run";
			return -EIO;
		}
	}
	return 0;
}

static void counters_off(struct side *s)
{
	int i;

	if (s->mode == PCTR_1 || s->mode == PCTR_2 || s->mode == PCTR_INL)
		ioctl(s->pctr_fd, PCIOCRELEASE);	/* gives the PMU back */
	if (s->own)
		pctr_close(s->own);
	if (s->pc)
		munmap((void *)s->pc, sysconf(_SC_PAGESIZE));
	for (i = 0; i < 2; i++)
		if (s->perf_fd[i] >= 0)
			close(s->perf_fd[i]);
}

static void *pong(void *arg)
{
	struct side *s = arg;
	char c;
	long i;

	s->tid = syscall(SYS_gettid);
	s->err = counters_on(s);
	pthread_barrier_wait(s->go);
	for (i = 0; i < s->trips && !s->err; i++) {
		if (read(s->rfd, &c, 1) != 1)
			break;
		side_read(s);
		if (write(s->wfd, &c, 1) != 1)
			break;
	}
	/*
	 * Stay switched out, counters on, until run() has taken its last
	 * MSR snapshot and closed the pipe: this side's counters_off() and
	 * exit would otherwise fall inside the counted window (pinned to
	 * the same CPU, they run before the other side reads the counts).
	 */
	while (read(s->rfd, &c, 1) > 0)
		;
	if (!s->err)
		s->err = counted_all(s);
	counters_off(s);
	return NULL;
}

/*
 * pctr gives the PMU back from a work item after its last context is
 * gone.  Wait for that (perf can then take the PMU) before the next run,
 * so the work item's wake-up is not timed as part of that run's
 * switches.
 */
static void pmu_settle(void)
{
	struct perf_event_attr attr;
	int fd;

	bench_perf_attr(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	attr.disabled = 1;
	fd = bench_perf_open(&attr, -1, true);
	if (fd >= 0)
		close(fd);
}

/*
 * One run: ns per context switch, or a negative errno (*why: what).
 * With @cnt, the MSR accesses of the run's switches too.
 */
static double run(enum mode mode, long trips, int pctr_fd, const char **why,
		  struct bench_counts *cnt)
{
	struct bench_counts c0, c1;
	double sw0 = -1, sw1 = -1;
	pthread_barrier_t go;
	struct side other;
	struct side me;
	int ab[2], ba[2];
	double t0, t1;
	pthread_t t;
	char c = 'x';
	long i;

	if (pipe(ab) || pipe(ba))
		return -errno;
	pthread_barrier_init(&go, NULL, 2);
	/* One side: the other thread counts as PCTR_1 or PERF_1, this not. */
	other = (struct side){ .rfd = ab[0], .wfd = ba[1], .trips = trips,
			       .mode = mode == PCTR_ONE ? PCTR_1 :
				       mode == PERF_ONE ? PERF_1 : mode,
			       .pctr_fd = pctr_fd, .go = &go };
	me = (struct side){ .mode = mode == PCTR_ONE || mode == PERF_ONE ?
				    BASELINE : mode, .pctr_fd = pctr_fd };
	pthread_create(&t, NULL, pong, &other);
	me.err = counters_on(&me);
	pthread_barrier_wait(&go);
	me.tid = syscall(SYS_gettid);
	if (cnt) {
		sw0 = switches_of(me.tid) + switches_of(other.tid);
		bench_count_read(&c0);
	}
	t0 = bench_now_ns();
	for (i = 0; i < trips && !me.err && !other.err; i++) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			break;
		side_read(&me);
	}
	t1 = bench_now_ns();
	if (cnt) {
		bench_count_read(&c1);
		sw1 = switches_of(me.tid) + switches_of(other.tid);
		/* 2 * trips: the switches, if /proc cannot say */
		bench_count_diff(&c0, &c1, sw0 >= 0 && sw1 > sw0 ?
				 sw1 - sw0 : 2.0 * trips, cnt);
	}
	/* Let the other side go if it is waiting. */
	close(ab[1]);
	pthread_join(t, NULL);
	if (!me.err)
		me.err = counted_all(&me);
	counters_off(&me);
	close(ab[0]);
	close(ba[0]);
	close(ba[1]);
	pthread_barrier_destroy(&go);
	if (hw && (mode == PCTR_1 || mode == PCTR_2 || mode == PCTR_INL ||
		   mode == PCTR_ONE))
		pmu_settle();
	if (me.err || other.err) {
		*why = me.err ? me.why : other.why;
		return me.err ? me.err : other.err;
	}
	if (i < trips) {
		*why = "pipe";
		return -EIO;
	}
	return (t1 - t0) / (2.0 * trips);
}

/* An event's function by the first of @names the backend knows. */
static int event_fn(pctr_t *p, const char *const *names, uint64_t *fn,
		    const char **found)
{
	for (; *names; names++) {
		if (!pctr_event_fn(p, *names, fn)) {
			*found = *names;
			return 0;
		}
	}
	return -1;
}

/*
 * The ratio of what pctr added to what perf added, and its verdict: the
 * human line and the "@target" line for bench/bench.
 */
static void print_verdict(const char *key, const char *what, const int *ok,
			  const double *add, enum mode a, enum mode b,
			  const char *unit)
{
	bench_added_verdict(key, what, ok, add, a, b, TARGET, unit,
			    "a switch");
}

int main(int argc, char **argv)
{
	static const char *const insns[] = { "INSTRUCTION_RETIRED",
		"RETIRED_INSTRUCTIONS", NULL };
	static const char *const cycles[] = { "UNHALTED_CORE_CYCLES",
		"CYCLES_NOT_IN_HALT", NULL };
	const char *why[NMODES] = { NULL }, *ev_i = NULL, *ev_c = NULL, *w;
	struct pctr_event ev0 = { .pe_index = 0 };	/* ev_i's name, if no PMU */
	int r, m, icount = 0, run_mode[NMODES] = { 0 }, ok[NMODES];
	double *ns[NMODES], *diff[NMODES], med[NMODES], add[NMODES], v;
	struct bench_counts cnt[NMODES];
	const char *unit;
	int counting;
	long trips = 20000;
	int rounds = 7;
	pctr_t *p;

	r = bench_start(argc, argv, &icount, &trips, &rounds,
			"ctxsw_bench [-i] [round-trips] [rounds]", &p, &hw);
	if (r)
		return r;
	unit = icount ? "insns" : "ns";
	if (hw) {
		if (event_fn(p, insns, &fn_insns, &ev_i) ||
		    event_fn(p, cycles, &fn_cycles, &ev_c)) {
			fprintf(stderr, "no instructions or cycles event by name\n");
			return 1;
		}
	} else {
		/* The backend's first named event, or event 0x3c. */
		fn_insns = ioctl(p->fd, PCIOCEVENT, &ev0) ? 0x3c : ev0.pe_fn;
		ev_i = ioctl(p->fd, PCIOCEVENT, &ev0) ? "0x3c" : ev0.pe_name;
		have_fixed = p->info.pi_nfixed > 0;
	}
	for (m = 0; m < NMODES; m++) {
		run_mode[m] = modes[m].both || modes[m].hw == hw;
		ok[m] = run_mode[m];
		ns[m] = calloc(rounds, sizeof(double));
		diff[m] = calloc(rounds, sizeof(double));
	}

	/* Warm up, pctr included: its scheduler hook is on from then on. */
	for (m = 0; m < NMODES; m++)
		if (run_mode[m])
			run(m, trips / 10 + 1, p->fd, &w, NULL);
	for (r = 0; r < rounds; r++) {
		for (m = 0; m < NMODES; m++) {
			if (!ok[m])
				continue;
			v = run(m, trips, p->fd, &w, NULL);
			if (v < 0) {
				fprintf(stderr, "%s: %s: %s\n", mode_name(m),
					w ? w : "run", strerror((int)-v));
				why[m] = w ? w : "run failed";
				ok[m] = 0;
			}
			ns[m][r] = v;
		}
		for (m = 1; m < NMODES; m++)
			diff[m][r] = ns[m][r] - ns[BASELINE][r];
	}

	/* The MSR accesses: one more run of each mode, counted. */
	counting = bench_count_setup() > 0;
	for (m = 0; m < NMODES; m++) {
		for (r = 0; r < BENCH_NCNT; r++)
			cnt[m].n[r] = -1;
		if (counting && ok[m] && run(m, trips, p->fd, &w, &cnt[m]) < 0)
			for (r = 0; r < BENCH_NCNT; r++)
				cnt[m].n[r] = -1;
	}
	bench_count_stop();

	printf("context switch cost: pipe ping-pong, 2 threads pinned to CPU 0, both counting\n"
	       "(one side: only one of them)\n");
	bench_cmdline();
	printf("pctr backend %s; %ld round trips a run, median of %d interleaved rounds\n",
	       p->info.pi_backend, trips, rounds);
	if (hw)
		printf("pctr counts %s (U|K), and %s in insns+cycles; perf PERF_TYPE_HARDWARE\n"
		       "instructions (and cpu-cycles), per thread, pinned, U|K; inline: each\n"
		       "side maps its page and reads its counter once a trip (the read counted\n"
		       "in what the mode adds)\n",
		       ev_i, ev_c);
	else
		printf("no hardware PMU: pctr counts %s (U|K)%s; perf's per-thread\n"
		       "counter is the software task-clock\n", ev_i,
		       have_fixed ? " and fixed slot 0" : "");
	if (icount)
		printf("under -icount shift=0: 1 ns of the guest's clock = 1 instruction;\n"
		       "figures are instructions executed (exact, repeatable)\n");
	printf("added: median over the rounds of (mode - that round's baseline);\n"
	       "rdmsr, wrmsr, rdpmc: the kernel's MSR accesses a switch, over the\n"
	       "baseline's (msr tracepoints, a run of their own; a switch: one of the\n"
	       "two threads' own, as /proc counts them); CR4 writes are not\n"
	       "countable here (Documentation/benchmarks.rst)\n\n");
	printf("%-20s %14s %12s %6s %6s %6s\n", "mode",
	       icount ? "insns/switch" : "ns/switch",
	       icount ? "added insns" : "added ns", "rdmsr", "wrmsr", "rdpmc");
	for (m = 0; m < NMODES; m++) {
		char cs[64] = "";

		if (!run_mode[m])
			continue;
		if (!ok[m]) {
			printf("%-20s %14s (%s)\n", mode_name(m), "unavailable",
			       why[m]);
			continue;
		}
		med[m] = bench_median(ns[m], rounds);
		add[m] = m == BASELINE ? 0 : bench_median(diff[m], rounds);
		for (r = 0; r < BENCH_NCNT; r++) {
			if (m != BASELINE && cnt[m].n[r] >= 0 &&
			    cnt[BASELINE].n[r] >= 0)
				cnt[m].n[r] -= cnt[BASELINE].n[r];
			if (cnt[m].n[r] < 0)
				snprintf(cs + 7 * r, sizeof(cs) - 7 * r, " %6s", "-");
			else
				snprintf(cs + 7 * r, sizeof(cs) - 7 * r, " %6.2f",
					 cnt[m].n[r]);
		}
		if (m == BASELINE)
			printf("%-20s %14.1f %12s%s\n", mode_name(m), med[m], "-", cs);
		else
			printf("%-20s %14.1f %+12.1f%s\n", mode_name(m), med[m],
			       add[m], cs);
		bench_at("@fig ctxsw.%s %.1f %s per switch: %s\n", modes[m].key,
		       med[m], unit, mode_name(m));
		if (m != BASELINE)
			bench_at("@fig ctxsw.add.%s %.1f %s added per switch: %s\n",
			       modes[m].key, add[m], unit, mode_name(m));
		bench_at("@cnt ctxsw.%s %.4f %.4f %.4f\n", modes[m].key,
			 cnt[m].n[BENCH_RDMSR], cnt[m].n[BENCH_WRMSR],
			 cnt[m].n[BENCH_RDPMC]);
	}
	if (!counting)
		printf("MSR counts: not available (no tracefs msr events)\n");
	printf("(baseline's MSR columns: its own a switch, the timer's and the rest)\n\n");
	if (hw) {
		print_verdict("ctxsw_ins",
			"added context-switch cost, pctr / perf, instructions",
			ok, add, PCTR_1, PERF_1, unit);
		print_verdict("ctxsw_ins_cyc",
			"added context-switch cost, pctr / perf, instructions+cycles",
			ok, add, PCTR_2, PERF_2, unit);
		bench_verdict_abs("ctxsw_wrmsr",
			"MSR writes added by pctr, both threads counting instructions",
			cnt[PCTR_1].n[BENCH_WRMSR], WRMSR_TARGET,
			!ok[PCTR_1] ? "the mode did not run" :
			cnt[PCTR_1].n[BENCH_WRMSR] < 0 ||
			cnt[BASELINE].n[BENCH_WRMSR] < 0 ?
			"no MSR counts here" : NULL, "wrmsr", "a switch");
	} else {
		printf("verdict: added context-switch cost <= %.1fx perf per-thread hardware counting:\n"
		       "         n/a (no hardware PMU: perf has only task-clock here, pctr %+.1f, perf task-clock %+.1f %s)\n",
		       TARGET, ok[PCTR_1] ? add[PCTR_1] : 0,
		       ok[PERF_CLOCK] ? add[PERF_CLOCK] : 0, unit);
		bench_at("@target ctxsw_ins n/a %.2f x no hardware PMU\n", TARGET);
		bench_at("@target ctxsw_ins_cyc n/a %.2f x no hardware PMU\n", TARGET);
		bench_verdict_abs("ctxsw_wrmsr",
			"MSR writes added by pctr, both threads counting instructions",
			0, WRMSR_TARGET, "no hardware PMU: the sim writes no MSR",
			"wrmsr", "a switch");
	}
	/* For bench/bench: every figure and target, one a line. */
	bench_at_flush();
	pctr_close(p);
	for (m = 0; m < NMODES; m++)
		if (run_mode[m] && !ok[m])
			return 1;
	return 0;
}
