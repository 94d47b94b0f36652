// SPDX-License-Identifier: GPL-2.0
/*
 * A thread's counters count only while it runs: a thread that sleeps in
 * usleep() while a sibling spins gains no counts for the sleep (issue
 * 26, point 12), on the simulated PMU with 16-bit counters, where the
 * sibling's counter wraps, freezes the CPU's counters and interrupts
 * every few tens of milliseconds.
 *
 * The sleeper counts the sim's sim_ticks_div (slot 0, 16 bits) and its
 * ticks (fixed counter 0, 64 bits) and maps its page for the virtual
 * TSC, the TSC cycles pctr's own switch hooks saw it run.  What it
 * counts over each sleep is held against that virtual TSC and against a
 * measure that is neither pctr's nor the CPU-time accounting's: the TSC
 * time between the scheduler's own sched_switch events for the thread,
 * traced with the x86-tsc clock (where tracefs is, on x86).
 *
 * Its CPU time (CLOCK_THREAD_CPUTIME_ID) is logged but is no bound:
 * under TCG it was seen to charge a thread far less than the TSC time
 * the scheduler had it on a CPU (1.2 ms of CPU time for a round in
 * which sched_switch showed the thread on the CPU for 26.9 ms of TSC,
 * the virtual TSC 12.5 ms and the sim counted 10.7 ms).  The issue's
 * counts beyond CPU time are that accounting, not counting during the
 * sleep: a driver made to count on through the sleep fails here by
 * some 200 ms a round.
 */
#include "pctr_test.h"

#include <pthread.h>
#include <sys/mount.h>
#include <time.h>

#include "kselftest_harness.h"

/* The sim's default divider: sim_ticks_div counts every 1000 TSC ticks. */
#define SIM_DIV		1000
#define ROUNDS		5
#define SLEEP_US	200000

RELOAD_FIXTURE(sim16, "pmu=sim sim_width=16");

struct round {
	double		cpu;		/* thread CPU time, s */
	uint64_t	vtsc;		/* virtual TSC, ticks */
	uint64_t	div;		/* sim_ticks_div counted */
	uint64_t	ticks;		/* sim ticks counted (fixed 0) */
	uint64_t	tsc0, tsc1;	/* the TSC around the round */
	uint64_t	oncpu;		/* TSC ticks sched_switch had it on */
	unsigned long	kept, loaded;	/* switch-ins of each kind */
};

struct sleeper {
	int		spin_counts;	/* the spinner counts too */
	volatile int	stop;		/* the sleeper is done */
	int		tid;		/* the sleeper's */
	int		err;		/* errno of a failed set-up */
	struct round	r[ROUNDS];
};

static int count_both(pctr_t *p)
{
	if (pctr_set(p, 0, FN(EV_DIV)) || pctr_set(p, FIX_TICKS, FIXFN))
		return -1;
	return 0;
}

static void *spinner_fn(void *arg)
{
	struct sleeper *s = arg;
	volatile unsigned long x = 0;
	pctr_t *p = NULL;

	if (s->spin_counts) {
		p = pctr_open(O_RDWR);
		if (!p || count_both(p))
			s->err = errno;
	}
	while (!s->stop)
		x++;
	if (p) {
		pctr_release(p);
		pctr_close(p);
	}
	return NULL;
}

/*
 * Each round: CPU time, then the virtual TSC, then the counters, the
 * sleep, and the same in the other order, so that each measure of run
 * time brackets the counted span.
 */
