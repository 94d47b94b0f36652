// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread virtual counters, on the simulated PMU: isolation between
 * threads, migration, wraps, oversubscription, the ioctl errors and the
 * lifecycle (exit, exec, fork, close from another thread, rmmod).
 *
 * The sim counts TSC ticks while a counter is enabled: event 0x02 counts
 * one per sim_div ticks, and fixed counter 1 (64 bits wide) counts the
 * same event over the same intervals, so a narrow general counter must
 * equal it exactly however often it wrapped.
 *
 * Each test reloads the module with the parameters it needs and the
 * teardown restores what the bench loaded.
 */
#include "pctr_test.h"

#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"

/* The sim's divider in fixture sim: event 0x02 counts every 16 ticks. */
#define SIM_DIV		16

/* The sim with its default widths (48-bit general, 64-bit fixed). */
RELOAD_FIXTURE(sim, "pmu=sim sim_div=16");

/*
 * 16-bit general counters: at 2.6 GHz / 16 one wraps about every 0.4 ms.
 * The sim freezes a CPU's counters from an overflow until it is handled,
 * as Intel's Freeze_PerfMon_On_PMI does, so no wrap is lost however late
 * the interrupt comes; a general and a 64-bit fixed counter counting the
 * same event must then agree exactly.
 */
RELOAD_FIXTURE(sim16, "pmu=sim sim_width=16 sim_div=16");

/*
 * No overflow interrupt (sim_overflow=0): only the core's periodic fold
 * keeps up with a 16-bit counter, here wrapping about every 0.2 s (a
 * TSC of 2.7 GHz; 0.55 s seen with a TSC of 1 GHz; sparc64's %tick, 100 MHz in QEMU's sun4u, gets a
 * divider that much smaller).
 */
#ifdef __sparc__
#define SIMFOLD_DIV 300
#else
#define SIMFOLD_DIV 8192
#endif
#define STR_(x)		#x
#define STR(x)		STR_(x)
RELOAD_FIXTURE(simfold, "pmu=sim sim_width=16 sim_div=" STR(SIMFOLD_DIV) " sim_overflow=0");

/* The counters are taken by someone else (sim_busy=1). */
RELOAD_FIXTURE(simbusy, "pmu=sim sim_busy=1");

/* Events the sim counts in @sec seconds of running. */
static double expected_events(FIXTURE_DATA(sim) *self, double sec)
{
	return sec * self->m.khz * 1000.0 / SIM_DIV;
}

/*
 * Slot 0 (16 bits wide) and fixed counter 1 (64 bits) counted the same
 * event over the same intervals: they must agree exactly.  The number of
 * times slot 0 wrapped.
 */
static unsigned int wraps_agree(struct __test_metadata *_metadata, int fd)
{
	struct pctrst st = rd_now(fd);
	unsigned int wraps = st.pctr_hwc[FIX_DIV] >> 16;

	TH_LOG("pmc0 %llu, fixed1 %llu: %u wraps of a 16-bit counter",
	       (unsigned long long)st.pctr_hwc[0],
	       (unsigned long long)st.pctr_hwc[FIX_DIV], wraps);
	EXPECT_EQ(st.pctr_hwc[FIX_DIV], st.pctr_hwc[0]);
	return wraps;
}

/*
 * The narrow general counter and the 64-bit fixed counter count the same
 * event over the same intervals: they must agree exactly.
 */
