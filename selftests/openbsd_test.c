// SPDX-License-Identifier: GPL-2.0
/*
 * OpenBSD compatibility of the uapi: PCIOCS<n> takes OpenBSD's unsigned
 * int and PCIOCS64<n> a __u64, each read at exactly its size; both are
 * checked alike; OpenBSD's names have OpenBSD's values; and an OpenBSD
 * pctr(4) program built unchanged (selftests/openbsd/obsd_pctr.c) sets
 * and reads a counter, with PCIOCRD and with the overlay's rdpmc().  On
 * the simulated PMU (pmu=sim, reloaded: root).
 */
#include "pctr_test.h"

#include <sys/mman.h>

RELOAD_FIXTURE(sim, "pmu=sim sim_div=1000");
RELOAD_FIXTURE(sys, "pmu=sim sim_div=1000 mode=system");

/* OpenBSD/amd64's values of the names an OpenBSD program uses. */
_Static_assert(PCTR_U == 0x010000 && PCTR_K == 0x020000 &&
	       PCTR_E == 0x040000 && PCTR_EN == 0x400000 &&
	       PCTR_I == 0x800000, "OpenBSD's function bits");
_Static_assert(PCTR_UM_SHIFT == 8 && PCTR_CM_SHIFT == 24, "OpenBSD's shifts");
_Static_assert(PCTR_UM_M == 0x0800 && PCTR_UM_E == 0x0400 &&
	       PCTR_UM_S == 0x0200 && PCTR_UM_I == 0x0100 &&
	       PCTR_UM_MESI == 0x0f00 && PCTR_UM_A == 0x2000,
	       "OpenBSD's unit mask bits");
_Static_assert(_IOC_SIZE(PCIOCS0) == sizeof(unsigned int) &&
	       _IOC_SIZE(PCIOCS64(0)) == sizeof(__u64) &&
	       _IOC_DIR(PCIOCS0) == _IOC_WRITE &&
	       _IOC_DIR(PCIOCS64(0)) == _IOC_WRITE, "the two forms' sizes");
_Static_assert(PCIOCS0 + 3 == PCIOCS3 && PCIOCS0 + 7 == PCIOCS7 &&
	       PCIOCSF(1) == PCIOCS0 + PCTR_FIXED(1) &&
	       PCIOCSF64(1) == PCIOCS64(0) + PCTR_FIXED(1),
	       "PCIOCS0 + n is slot n, as OpenBSD programs count on");

TEST(openbsd_names)
{
	struct pctr_info info;
	int fd;

	EXPECT_STREQ("/dev/pctr", _PATH_PCTR);
	EXPECT_NE(PCIOCS(0), PCIOCS64(0));
	EXPECT_EQ(_IOC_NR(PCIOCS(5)), _IOC_NR(PCIOCS64(5)));
	fd = open(_PATH_PCTR, O_RDONLY);
	if (fd < 0)
		SKIP(return, "no %s", _PATH_PCTR);
	ASSERT_EQ(0, pctr_get_info(fd, &info));
	/* Upper bounds: a program looping to them covers every counter. */
	EXPECT_LE(info.pi_ngeneral, PCTR_INTEL_NUM);
	EXPECT_LE(info.pi_ngeneral, PCTR_AMD_NUM);
	EXPECT_LE(PCTR_INTEL_NUM, PCTR_FIXED_BASE);
	close(fd);
}