static void *sleeper_fn(void *arg)
{
	struct sleeper *s = arg;
	unsigned long k0, l0, k1, l1;
	struct pctrst a, b;
	uint64_t v0, v1;
	double c0, c1;
	pctr_t *p;
	int i;

	s->tid = gettid_();
	p = pctr_open(O_RDWR);
	if (!p || count_both(p) || pctr_map(p)) {
		s->err = errno;
		goto out;
	}
	for (i = 0; i < ROUNDS; i++) {
		starts(&k0, &l0);
		s->r[i].tsc0 = rdtsc();
		c0 = thread_cpu_sec();
		v0 = pctr_vtsc(p);
		if (pctr_read_all(p, &a))
			break;
		usleep(SLEEP_US);
		if (pctr_read_all(p, &b))
			break;
		v1 = pctr_vtsc(p);
		c1 = thread_cpu_sec();
		s->r[i].tsc1 = rdtsc();
		starts(&k1, &l1);
		s->r[i].kept = k1 - k0;
		s->r[i].loaded = l1 - l0;
		s->r[i].cpu = c1 - c0;
		s->r[i].vtsc = v1 - v0;
		s->r[i].div = b.pctr_hwc[0] - a.pctr_hwc[0];
		s->r[i].ticks = b.pctr_hwc[FIX_TICKS] - a.pctr_hwc[FIX_TICKS];
	}
	if (i < ROUNDS)
		s->err = errno;
	pctr_release(p);
out:
	if (p)
		pctr_close(p);
	s->stop = 1;
	return NULL;
}

/* --- the scheduler's own view: sched_switch, traced in TSC ticks ------ */

#define TRACING		"/sys/kernel/tracing"

static int trace_write(const char *file, const char *text)
{
	char path[128];

	snprintf(path, sizeof(path), TRACING "/%s", file);
	return write_text(path, text);
}

/*
 * Trace this program's switches with the TSC as the clock (x86 only):
 * 0, or -1 where tracing cannot be had.
 */
static int trace_begin(void)
{
#ifdef __x86_64__
	if (access(TRACING "/trace", W_OK))
		mount("nodev", TRACING, "tracefs", 0, NULL);
	if (trace_write("tracing_on", "0") ||
	    trace_write("trace_clock", "x86-tsc") ||
	    trace_write("trace", "") ||
	    trace_write("events/sched/sched_switch/filter",
			"prev_comm == \"sleep_test\" || next_comm == \"sleep_test\"") ||
	    trace_write("events/sched/sched_switch/enable", "1") ||
	    trace_write("tracing_on", "1"))
		return -1;
	return 0;
#else
	return -1;
#endif
}

/* Stop tracing (and read the trace before trace_end(), which clears it). */
static void trace_stop(void)
{
	trace_write("tracing_on", "0");
}

static void trace_end(void)
{
	trace_write("events/sched/sched_switch/enable", "0");
	trace_write("events/sched/sched_switch/filter", "0");
	trace_write("trace_clock", "local");
}

/*
 * From the trace: for each round, the TSC ticks between the sleeper's
 * switch-ins and switch-outs within it (it runs at both ends of a
 * round).  0, or -1 if the trace cannot be read or lost events.
 */
static int trace_oncpu(struct sleeper *s)
{
	uint64_t ts, in[ROUNDS];
	int on[ROUNDS], i, prev, next, ret = 0;
	char line[512], *p, *q;
	FILE *f;

	f = fopen(TRACING "/trace", "r");
	if (!f)
		return -1;
	for (i = 0; i < ROUNDS; i++) {
		on[i] = 1;
		in[i] = s->r[i].tsc0;
		s->r[i].oncpu = 0;
	}
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "LOST"))
			ret = -1;
		p = strstr(line, ": sched_switch: ");
		if (!p)
			continue;
		for (q = p; q > line && q[-1] >= '0' && q[-1] <= '9'; q--)
			;
		ts = strtoull(q, NULL, 10);
		q = strstr(p, "prev_pid=");
		prev = q ? atoi(q + 9) : -1;
		q = strstr(p, "next_pid=");
		next = q ? atoi(q + 9) : -1;
		for (i = 0; i < ROUNDS; i++) {
			struct round *r = &s->r[i];

			if (ts < r->tsc0 || ts > r->tsc1)
				continue;
			if (prev == s->tid && on[i]) {
				r->oncpu += ts - in[i];
				on[i] = 0;
			} else if (next == s->tid) {
				in[i] = ts;
				on[i] = 1;
			}
		}
	}
	fclose(f);
	for (i = 0; i < ROUNDS; i++)
		if (on[i])
			s->r[i].oncpu += s->r[i].tsc1 - in[i];
	return ret;
}

