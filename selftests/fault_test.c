// SPDX-License-Identifier: GPL-2.0
/*
 * A counter register that cannot be written (a core without that
 * counter, a register firmware took): the context it belongs to stops
 * counting with EIO, for good and visibly -- its reads, its page and
 * its binding say so, the kernel log names the register once, and the
 * module's "failures" count grows -- never a silent stop or a made-up
 * count.  Everyone else keeps counting.
 *
 * The simulated PMU's fault injection (sim_fail_cpu=1) makes every
 * counter start on CPU 1 fail like a faulting register write.
 */
#include "pctr_test.h"

#define FAILURES	PCTR_SYSFS "/failures"
#define FAIL_LINE	"failed on CPU 1; its context stops counting (EIO)"

static int count_lines(const char *needle)
{
	char *log = kernel_log(), *p;
	int n = 0;

	if (!log)
		return -1;
	for (p = strstr(log, needle); p; p = strstr(p + 1, needle))
		n++;
	free(log);
	return n;
}

/* The guests have two CPUs or more, except 6.1 under -icount. */
static int two_cpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

RELOAD_FIXTURE(fault, "pmu=sim sim_fail_cpu=1");

/*
 * A thread counting on CPU 0 that migrates to CPU 1: its context ends
 * with EIO there and stays ended back on CPU 0, until released; the
 * failure is counted and logged once, naming the register and CPU.
 */
TEST_F(fault, migration_to_failing_cpu_ends_context)
{
	struct pctrst st;
	long before;
	int lines;
	pctr_t *p;

	RETURN_IF_SKIPPED();
	if (!two_cpus())
		SKIP(return, "one CPU online");
	before = read_long(FAILURES);
	ASSERT_LE(0, before);
	lines = count_lines(FAIL_LINE);
	pin_to_cpu(0);
	ASSERT_EQ(0, set(self->m.fd, 0, FNU(EV_TICKS)));
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_NE(0, st.pctr_hwc[0]);
	EXPECT_EQ(before, read_long(FAILURES));

	pin_to_cpu(1);
	spin(0.01);
	EXPECT_EQ(EIO, rd(self->m.fd, &st));
	EXPECT_EQ(before + 1, read_long(FAILURES));
	EXPECT_EQ(lines + 1, count_lines(FAIL_LINE));

	/* The library's reads (page, then ioctl) say EIO too. */
	p = pctr_open(O_RDWR);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(0, pctr_map(p));
	errno = 0;
	EXPECT_EQ((uint64_t)-1, pctr_read(p, 0));
	EXPECT_EQ(EIO, errno);

	/* Back on a good CPU: still ended, nothing new counted or logged. */
	pin_to_cpu(0);
	EXPECT_EQ(EIO, rd(self->m.fd, &st));
	EXPECT_EQ(EIO, err_of(set(self->m.fd, 1, FNU(EV_TICKS))));
	EXPECT_EQ(before + 1, read_long(FAILURES));
	EXPECT_EQ(lines + 1, count_lines(FAIL_LINE));
	pctr_close(p);

	/* Released, the thread counts again where the registers work. */
	ASSERT_EQ(0, ioc(self->m.fd, PCIOCRELEASE, NULL));
	ASSERT_EQ(0, set(self->m.fd, 0, FNU(EV_TICKS)));
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_NE(0, st.pctr_hwc[0]);
	EXPECT_EQ(before + 1, read_long(FAILURES));
}

/* Programming on the failing CPU itself fails at once, with EIO. */
TEST_F(fault, program_on_failing_cpu)
{
	struct pctrst st;
	long before;

	RETURN_IF_SKIPPED();
	if (!two_cpus())
		SKIP(return, "one CPU online");
	before = read_long(FAILURES);
	pin_to_cpu(1);
	/* The call that starts the counters, or the next read, says EIO. */
	if (set(self->m.fd, 0, FNU(EV_TICKS))) {
		EXPECT_EQ(EIO, errno);
	}
	EXPECT_EQ(EIO, rd(self->m.fd, &st));
	EXPECT_EQ(before + 1, read_long(FAILURES));
	pin_to_cpu(0);
	ASSERT_EQ(0, ioc(self->m.fd, PCIOCRELEASE, NULL));
}

/* A thread that stays on a good CPU never notices another's failure. */
static void *victim(void *arg)
{
	int *ok = arg, fd = open(PCTR_DEV, O_RDWR);
	struct pctrst a, b;

	pin_to_cpu(0);
	*ok = fd >= 0 && !set(fd, 0, FNU(EV_TICKS)) && !rd(fd, &a);
	spin(0.05);
	*ok = *ok && !rd(fd, &b) && b.pctr_hwc[0] > a.pctr_hwc[0];
	if (fd >= 0) {
		ioctl(fd, PCIOCRELEASE);
		close(fd);
	}
	return NULL;
}

TEST_F(fault, others_keep_counting)
{
	struct pctrst st;
	int ok = 0;

	RETURN_IF_SKIPPED();
	if (!two_cpus())
		SKIP(return, "one CPU online");
	pin_to_cpu(1);
	if (!set(self->m.fd, 0, FNU(EV_TICKS))) {
		EXPECT_EQ(EIO, rd(self->m.fd, &st));
	}
	ASSERT_EQ(0, run_thread(victim, &ok));
	EXPECT_TRUE(ok);
	pin_to_cpu(0);
	ASSERT_EQ(0, ioc(self->m.fd, PCIOCRELEASE, NULL));
}

/*
 * A CPU binding whose registers fail on its CPU: the binding reads EIO
 * for good, and is counted.  (Needs CAP_PERFMON: root here.)
 */
TEST_F(fault, cpu_binding_on_failing_cpu)
{
	struct pctr_bind b = { .pb_kind = PCTR_BIND_CPU, .pb_id = 1 };
	struct pctrst st;
	long before;
	int fd;

	RETURN_IF_SKIPPED();
	if (!two_cpus())
		SKIP(return, "one CPU online");
	before = read_long(FAILURES);
	fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	b.pb_fn[0] = FN(EV_TICKS);
	if (ioctl(fd, PCIOCBIND, &b)) {
		EXPECT_EQ(EIO, errno);
	} else {
		spin(0.01);
		EXPECT_EQ(EIO, rd(fd, &st));
	}
	EXPECT_EQ(before + 1, read_long(FAILURES));
	close(fd);
	EXPECT_EQ(0, wait_zero(CPU_BINDINGS));
}

/* Without fault injection, nothing fails and nothing is counted. */
RELOAD_FIXTURE(nofault, "pmu=sim");

TEST_F(nofault, failures_start_at_zero)
{
	struct pctrst st;
	int cpu, n = two_cpus() ? 2 : 1;

	RETURN_IF_SKIPPED();
	EXPECT_EQ(0, read_long(FAILURES));
	for (cpu = 0; cpu < n; cpu++) {
		pin_to_cpu(cpu);
		ASSERT_EQ(0, set(self->m.fd, 0, FNU(EV_TICKS)));
		ASSERT_EQ(0, rd(self->m.fd, &st));
	}
	pin_to_cpu(0);
	EXPECT_EQ(0, read_long(FAILURES));
	ASSERT_EQ(0, ioc(self->m.fd, PCIOCRELEASE, NULL));
}

TEST_HARNESS_MAIN
