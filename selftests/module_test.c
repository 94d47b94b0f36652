// SPDX-License-Identifier: GPL-2.0
/*
 * Loading and unloading pctr.ko: nothing is left behind, bad parameters
 * are refused, an open descriptor pins the module.  Needs root and the
 * module file ($PCTR_KO, default /pctr/pctr.ko); the module is reloaded
 * with its original parameters after every test.
 */
#include "pctr_test.h"

#include <dirent.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"

#define CYCLES	100
#define WARMUP	10

/* Active objects per slab cache, from /proc/slabinfo. */
struct slab_snap {
	char	name[256][40];
	long	active[256];
	int	n;
};

/*
 * SLUB counts the free objects of per-CPU slabs as active: shrink every
 * cache first (flushing those slabs) so the counts are the objects in use.
 */
static void slab_shrink_all(void)
{
	char path[512];
	struct dirent *d;
	DIR *dir = opendir("/sys/kernel/slab");
	int fd;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 d->d_name);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			continue;
		/* Not every cache can be shrunk: ignore the result. */
		(void)!write(fd, "1", 1);
		close(fd);
	}
	closedir(dir);
}

/* /proc/slabinfo's active objects, after shrinking every cache. */
static int slab_read(struct slab_snap *s)
{
	char line[512];
	FILE *f;

	slab_shrink_all();
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	s->n = 0;
	while (fgets(line, sizeof(line), f) && s->n < 256) {
		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		if (sscanf(line, "%39s %ld", s->name[s->n], &s->active[s->n]) == 2)
			s->n++;
	}
	fclose(f);
	return 0;
}

static long slab_total(const struct slab_snap *s)
{
	long t = 0;
	int i;

	for (i = 0; i < s->n; i++)
		t += s->active[i];
	return t;
}

static long slab_active(const struct slab_snap *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return s->active[i];
	return 0;
}

/*
 * The floor of every cache: files and much else are freed through RCU
 * callbacks, which run late when the machine is busy, and other work
 * allocates for a while; neither can make a count lower than the
 * objects really in use.  So wait for two grace periods (membarrier's
 * global command waits for one), then read the counts every 200 ms
 * and keep each cache's minimum, until the total has not found a new
 * low for 2 s (at most 30 s).  A leaked object never goes away, so it
 * stays in the floor; what RCU and the rest of the system hold for a
 * while does not.
 */
static int slab_snapshot(struct slab_snap *s)
{
	static struct slab_snap cur;
	long low, t;
	int i, j, calm = 0;

	sync();
	syscall(__NR_membarrier, 1 /* MEMBARRIER_CMD_GLOBAL */, 0);
	syscall(__NR_membarrier, 1, 0);
	if (slab_read(s))
		return -1;
	low = slab_total(s);
	for (i = 0; i < 150 && calm < 10; i++) {
		usleep(200 * 1000);
		if (slab_read(&cur))
			return -1;
		for (j = 0; j < s->n; j++) {
			long v = slab_active(&cur, s->name[j]);

			if (v < s->active[j])
				s->active[j] = v;
		}
		t = slab_total(s);
		calm = t < low ? 0 : calm + 1;
		if (t < low)
			low = t;
	}
	return 0;
}

FIXTURE(module) {
	char params[256];
};

FIXTURE_SETUP(module)
{
	if (geteuid() != 0)
		SKIP(return, "loading modules needs root");
	if (access(module_path(), R_OK))
		SKIP(return, "no module file at %s", module_path());
	bench_params(self->params, sizeof(self->params));
	if (loaded())
		ASSERT_EQ(0, unload()) TH_LOG("rmmod pctr: %s", strerror(errno));
}

FIXTURE_TEARDOWN(module)
{
	if (!loaded())
		EXPECT_EQ(0, load(self->params));
}

/* One insmod, open, PCIOCRD, close, rmmod cycle; 0 or the failing step. */
static int cycle(const char *params)
{
	struct pctrst st;
	int fd;

	if (load(params))
		return 1;
	fd = open(PCTR_DEV, O_RDWR);
	if (fd < 0)
		return 2;
	if (ioctl(fd, PCIOCRD, &st))
		return 3;
	close(fd);
	if (unload())
		return 4;
	if (!access(PCTR_DEV, F_OK) || !access(PCTR_SYSFS, F_OK))
		return 5;
	return 0;
}

/* Caches that grew by at least @min objects from @a to @b. */
static int slab_grown(const struct slab_snap *a, const struct slab_snap *b,
		      long min, char grown[][40], int max)
{
	long grew;
	int i, n = 0;

	for (i = 0; i < b->n && n < max; i++) {
		grew = b->active[i] - slab_active(a, b->name[i]);
		if (grew >= min)
			snprintf(grown[n++], 40, "%s", b->name[i]);
	}
	return n;
}

