// SPDX-License-Identifier: GPL-2.0
/*
 * Hybrid Intel parts in a real kernel (Documentation/security.rst): P-cores
 * with more counters than E-cores.  pctr offers only the counters every
 * core type has, and a thread allowed rdpmc reads zero from the P-core's
 * counters pctr does not offer (general 6 and 7, fixed 3), whatever was
 * left there; on an E-core those registers do not exist and rdpmc of them
 * faults.  Needs a hybrid CPU with the Intel backend: the bench's
 * testing/vm/run --emulated-pmu intel-hybrid, or real hardware; leaving
 * counts in the P-core's counters needs root and perf (on the PATH,
 * testing/vm/run --perf), whose generic driver uses all 8 of them.  It
 * skips elsewhere.
 */
#include "pctr_test.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

#include "kselftest_harness.h"

#define INSNS_U		PCTR_FN(0xc0, 0, PCTR_U | PCTR_EN)

/* One CPU's core type (CPUID 0x1A) and counters (CPUID 0xA). */
struct core {
	int		cpu;
	unsigned int	type, ngeneral, nfixed;
};

static void core_of(int cpu, struct core *c)
{
	unsigned int a, b, cx, d;

	pin_to_cpu(cpu);
	c->cpu = cpu;
	__cpuid_count(0x1a, 0, a, b, cx, d);
	c->type = a >> 24;
	__cpuid_count(0xa, 0, a, b, cx, d);
	c->ngeneral = (a >> 8) & 0xff;
	c->nfixed = d & 0x1f;
}

static int hybrid_cpu(void)
{
	unsigned int a, b, c, d;

	__cpuid_count(0, 0, a, b, c, d);
	if (a < 0x1a)
		return 0;
	__cpuid_count(7, 0, a, b, c, d);
	return !!(d & (1U << 15));
}

FIXTURE(hybrid) {
	int fd;
	int ready;
	struct core p, e;	/* a P-core and an E-core (cpu -1: none) */
};

FIXTURE_SETUP(hybrid)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN), i;
	struct core c;

	self->ready = 0;
	self->p.cpu = self->e.cpu = -1;
	self->fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	if (!x86_backend(self->fd) || !hybrid_cpu())
		SKIP(return, "not a hybrid Intel CPU (testing/vm/run --emulated-pmu intel-hybrid has one)");
	for (i = 0; i < n; i++) {
		core_of(i, &c);
		TH_LOG("CPU %ld: core type %#x, %u general and %u fixed counters",
		       i, c.type, c.ngeneral, c.nfixed);
		if (c.type == 0x40 && self->p.cpu < 0)
			self->p = c;
		if (c.type == 0x20 && self->e.cpu < 0)
			self->e = c;
	}
	if (self->p.cpu < 0 || self->e.cpu < 0)
		SKIP(return, "no P-core and E-core both online");
	self->ready = 1;
}

FIXTURE_TEARDOWN(hybrid)
{
	close(self->fd);
}

/* pctr offers what both core types have, and says the CPU is hybrid. */
TEST_F(hybrid, offers_the_counters_every_core_type_has)
{
	struct pctr_info info;

	if (!self->ready)
		return;
	ASSERT_EQ(0, pctr_get_info(self->fd, &info));
	EXPECT_GT(self->p.ngeneral + self->p.nfixed,
		  self->e.ngeneral + self->e.nfixed);
	EXPECT_EQ(self->e.ngeneral, info.pi_ngeneral);
	EXPECT_EQ(self->e.nfixed, info.pi_nfixed);
}

/*
 * perf counting branches with 8 raw events on @cpu for a moment (the
 * event no fixed counter counts):
 * its driver (the generic one, from CPU 0's CPUID) uses general counters
 * 0 to 7 there and leaves its counts in them.  The exit status, -1 if
 * perf did not run.
 */
static int perf_fills(int cpu)
{
	char c[16];
	pid_t pid;
	int st;

	snprintf(c, sizeof(c), "%d", cpu);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execlp("perf", "perf", "stat", "-C", c, "-e",
		       "r00c4,r00c4,r00c4,r00c4,r00c4,r00c4,r00c4,r00c4",
		       "--", "sleep", "0.2", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) == 127)
		return -1;
	return WEXITSTATUS(st);
}

