// SPDX-License-Identifier: GPL-2.0
/*
 * The counter page: reading the calling thread's virtual counters and
 * virtual TSC without a system call, with the retry protocol real
 * hardware uses (under the simulated PMU the page's recipe computes the
 * counters from the TSC).  Also: the page is read-only and private to
 * its thread, rdpmc stays off for threads without one, and the virtual
 * TSC works with no counters at all.
 */
/* A version 1 program: it reads struct pctr_page through p->page. */
#define PCTR_PAGE_V1
#include "pctr_test.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"

static uint64_t rd_fn0(pctr_t *p)
{
	struct pctrst st;

	memset(&st, 0xff, sizeof(st));
	pctr_read_all(p, &st);
	return st.pctr_fn[0];
}

FIXTURE(page) {
	struct reloaded	m;
	pctr_t		*p;
};

/* sparc64's %tick runs at 100 MHz in QEMU's sun4u, not GHz: count faster. */
#ifdef __sparc__
#define PAGE_SIM_DIV "4"
#else
#define PAGE_SIM_DIV "64"
#endif

/* The sim, with a 16-bit counter so inline reads cross many wraps. */
FIXTURE_SETUP(page)
{
	self->p = NULL;
	reload_with(_metadata, &self->m,
		    "pmu=sim sim_width=16 sim_div=" PAGE_SIM_DIV);
	self->p = pctr_open(O_RDWR);
	ASSERT_NE(NULL, self->p);
	ASSERT_EQ(0, pctr_set(self->p, 0, FN(0x02)));
	ASSERT_EQ(0, pctr_set(self->p, PCTR_FIXED(1), PCTR_U | PCTR_K |
			      PCTR_EN));
}

FIXTURE_TEARDOWN(page)
{
	if (self->p) {
		EXPECT_EQ(0, pctr_release(self->p));
		pctr_close(self->p);
	}
	reload_restore(_metadata, &self->m);
}