TEST_F_TIMEOUT(sim16, wraps_are_never_lost, 120)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double t0 = now_sec(), c0 = thread_cpu_sec();
	unsigned int wraps = 0, target;
	struct pctrst st = { 0 };
	int i;

	/*
	 * The target: 1000 wraps, or as many as 3 s of counting make where
	 * the counter is slow.  At 2.6 GHz / 16 a 16-bit counter wraps
	 * every 0.4 ms and 1000 wraps take 0.4 s of counting; sparc64's
	 * %tick, 100 MHz in QEMU, makes a wrap every 10.5 ms, and 1000 of
	 * them 10.5 s of counting before any interrupt latency (below),
	 * which a loaded host may stretch past the 80 s limit.  There 3 s
	 * give about 290 wraps, each through the overflow interrupt and
	 * the fold like any other: as many chances to lose one.
	 */
	target = self->m.khz * 1000.0 * 3 / SIM_DIV / 65536;
	if (target > 1000)
		target = 1000;
	ASSERT_EQ(0, set(self->m.fd, FIX_DIV, FIXFN));
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCZERO));
	/*
	 * Run, and move between CPUs on the way, until the target number of
	 * wraps happened.  How many a second of CPU time gives is not fixed:
	 * the counters stand frozen from each overflow until its interrupt
	 * is handled, which a loaded host delays (951 wraps in 3 s of CPU
	 * were seen on x86).  So run to the target, with a generous limit,
	 * not for a fixed time.
	 */
	for (i = 0; i < 30 || (wraps <= target && now_sec() - t0 < 80); i++) {
		pin_to_cpu(i % ncpu);
		spin_cpu(0.1);
		st = rd_now(self->m.fd);
		wraps = st.pctr_hwc[FIX_DIV] >> 16;
	}
	TH_LOG("pmc0 %llu, fixed1 %llu: %u wraps of a 16-bit counter (target %u) in %d moves, %.1f s of CPU, %.1f s",
	       (unsigned long long)st.pctr_hwc[0],
	       (unsigned long long)st.pctr_hwc[FIX_DIV], wraps, target, i,
	       thread_cpu_sec() - c0, now_sec() - t0);
	/*
	 * Where the host starved the guest so that the 80 s limit came
	 * first (288 wraps were seen so, niced beside a cold make check),
	 * a hundred wraps, each counted exactly, still prove the point.
	 */
	if (wraps <= target && now_sec() - t0 >= 80) {
		EXPECT_GT(wraps, 100);
	} else {
		EXPECT_GT(wraps, target);
	}
	EXPECT_EQ(st.pctr_hwc[FIX_DIV], st.pctr_hwc[0]);
}

/*
 * Spin for @sec of wall time; the longest time between two consecutive
 * clock reads on the way: how long this thread did not run at once.
 */
static double spin_longest_gap(double sec)
{
	double t = now_sec(), end = t + sec, gap = 0, n;

	while (t < end) {
		n = now_sec();
		if (n - t > gap)
			gap = n - t;
		t = n;
	}
	return gap;
}

/*
 * A thread that runs without a context switch: the periodic fold alone
 * must catch every wrap.  Pinned to the last CPU, which the rest of the
 * test leaves idle, the thread is rarely switched out.
 *
 * The fold is a 1 ms hrtimer of the CPU the thread runs on.  When the
 * host does not run that vCPU for a whole wrap period (0.2 s here),
 * neither the thread nor the timer runs, but the TSC the sim counts
 * runs on, and a wrap passes unseen: no fault of the module.  The
 * thread sees such a stall as a gap between its clock reads; a run with
 * a gap of half a wrap period or more proves nothing either way and is
 * repeated, up to three times, then skipped.  A fold that does not run,
 * or misses wraps, still fails every run the host ran smoothly.
 */
