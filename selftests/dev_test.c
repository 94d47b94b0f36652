// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pctr as any program sees it: the node, the probe report, PCIOCRD,
 * PCIOCINFO and the error codes of pctr(4).
 */
#include "pctr_test.h"

#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>

#include "kselftest_harness.h"

#define MISC_MAJOR 10

static int has_counters(void)
{
	struct pctr_info info;
	int fd = open(PCTR_DEV, O_RDONLY), ret;

	if (fd < 0)
		return -1;
	ret = pctr_get_info(fd, &info);
	close(fd);
	if (ret)
		return -1;
	return !!(info.pi_caps & PCTR_CAP_COUNTERS);
}

/* The node is a misc char device with the documented mode. */
TEST(device_node)
{
	struct stat st;
	long mode = read_long("/sys/module/pctr/parameters/dev_mode");
	char dev[32], want[32];

	ASSERT_EQ(0, stat(PCTR_DEV, &st));
	ASSERT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(MISC_MAJOR, major(st.st_rdev));
	ASSERT_NE(-1, mode);
	EXPECT_EQ(mode & 0777, st.st_mode & 0777);
	ASSERT_EQ(0, read_text(PCTR_SYSFS "/dev", dev, sizeof(dev)));
	snprintf(want, sizeof(want), "%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	EXPECT_STREQ(want, dev);
}

/* Loading logged one line naming what the probe found. */
TEST(probe_logged)
{
	char backend[32], line[512];

	ASSERT_EQ(0, read_text(PCTR_SYSFS "/backend", backend,
			       sizeof(backend)));
	if (!strcmp(backend, "none")) {
		ASSERT_EQ(0, last_log_line("pctr: ", line, sizeof(line)));
		TH_LOG("%s", line);
		EXPECT_NE(NULL, strstr(line, "no PMU"));
		EXPECT_NE(NULL, strstr(line, "offering the TSC only"));
		EXPECT_NE(NULL, strstr(line, " family "));
	} else if (!strcmp(backend, "sparc")) {
		/* "pctr: sparc: UltraSPARC I/II (...), 2 counters (32 bits) in one PIC, ..." */
		ASSERT_EQ(0, last_log_line("pctr: sparc: ", line, sizeof(line)));
		TH_LOG("%s", line);
		EXPECT_NE(NULL, strstr(line, "counters ("));
		EXPECT_NE(NULL, strstr(line, "PIC"));
	} else {
		ASSERT_EQ(0, last_log_line("general counters", line,
					   sizeof(line)));
		TH_LOG("%s", line);
		EXPECT_NE(NULL, strstr(line, backend));
		EXPECT_NE(NULL, strstr(line, "perfmon v"));
		EXPECT_NE(NULL, strstr(line, "fixed"));
	}
}

/*
 * Under QEMU's TCG (no architectural perfmon) the automatic probe must
 * say there is no PMU rather than pretend.
 */
TEST(probe_without_pmu_offers_tsc_only)
{
	struct pctr_info info;
	char reason[128], params[256] = "";
	int fd;

#if !defined(__x86_64__) && !defined(__i386__)
	SKIP(return, "x86's probe (TCG's x86 CPUs have no PMU)");
#endif
	if (cpu_has_flag("arch_perfmon") || cpu_has_flag("perfctr_core"))
		SKIP(return, "this CPU exposes a PMU");
	bench_params(params, sizeof(params));
	if (strstr(params, "pmu=") && !strstr(params, "pmu=auto"))
		SKIP(return, "module loaded with %s", params);
	fd = open(PCTR_DEV, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pctr_get_info(fd, &info));
	EXPECT_STREQ("none", info.pi_backend);
	EXPECT_EQ(PCTR_BACKEND_NONE, info.pi_backend_id);
	EXPECT_EQ(PCTR_CAP_TSC, info.pi_caps);
	EXPECT_EQ(0, info.pi_ngeneral);
	EXPECT_EQ(0, info.pi_nfixed);
	ASSERT_EQ(0, read_text(PCTR_SYSFS "/reason", reason, sizeof(reason)));
	TH_LOG("reason: %s", reason);
	EXPECT_NE(0, strlen(reason));
	close(fd);
}

TEST(info_fields)
{
	struct pctr_info info;
	char backend[32];
	unsigned int i;
	int fd;

	fd = open(PCTR_DEV, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pctr_get_info(fd, &info));
	EXPECT_EQ(PCTR_ABI_VERSION, info.pi_abi_version);
	ASSERT_EQ(0, read_text(PCTR_SYSFS "/backend", backend,
			       sizeof(backend)));
	EXPECT_STREQ(backend, info.pi_backend);
	EXPECT_NE(NULL, memchr(info.pi_vendor, 0, sizeof(info.pi_vendor)));
	EXPECT_TRUE(info.pi_caps & PCTR_CAP_TSC);
	EXPECT_LE(info.pi_ngeneral, PCTR_MAX_GENERAL);
	EXPECT_LE(info.pi_nfixed, PCTR_MAX_FIXED);
	/* Every byte the kernel did not mean to fill must be zero. */
	EXPECT_EQ(0, info.pi_reserved0);
	for (i = 0; i < sizeof(info.pi_reserved) / sizeof(info.pi_reserved[0]); i++)
		EXPECT_EQ(0, info.pi_reserved[i]);
	for (i = strlen(info.pi_backend); i < sizeof(info.pi_backend); i++)
		EXPECT_EQ(0, info.pi_backend[i]);
	close(fd);
}

/*
 * Idle time over a 0.3 s sleep on @fd: the reads before and after into @a
 * and @b, the wall time from before the first read to after the second
 * (@outer, which holds all the idle time they can differ by) and from
 * after the first to before the second (@inner, which they certainly
 * span).  A host that stops the guest's vCPU between a read and the
 * clock read beside it can only widen @outer and narrow @inner: both
 * bounds hold however late the guest runs.
 */
static int idle_over_sleep(int fd, struct pctrst *a, struct pctrst *b,
			   double *outer, double *inner)
{
	double o0, i0, i1, o1;

	o0 = now_sec();
	if (ioctl(fd, PCIOCRD, a))
		return -1;
	i0 = now_sec();
	usleep(300000);
	i1 = now_sec();
	if (ioctl(fd, PCIOCRD, b))
		return -1;
	o1 = now_sec();
	*outer = o1 - o0;
	*inner = i1 - i0;
	return 0;
}

/* PCIOCRD: functions, TSC, values and idle, as pctr(4) describes them. */
TEST(read_semantics)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double outer, inner, low, high;
	struct pctrst a, b;
	uint64_t t0, t1;
	int64_t idle;
	unsigned int i;
	int fd, try;

	pin_to_cpu(0);
	fd = open(PCTR_DEV, O_RDONLY);
	ASSERT_LE(0, fd);
	memset(&a, 0xa5, sizeof(a));
	t0 = rdtsc();
	ASSERT_EQ(0, ioctl(fd, PCIOCRD, &a));
	t1 = rdtsc();
	/* The TSC in the snapshot was read between our own two reads. */
	EXPECT_LE(t0, a.pctr_tsc);
	EXPECT_GE(t1, a.pctr_tsc);
	/* No counter programmed: every function and value is zero. */
	for (i = 0; i < PCTR_NUM; i++) {
		EXPECT_EQ(0, a.pctr_fn[i]);
		EXPECT_EQ(0, a.pctr_hwc[i]);
	}

	/*
	 * Idle is nanoseconds of CPU idle time summed over the online CPUs:
	 * while we slept most CPUs were idle (more than a quarter of one
	 * CPU over the inner span), and no more than ncpu * the outer span
	 * can pass (5% and 50 ms for the module's 1 ms cache and the clocks).
	 *
	 * In Linux 6.1 get_cpu_idle_time_us() of a remote CPU races with
	 * that CPU entering or leaving idle (6.12 reads under its
	 * idle_sleeptime_seq; 6.1 has none) and may count an idle stretch
	 * twice, or a negative one: a sum can be off by as much as a CPU
	 * was idle.  Such a race is short and rare, so an out-of-bounds
	 * figure is measured again, once; a module that sums the wrong
	 * thing fails both times.
	 */
	for (try = 1; ; try++) {
		ASSERT_EQ(0, idle_over_sleep(fd, &a, &b, &outer, &inner));
		EXPECT_GT(b.pctr_tsc, a.pctr_tsc);
		idle = (int64_t)(b.pctr_idl - a.pctr_idl);
		low = inner * 1e9 / 4;
		high = ncpu * outer * 1e9 * 1.05 + 5e7;
		TH_LOG("idle grew %.1f ms in %.1f..%.1f ms on %ld CPUs",
		       idle / 1e6, inner * 1e3, outer * 1e3, ncpu);
		if ((idle > low && idle <= high) || try == 2)
			break;
		TH_LOG("out of bounds (%.1f..%.1f ms): once more",
		       low / 1e6, high / 1e6);
	}
	EXPECT_GT(idle, (int64_t)low);
	EXPECT_LE(idle, (int64_t)high);
	close(fd);
}

