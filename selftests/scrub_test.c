// SPDX-License-Identifier: GPL-2.0
/*
 * User-mode rdpmc on a real x86 backend (Documentation/security.rst):
 * a thread allowed rdpmc reads zero from every counter it does not own,
 * whatever another thread left there, and the administrator's
 * user_rdpmc=0 takes rdpmc away.  Needs the Intel or AMD backend: on
 * the emulated PMU of the bench (testing/vm/run --emulated-pmu) or real
 * hardware; it skips elsewhere (TCG without a PMU, the sim).
 */
#include "pctr_test.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

/* Instructions retired: 0xc0 on Intel (architectural) and AMD alike. */
#define INSNS_U		PCTR_FN(0xc0, 0, PCTR_U | PCTR_EN)

/* The Intel or AMD backend, with the two general counters used here. */
static int x86_two_counters(int fd)
{
	struct pctr_info info;

	return x86_backend(fd) && !pctr_get_info(fd, &info) &&
	       info.pi_ngeneral >= 2;
}

FIXTURE(x86) {
	int fd;
	int ready;	/* the 6.1 harness runs a test whose setup skipped */
};

FIXTURE_SETUP(x86)
{
	self->ready = 0;
	self->fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	if (!x86_two_counters(self->fd))
		SKIP(return, "no Intel or AMD backend here");
	self->ready = 1;
}

FIXTURE_TEARDOWN(x86)
{
	close(self->fd);
}

/*
 * Instruction counts are exact on the emulated PMU under -icount and on
 * hardware; PCTR_COUNTS_INEXACT=1 says they are not (the emulated PMU
 * without -icount, where a 6.1 guest with two vCPUs has to run: the
 * virtual clock's, which a fast loop can outrun): the bounds on a count
 * are then left out, a count that must be large is run up to its size,
 * and what the scrub and the switch must hold (zero from another's
 * counter, rdpmc on) is kept.
 */
static bool counts_exact(void)
{
	return !getenv("PCTR_COUNTS_INEXACT");
}

/*
 * 2000000 iterations, 4 million instructions, counted on slot @slot of
 * @fd; where counts are inexact, on until it counts that many (100
 * rounds at most).  What it counted.
 */
static uint64_t count_4m(int fd, unsigned int slot)
{
	uint64_t n;
	int k = 0;

	do {
		run_insns(2000000);
		n = rd_now(fd).pctr_hwc[slot];
	} while (n < 4000000 && !counts_exact() && ++k < 100);
	return n;
}

/* The victim: counts its own instructions on slot 1 of CPU 0, then waits. */
struct victim {
	int		fd;
	int		go[2], done[2];
	uint64_t	before, after;
	int		err;
};

static void *victim_thread(void *arg)
{
	struct victim *v = arg;
	struct pctrst st;
	char c;

	pin_to_cpu(0);
	if (set(v->fd, 1, INSNS_U)) {
		v->err = errno;
		return NULL;
	}
	v->before = count_4m(v->fd, 1);
	/* Switched out here: its raw count stays in counter 1 of CPU 0. */
	if (write(v->go[1], "g", 1) != 1 || read(v->done[0], &c, 1) != 1)
		v->err = EIO;
	st = rd_now(v->fd);
	v->after = st.pctr_hwc[1];
	return NULL;
}

/*
 * This thread counts its user instructions on slot 0 of @fd, its page
 * mapped and user reads on (a switch-in since), and runs 1000 of them:
 * the page, for rdpmc(0) to read.
 */
static const struct pctr_page *count_inline(struct __test_metadata *_metadata,
					    int fd)
{
	const struct pctr_page *pg;

	ASSERT_EQ(0, set(fd, 0, INSNS_U));
	pg = mmap(NULL, PCTR_PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, pg);
	usleep(1000);	/* a switch-in with user reads on */
	ASSERT_TRUE(pg->pg_flags & PCTR_PG_RDPMC);
	run_insns(1000);
	return pg;
}

