// SPDX-License-Identifier: GPL-2.0
/*
 * libpctr's own rules, as a program meets them:
 *
 * - without counters (pmu=none, or no PMU), every call that needs them
 *   fails with ENODEV, and pctr_strerror() gives the backend's reason;
 *   what needs no counters still works;
 * - the inline reads check that the calling thread mapped the handle's
 *   page: from another thread, or a forked child, they fail with EINVAL
 *   and read nothing, instead of returning plausible wrong values.
 */
#include "pctr_test.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#define FN(ev)	PCTR_FN(ev, 0, PCTR_U | PCTR_K | PCTR_EN)

/* --- no counters: ENODEV with the reason --------------------------- */

FIXTURE(nopmu) {
	char	params[256];
};

/*
 * pmu=none, and the default (pmu=auto) where the CPU has no PMU, as
 * under QEMU's TCG: the library's answers must be the same.
 */
FIXTURE_VARIANT(nopmu) {
	const char	*params;
};

FIXTURE_VARIANT_ADD(nopmu, none) {
	.params = "pmu=none",
};

FIXTURE_VARIANT_ADD(nopmu, autodetect) {
	.params = "",
};

FIXTURE_SETUP(nopmu)
{
	if (geteuid() != 0)
		SKIP(return, "reloading the module needs root");
	bench_params(self->params, sizeof(self->params));
	ASSERT_EQ(0, reload(variant->params));
}

FIXTURE_TEARDOWN(nopmu)
{
	if (geteuid() == 0)
		EXPECT_EQ(0, reload(self->params));
}

TEST_F(nopmu, calls_needing_counters_are_enodev)
{
	char reason[128], want[256];
	struct pctrst st;
	uint64_t fn, t0;
	pctr_t *p, *ro;

	p = pctr_open(O_RDWR);
	ASSERT_NE(NULL, p);
	if (p->info.pi_caps & PCTR_CAP_COUNTERS) {
		pctr_close(p);
		SKIP(return, "this CPU has counters (pmu=auto found a PMU)");
	}
	ro = pctr_open(O_RDONLY);
	ASSERT_NE(NULL, ro);

	errno = 0;
	EXPECT_EQ(-1, pctr_set(p, 0, FN(0xc0)));
	EXPECT_EQ(ENODEV, errno);
	errno = 0;
	EXPECT_EQ(-1, pctr_set(p, PCTR_NUM, FN(0xc0)));
	EXPECT_EQ(ENODEV, errno);
	/* Was ENOENT: "is the pctr module loaded?" while it was. */
	errno = 0;
	EXPECT_EQ(-1, pctr_set_event(p, 0, "INSTRUCTION_RETIRED",
				     PCTR_U | PCTR_EN));
	EXPECT_EQ(ENODEV, errno);
	errno = 0;
	EXPECT_EQ(-1, pctr_event_fn(p, "INSTRUCTION_RETIRED", &fn));
	EXPECT_EQ(ENODEV, errno);
	errno = 0;
	EXPECT_EQ(-1, pctr_zero(p));
	EXPECT_EQ(ENODEV, errno);
	errno = 0;
	EXPECT_EQ(-1, pctr_preset(p, 0, 1));
	EXPECT_EQ(ENODEV, errno);
	/* Read-only or not, no counters is the first thing to say. */
	errno = 0;
	EXPECT_EQ(-1, pctr_set(ro, 0, FN(0xc0)));
	EXPECT_EQ(ENODEV, errno);
	errno = 0;
	EXPECT_EQ(-1, pctr_set_event(ro, 0, "x", PCTR_U));
	EXPECT_EQ(ENODEV, errno);

	/* The message names the backend's reason, as sysfs gives it. */
	ASSERT_EQ(0, read_text(PCTR_SYSFS "/reason", reason, sizeof(reason)));
	ASSERT_NE(0, reason[0]);
	if (variant->params[0])
		EXPECT_STREQ("pmu=none", reason);
	snprintf(want, sizeof(want),
		 "no performance counters here (%s): pctr offers the TSC only",
		 reason);
	EXPECT_STREQ(want, pctr_strerror(ENODEV));
	EXPECT_STREQ(reason, pctr_backend_reason(want, sizeof(want)));
	/* ENOENT no longer claims the module is missing, alone. */
	EXPECT_NE(NULL, strstr(pctr_strerror(ENOENT), "no event of that name"));

	/* What needs no counters works. */
	EXPECT_EQ(0, pctr_read_all(p, &st));
	EXPECT_NE(0, st.pctr_tsc);
	ASSERT_EQ(0, pctr_map(p));
	t0 = pctr_vtsc(p);
	spin_cpu(0.01);
	EXPECT_LT(t0, pctr_vtsc(p));
	EXPECT_EQ(0, pctr_read(p, 0));	/* a free slot */
	EXPECT_EQ(0, pctr_release(p));
	pctr_close(ro);
	pctr_close(p);
}

/* --- the thread check -------------------------------------------------- */

FIXTURE(owner) {
	char	params[256];
	pctr_t	*p;
};

FIXTURE_SETUP(owner)
{
	self->p = NULL;
	if (geteuid() != 0)
		SKIP(return, "reloading the module needs root");
	bench_params(self->params, sizeof(self->params));
	ASSERT_EQ(0, reload("pmu=sim"));
	self->p = pctr_open(O_RDWR);
	ASSERT_NE(NULL, self->p);
	ASSERT_EQ(0, pctr_set(self->p, 0, FN(0x02)));
	ASSERT_EQ(0, pctr_map(self->p));
}