/* SETPCR, PRESET and ZERO on @fd fail with @err. */
static void expect_changes_refused(struct __test_metadata *_metadata,
				   int fd, int err)
{
	struct pctr_preset ps = { 0 };
	struct pctr_pcr pcr;

	memset(&pcr, 0, sizeof(pcr));
	EXPECT_EQ(err, ioc(fd, PCIOCSETPCR, &pcr));
	EXPECT_EQ(err, ioc(fd, PCIOCPRESET, &ps));
	EXPECT_EQ(err, ioc(fd, PCIOCZERO, NULL));
}

/* PCIOCS* on a CPU without counters: ENODEV, for every slot. */
TEST(set_without_counters_is_enodev)
{
	uint64_t fn = PCTR_FN(0xc0, 0, PCTR_U | PCTR_EN);
	int fd, n;

	if (has_counters() != 0)
		SKIP(return, "the backend has counters");
	fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	for (n = 0; n < PCTR_NUM; n++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(fd, PCIOCS64(n), &fn));
		EXPECT_EQ(ENODEV, errno) TH_LOG("slot %d", n);
		errno = 0;
		EXPECT_EQ(-1, ioctl(fd, PCIOCS(n), &fn));
		EXPECT_EQ(ENODEV, errno) TH_LOG("slot %d, unsigned int", n);
	}
	expect_changes_refused(_metadata, fd, ENODEV);
	close(fd);
}