TEST_F(x86, rdpmc_reads_zero_from_counters_not_owned)
{
	struct victim v = { .fd = self->fd };
	uint64_t mine, foreign;
	const struct pctr_page *pg;
	pthread_t t;
	char c;

	if (!self->ready)
		return;
	ASSERT_EQ(0, pipe(v.go));
	ASSERT_EQ(0, pipe(v.done));
	pin_to_cpu(0);
	ASSERT_EQ(0, pthread_create(&t, NULL, victim_thread, &v));
	ASSERT_EQ(1, read(v.go[0], &c, 1));
	ASSERT_EQ(0, v.err);
	EXPECT_LE(4000000, v.before);

	/* This thread: slot 0 only, and rdpmc through its page. */
	pg = count_inline(_metadata, self->fd);
	mine = rdpmc(0);
	foreign = rdpmc(1);
	TH_LOG("victim counted %llu; here rdpmc(0) %llu, rdpmc(1) %llu",
	       (unsigned long long)v.before, (unsigned long long)mine,
	       (unsigned long long)foreign);
	EXPECT_NE(0, mine);
	EXPECT_EQ(0, foreign);

	/* The victim's own count is untouched by the scrub. */
	ASSERT_EQ(1, write(v.done[1], "d", 1));
	pthread_join(t, NULL);
	ASSERT_EQ(0, v.err);
	EXPECT_LE(v.before, v.after);
	if (counts_exact())
		EXPECT_GT(v.before + 100000, v.after);
	munmap((void *)pg, PCTR_PAGE_SIZE);
	EXPECT_EQ(0, ioctl(self->fd, PCIOCRELEASE));
}

/*
 * A thread's own counters start from what their registers hold (no write
 * at a switch), but never from another process's count: here a child
 * process counts 4 million instructions on counter 0 of CPU 0 and waits;
 * this process's thread then counts on counter 0 there, reading inline,
 * and rdpmc(0) shows only its own count.
 */