/* Only a read-only, one-page, offset-0 mapping; never writable later. */
TEST_F(page, mapping_rules)
{
	long psz = sysconf(_SC_PAGESIZE);
	const struct pctr_page *pg;
	void *m;

	m = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_SHARED, self->p->fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EPERM, errno);
	m = mmap(NULL, psz, PROT_READ, MAP_SHARED, self->p->fd, psz);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);
	m = mmap(NULL, 2 * psz, PROT_READ, MAP_SHARED, self->p->fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);

	m = mmap(NULL, psz, PROT_READ, MAP_SHARED, self->p->fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(-1, mprotect(m, psz, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	pg = m;
	EXPECT_EQ(PCTR_PAGE_VERSION, pg->pg_version);
	EXPECT_EQ(0, pg->pg_seq & 1);
	EXPECT_TRUE(pg->pg_flags & PCTR_PG_RUNNING);
	EXPECT_EQ(0xffff, pg->pg_slot[0].ps_mask);
	EXPECT_EQ(0, pg->pg_slot[1].ps_mask);
	/* No rdpmc on the sim: the page gives the TSC recipe instead. */
	EXPECT_EQ(0, pg->pg_slot[0].ps_rdpmc);
	EXPECT_EQ(strtoul(PAGE_SIM_DIV, NULL, 10), pg->pg_slot[0].ps_sim_period);
	EXPECT_FALSE(pg->pg_flags & PCTR_PG_RDPMC);
	munmap(m, psz);
}

/* Inline values agree with the ioctl's, and never go back. */
TEST_F(page, inline_read_matches_ioctl)
{
	uint64_t a, v, b, t, last = 0, lastt = 0;
	struct pctrst st;
	int i;

	ASSERT_EQ(0, pctr_map(self->p));
	for (i = 0; i < 2000; i++) {
		ASSERT_EQ(0, pctr_read_all(self->p, &st));
		a = st.pctr_hwc[0];
		v = pctr_read(self->p, 0);
		t = pctr_vtsc(self->p);
		ASSERT_EQ(0, pctr_read_all(self->p, &st));
		b = st.pctr_hwc[0];
		ASSERT_LE(a, v) TH_LOG("read %d", i);
		ASSERT_LE(v, b) TH_LOG("read %d", i);
		ASSERT_GE(v, last);
		ASSERT_GE(t, lastt);
		last = v;
		lastt = t;
		spin_cpu(0.0002);
	}
	/* Read-all agrees with single reads taken around it. */
	{
		uint64_t vals[PCTR_NUM], v0, v1;

		v0 = pctr_read(self->p, PCTR_FIXED(1));
		ASSERT_EQ(0, pctr_read_n(self->p, vals, PCTR_NUM));
		v1 = pctr_read(self->p, PCTR_FIXED(1));
		EXPECT_LE(v0, vals[PCTR_FIXED(1)]);
		EXPECT_LE(vals[PCTR_FIXED(1)], v1);
		EXPECT_GE(vals[0], last);
		EXPECT_EQ(0, vals[1]);		/* a free slot */
	}
	/* The 16-bit counter wrapped many times on the way. */
	TH_LOG("value %llu after 2000 reads (%llu wraps), retries %lu",
	       (unsigned long long)last, (unsigned long long)(last >> 16),
	       self->p->retries);
	EXPECT_GT(last >> 16, 10);
	EXPECT_EQ(0, self->p->fallbacks);
}

/*
 * More busy readers than CPUs, each with its own page, reading in a
 * tight loop: threads are switched out in the middle of reads, which
 * must be retried, and every value stays monotonic and agrees with the
 * ioctl.
 */
struct reader {
	int		err;
	double		sec;
	unsigned long	reads, retries, fallbacks, backwards;
	uint64_t	inline_end, ioctl_end;
	double		end_cpu;	/* CPU time around those two reads */
};

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	uint64_t v, t, last = 0, lastt = 0;
	struct pctrst st;
	double end, c0;
	pctr_t *p;

	p = pctr_open(O_RDWR);
	if (!p || pctr_set(p, 0, FN(0x02)) || pctr_map(p)) {
		r->err = errno ? errno : EIO;
		return NULL;
	}
	end = thread_cpu_sec() + r->sec;
	while (thread_cpu_sec() < end) {
		for (int i = 0; i < 1000; i++) {
			v = pctr_read(p, 0);
			t = pctr_vtsc(p);
			if (v < last || t < lastt)
				r->backwards++;
			last = v;
			lastt = t;
			r->reads++;
		}
	}
	c0 = thread_cpu_sec();
	r->inline_end = pctr_read(p, 0);
	pctr_read_all(p, &st);
	r->end_cpu = thread_cpu_sec() - c0;
	r->ioctl_end = st.pctr_hwc[0];
	r->retries = p->retries;
	r->fallbacks = p->fallbacks;
	pctr_close(p);
	return NULL;
}

TEST_F_TIMEOUT(page, retries_under_oversubscription, 120)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int n = 2 * ncpu, i;
	struct reader *r = calloc(n, sizeof(*r));
	unsigned long reads = 0, retries = 0;
	double per_sec = self->m.khz * 1000.0 / strtoul(PAGE_SIM_DIV, NULL, 10);

	ASSERT_NE(NULL, r);
	for (i = 0; i < n; i++)
		r[i].sec = 1.5;
	ASSERT_EQ(0, run_threads(n, reader_fn, r, sizeof(r[0])));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, r[i].err);
		EXPECT_EQ(0, r[i].backwards) TH_LOG("reader %d", i);
		EXPECT_EQ(0, r[i].fallbacks) TH_LOG("reader %d", i);
		EXPECT_LE(r[i].inline_end, r[i].ioctl_end);
		/*
		 * Apart by no more than the thread ran between them (1.2
		 * times its CPU time around the two reads) and 10^6 events
		 * (24 ms of counting at 2.6 GHz / 64): a host that stalls
		 * the vCPU there charges the thread as the sim counts on.
		 */
		EXPECT_LT(r[i].ioctl_end - r[i].inline_end,
			  (uint64_t)(1000000 + per_sec * r[i].end_cpu * 1.2))
			TH_LOG("reader %d: %.3f ms of CPU", i, r[i].end_cpu * 1e3);
		reads += r[i].reads;
		retries += r[i].retries;
	}
	TH_LOG("%d readers on %ld CPUs: %lu inline reads, %lu retried",
	       n, ncpu, reads, retries);
	EXPECT_GT(retries, 0);
	free(r);
}