/* Two pages, the second PROT_NONE: an argument at the end of the first. */
static char *guarded(struct __test_metadata *_metadata, long *page)
{
	char *map;

	*page = sysconf(_SC_PAGESIZE);
	map = mmap(NULL, 2 * *page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	if (mprotect(map + *page, *page, PROT_NONE)) {
		munmap(map, 2 * *page);
		return NULL;
	}
	return map;
}

static struct pctrst rd_st(int fd)
{
	struct pctrst st;

	memset(&st, 0, sizeof(st));
	if (ioctl(fd, PCIOCRD, &st))
		memset(&st, 0xff, sizeof(st));
	return st;
}

/*
 * Each form reads exactly its size: four bytes that end a page before a
 * PROT_NONE page are a whole argument for PCIOCS(n) (reading eight would
 * fault), and too short for PCIOCS64(n).
 */
TEST_F(sim, each_form_reads_its_size)
{
	unsigned int *u32;
	__u64 *u64;
	struct pctrst st;
	long page;
	char *map;

	RETURN_IF_SKIPPED();
	map = guarded(_metadata, &page);
	ASSERT_NE(NULL, map);
	u32 = (unsigned int *)(map + page - sizeof(*u32));
	u64 = (__u64 *)(map + page - sizeof(*u64));

	*u32 = FNU(EV_TICKS);
	EXPECT_EQ(0, ioctl(self->m.fd, PCIOCS(0), u32)) TH_LOG("%s",
							       strerror(errno));
	*u32 = FIXFNU;
	EXPECT_EQ(0, ioctl(self->m.fd, PCIOCSF(1), u32));
	/* OpenBSD's arithmetic: PCIOCS0 + ctr. */
	*u32 = FNU(EV_DIV);
	EXPECT_EQ(0, ioctl(self->m.fd, PCIOCS0 + 2, u32));

	*u64 = FNU(EV_DIV);
	EXPECT_EQ(0, ioctl(self->m.fd, PCIOCS64(1), u64));
	*u64 = FIXFNU;
	EXPECT_EQ(0, ioctl(self->m.fd, PCIOCSF64(0), u64));
	/* Eight bytes from four before the end: EFAULT, nothing set. */
	EXPECT_IOCTL_ERR(EFAULT, self->m.fd, PCIOCS64(3), u32);

	st = rd_st(self->m.fd);
	EXPECT_EQ(FNU(EV_TICKS), st.pctr_fn[0]);
	EXPECT_EQ(FNU(EV_DIV), st.pctr_fn[1]);
	EXPECT_EQ(FNU(EV_DIV), st.pctr_fn[2]);
	EXPECT_EQ(0, st.pctr_fn[3]);
	EXPECT_EQ(FIXFNU, st.pctr_fn[FIX_TICKS]);
	EXPECT_EQ(FIXFNU, st.pctr_fn[FIX_DIV]);
	EXPECT_LT(0, st.pctr_hwc[0]);
	EXPECT_LT(0, st.pctr_hwc[FIX_TICKS]);

	/* A 0 through the unsigned int form frees the slot. */
	*u32 = 0;
	EXPECT_EQ(0, ioctl(self->m.fd, PCIOCS(0), u32));
	st = rd_st(self->m.fd);
	EXPECT_EQ(0, st.pctr_fn[0]);
	EXPECT_EQ(0, st.pctr_hwc[0]);
	EXPECT_EQ(FNU(EV_DIV), st.pctr_fn[1]);
	munmap(map, 2 * page);
}

/*
 * PCIOCS(n) takes the first four bytes only: what follows them, even
 * bits the simulation refuses, is not the kernel's to read.
 */
TEST_F(sim, unsigned_int_form_ignores_what_follows)
{
	union {
		__u64 u64;
		unsigned int u32[2];
	} arg;
	struct pctrst st;

	RETURN_IF_SKIPPED();
	arg.u32[0] = FNU(EV_TICKS);
	arg.u32[1] = 0xffffffff;	/* PCTR_EVENT_HI and more: EINVAL */
	EXPECT_IOCTL_ERR(EINVAL, self->m.fd, PCIOCS64(0), &arg.u64);
	EXPECT_EQ(0, ioctl(self->m.fd, PCIOCS(0), &arg.u32[0]));
	st = rd_st(self->m.fd);
	EXPECT_EQ((__u64)FNU(EV_TICKS), st.pctr_fn[0]);
}

/* An errno of each form for the same function and slot. */
static void both(int fd, unsigned int slot, __u64 fn, int *e32, int *e64)
{
	unsigned int v = fn;

	*e32 = ioctl(fd, PCIOCS(slot), &v) ? errno : 0;
	*e64 = ioctl(fd, PCIOCS64(slot), &fn) ? errno : 0;
}

/* The unsigned int form is checked exactly as the __u64 one. */
TEST_F(sim, both_forms_checked_alike)
{
	static const struct {
		const char	*what;
		unsigned int	slot;
		__u64		fn;
		int		err;
	} cases[] = {
		{ "absent general slot", 4, FNU(EV_TICKS), EINVAL },
		{ "absent fixed slot", PCTR_FIXED(2), FIXFNU, EINVAL },
		{ "last slot", PCTR_NUM - 1, FIXFNU, EINVAL },
		{ "bit 19 (pin control)", 0, FNU(EV_TICKS) | (1ULL << 19),
		  EINVAL },
		{ "fixed counter with an event", FIX_TICKS, FNU(EV_TICKS),
		  EINVAL },
		{ "a valid function", 1, FNU(EV_DIV), 0 },
		{ "free it", 1, 0, 0 },
	};
	unsigned int i, v = FNU(EV_TICKS);
	__u64 fn = v;
	int e32, e64, ro;

	RETURN_IF_SKIPPED();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		both(self->m.fd, cases[i].slot, cases[i].fn, &e32, &e64);
		EXPECT_EQ(cases[i].err, e32) TH_LOG("%s", cases[i].what);
		EXPECT_EQ(cases[i].err, e64) TH_LOG("%s", cases[i].what);
	}
	/* Bad pointers, and a descriptor not open for writing. */
	EXPECT_IOCTL_ERR(EFAULT, self->m.fd, PCIOCS(0), NULL);
	EXPECT_IOCTL_ERR(EFAULT, self->m.fd, PCIOCS(0), (void *)1);
	ro = open(PCTR_DEV, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_IOCTL_ERR(EPERM, ro, PCIOCS0, &v);
	EXPECT_IOCTL_ERR(EPERM, ro, PCIOCS64(0), &fn);
	close(ro);
}

/* Run obsd_pctr (beside this test) with @args; its output in @out. */
static int run_obsd(const char *args, char *out, size_t len)
{
	char self[4096], cmd[4352], *slash;
	ssize_t n;
	size_t got = 0;
	FILE *f;
	int st;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	snprintf(cmd, sizeof(cmd), "%s/obsd_pctr %s 2>&1", self, args);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (got + 1 < len && (n = fread(out + got, 1, len - 1 - got, f)) > 0)
		got += n;
	out[got] = '\0';
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * The number in obsd_pctr's output @out after " @name = ": the rest of
 * @out from there, or NULL (then *@v is left) when there is none.
 */
static const char *obsd_value(const char *out, const char *name,
			      unsigned long long *v)
{
	char key[32];
	const char *l;

	snprintf(key, sizeof(key), " %s = ", name);
	l = strstr(out, key);
	if (!l || sscanf(l + strlen(key), "%llu", v) != 1)
		return NULL;
	return l;
}

/* The OpenBSD program: set with PCIOCS0 + ctr, read with PCIOCRD. */
TEST_F(sim, openbsd_program_sets_and_reads)
{
	unsigned long long v;
	const char *l;
	char out[4096];

	RETURN_IF_SKIPPED();
	/*
	 * sim_ticks_div_umask (one per 16 sim_div ticks with the MESI unit
	 * mask bits), user mode: 0x410f03.
	 */
	ASSERT_EQ(0, run_obsd("-s 1 -f 03 -u -M -n 3000000", out,
			      sizeof(out)))
		TH_LOG("%s", out);
	l = obsd_value(out, "ctr1", &v);
	ASSERT_NE(NULL, l) TH_LOG("%s", out);
	EXPECT_LT(0, v) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(l, "[---uEN 03 0f +0]")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "  tsc = "));

	/* Kernel and user (its default), counter 0. */
	ASSERT_EQ(0, run_obsd("-s 0 -f 01", out, sizeof(out)))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, " ctr0 = ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "[--kuEN 01 00 +0]")) TH_LOG("%s", out);

	/* A counter mask (bits 24-31): the simulation refuses it. */
	EXPECT_EQ(1, run_obsd("-s 0 -f 01 -t 2", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "PCIOCS0: Invalid argument"))
		TH_LOG("%s", out);

	/* A counter the simulation does not have: the kernel's EINVAL. */
	EXPECT_EQ(1, run_obsd("-s 4 -f 01", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "PCIOCS4: Invalid argument"))
		TH_LOG("%s", out);
}