TEST_F(x86, own_counter_never_starts_from_another_process)
{
	const struct pctr_page *pg;
	int go[2], done[2], status;
	uint64_t raw, val;
	pid_t pid;
	char c;

	if (!self->ready)
		return;
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pin_to_cpu(0);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open(PCTR_DEV, O_RDWR);

		if (fd < 0 || set(fd, 0, INSNS_U))
			_exit(10);
		if (count_4m(fd, 0) < 4000000)
			_exit(11);
		/* Switched out here: its count stays in counter 0 of CPU 0. */
		if (write(go[1], "g", 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(12);
		_exit(0);
	}
	/* A child that gave up: EOF here, and its status says why. */
	close(go[1]);
	if (read(go[0], &c, 1) != 1) {
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_EQ(0, status)
			TH_LOG("child status %#x: 10 set, 11 count", status);
	}
	pg = count_inline(_metadata, self->fd);
	raw = rdpmc(0);
	val = rd_now(self->fd).pctr_hwc[0];
	TH_LOG("rdpmc(0) %llu, its value %llu", (unsigned long long)raw,
	       (unsigned long long)val);
	EXPECT_GT(1000000, raw);
	if (counts_exact())
		EXPECT_LE(2000, val);
	EXPECT_GT(1000000, val);
	ASSERT_EQ(1, write(done[1], "d", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x: 10 set, 11 count, 12 pipes", status);
	munmap((void *)pg, PCTR_PAGE_SIZE);
	EXPECT_EQ(0, ioctl(self->fd, PCIOCRELEASE));
}

/*
 * Two threads of one process counting the same slot on one CPU, both
 * reading inline: a switch between them writes no counter and leaves
 * user rdpmc on, and each still counts exactly its own instructions.
 */
struct pinger {
	int		fd, in, out;
	unsigned long	loop;		/* iterations of run_insns a trip */
	uint64_t	count;		/* instructions over the trips */
	int		err;
};

#define TRIPS	200

static void *pinger_thread(void *arg)
{
	struct pinger *p = arg;
	const struct pctr_page *pg;
	volatile uint64_t sink = 0;
	uint64_t before;
	char c = 'x';
	int i;

	pin_to_cpu(0);
	if (set(p->fd, 0, INSNS_U)) {
		p->err = errno;
		return NULL;
	}
	pg = mmap(NULL, PCTR_PAGE_SIZE, PROT_READ, MAP_SHARED, p->fd, 0);
	if (pg == MAP_FAILED) {
		p->err = errno;
		return NULL;
	}
	before = rd_now(p->fd).pctr_hwc[0];
	for (i = 0; i < TRIPS; i++) {
		if (read(p->in, &c, 1) != 1) {
			p->err = EIO;
			break;
		}
		run_insns(p->loop);
		sink += rdpmc(0);	/* faults if rdpmc were off */
		if (write(p->out, &c, 1) != 1) {
			p->err = EIO;
			break;
		}
	}
	p->count = rd_now(p->fd).pctr_hwc[0] - before;
	munmap((void *)pg, PCTR_PAGE_SIZE);
	ioctl(p->fd, PCIOCRELEASE);
	return NULL;
}

TEST_F(x86, threads_of_one_process_count_exactly_across_switches)
{
	int ab[2], ba[2];
	struct pinger a, b;
	pthread_t ta, tb;
	uint64_t want;

	if (!self->ready)
		return;
	ASSERT_EQ(0, pipe(ab));
	ASSERT_EQ(0, pipe(ba));
	a = (struct pinger){ .fd = self->fd, .in = ba[0], .out = ab[1],
			     .loop = 1000 };
	b = (struct pinger){ .fd = self->fd, .in = ab[0], .out = ba[1],
			     .loop = 3000 };
	ASSERT_EQ(0, pthread_create(&ta, NULL, pinger_thread, &a));
	ASSERT_EQ(0, pthread_create(&tb, NULL, pinger_thread, &b));
	usleep(100000);	/* both set up */
	ASSERT_EQ(1, write(ba[1], "x", 1));
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	ASSERT_EQ(0, a.err);
	ASSERT_EQ(0, b.err);
	/* 2 instructions an iteration, and a few hundred a trip's calls. */
	want = 2 * a.loop * TRIPS;
	TH_LOG("a counted %llu (loops %llu), b %llu (loops %llu)",
	       (unsigned long long)a.count, (unsigned long long)want,
	       (unsigned long long)b.count,
	       (unsigned long long)(2 * b.loop * TRIPS));
	/*
	 * Inexact counts (the virtual clock's, without -icount) can fall
	 * short of a fast loop's instructions: only that each counted.
	 */
	if (counts_exact()) {
		EXPECT_LE(want, a.count);
		EXPECT_GT(want + 500 * TRIPS, a.count);
	} else {
		EXPECT_LT(0, a.count);
	}
	want = 2 * b.loop * TRIPS;
	if (counts_exact()) {
		EXPECT_LE(want, b.count);
		EXPECT_GT(want + 500 * TRIPS, b.count);
	} else {
		EXPECT_LT(0, b.count);
	}
}

/* user_rdpmc=0: no rdpmc for anyone, and the page says so. */
RELOAD_FIXTURE(rdpmc_off, "user_rdpmc=0");

TEST_F(rdpmc_off, rdpmc_faults_and_the_page_says_so)
{
	const struct pctr_page *pg;
	struct pctr_info info;
	int status;
	pid_t pid;

	RETURN_IF_SKIPPED();
	if (!x86_two_counters(self->m.fd))
		SKIP(return, "no Intel or AMD backend here");
	ASSERT_EQ(0, pctr_get_info(self->m.fd, &info));
	EXPECT_TRUE(info.pi_caps & PCTR_CAP_RDPMC_OFF);
	EXPECT_FALSE(info.pi_caps & PCTR_CAP_USER_RDPMC);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (set(self->m.fd, 0, INSNS_U))
			_exit(10);
		pg = mmap(NULL, PCTR_PAGE_SIZE, PROT_READ, MAP_SHARED,
			  self->m.fd, 0);
		if (pg == MAP_FAILED)
			_exit(11);
		usleep(1000);
		if (pg->pg_flags & PCTR_PG_RDPMC)
			_exit(12);
		signal(SIGSEGV, SIG_DFL);
		rdpmc(0);
		_exit(13);	/* rdpmc worked: CR4.PCE was on */
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)
		TH_LOG("status %#x: 10 set, 11 mmap, 12 page flag, 13 rdpmc ran",
		       status);
}

TEST_HARNESS_MAIN
