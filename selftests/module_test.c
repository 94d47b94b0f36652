// SPDX-License-Identifier: GPL-2.0
/*
 * Loading and unloading pctr.ko: the device and its sysfs directory go
 * with the module (kmemleak judges memory, on the debug kernel), bad
 * parameters are refused, an open descriptor pins the module.  Needs
 * root and the module file ($PCTR_KO, default /pctr/pctr.ko); the module
 * is reloaded with its original parameters after every test.
 */
#include "pctr_test.h"

#include "kselftest_harness.h"

#define CYCLES	50

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

/*
 * insmod/rmmod many times: every cycle works, and the device and its
 * sysfs directory come and go each time.  Whether a cycle leaks memory
 * is kmemleak's to judge, on the bench's debug kernel
 * (testing/vm/kernel/leakcheck: load/unload cycles, then a scan that must
 * find nothing of pctr's, after one that found a planted leak).  Slab
 * counts, compared here before, are no leak detector: RCU frees late
 * on a busy machine and the rest of the system allocates meanwhile, and
 * a loaded host once made them fail a sound module.  Each cycle costs a
 * second or more under KASAN and lockdep: fewer run there.
 */
TEST_F_TIMEOUT(module, load_unload_leaves_nothing, 600)
{
	int i, step, cycles = debug_kernel() ? 10 : CYCLES;

	for (i = 0; i < cycles; i++) {
		step = cycle(self->params);
		ASSERT_EQ(0, step) TH_LOG("cycle %d failed at step %d: %s",
					  i, step, strerror(errno));
	}
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