/*
 * obsd_pctr -r counting its user instructions on counter 0: the rdpmc()
 * value it prints (not 0), its whole output in @out.
 */
static unsigned long long obsd_rdpmc0(struct __test_metadata *_metadata,
				      char *out, size_t len)
{
	unsigned long long r = 0;

	ASSERT_EQ(0, run_obsd("-r -s 0 -f 01 -u -n 3000000", out, len))
		TH_LOG("%s", out);
	ASSERT_NE(NULL, obsd_value(out, "rdpmc0", &r)) TH_LOG("%s", out);
	EXPECT_LT(0, r) TH_LOG("%s", out);
	return r;
}

/*
 * rdpmc() from the overlay's <machine/pctr.h> in thread mode, in a
 * program that never maps its page: the thread's own count (the
 * instruction itself would fault: no page, no user rdpmc), at most
 * what PCIOCRD reads just after it.
 */
TEST_F(sim, openbsd_rdpmc_without_page)
{
	unsigned long long r, v;
	char out[4096];

	RETURN_IF_SKIPPED();
	r = obsd_rdpmc0(_metadata, out, sizeof(out));
	ASSERT_NE(NULL, obsd_value(out, "ctr0", &v)) TH_LOG("%s", out);
	EXPECT_LE(r, v) TH_LOG("%s", out);
}

/*
 * The same in mode=system, OpenBSD's semantics: the sim has no user
 * rdpmc, so rdpmc() reads the CPU's count with PCIOCRD.
 */
TEST_F(sys, openbsd_rdpmc_system_mode)
{
	char out[4096];

	RETURN_IF_SKIPPED();
	/* A CPU's count: PCIOCRD after it may read another CPU's. */
	obsd_rdpmc0(_metadata, out, sizeof(out));
	/* Leave the machine's functions as found. */
	EXPECT_EQ(0, run_obsd("-s 0 -f 00", out, sizeof(out))) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