/* Everything that changes counters needs a descriptor open for writing. */
TEST(set_needs_write_access)
{
	uint64_t fn = PCTR_FN(0xc0, 0, PCTR_U | PCTR_EN);
	struct pctr_pcr pcr;
	int fd;

	fd = open(PCTR_DEV, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, PCIOCS64(0), &fn));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, ioctl(fd, PCIOCS0, &fn));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, ioctl(fd, PCIOCSF64(0), &fn));
	EXPECT_EQ(EPERM, errno);
	expect_changes_refused(_metadata, fd, EPERM);
	/* Reading stays allowed. */
	EXPECT_EQ(0, ioctl(fd, PCIOCGETPCR, &pcr));
	close(fd);
}

TEST(unknown_ioctl_is_enotty)
{
	struct pctrst st;
	unsigned long bad[] = {
		_IO(PCTR_IOC_MAGIC, 0x00),
		_IO(PCTR_IOC_MAGIC, 0xbe),
		_IOR(PCTR_IOC_MAGIC, 0xc0, int),	/* PCIOCRD, wrong size */
		_IOW(PCTR_IOC_MAGIC, 0xc0, struct pctrst), /* wrong direction */
		_IOR(PCTR_IOC_MAGIC, PCTR_IOC_SET_BASE, __u64), /* PCIOCS0 read */
		_IOR(PCTR_IOC_MAGIC, PCTR_IOC_SET_BASE, __u32), /* PCIOCS0 read */
		_IOW(PCTR_IOC_MAGIC, PCTR_IOC_SET_BASE, __u16), /* PCIOCS0 size */
		_IOW(PCTR_IOC_MAGIC, PCTR_IOC_SET_BASE + PCTR_NUM, __u32),
		_IOW(PCTR_IOC_MAGIC, PCTR_IOC_SET_BASE + PCTR_NUM, __u64),
		_IOR('x', 0xc0, struct pctrst),		/* wrong magic */
		TCGETS,
		0,
	};
	unsigned int i;
	int fd;

	fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(fd, bad[i], &st));
		EXPECT_EQ(ENOTTY, errno) TH_LOG("cmd %#lx", bad[i]);
	}
	close(fd);
}

/* Bad user pointers give EFAULT, never a partial result or an oops. */
TEST(bad_pointers_are_efault)
{
	unsigned long reads[] = { PCIOCRD, PCIOCINFO, PCIOCGETPCR, PCIOCEVENT };
	long page = sysconf(_SC_PAGESIZE);
	void *ptrs[4];
	unsigned int i, j;
	char *map;
	int fd;

	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + page, page, PROT_NONE));
	ptrs[0] = NULL;
	ptrs[1] = (void *)1;
	ptrs[2] = (void *)0xffffffff81000000UL;	/* kernel text */
	ptrs[3] = map + page - 4;		/* runs into a PROT_NONE page */

	fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		for (j = 0; j < 4; j++) {
			errno = 0;
			EXPECT_EQ(-1, ioctl(fd, reads[i], ptrs[j]));
			EXPECT_EQ(EFAULT, errno)
				TH_LOG("cmd %#lx ptr %p", reads[i], ptrs[j]);
		}
	}
	/*
	 * With counters, the setters read their argument: EFAULT too (the
	 * eight bytes of PCIOCS64 from four before the PROT_NONE page).
	 */
	ptrs[3] = map + page - 4;
	if (has_counters() == 1) {
		for (j = 0; j < 4; j++) {
			EXPECT_EQ(-1, ioctl(fd, PCIOCS64(0), ptrs[j]));
			EXPECT_EQ(EFAULT, errno);
			if (j < 3) {	/* four bytes fit before the page */
				EXPECT_EQ(-1, ioctl(fd, PCIOCS0, ptrs[j]));
				EXPECT_EQ(EFAULT, errno);
			}
			EXPECT_EQ(-1, ioctl(fd, PCIOCSETPCR, ptrs[j]));
			EXPECT_EQ(EFAULT, errno);
			EXPECT_EQ(-1, ioctl(fd, PCIOCPRESET, ptrs[j]));
			EXPECT_EQ(EFAULT, errno);
		}
	}
	close(fd);
	munmap(map, 2 * page);
}

/* The device is not seekable, and an unprivileged user can read it. */
TEST(unprivileged_reader)
{
	struct pctrst st;
	int fd;

	fd = open(PCTR_DEV, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	close(fd);

	if (geteuid() == 0)
		ASSERT_EQ(0, setresuid(65534, 65534, 65534));
	fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, PCIOCRD, &st));
	close(fd);
}

TEST_HARNESS_MAIN