/* The virtual TSC counts the thread's own run time, not a sleep. */
TEST_F(page, vtsc_counts_run_time)
{
	uint64_t t0, t1, khz = self->p->info.pi_tsc_khz;
	double c0, c1, ci0, ci1;

	ASSERT_EQ(0, pctr_map(self->p));
	/*
	 * The thread's CPU time on both sides of each read, as ctx_test's
	 * worker_fn takes it: the virtual TSC must exceed the CPU time from
	 * after the first read to before the second (it certainly ran
	 * then) and stay under that from before the first to after the
	 * second.  A vCPU the host stalls between a read and a clock read
	 * (charged to the thread) then widens only the outer span.
	 */
	c0 = thread_cpu_sec();
	t0 = pctr_vtsc(self->p);
	ci0 = thread_cpu_sec();
	spin_cpu(0.3);
	usleep(300000);
	ci1 = thread_cpu_sec();
	t1 = pctr_vtsc(self->p);
	c1 = thread_cpu_sec();
	TH_LOG("vtsc %.1f ms, thread CPU time %.1f..%.1f ms",
	       (t1 - t0) / (double)khz, (ci1 - ci0) * 1e3, (c1 - c0) * 1e3);
	EXPECT_GT((t1 - t0) / (double)khz, (ci1 - ci0) * 1e3 * 0.85);
	EXPECT_LT((t1 - t0) / (double)khz, (c1 - c0) * 1e3 * 1.15);
}

/*
 * Allow write and exit_group; kill the process on any other system call.
 * (Seccomp's strict mode would also turn off rdtsc on x86.)
 */