TEST_F_TIMEOUT(simfold, periodic_fold_catches_wraps, 120)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double wrap = 65536.0 * SIMFOLD_DIV / (self->m.khz * 1000.0), gap;
	int run;

	EXPECT_FALSE(pctr_caps(self->m.fd) & PCTR_CAP_OVERFLOW);
	pin_to_cpu(ncpu - 1);
	ASSERT_EQ(0, set(self->m.fd, FIX_DIV, FIXFN));
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	for (run = 1; run <= 3; run++) {
		ASSERT_EQ(0, ioctl(self->m.fd, PCIOCZERO));
		gap = spin_longest_gap(4.0);
		TH_LOG("run %d: longest stall %.1f ms, a wrap every %.1f ms",
		       run, gap * 1e3, wrap * 1e3);
		if (gap >= wrap / 2)
			continue;
		/*
		 * No overflow interrupt: the fold alone saw every wrap, and
		 * there were most of 4 s's worth (the wrap period follows
		 * the guest's TSC rate, which under TCG varies with the
		 * host: 0.2 s to over 0.5 s).
		 */
		EXPECT_GE(wraps_agree(_metadata, self->m.fd),
			  (unsigned int)(0.75 * 4.0 / wrap) > 3 ?
			  (unsigned int)(0.75 * 4.0 / wrap) : 3);
		return;
	}
	SKIP(return, "inconclusive: in each of 3 runs the thread stood still for half a wrap period (%.1f ms) or more, long enough to lose a wrap without the module at fault",
	     wrap * 1e3 / 2);
}

/*
 * When the counters are taken, programming fails with EBUSY and one log
 * line says what to do; nothing is left half set up.
 */
TEST_F(simbusy, taken_counters_are_ebusy)
{
	char line[256];
	struct pctrst st;

	EXPECT_EQ(-1, set(self->m.fd, 0, FN(EV_DIV)));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, set(self->m.fd, FIX_DIV, FIXFN));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, read_long(PCTR_SYSFS "/contexts"));
	ASSERT_EQ(0, last_log_line("sim_busy=1", line, sizeof(line)));
	TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, "reload"));
	/* Reading, and freeing nothing, still work. */
	EXPECT_EQ(0, ioctl(self->m.fd, PCIOCRD, &st));
	EXPECT_EQ(0, set(self->m.fd, 0, 0));
}

/*
 * A busy thread's count grows with its own run time; a sleeper's stays.
 *
 * The thread's CPU time is taken on both sides of the calls that start
 * and read the counting: @cpu_in while it certainly counted, @cpu from
 * before it may have started to after it certainly ended.  The gap
 * between is small on an idle machine, but the guest's vCPUs share one
 * host thread, taking turns of up to 100 ms, and a loaded host stretches
 * the turns: a thread preempted there, between starting to count and
 * reading the clock, was seen to count 1.26 times its measured time.
 */
struct worker {
	int		fd;
	int		busy;
	double		sec;
	uint64_t	count;
	double		cpu_in;
	double		cpu;
	int		err;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct pctrst st;
	double c0, c1, c2;

	c0 = thread_cpu_sec();
	if (set(w->fd, 0, FN(EV_DIV))) {
		w->err = errno;
		return NULL;
	}
	c1 = thread_cpu_sec();
	if (w->busy)
		spin_cpu(w->sec);
	else
		usleep(w->sec * 1e6);
	c2 = thread_cpu_sec();
	st = rd_now(w->fd);
	w->cpu = thread_cpu_sec() - c0;
	w->cpu_in = c2 - c1;
	w->count = st.pctr_hwc[0];
	return NULL;
}

TEST_F_TIMEOUT(sim, threads_count_only_themselves, 60)
{
	struct worker w[2] = {
		{ .fd = self->m.fd, .busy = 1, .sec = 1.0 },
		{ .fd = self->m.fd, .busy = 0, .sec = 1.0 },
	};
	double want;

	ASSERT_EQ(0, run_threads(2, worker_fn, w, sizeof(w[0])));
	ASSERT_EQ(0, w[0].err);
	ASSERT_EQ(0, w[1].err);
	want = expected_events(self, w[0].cpu);
	TH_LOG("busy: %llu events for %.3f..%.3f s of CPU (expect ~%.0f); sleeper: %llu",
	       (unsigned long long)w[0].count, w[0].cpu_in, w[0].cpu, want,
	       (unsigned long long)w[1].count);
	EXPECT_GT(w[0].count, expected_events(self, w[0].cpu_in) * 0.8);
	EXPECT_LT(w[0].count, want * 1.2);
	/*
	 * The sleeper ran for a few microseconds of guest time; were it
	 * charged the busy thread's events it would have about as many.
	 * But when its vCPU waits for its turn on the host while the
	 * sleeper is in an ioctl, the TSC runs on and the sim counts those
	 * ticks (2.9 million, 23 ms, were seen under a host load of 14): an
	 * absolute bound of 20 ms is a bet on the host.  A tenth of the
	 * busy thread's count still tells the two apart, whatever the host
	 * does.
	 */
	TH_LOG("sleeper: %.6f s of CPU (%.0f events' worth)", w[1].cpu,
	       expected_events(self, w[1].cpu));
	EXPECT_LT(w[1].count, w[0].count / 10);
	/* The main thread never programmed a counter. */
	EXPECT_EQ(0, rd_now(self->m.fd).pctr_hwc[0]);
}

