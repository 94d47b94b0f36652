// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/perfmon, Sun Perfmon's name for the device, on any architecture
 * (perfmon=1; on by default only on SPARC): it is the same device, a
 * descriptor of it opened read-only may program counters (Perfmon
 * programs open it so), and the Perfmon calls answer with their
 * documented errors where the backend has no single PCR (EOPNOTSUPP),
 * and PERFMON_FLUSH_CACHE (PCIOCFLUSH) flushes on any descriptor, as
 * Perfmon's own example calls it on a read-only one.  The SPARC side is
 * selftests/sparc/perfmon_test.c.
 */
#include "pctr_test.h"

#include "kselftest_harness.h"

#define PERFMON_DEV		"/dev/perfmon"
#define PERFMON_FLUSH_CACHE	PCIOCFLUSH

RELOAD_FIXTURE(perfmon, "pmu=sim perfmon=1");
RELOAD_FIXTURE(noperfmon, "pmu=sim perfmon=0");

TEST_F(perfmon, read_only_descriptor_programs)
{
	struct pctrst st;
	int fd, ro;

	RETURN_IF_SKIPPED();
	fd = open(PERFMON_DEV, O_RDONLY);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", PERFMON_DEV, strerror(errno));
	EXPECT_EQ(0, ioctl(fd, PCIOCS64(0), &(uint64_t){ FNU(0x02) }));
	EXPECT_EQ(0, ioctl(fd, PCIOCRD, &st));
	EXPECT_EQ(FNU(0x02), st.pctr_fn[0]);
	EXPECT_EQ(0, ioctl(fd, PCIOCRELEASE));
	close(fd);
	/* /dev/pctr keeps its rule: read-only cannot program. */
	ro = open(PCTR_DEV, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_IOCTL_ERR(EPERM, ro, PCIOCS64(0), &(uint64_t){ FNU(0x02) });
	close(ro);
}

TEST_F(perfmon, perfmon_calls_errors)
{
	uint64_t pcr = 0;
	int fd;

	RETURN_IF_SKIPPED();
	fd = open(PERFMON_DEV, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_IOCTL_ERR(EOPNOTSUPP, fd, PCIOCSETPCR64, &pcr);
	EXPECT_IOCTL_ERR(EOPNOTSUPP, fd, PCIOCGETPCR64, &pcr);
	close(fd);
}

/*
 * Perfmon's example: open /dev/perfmon read-only, flush.  /dev/pctr
 * read-only too, with counters set or not; the command only in its
 * own form (no argument): the same number with one is ENOTTY.
 */
TEST_F(perfmon, flush_cache)
{
	uint64_t v = 0;
	int fd, ro;

	RETURN_IF_SKIPPED();
	fd = open(PERFMON_DEV, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, PERFMON_FLUSH_CACHE))
		TH_LOG("PERFMON_FLUSH_CACHE: %s", strerror(errno));
	/* Perfmon programs pass no argument: a stray one is ignored. */
	EXPECT_EQ(0, ioctl(fd, PERFMON_FLUSH_CACHE, 12345UL));
	EXPECT_EQ(0, ioctl(fd, PCIOCS64(0), &(uint64_t){ FNU(0x02) }));
	EXPECT_EQ(0, ioctl(fd, PERFMON_FLUSH_CACHE));
	EXPECT_EQ(0, ioctl(fd, PCIOCRELEASE));
	EXPECT_IOCTL_ERR(ENOTTY, fd, _IOW(PCTR_IOC_MAGIC, 0xbf, int), &fd);
	EXPECT_IOCTL_ERR(ENOTTY, fd, _IOR(PCTR_IOC_MAGIC, 0xbf, __u64), &v);
	close(fd);
	ro = open(PCTR_DEV, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_EQ(0, ioctl(ro, PCIOCFLUSH));
	close(ro);
}

TEST_F(noperfmon, no_node)
{
	RETURN_IF_SKIPPED();
	EXPECT_NE(0, access(PERFMON_DEV, F_OK));
}

TEST_HARNESS_MAIN