static void sleep_beside_spinner(struct __test_metadata *_metadata,
				 FIXTURE_DATA(sim16) *self, int spin_counts)
{
	struct sleeper s = { .spin_counts = spin_counts };
	double khz = self->m.khz;
	pthread_t spinner, sleeper;
	double tight, loose;
	int i, traced, over = 0;

	traced = trace_begin() == 0;
	ASSERT_EQ(0, pthread_create(&spinner, NULL, spinner_fn, &s));
	/* The spinner first, so that it holds a CPU when the sleeper starts. */
	usleep(20000);
	ASSERT_EQ(0, pthread_create(&sleeper, NULL, sleeper_fn, &s));
	pthread_join(sleeper, NULL);
	pthread_join(spinner, NULL);
	if (traced) {
		trace_stop();
		traced = trace_oncpu(&s) == 0;
		trace_end();
	}
	if (!traced)
		TH_LOG("no sched_switch trace here: the virtual TSC is the only bound");
	ASSERT_EQ(0, s.err);
	for (i = 0; i < ROUNDS; i++) {
		struct round *r = &s.r[i];

		TH_LOG("sleep %d: counted %.3f ms (div) %.3f ms (ticks); on the CPU %.3f ms (sched_switch), %.3f ms (virtual TSC); CPU time %.3f ms; pctr's switch-ins %lu kept, %lu loaded",
		       i, r->div * (double)SIM_DIV / khz, r->ticks / khz,
		       r->oncpu / khz, r->vtsc / khz, r->cpu * 1e3,
		       r->kept, r->loaded);
		/*
		 * The 16-bit counter and the 64-bit one counted alike: each
		 * start of the counters (a switch-in, a thaw after a wrap)
		 * may move the divided count by one, and a round has a few.
		 */
		EXPECT_LE(r->div, r->ticks / SIM_DIV + 16);
		EXPECT_LE(r->ticks / SIM_DIV, r->div + 16);
		/*
		 * Only while pctr's own hooks had the thread switched in,
		 * and only while the scheduler had it on a CPU.  The
		 * counters start and stop a little after the virtual TSC's
		 * samples, and after the sched_switch tracepoint (pctr's
		 * hooks run in prepare_task_switch(), which follows it): a
		 * few microseconds a switch, so 1 ms of slack, and half as
		 * much again on the scheduler's figure.
		 *
		 * But the TSC runs on while the host does not run the
		 * guest, and a stall that lands in those few microseconds
		 * is counted (8.7 ms was seen once in some 70 rounds on
		 * 6.1, 2 vCPUs, beside a make check).  Such a round is an
		 * accident of the host: one in ROUNDS may go over the
		 * tight bound, by at most 50 ms.  Counting through the
		 * sleep beside a spinner goes over in most rounds, by up to
		 * 200 ms each.
		 */
		tight = khz + 0.0;
		loose = khz * 50.0;
		if (r->ticks > r->vtsc + tight ||
		    (traced && r->ticks > r->oncpu * 1.5 + tight))
			over++;
		EXPECT_LE(r->ticks, r->vtsc + loose);
		if (traced)
			EXPECT_LE(r->ticks, r->oncpu * 1.5 + loose);
	}
	TH_LOG("%d of %d rounds over the tight bound", over, ROUNDS);
	EXPECT_LE(over, 1);
}

TEST_F_TIMEOUT(sim16, sleeper_beside_counting_spinner, 60)
{
	RETURN_IF_SKIPPED();
	sleep_beside_spinner(_metadata, self, 1);
}

TEST_F_TIMEOUT(sim16, sleeper_beside_plain_spinner, 60)
{
	RETURN_IF_SKIPPED();
	sleep_beside_spinner(_metadata, self, 0);
}

TEST_HARNESS_MAIN