/* More busy threads than CPUs: each still counts only its own time. */
TEST_F_TIMEOUT(sim, oversubscribed_threads, 120)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int n = 2 * ncpu, i;
	struct worker *w = calloc(n, sizeof(*w));
	double want;

	ASSERT_NE(NULL, w);
	for (i = 0; i < n; i++) {
		w[i].fd = self->m.fd;
		w[i].busy = 1;
		w[i].sec = 0.5;
	}
	ASSERT_EQ(0, run_threads(n, worker_fn, w, sizeof(w[0])));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, w[i].err);
		want = expected_events(self, w[i].cpu);
		TH_LOG("thread %d: %llu for %.3f..%.3f s of CPU (%.3f..%.3f of it)",
		       i, (unsigned long long)w[i].count, w[i].cpu_in,
		       w[i].cpu, w[i].count / expected_events(self, w[i].cpu_in),
		       w[i].count / want);
		/*
		 * Counting others' time too would give about 2 here, which
		 * the upper bound catches.  The lower bound allows for the
		 * switch path, the thread's CPU time with its counter
		 * stopped: on the debug kernel, where KASAN and lockdep make
		 * that path many times longer, four threads on two vCPUs
		 * were seen at 0.79, and a host that stalls a vCPU within
		 * that path adds to it.  Half still catches a thread that
		 * loses whole time slices (not restarted at a switch-in).
		 */
		EXPECT_GT(w[i].count, expected_events(self, w[i].cpu_in) * 0.5);
		EXPECT_LT(w[i].count, want * 1.2);
	}
	free(w);
}

/*
 * Bouncing between CPUs: the count never goes back and misses nothing of
 * the thread's run time but the scheduler's own switch path.  The
 * scheduler charges a thread from the moment it is picked, before the
 * context switch and the sched_in hook where counting starts (perf's
 * hardware counters start there too); under TCG a migration's switch is
 * slow, so what may go uncounted is bounded by the time the migrating
 * calls took, measured here.
 */
TEST_F_TIMEOUT(sim, migration_keeps_counting, 60)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double c0, cpu, t0, moving = 0;
	uint64_t last = 0;
	struct pctrst st;
	int i, moves = 0;

	if (ncpu < 2)
		SKIP(return, "one CPU");
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	ASSERT_EQ(0, set(self->m.fd, FIX_DIV, FIXFN));
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCZERO));
	c0 = thread_cpu_sec();
	for (i = 0; i < 200; i++) {
		t0 = now_sec();
		pin_to_cpu(i % ncpu);
		moving += now_sec() - t0;
		if (sched_getcpu() == i % ncpu)
			moves++;
		spin(0.005);
		st = rd_now(self->m.fd);
		ASSERT_GE(st.pctr_hwc[0], last);
		last = st.pctr_hwc[0];
	}
	cpu = thread_cpu_sec() - c0;
	TH_LOG("%d moves taking %.3f s; %llu events in %.3f s of CPU (%.3f of it expected)",
	       moves, moving, (unsigned long long)last, cpu,
	       last / expected_events(self, cpu));
	EXPECT_GE(moves, 190);
	EXPECT_EQ(st.pctr_hwc[FIX_DIV], st.pctr_hwc[0]);
	EXPECT_GT(last, expected_events(self, cpu - moving) * 0.95);
	EXPECT_LT(last, expected_events(self, cpu) * 1.05);
}