static sigjmp_buf gp_jmp;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(gp_jmp, 1);
}

/* rdpmc of @ctr on this CPU: 0 and the value, or 1 if it faulted. */
static int try_rdpmc(uint32_t ctr, uint64_t *val)
{
	struct sigaction sa = { .sa_handler = on_segv }, old;
	int faulted = 0;

	sigaction(SIGSEGV, &sa, &old);
	if (sigsetjmp(gp_jmp, 1))
		faulted = 1;
	else
		*val = rdpmc(ctr);
	sigaction(SIGSEGV, &old, NULL);
	return faulted;
}

/*
 * Counts perf left in the P-core's counters pctr does not offer read
 * zero through rdpmc in a thread that counts with its page mapped on
 * that P-core (general counters 6 and 7; fixed counter 3, which perf's
 * generic driver does not use, reads zero too); on an E-core rdpmc of
 * them faults.
 */
TEST_F(hybrid, rdpmc_reads_zero_from_the_p_core_only_counters)
{
	const struct pctr_page *pg;
	uint64_t g6 = 1, g7 = 1, f3 = 1, own = 0, v;
	int i;

	if (!self->ready)
		return;
	if (geteuid())
		SKIP(return, "perf -C needs root");
	ASSERT_LE(8, self->p.ngeneral);
	ASSERT_LE(4, self->p.nfixed);

	/* pctr holds no counters now: its next user starts a new epoch. */
	close(self->fd);
	for (i = 0; i < 50; i++) {
		char c = '1';
		int t = open("/sys/class/misc/pctr/taken", O_RDONLY);

		if (t >= 0) {
			if (read(t, &c, 1) != 1)
				c = '1';
			close(t);
		}
		if (c == '0')
			break;
		usleep(20000);
	}
	i = perf_fills(self->p.cpu);
	if (i < 0)
		SKIP(return, "no perf on the PATH (testing/vm/run --perf)");
	ASSERT_EQ(0, i);

	self->fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	pin_to_cpu(self->p.cpu);
	ASSERT_EQ(0, set(self->fd, 0, INSNS_U));
	pg = mmap(NULL, PCTR_PAGE_SIZE, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, pg);
	usleep(1000);	/* a switch-in with user reads on */
	ASSERT_TRUE(pg->pg_flags & PCTR_PG_RDPMC);
	run_insns(1000);
	ASSERT_EQ(0, try_rdpmc(0, &own));
	ASSERT_EQ(0, try_rdpmc(6, &g6));
	ASSERT_EQ(0, try_rdpmc(7, &g7));
	ASSERT_EQ(0, try_rdpmc(1U << 30 | 3, &f3));
	TH_LOG("P-core CPU %d: rdpmc(0) %llu (own), general 6 %#llx, 7 %#llx, fixed 3 %#llx",
	       self->p.cpu, (unsigned long long)own, (unsigned long long)g6,
	       (unsigned long long)g7, (unsigned long long)f3);
	EXPECT_NE(0, own);
	EXPECT_EQ(0, g6);
	EXPECT_EQ(0, g7);
	EXPECT_EQ(0, f3);

	/* The E-core has neither register: rdpmc of them faults. */
	pin_to_cpu(self->e.cpu);
	usleep(1000);
	ASSERT_TRUE(pg->pg_flags & PCTR_PG_RDPMC);
	EXPECT_EQ(0, try_rdpmc(0, &v));
	EXPECT_EQ(1, try_rdpmc(6, &v));
	EXPECT_EQ(1, try_rdpmc(7, &v));
	EXPECT_EQ(1, try_rdpmc(1U << 30 | 3, &v));
	munmap((void *)pg, PCTR_PAGE_SIZE);
	EXPECT_EQ(0, ioctl(self->fd, PCIOCRELEASE));
}

TEST_HARNESS_MAIN
#else
/* Hybrid parts are Intel's: elsewhere there is nothing to test. */
#include "kselftest_harness.h"

TEST(hybrid_is_x86)
{
	SKIP(return, "hybrid counters are an x86 matter");
}

TEST_HARNESS_MAIN
#endif