static int forbid_syscalls(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* Reading the page makes no system call: a child that may not survives. */
TEST_F(page, hot_loop_makes_no_syscall)
{
	uint64_t v, last = 0;
	pid_t pid;
	int status, i;

	ASSERT_EQ(0, pctr_map(self->p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* The child has no page (not inherited): map its own. */
		pctr_t *p = pctr_open(O_RDWR);

		if (!p || pctr_set(p, 0, FN(0x02)) || pctr_map(p))
			_exit(10);
		/* From here any system call but write and exit kills us. */
		if (forbid_syscalls())
			_exit(errno == EINVAL ? 14 : 11);
		for (i = 0; i < 1000000; i++) {
			v = pctr_read(p, 0);
			if (v < last || pctr_vtsc(p) == 0)
				_exit(12);
			last = v;
		}
		_exit(p->fallbacks ? 13 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("killed by signal %d",
					      WTERMSIG(status));
	/* A kernel without CONFIG_SECCOMP_FILTER (the sparc64 guest's). */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 14)
		SKIP(return, "no seccomp filters in this kernel");
	EXPECT_EQ(0, WEXITSTATUS(status));

	/* The filter does kill on a system call: the ioctl, for one. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (forbid_syscalls())
			_exit(11);
		pctr_read_all(self->p, &(struct pctrst){ 0 });
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGSYS, WTERMSIG(status));
}

/* A forked child does not inherit the mapping. */
TEST_F(page, fork_does_not_inherit_the_page)
{
	pid_t pid;
	int status;

	ASSERT_EQ(0, pctr_map(self->p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* The address is unmapped in the child: this faults. */
		volatile uint32_t seq = self->p->page->pg_seq;

		(void)seq;
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGSEGV, WTERMSIG(status));
}

/* When the thread's context ends, its page says so. */
static void *map_and_leave(void *arg)
{
	pctr_t *p = pctr_open(O_RDWR);

	if (p && !pctr_set(p, 0, FN(0x02)) && !pctr_map(p)) {
		*(const volatile struct pctr_page **)arg = p->page;
		spin_cpu(0.01);
		p->page = NULL;		/* keep the mapping after we go */
	}
	pctr_close(p);
	return NULL;
}

TEST_F(page, page_of_ended_thread_is_dead)
{
	const volatile struct pctr_page *pg = NULL;

	ASSERT_EQ(0, run_thread(map_and_leave, &pg));
	ASSERT_NE(NULL, pg);
	/*
	 * pthread_join() returns once the kernel cleared the thread's tid,
	 * which comes before the exit hook that ends the context.
	 */
	for (int i = 0; i < 100 && !(pg->pg_flags & PCTR_PG_DEAD); i++)
		usleep(10000);
	EXPECT_TRUE(pg->pg_flags & PCTR_PG_DEAD);
	EXPECT_FALSE(pg->pg_flags & PCTR_PG_RUNNING);
	/* Odd for good: inline readers go to the ioctl. */
	EXPECT_EQ(1, pg->pg_seq & 1);
	/* The mapping holds the file, and so the module. */
	munmap((void *)pg, PCTR_PAGE_SIZE);
}

/*
 * A thread that has not mapped a page cannot use rdpmc: it faults
 * (SIGSEGV where a PMU exists and CR4.PCE is off; SIGILL under QEMU's
 * TCG, which has no rdpmc at all).
 */
TEST(rdpmc_faults_without_a_page)
{
	pid_t pid;
	int status;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		rdpmc(0);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_TRUE(WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGILL)
		TH_LOG("signal %d", WTERMSIG(status));
}

/* rdtscp: the TSC, ordered, and the CPU in TSC_AUX (Linux puts it there). */
TEST(rdtscp_gives_tsc_and_cpu)
{
	uint32_t aux = 7;
	uint64_t a, b;

#if defined(__sparc__)
	/*
	 * "membar #Sync; rd %tick": no CPU number (aux 0, as lib/pctr.h
	 * says), and %tick may not move between two reads (100 MHz in
	 * QEMU's sun4u under -icount).
	 */
	a = rdtscp(&aux);
	b = rdtscp(NULL);
	EXPECT_LE(a, b);
	EXPECT_EQ(0, aux);
	return;
#endif
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU");
	pin_to_cpu(1);
	a = rdtscp(&aux);
	b = rdtscp(NULL);
	EXPECT_LT(a, b);
	EXPECT_EQ(1, aux & 0xfff);
	EXPECT_EQ(sched_getcpu(), (int)(aux & 0xfff));
}

/* The virtual TSC needs no counters: it works with pmu=none too. */
/* PCIOCRELEASE ends the context: the page is dead, rmmod is possible. */
TEST_F(page, release_ends_the_context)
{
	const volatile struct pctr_page *pg;

	ASSERT_EQ(0, pctr_map(self->p));
	pg = self->p->page;
	EXPECT_EQ(1, read_long(PCTR_SYSFS "/contexts"));
	self->p->page = NULL;		/* keep it mapped to look at it */
	EXPECT_EQ(0, ioctl(self->p->fd, PCIOCRELEASE));
	EXPECT_TRUE(pg->pg_flags & PCTR_PG_DEAD);
	EXPECT_EQ(0, read_long(PCTR_SYSFS "/contexts"));
	EXPECT_EQ(0, rd_fn0(self->p));
	/* Inline reads of a dead page go to the ioctl, which says 0. */
	self->p->page = pg;
	EXPECT_EQ(0, pctr_read(self->p, 0));
	EXPECT_EQ(1, self->p->fallbacks);
	self->p->page = NULL;
	/* Releasing with no context is harmless. */
	EXPECT_EQ(0, ioctl(self->p->fd, PCIOCRELEASE));
	munmap((void *)pg, PCTR_PAGE_SIZE);
}

TEST(vtsc_without_counters)
{
	struct pctr_info info;
	uint64_t t0, t1;
	double c0, c1, ci0, ci1;
	pctr_t *p;

	p = pctr_open(O_RDONLY);
	ASSERT_NE(NULL, p);
	info = p->info;
	if (info.pi_caps & PCTR_CAP_COUNTERS)
		SKIP(return, "backend %s has counters", info.pi_backend);
	ASSERT_EQ(0, pctr_map(p));
	/* CPU time around and within the reads, as in vtsc_counts_run_time. */
	c0 = thread_cpu_sec();
	t0 = pctr_vtsc(p);
	ci0 = thread_cpu_sec();
	spin_cpu(0.2);
	ci1 = thread_cpu_sec();
	t1 = pctr_vtsc(p);
	c1 = thread_cpu_sec();
	TH_LOG("backend %s: vtsc %.1f ms for %.1f..%.1f ms of CPU",
	       info.pi_backend, (t1 - t0) / (double)info.pi_tsc_khz,
	       (ci1 - ci0) * 1e3, (c1 - c0) * 1e3);
	EXPECT_GT((t1 - t0) / (double)info.pi_tsc_khz, (ci1 - ci0) * 1e3 * 0.85);
	EXPECT_LT((t1 - t0) / (double)info.pi_tsc_khz, (c1 - c0) * 1e3 * 1.15);
	/* Slots read as 0 with no counters, without the ioctl. */
	EXPECT_EQ(0, pctr_read(p, 0));
	EXPECT_EQ(0, p->fallbacks);
	pctr_close(p);
}

TEST_HARNESS_MAIN