/*
 * A thread that sleeps and wakes on one CPU, with nothing else counting
 * there, finds its registers as it left them: the switch-in re-enables
 * them without rewriting.  Moving to another CPU always rewrites.
 */
TEST_F(sim, same_cpu_switch_skips_register_writes)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long k0, l0, k1, l1;
	int i;

	if (ncpu < 2)
		SKIP(return, "one CPU");
	pin_to_cpu(ncpu - 1);
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	starts(&k0, &l0);
	for (i = 0; i < 100; i++)
		usleep(1000);
	starts(&k1, &l1);
	TH_LOG("sleeping on one CPU: %lu kept, %lu loaded",
	       k1 - k0, l1 - l0);
	EXPECT_GE(k1 - k0, 90);
	EXPECT_LE(l1 - l0, 10);

	/* Every move to another CPU reloads. */
	starts(&k0, &l0);
	for (i = 0; i < 20; i++)
		pin_to_cpu(i % 2 ? ncpu - 1 : ncpu - 2);
	starts(&k1, &l1);
	TH_LOG("moving: %lu kept, %lu loaded", k1 - k0, l1 - l0);
	EXPECT_GE(l1 - l0, 20);
}

TEST_F(sim, info_and_events)
{
	struct pctr_info info;
	struct pctr_event ev;
	char backend[32];

	ASSERT_EQ(0, pctr_get_info(self->m.fd, &info));
	EXPECT_STREQ("sim", info.pi_backend);
	EXPECT_EQ(PCTR_BACKEND_SIM, info.pi_backend_id);
	EXPECT_TRUE(info.pi_caps & PCTR_CAP_COUNTERS);
	EXPECT_EQ(4, info.pi_ngeneral);
	EXPECT_EQ(2, info.pi_nfixed);
	ASSERT_EQ(0, read_text(PCTR_SYSFS "/backend", backend, sizeof(backend)));
	EXPECT_STREQ("sim", backend);
	ASSERT_LT(0, info.pi_nevents);
	memset(&ev, 0, sizeof(ev));
	ev.pe_index = 0;
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCEVENT, &ev));
	EXPECT_NE(0, strlen(ev.pe_name));
	ev.pe_index = info.pi_nevents;
	EXPECT_EQ(ENOENT, ioc(self->m.fd, PCIOCEVENT, &ev));
	ev.pe_index = 0;
	ev.pe_flags = 1;
	EXPECT_EQ(EINVAL, ioc(self->m.fd, PCIOCEVENT, &ev));
}

/* Functions read back as set; a new function starts from zero. */
TEST_F(sim, functions_read_back)
{
	struct pctr_pcr pcr;
	struct pctrst st;

	ASSERT_EQ(0, set(self->m.fd, 1, FN(EV_DIV)));
	ASSERT_EQ(0, set(self->m.fd, PCTR_FIXED(0), PCTR_U | PCTR_EN));
	st = rd_now(self->m.fd);
	EXPECT_EQ(FN(EV_DIV), st.pctr_fn[1]);
	EXPECT_EQ(PCTR_U | PCTR_EN, st.pctr_fn[PCTR_FIXED(0)]);
	EXPECT_EQ(0, st.pctr_fn[0]);

	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCGETPCR, &pcr));
	EXPECT_EQ(FN(EV_DIV), pcr.pcr_evtsel[1]);
	EXPECT_EQ(0x2, pcr.pcr_fixed_ctrl);	/* fixed 0: user only */

	/* SETPCR replaces the whole set at once. */
	memset(&pcr, 0, sizeof(pcr));
	pcr.pcr_evtsel[2] = FN(EV_TICKS);
	pcr.pcr_fixed_ctrl = 0x3 << 4;		/* fixed 1: user + kernel */
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCSETPCR, &pcr));
	st = rd_now(self->m.fd);
	EXPECT_EQ(0, st.pctr_fn[1]);
	EXPECT_EQ(FN(EV_TICKS), st.pctr_fn[2]);
	EXPECT_EQ(0, st.pctr_fn[PCTR_FIXED(0)]);
	EXPECT_EQ(PCTR_U | PCTR_K | PCTR_EN, st.pctr_fn[FIX_DIV]);
	EXPECT_GT(st.pctr_hwc[2], 0);

	/* Zero and preset. */
	struct pctr_preset ps = { .ps_ctr = 2, .ps_value = 1ULL << 60 };

	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCPRESET, &ps));
	st = rd_now(self->m.fd);
	EXPECT_GE(st.pctr_hwc[2], 1ULL << 60);
	EXPECT_LT(st.pctr_hwc[2], (1ULL << 60) + (1ULL << 40));
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCZERO));
	st = rd_now(self->m.fd);
	EXPECT_LT(st.pctr_hwc[2], 1ULL << 40);
}

