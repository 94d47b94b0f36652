// SPDX-License-Identifier: GPL-2.0
/*
 * Suspend and resume: firmware may clear the counter registers while the
 * machine sleeps, so the engine must not trust them afterwards.  Its
 * "keep" shortcut (a thread that switches back in on a CPU where nothing
 * else counted since re-enables its registers rather than rewriting
 * them) ends at PM_SUSPEND_PREPARE, every CPU forgets its registers at
 * PM_POST_SUSPEND, and the shortcut is back afterwards.
 *
 * The guest drives a real suspend cycle through the kernel's own PM test
 * mode (/sys/power/pm_test = freezer, CONFIG_PM_DEBUG): the PM notifiers
 * run and every user task is frozen and thawed, as in a suspend, but the
 * machine does not power down.  A counting thread pinned to one CPU
 * sleeps in a pipe read through it and is frozen and thawed.  The
 * simulated PMU (sim.c) clears its registers at each suspend edge, as
 * firmware may, so a count that trusted them would jump.  sysfs "starts"
 * tells kept switch-ins from rewritten ones.
 */
#include "pctr_test.h"

#define PM_TEST		"/sys/power/pm_test"
#define PM_STATE	"/sys/power/state"

RELOAD_FIXTURE(pm, "pmu=sim");

struct sleeper {
	int		cpu;
	int		ping[2];	/* main -> sleeper: one byte, a wake */
	int		pong[2];	/* sleeper -> main: its slot 0 value */
	int		err;
};

/* Count on one CPU; wake for each byte, answer with the count. */
static void *sleeper(void *arg)
{
	struct sleeper *s = arg;
	struct pctrst st;
	uint64_t fn = FN(EV_DIV), none = 0;
	int fd;
	char c;

	pin_to_cpu(s->cpu);
	fd = open(PCTR_DEV, O_RDWR);
	if (fd < 0 || ioctl(fd, PCIOCS64(0), &fn)) {
		s->err = errno;
		if (write(s->pong[1], &none, sizeof(none)) < 0)
			return NULL;
		return NULL;
	}
	for (;;) {
		ssize_t n = read(s->ping[0], &c, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1 || c == 'q')
			break;
		spin(0.002);
		if (ioctl(fd, PCIOCRD, &st))
			st.pctr_hwc[0] = 0;
		if (write(s->pong[1], &st.pctr_hwc[0], sizeof(uint64_t)) !=
		    sizeof(uint64_t))
			break;
	}
	ioctl(fd, PCIOCRELEASE);
	close(fd);
	return NULL;
}

/* Wake the sleeper once; its count, or 0 when it failed. */
static uint64_t ping(struct sleeper *s)
{
	uint64_t v = 0;

	if (write(s->ping[1], "p", 1) != 1)
		return 0;
	if (read(s->pong[0], &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/* Twenty pings, each count above the one before (*@prev, updated). */
static void pings(struct __test_metadata *_metadata, struct sleeper *s,
		  uint64_t *prev)
{
	uint64_t v;
	int i;

	for (i = 0; i < 20; i++) {
		v = ping(s);
		EXPECT_GT(v, *prev);
		*prev = v;
	}
}

TEST_F_TIMEOUT(pm, suspend_cycle_rewrites_registers_once, 300)
{
	struct sleeper s = { 0 };
	unsigned long k0, l0, k1, l1, k2, l2, k3, l3;
	uint64_t v, prev;
	char buf[128];
	pthread_t t;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (!self->m.ready)
		return;
	if (ncpu < 2)
		SKIP(return, "one CPU");
	if (access(PM_TEST, W_OK) || read_text(PM_STATE, buf, sizeof(buf)) ||
	    !strstr(buf, "freeze"))
		SKIP(return, "no PM test mode (CONFIG_PM_DEBUG) or no s2idle");
	s.cpu = ncpu - 1;
	pin_to_cpu(0);
	ASSERT_EQ(0, pipe(s.ping));
	ASSERT_EQ(0, pipe(s.pong));
	ASSERT_EQ(0, pthread_create(&t, NULL, sleeper, &s));

	/* Before: the sleeper's switch-ins on its CPU keep the registers. */
	prev = ping(&s);
	ASSERT_EQ(0, s.err) TH_LOG("sleeper: %s", strerror(s.err));
	ASSERT_NE(0, prev);
	starts(&k0, &l0);
	pings(_metadata, &s, &prev);
	starts(&k1, &l1);
	TH_LOG("before: %lu kept, %lu loaded", k1 - k0, l1 - l0);
	ASSERT_GE(k1 - k0, 18);

	/* A suspend cycle: notifiers, freeze, 5 s, thaw, notifiers. */
	ASSERT_EQ(0, write_text(PM_TEST, "freezer"));
	EXPECT_EQ(0, write_text(PM_STATE, "freeze"))
		TH_LOG("suspend: %s", strerror(errno));
	ASSERT_EQ(0, write_text(PM_TEST, "none"));

	/*
	 * The simulated PMU, like firmware, clears every CPU's registers
	 * at a suspend edge: had the engine kept the sleeper's registers
	 * across it, its count would jump by about 2^48 (a 48-bit counter
	 * "wrapping" back to zero).  It rewrote them instead.
	 */
	v = ping(&s);
	starts(&k2, &l2);
	TH_LOG("across the suspend: %lu kept, %lu loaded", k2 - k1, l2 - l1);
	EXPECT_GE(l2 - l1, 1);
	EXPECT_GT(v, prev);
	EXPECT_LT(v - prev, 1ULL << 40)
		TH_LOG("%llu after %llu", (unsigned long long)v,
		       (unsigned long long)prev);
	prev = v;

	/* And the shortcut is back. */
	starts(&k2, &l2);
	pings(_metadata, &s, &prev);
	starts(&k3, &l3);
	TH_LOG("after: %lu kept, %lu loaded", k3 - k2, l3 - l2);
	EXPECT_GE(k3 - k2, 18);

	EXPECT_EQ(1, write(s.ping[1], "q", 1));
	pthread_join(t, NULL);
}

TEST_HARNESS_MAIN
