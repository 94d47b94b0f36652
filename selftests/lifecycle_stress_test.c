// SPDX-License-Identifier: GPL-2.0
/*
 * Everything at once: threads that program counters, map their pages,
 * read inline, release, close descriptors other threads use, exit and
 * are replaced, a process that forks and execs, and rmmod attempted all
 * the while.  The kernel must stay quiet (the VM bench fails the run on
 * any warning), rmmod must fail while anything counts, and once every
 * thread is gone nothing may be left: no context, the counters given
 * back, the module unloadable.  (notify_bind_stress_test.c does the
 * same for overflow signals, inheritance and bindings.)
 */
#include "pctr_test.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#define WORKERS	8

static atomic_int stop;
static atomic_int shared_fd = -1;
static atomic_ulong rounds, unexpected;

/* One worker's life: a few rounds of counting, then it ends. */
static void *worker(void *arg)
{
	unsigned int seed = (uintptr_t)arg, i;
	uint64_t last = 0, v;
	pctr_t *p;
	int fd;

	for (i = 0; i < 20 && !atomic_load(&stop); i++) {
		p = pctr_open(O_RDWR);
		if (!p)
			continue;
		/*
		 * Hand a descriptor of this file to the closer: whichever of
		 * its close and ours comes last releases the file, from
		 * either thread.
		 */
		fd = atomic_exchange(&shared_fd, dup(p->fd));
		if (fd >= 0)
			close(fd);
		if (pctr_set(p, rand_r(&seed) % 4, FN(0x02)) == 0 &&
		    pctr_map(p) == 0) {
			for (int k = 0; k < 2000; k++) {
				v = pctr_read(p, 0);
				if (v != (uint64_t)-1 && v < last)
					atomic_fetch_add(&unexpected, 1);
				last = v == (uint64_t)-1 ? last : v;
			}
		}
		last = 0;
		switch (rand_r(&seed) % 3) {
		case 0:
			pctr_release(p);	/* end the context now */
			break;
		case 1:
			break;			/* leave it to thread exit */
		case 2:
			pctr_set(p, 0, 0);	/* free slot 0 only */
			break;
		}
		pctr_close(p);
		atomic_fetch_add(&rounds, 1);
	}
	return NULL;
}

/* Closes descriptors other threads are using. */
static void *closer(void *arg)
{
	int fd;

	while (!atomic_load(&stop)) {
		fd = atomic_exchange(&shared_fd, -1);
		if (fd >= 0)
			close(fd);
		usleep(100);
	}
	return NULL;
}

/* Workers end and are replaced until told to stop. */
static void *spawner(void *arg)
{
	pthread_t t[WORKERS];
	uintptr_t n = 1;
	int i;

	while (!atomic_load(&stop)) {
		for (i = 0; i < WORKERS; i++)
			pthread_create(&t[i], NULL, worker, (void *)n++);
		for (i = 0; i < WORKERS; i++)
			pthread_join(t[i], NULL);
	}
	return NULL;
}

/* A process that counts, forks a counting child, and execs. */
static void fork_exec_churn(void)
{
	pid_t pid;
	pctr_t *p;

	p = pctr_open(O_RDWR);
	if (p && !pctr_set(p, 1, FN(0x02)) && !pctr_map(p))
		pctr_read(p, 1);
	pid = fork();
	if (pid == 0) {
		pctr_t *c = pctr_open(O_RDWR);

		if (c && !pctr_set(c, 0, FN(0x02)))
			pctr_map(c);
		execl("/bin/true", "true", (char *)NULL);
		_exit(1);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	/* This is the test's own thread: end its counters. */
	if (p)
		pctr_release(p);
	pctr_close(p);
}

#define PARAMS	"pmu=sim sim_width=16 sim_div=64"

FIXTURE(stress) {
	struct reloaded m;
};

/* No descriptor stays open: rmmod may succeed in a quiet instant. */
FIXTURE_SETUP(stress)
{
	reload_with(_metadata, &self->m, PARAMS);
	if (self->m.fd >= 0)
		close(self->m.fd);
	self->m.fd = -1;
}

FIXTURE_TEARDOWN(stress)
{
	reload_restore(_metadata, &self->m);
}

TEST_F_TIMEOUT(stress, everything_at_once, 120)
{
	unsigned long refused = 0, attempts = 0;
	pthread_t sp, cl;
	double end, cap;
	int i;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pthread_create(&sp, NULL, spawner, NULL));
	ASSERT_EQ(0, pthread_create(&cl, NULL, closer, NULL));
	/*
	 * 4 s, and on until both sides were seen (a busy host slows the
	 * guest): 50 counting rounds and an rmmod refused; 60 s at most.
	 */
	end = now_sec() + 4.0;
	cap = now_sec() + 60.0;
	while (now_sec() < cap &&
	       (now_sec() < end || atomic_load(&rounds) <= 50 || !refused)) {
		/* rmmod at any moment: refused while something counts. */
		attempts++;
		if (unload() == 0) {
			/* Nothing counted at that instant: bring it back. */
			ASSERT_EQ(0, load(PARAMS));
		} else {
			ASSERT_TRUE(errno == EAGAIN || errno == EBUSY)
				TH_LOG("rmmod: %s", strerror(errno));
			refused++;
		}
		fork_exec_churn();
		usleep(2000);
	}
	atomic_store(&stop, 1);
	ASSERT_EQ(0, pthread_join(sp, NULL));
	ASSERT_EQ(0, pthread_join(cl, NULL));
	i = atomic_exchange(&shared_fd, -1);
	if (i >= 0)
		close(i);
	TH_LOG("%lu counting rounds; rmmod refused %lu of %lu attempts",
	       atomic_load(&rounds), refused, attempts);
	EXPECT_EQ(0, atomic_load(&unexpected));
	EXPECT_GT(atomic_load(&rounds), 50);
	EXPECT_GT(refused, 0);

	/* Every thread is gone: nothing may be left behind. */
	EXPECT_EQ(0, wait_zero(PCTR_SYSFS "/contexts"));
	EXPECT_EQ(0, wait_zero(PCTR_SYSFS "/taken"));
	EXPECT_EQ(0, unload_wait());
	EXPECT_FALSE(loaded());
}

TEST_HARNESS_MAIN