/*
 * PCIOCRD writes every byte of the caller's structure: the programmed
 * slots, zeros in every free one (over whatever the caller left there)
 * and both clocks.  Scattered slots, so a read that wrote slots by
 * position in the mask rather than by number would show.
 */
TEST_F(sim, read_fills_every_field)
{
	struct pctr_preset ps = { .ps_ctr = 3, .ps_value = 5ULL << 40 };
	struct pctrst st;
	int i;

	ASSERT_EQ(0, set(self->m.fd, 1, FN(EV_DIV)));
	ASSERT_EQ(0, set(self->m.fd, 3, FN(EV_TICKS)));
	ASSERT_EQ(0, set(self->m.fd, PCTR_FIXED(1), PCTR_U | PCTR_EN));
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCPRESET, &ps));
	spin(0.05);
	memset(&st, 0xa5, sizeof(st));
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCRD, &st));
	for (i = 0; i < PCTR_NUM; i++) {
		if (i == 1 || i == 3 || i == PCTR_FIXED(1))
			continue;
		EXPECT_EQ(0, st.pctr_fn[i]) TH_LOG("fn of free slot %d", i);
		EXPECT_EQ(0, st.pctr_hwc[i]) TH_LOG("value of free slot %d", i);
	}
	EXPECT_EQ(FN(EV_DIV), st.pctr_fn[1]);
	EXPECT_EQ(FN(EV_TICKS), st.pctr_fn[3]);
	EXPECT_EQ(PCTR_U | PCTR_EN, st.pctr_fn[PCTR_FIXED(1)]);
	EXPECT_GT(st.pctr_hwc[1], 0);
	EXPECT_LT(st.pctr_hwc[1], 1ULL << 40);
	EXPECT_GE(st.pctr_hwc[3], 5ULL << 40);
	EXPECT_LT(st.pctr_hwc[3], 6ULL << 40);
	EXPECT_GT(st.pctr_hwc[PCTR_FIXED(1)], 0);
	EXPECT_NE(0xa5a5a5a5a5a5a5a5ULL, st.pctr_tsc);
	EXPECT_NE(0xa5a5a5a5a5a5a5a5ULL, st.pctr_idl);
	EXPECT_NE(0, st.pctr_tsc);
}