FIXTURE_TEARDOWN(owner)
{
	if (self->p) {
		EXPECT_EQ(0, pctr_release(self->p));
		pctr_close(self->p);
	}
	if (geteuid() == 0)
		EXPECT_EQ(0, reload(self->params));
}

/* What a thread got reading another thread's handle. */
struct stranger {
	pctr_t		*p;
	int		own;	/* map a page of its own first */
	struct handle_reads r;
	int		e_n, e_map, n, map;
	uint64_t	own_v;
};

static void *stranger_fn(void *arg)
{
	struct stranger *s = arg;
	pctr_t *mine = NULL;
	uint64_t vals[2];

	if (s->own) {
		/* With a page of its own, rdpmc is allowed here. */
		mine = own_page(FN(0x02));
		if (!mine)
			return NULL;
	}
	handle_read(s->p, &s->r);
	errno = 0;
	s->n = pctr_read_n(s->p, vals, 2);
	s->e_n = errno;
	errno = 0;
	s->map = pctr_map(s->p);
	s->e_map = errno;
	if (mine)
		s->own_v = own_page_end(mine);
	return NULL;
}

static void read_from_another_thread(struct __test_metadata *_metadata,
				     pctr_t *p, int own)
{
	struct stranger s = { .p = p, .own = own };
	unsigned long fallbacks;
	uint64_t before, after;
	pthread_t t;

	before = pctr_read(p, 0);
	fallbacks = p->fallbacks;	/* the sim's slots are read by ioctl */
	ASSERT_EQ(0, pthread_create(&t, NULL, stranger_fn, &s));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(-1, s.map);
	EXPECT_EQ(EINVAL, s.e_map);
	if (own) {
		/*
		 * The inline reads read the calling thread's own page,
		 * whatever the handle: its own counters, as PCIOCRD would.
		 */
		EXPECT_NE((uint64_t)-1, s.own_v);
		EXPECT_NE((uint64_t)-1, s.r.v);
		EXPECT_LE(s.r.v, s.own_v);
		EXPECT_NE((uint64_t)-1, s.r.t);
		EXPECT_EQ(0, s.n);
	} else {
		expect_reads_refused(_metadata, &s.r);
		EXPECT_EQ(-1, s.n);
		EXPECT_EQ(EINVAL, s.e_n);
		/* Nothing was read, not even by the ioctl. */
		EXPECT_EQ(fallbacks, p->fallbacks);
	}
	/* The owner still reads its own counters, going up. */
	after = pctr_read(p, 0);
	EXPECT_NE((uint64_t)-1, after);
	EXPECT_LT(before, after);
	EXPECT_NE((uint64_t)-1, pctr_vtsc(p));
}

TEST_F(owner, read_from_another_thread_is_einval)
{
	read_from_another_thread(_metadata, self->p, 0);
}

/*
 * A thread with its own page reads its own counters through any handle
 * (page version 2: page_abi_v1_test has version 1's EINVAL).
 */
TEST_F(owner, a_thread_with_its_own_page_reads_its_own)
{
	read_from_another_thread(_metadata, self->p, 1);
}

/* Two handles mapped by one thread are both its own. */
TEST_F(owner, two_handles_of_one_thread)
{
	pctr_t *q = pctr_open(O_RDWR);
	uint64_t a, b;

	ASSERT_NE(NULL, q);
	ASSERT_EQ(0, pctr_map(q));
	EXPECT_EQ(0, pctr_map(self->p));	/* mapped: nothing to do */
	a = pctr_read(self->p, 0);
	b = pctr_read(q, 0);
	EXPECT_NE((uint64_t)-1, a);
	EXPECT_NE((uint64_t)-1, b);
	EXPECT_LE(a, b);
	/* The sim has no rdpmc: version 2 reads its slots by the ioctl. */
	EXPECT_EQ(1, q->fallbacks);
	pctr_close(q);
}

/* A handle without a page has no owner: it reads the caller's. */
static void *unmapped_fn(void *arg)
{
	pctr_t *q = arg;

	return (void *)(uintptr_t)(pctr_read(q, 0) == (uint64_t)-1);
}

TEST_F(owner, unmapped_handle_reads_the_callers_counters)
{
	pctr_t *q = pctr_open(O_RDONLY);
	pthread_t t;
	void *failed;

	ASSERT_NE(NULL, q);
	ASSERT_EQ(0, pthread_create(&t, NULL, unmapped_fn, q));
	ASSERT_EQ(0, pthread_join(t, &failed));
	EXPECT_EQ(NULL, failed);
	EXPECT_EQ(1, q->fallbacks);
	pctr_close(q);
}

/*
 * A forked child has no page (the mapping is not inherited): its reads
 * through the parent's handle fail with EINVAL instead of faulting.
 */
TEST_F(owner, forked_child_reads_are_einval)
{
	pid_t pid;
	int status;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct handle_reads r;
		uint64_t vals[1];

		handle_read(self->p, &r);
		if (!reads_refused(&r))
			_exit(10);
		if (pctr_read_n(self->p, vals, 1) != -1 || errno != EINVAL)
			_exit(12);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("killed by signal %d",
					      WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