static int listed(const char *name, char list[][40], int n)
{
	while (n-- > 0)
		if (!strcmp(name, list[n]))
			return 1;
	return 0;
}

/*
 * insmod/rmmod many times: every cycle works, the device comes and goes,
 * and no slab cache grows by an object per cycle.  Counts are floors
 * (slab_snapshot()), so what RCU frees late does not count.  A cache
 * whose floor grows by half an object per cycle is a suspect; it is a
 * leak if it grows in proportion again, by half an object per cycle
 * over twice as many cycles: a leak grows with the cycles, noise does
 * not.
 */
TEST_F_TIMEOUT(module, load_unload_leaves_nothing, 600)
{
	static struct slab_snap s0, s1, s2;
	static char suspects[16][40], again[16][40];
	static const char *leak;
	int i, n, m, step;

	for (i = 0; i < WARMUP; i++) {
		step = cycle(self->params);
		ASSERT_EQ(0, step) TH_LOG("warm-up %d failed at step %d: %s",
					  i, step, strerror(errno));
	}
	/*
	 * On a kernel with kmemleak (the bench's debug kernel) leaks are
	 * kmemleak's to judge (tools/vm/kernel/leakcheck): there KASAN's
	 * quarantine and the debug-objects pool grow slab counts by design,
	 * so only the warm-up's cycles are checked (each costs a second or
	 * more under KASAN and lockdep).
	 */
	if (debug_kernel()) {
		TH_LOG("kmemleak judges leaks on this kernel; slab counts not compared");
		return;
	}
	ASSERT_EQ(0, slab_snapshot(&s0));
	for (i = 0; i < CYCLES; i++) {
		step = cycle(self->params);
		ASSERT_EQ(0, step) TH_LOG("cycle %d failed at step %d: %s", i,
					  step, strerror(errno));
	}
	ASSERT_EQ(0, slab_snapshot(&s1));
	n = slab_grown(&s0, &s1, CYCLES / 2, suspects, 16);
	if (!n)
		return;
	for (i = 0; i < n; i++)
		TH_LOG("suspect: %s grew by >= %d objects", suspects[i], CYCLES / 2);
	for (i = 0; i < 2 * CYCLES; i++)
		ASSERT_EQ(0, cycle(self->params));
	ASSERT_EQ(0, slab_snapshot(&s2));
	m = slab_grown(&s1, &s2, CYCLES, again, 16);
	leak = NULL;
	for (i = 0; i < n && !leak; i++)
		if (listed(suspects[i], again, m))
			leak = suspects[i];
	EXPECT_EQ(NULL, leak)
		TH_LOG("%s grows with every load/unload", leak);
}

TEST_F(module, unknown_backend_refused)
{
	char line[256];

	EXPECT_EQ(-1, load("pmu=bogus"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_FALSE(loaded());
	ASSERT_EQ(0, last_log_line("pmu=bogus", line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, "auto"));
}

TEST_F(module, pmu_none_offers_tsc_only)
{
	struct pctr_info info;
	char reason[64];
	int fd;

	ASSERT_EQ(0, load("pmu=none"));
	fd = open(PCTR_DEV, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pctr_get_info(fd, &info));
	EXPECT_STREQ("none", info.pi_backend);
	EXPECT_EQ(PCTR_CAP_TSC, info.pi_caps);
	ASSERT_EQ(0, read_text(PCTR_SYSFS "/reason", reason, sizeof(reason)));
	EXPECT_STREQ("pmu=none", reason);
	close(fd);
	EXPECT_EQ(0, unload());
}

/* An open descriptor holds the module: rmmod fails until it is closed. */
TEST_F(module, open_fd_pins_module)
{
	int fd;

	ASSERT_EQ(0, load(self->params));
	fd = open(PCTR_DEV, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, unload());
	EXPECT_TRUE(errno == EAGAIN || errno == EBUSY) TH_LOG("%s", strerror(errno));
	EXPECT_TRUE(loaded());
	close(fd);
	EXPECT_EQ(0, unload());
}

/* A custom device mode is honoured. */
TEST_F(module, dev_mode_parameter)
{
	struct stat st;

	ASSERT_EQ(0, load("dev_mode=0600"));
	ASSERT_EQ(0, stat(PCTR_DEV, &st));
	EXPECT_EQ(0600, st.st_mode & 0777);
	EXPECT_EQ(0, unload());
}

TEST_HARNESS_MAIN