/* Every error of PCIOCS, SETPCR and PRESET. */
TEST_F(sim, set_errors)
{
	struct pctr_pcr pcr;
	struct pctr_preset ps = { 0 };
	int ro;

	/* Absent slots. */
	EXPECT_EQ(-1, set(self->m.fd, 4, FN(EV_DIV)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, set(self->m.fd, PCTR_FIXED(2), FIXFN));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, set(self->m.fd, PCTR_NUM - 1, FIXFN));
	EXPECT_EQ(EINVAL, errno);
	/* Unknown event, reserved and unsupported bits. */
	EXPECT_EQ(-1, set(self->m.fd, 0, FN(0x7f)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, set(self->m.fd, 0, FN(EV_DIV) | (1ULL << 19)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, set(self->m.fd, 0, FN(EV_DIV) | (1ULL << 50)));
	EXPECT_EQ(EINVAL, errno);
	/* A fixed counter's event is the hardware's. */
	EXPECT_EQ(-1, set(self->m.fd, FIX_DIV, FIXFN | 0x02));
	EXPECT_EQ(EINVAL, errno);
	/* Enabled, but counting in neither mode. */
	EXPECT_EQ(-1, set(self->m.fd, 0, PCTR_FN(EV_DIV, 0, PCTR_EN)));
	EXPECT_EQ(EINVAL, errno);

	/* SETPCR checks every field, and changes nothing when one is bad. */
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	memset(&pcr, 0, sizeof(pcr));
	pcr.pcr_evtsel[1] = FN(EV_DIV);
	pcr.pcr_evtsel[3] = FN(0x7f);
	EXPECT_EQ(EINVAL, ioc(self->m.fd, PCIOCSETPCR, &pcr));
	EXPECT_EQ(FN(EV_DIV), rd_now(self->m.fd).pctr_fn[0]);
	EXPECT_EQ(0, rd_now(self->m.fd).pctr_fn[1]);
	memset(&pcr, 0, sizeof(pcr));
	pcr.pcr_reserved[0] = 1;
	EXPECT_EQ(EINVAL, ioc(self->m.fd, PCIOCSETPCR, &pcr));
	memset(&pcr, 0, sizeof(pcr));
	pcr.pcr_evtsel[7] = FN(EV_DIV);		/* counter 7 does not exist */
	EXPECT_EQ(EINVAL, ioc(self->m.fd, PCIOCSETPCR, &pcr));

	/* PRESET: absent slot, free slot, flags. */
	ps.ps_ctr = 9;
	EXPECT_EQ(EINVAL, ioc(self->m.fd, PCIOCPRESET, &ps));
	ps.ps_ctr = 2;
	EXPECT_EQ(EINVAL, ioc(self->m.fd, PCIOCPRESET, &ps));
	ps.ps_ctr = 0;
	ps.ps_flags = 1;
	EXPECT_EQ(EINVAL, ioc(self->m.fd, PCIOCPRESET, &ps));

	/* Without write access: EPERM before anything else. */
	ro = open(PCTR_DEV, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_EQ(-1, set(ro, 0, FN(EV_DIV)));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, set(ro, 4, FN(EV_DIV)));
	EXPECT_EQ(EPERM, errno);
	close(ro);
}

/* AnyThread-like bits need CAP_PERFMON (or CAP_SYS_ADMIN). */
TEST_F(sim, any_thread_needs_perfmon)
{
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setresuid(65534, 65534, 65534))
			_exit(10);
		if (set(self->m.fd, 0, FN(EV_DIV) | PCTR_ANY) != -1)
			_exit(11);
		if (errno != EPERM)
			_exit(12);
		/* Unprivileged self-monitoring of user mode works. */
		if (set(self->m.fd, 0, FNU(EV_DIV)))
			_exit(13);
		_exit(0);
	}
	EXPECT_EQ(0, wait_exit(pid));
	/* With the capability (root here) the same function is accepted. */
	EXPECT_EQ(0, set(self->m.fd, 0, FN(EV_DIV) | PCTR_ANY));
	/* A malformed function is EINVAL before the privilege is asked. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setresuid(65534, 65534, 65534))
			_exit(10);
		if (set(self->m.fd, 1, FN(0x7f) | PCTR_ANY) != -1 ||
		    errno != EINVAL)
			_exit(14);
		_exit(0);
	}
	EXPECT_EQ(0, wait_exit(pid));
}

/* A forked child starts with no counters; the parent's keep counting. */
TEST_F(sim, fork_child_starts_clean)
{
	struct pctrst st;
	pid_t pid;
	int i;

	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		st = rd_now(self->m.fd);
		for (i = 0; i < PCTR_NUM; i++)
			if (st.pctr_fn[i] || st.pctr_hwc[i])
				_exit(1);
		_exit(0);
	}
	EXPECT_EQ(0, wait_exit(pid));
	st = rd_now(self->m.fd);
	EXPECT_EQ(FN(EV_DIV), st.pctr_fn[0]);
	EXPECT_GT(st.pctr_hwc[0], 0);
}

/* exec starts a new program with no counters. */
TEST_F(sim, exec_starts_clean)
{
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (set(self->m.fd, 0, FN(EV_DIV)))
			_exit(20);
		exec_self("ctx_test", "--check-clean", self->m.fd);
	}
	EXPECT_EQ(0, wait_exit(pid));
}

/* The thread's context goes with it: the module can then be unloaded. */
/*
 * The thread's context goes with it, and with the last context the
 * counters go back to the rest of the kernel (perf, the NMI watchdog).
 */
TEST_F(sim, context_ends_with_thread)
{
	struct worker w = { .fd = self->m.fd, .busy = 1, .sec = 0.05 };

	EXPECT_EQ(0, read_long(PCTR_SYSFS "/taken"));
	ASSERT_EQ(0, run_thread(worker_fn, &w));
	ASSERT_EQ(0, w.err);
	EXPECT_EQ(0, wait_zero(PCTR_SYSFS "/contexts"));
	EXPECT_EQ(0, wait_zero(PCTR_SYSFS "/taken"));

	/* Taken with the first context, held while one exists. */
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	EXPECT_EQ(1, read_long(PCTR_SYSFS "/taken"));
	ASSERT_EQ(0, set(self->m.fd, 0, 0));
	EXPECT_EQ(0, wait_zero(PCTR_SYSFS "/taken"));
}

/*
 * While a thread counts, rmmod is refused, whether or not any descriptor
 * is open; once it stops counting, rmmod works.
 */
TEST_F(sim, rmmod_refused_while_counting)
{
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	close(self->m.fd);
	self->m.fd = -1;
	EXPECT_EQ(1, read_long(PCTR_SYSFS "/contexts"));
	EXPECT_EQ(-1, unload());
	EXPECT_TRUE(errno == EAGAIN || errno == EBUSY);
	EXPECT_TRUE(loaded());
	/* Freeing the last function ends the context. */
	self->m.fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, self->m.fd);
	ASSERT_EQ(0, set(self->m.fd, 0, 0));
	EXPECT_EQ(0, read_long(PCTR_SYSFS "/contexts"));
	close(self->m.fd);
	self->m.fd = -1;
	EXPECT_EQ(0, unload());
}

/* Another thread closes the descriptor while this one counts. */
static void *closer(void *arg)
{
	close(*(int *)arg);
	return NULL;
}

TEST_F(sim, close_from_another_thread)
{
	pthread_t t;
	struct pctrst st;
	int fd2;

	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	ASSERT_EQ(0, pthread_create(&t, NULL, closer, &self->m.fd));
	spin(0.1);
	ASSERT_EQ(0, pthread_join(t, NULL));
	self->m.fd = -1;
	/* The counters belong to the thread, not the descriptor. */
	spin(0.1);
	fd2 = open(PCTR_DEV, O_RDONLY);
	ASSERT_LE(0, fd2);
	st = rd_now(fd2);
	EXPECT_EQ(FN(EV_DIV), st.pctr_fn[0]);
	EXPECT_GT(st.pctr_hwc[0], expected_events(self, 0.1));
	close(fd2);
}

/* Re-executed by exec_starts_clean: no counters may survive exec. */
static int check_clean(int fd)
{
	struct pctrst st;
	int i;

	memset(&st, 0xff, sizeof(st));
	if (ioctl(fd, PCIOCRD, &st))
		return 2;
	for (i = 0; i < PCTR_NUM; i++)
		if (st.pctr_fn[i] || st.pctr_hwc[i])
			return 3;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--check-clean"))
		return check_clean(atoi(argv[2]));
	return test_harness_run(argc, argv);
}
