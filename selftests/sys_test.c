// SPDX-License-Identifier: GPL-2.0
/*
 * System mode (mode=system): OpenBSD's pctr(4) semantics.  A function
 * set by a privileged writer counts on every CPU whatever runs there and
 * outlives the process that set it; PCIOCRD reads the current CPU's
 * counts; an ordinary user reads but gets EPERM setting; the per-thread
 * calls are EOPNOTSUPP; the PMU is held while a function is set; unload
 * while set is clean; a CPU coming online counts too.  OpenBSD's
 * programs work across runs: obsd_pctr and pctr(1)'s OpenBSD options
 * set in one run and read in the next.  The default mode is unchanged.
 * On the simulated PMU (reloaded: root).
 */
#include "pctr_test.h"
#include "run_tool.h"

#include <linux/perf_event.h>
#include <sys/mman.h>

#define TAKEN	PCTR_SYSFS "/taken"

RELOAD_FIXTURE(sys, "pmu=sim sim_div=1000 mode=system");
RELOAD_FIXTURE(thr, "pmu=sim sim_div=1000");

/* In a child process: set @slot to @fn through OpenBSD's form, exit. */
static int set_in_child(unsigned int slot, unsigned int fn)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open(PCTR_DEV, O_RDWR);
		if (fd < 0)
			_exit(10);
		if (ioctl(fd, PCIOCS(slot), &fn))
			_exit(11);
		_exit(0);
	}
	return wait_exit(pid);
}

/* Online CPUs (at most 8), each pinned in turn. */
static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 8 ? 8 : n;
}

/*
 * In a child pinned to @cpu: two PCIOCRDs 20 ms apart.  Exit 0 if both
 * show @fn in @slot and the count grew, else a code saying what failed.
 */
static int counts_on_cpu(int cpu, unsigned int slot, uint64_t fn)
{
	pid_t pid = fork();
	struct pctrst a, b;
	int fd;

	if (pid < 0)
		return -1;
	if (pid)
		return wait_exit(pid);
	pin_to_cpu(cpu);
	if (sched_getcpu() != cpu)
		_exit(20);
	fd = open(PCTR_DEV, O_RDONLY);
	if (fd < 0)
		_exit(21);
	if (rd(fd, &a))
		_exit(22);
	spin(0.02);
	if (rd(fd, &b))
		_exit(23);
	if (a.pctr_fn[slot] != fn || b.pctr_fn[slot] != fn)
		_exit(24);
	if (b.pctr_hwc[slot] <= a.pctr_hwc[slot])
		_exit(25);
	if (b.pctr_tsc <= a.pctr_tsc)
		_exit(26);
	_exit(0);
}

/*
 * Root sets a function and exits; later processes, pinned to each CPU
 * in turn, read it counting.  OpenBSD's unsigned int form and the
 * 64-bit form alike.
 */
TEST_F(sys, set_outlives_setter_counts_on_every_cpu)
{
	struct pctr_info info;
	int cpu;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pctr_get_info(self->m.fd, &info));
	EXPECT_TRUE(info.pi_caps & PCTR_CAP_SYSTEM);
	ASSERT_EQ(0, set_in_child(0, FN(EV_TICKS)));
	ASSERT_EQ(0, set(self->m.fd, 1, FNU(EV_DIV)));
	close(self->m.fd);
	self->m.fd = -1;
	for (cpu = 0; cpu < online_cpus(); cpu++) {
		EXPECT_EQ(0, counts_on_cpu(cpu, 0, FN(EV_TICKS)))
			TH_LOG("cpu %d", cpu);
		EXPECT_EQ(0, counts_on_cpu(cpu, 1, FNU(EV_DIV)))
			TH_LOG("cpu %d", cpu);
	}
	TH_LOG("%d CPUs checked", online_cpus());
	self->m.fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, self->m.fd);
}

/* Two processes at once see the same setting, and one's change. */
TEST_F(sys, two_processes_see_one_setting)
{
	int go[2], back[2];
	struct pctrst st;
	pid_t pid;
	char c;
	int fd;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(back));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* The reader: open before the setting, read after it. */
		fd = open(PCTR_DEV, O_RDONLY);
		if (fd < 0 || write(back[1], "r", 1) != 1)
			_exit(30);
		if (read(go[0], &c, 1) != 1)
			_exit(31);
		if (rd(fd, &st) || st.pctr_fn[2] != FN(EV_TICKS) ||
		    !st.pctr_hwc[2])
			_exit(32);
		_exit(0);
	}
	ASSERT_EQ(1, read(back[0], &c, 1));
	ASSERT_EQ(0, set(self->m.fd, 2, FN(EV_TICKS)));
	spin(0.01);
	ASSERT_EQ(1, write(go[1], "g", 1));
	EXPECT_EQ(0, wait_exit(pid));
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_EQ(FN(EV_TICKS), st.pctr_fn[2]);
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
}

/* uid 1000, no capabilities: every setting call EPERM, reading works. */
TEST_F(sys, unprivileged_cannot_set_but_reads)
{
	pid_t pid;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, set(self->m.fd, 0, FNU(EV_TICKS)));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct pctr_pcr pcr = { 0 };
		unsigned int v = FNU(EV_DIV);
		struct pctrst st;
		int fd;

		if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
			_exit(40);
		fd = open(PCTR_DEV, O_RDWR);
		if (fd < 0)
			_exit(41);
		if (ioc(fd, PCIOCS(1), &v) != EPERM)
			_exit(42);
		if (set(fd, 1, FNU(EV_DIV)) == 0 || errno != EPERM)
			_exit(43);
		if (ioc(fd, PCIOCSETPCR, &pcr) != EPERM)
			_exit(44);
		if (ioc(fd, PCIOCZERO, NULL) != EPERM)
			_exit(45);
		if (rd(fd, &st) || st.pctr_fn[0] != FNU(EV_TICKS) ||
		    st.pctr_fn[1])
			_exit(46);
		_exit(0);
	}
	EXPECT_EQ(0, wait_exit(pid));
}

/* No thread has counters of its own: those calls are EOPNOTSUPP. */
TEST_F(sys, per_thread_calls_refused)
{
	struct pctr_preset ps = { .ps_ctr = 0, .ps_value = 5 };
	struct pctr_opts o = { .po_flags = PCTR_O_INHERIT };
	struct pctr_bind b = { .pb_kind = PCTR_BIND_CPU };
	struct pctr_ring_attr ra = { .ra_pages = 1 };
	struct pctr_sample_attr sa = { .sa_fn = FN(EV_TICKS),
				       .sa_period = 1000 };
	unsigned int v = FN(EV_TICKS) | PCTR_INT;
	void *pg;
	int ro;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_TICKS)));
	EXPECT_EQ(EOPNOTSUPP, ioc(self->m.fd, PCIOCPRESET, &ps));
	EXPECT_EQ(EOPNOTSUPP, ioc(self->m.fd, PCIOCRESTART, NULL));
	EXPECT_EQ(EOPNOTSUPP, ioc(self->m.fd, PCIOCENABLE, NULL));
	EXPECT_EQ(EOPNOTSUPP, ioc(self->m.fd, PCIOCDISABLE, NULL));
	EXPECT_EQ(EOPNOTSUPP, ioc(self->m.fd, PCIOCSOPTS, &o));
	b.pb_fn[0] = FN(EV_TICKS);
	EXPECT_EQ(EOPNOTSUPP, ioc(self->m.fd, PCIOCBIND, &b));
	EXPECT_EQ(EOPNOTSUPP, ioc(self->m.fd, PCIOCRING, &ra));
	EXPECT_EQ(EOPNOTSUPP, ioc(self->m.fd, PCIOCSAMPLE, &sa));
	pg = mmap(NULL, PCTR_PAGE_SIZE, PROT_READ, MAP_SHARED, self->m.fd, 0);
	EXPECT_EQ(MAP_FAILED, pg);
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* Overflow signals: nobody to send them to. */
	EXPECT_EQ(EINVAL, ioc(self->m.fd, PCIOCS(1), &v));
	/* Read-only descriptors still cannot set, privileged or not. */
	ro = open(PCTR_DEV, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_EQ(-1, set(ro, 1, FN(EV_TICKS)));
	EXPECT_EQ(EPERM, errno);
	close(ro);
}

/*
 * The PMU is held while a function is set, given back when the last is
 * cleared; SETPCR and GETPCR carry the machine's functions; PCIOCZERO
 * starts every CPU's counts again.
 */
TEST_F(sys, pmu_held_while_set_pcr_and_zero)
{
	struct pctr_pcr pcr = { 0 };
	struct pctrst a, b;

	RETURN_IF_SKIPPED();
	EXPECT_EQ(0, wait_zero(TAKEN));
	pcr.pcr_evtsel[0] = FN(EV_TICKS);
	pcr.pcr_evtsel[1] = FN(EV_DIV);
	ASSERT_EQ(0, ioc(self->m.fd, PCIOCSETPCR, &pcr));
	EXPECT_EQ(1, read_long(TAKEN));
	memset(&pcr, 0xa5, sizeof(pcr));
	ASSERT_EQ(0, ioc(self->m.fd, PCIOCGETPCR, &pcr));
	EXPECT_EQ(FN(EV_TICKS), pcr.pcr_evtsel[0]);
	EXPECT_EQ(FN(EV_DIV), pcr.pcr_evtsel[1]);
	EXPECT_EQ(0, pcr.pcr_evtsel[2]);

	pin_to_cpu(0);
	spin(0.05);
	ASSERT_EQ(0, rd(self->m.fd, &a));
	ASSERT_EQ(0, ioc(self->m.fd, PCIOCZERO, NULL));
	ASSERT_EQ(0, rd(self->m.fd, &b));
	EXPECT_LT(b.pctr_hwc[0], a.pctr_hwc[0]);
	EXPECT_EQ(FN(EV_TICKS), b.pctr_fn[0]);

	/* Clearing one leaves the other; clearing both gives the PMU back. */
	ASSERT_EQ(0, set(self->m.fd, 0, 0));
	EXPECT_EQ(1, read_long(TAKEN));
	ASSERT_EQ(0, rd(self->m.fd, &b));
	EXPECT_EQ(0, b.pctr_fn[0]);
	EXPECT_EQ(0, b.pctr_hwc[0]);
	EXPECT_EQ(FN(EV_DIV), b.pctr_fn[1]);
	ASSERT_EQ(0, set(self->m.fd, 1, 0));
	EXPECT_EQ(0, wait_zero(TAKEN));
	ASSERT_EQ(0, rd(self->m.fd, &b));
	EXPECT_TRUE(st_clean(&b));
}

/* A CPU that comes online counts the machine's functions. */
TEST_F(sys, cpu_coming_online_counts)
{
	char path[64];
	int fd, cpu = online_cpus() - 1;

	RETURN_IF_SKIPPED();
	if (cpu < 1)
		SKIP(return, "one CPU only");
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_TICKS)));
	fd = open(path, O_WRONLY);
	if (fd < 0)
		SKIP(return, "cpu%d cannot go offline", cpu);
	ASSERT_EQ(1, write(fd, "0", 1));
	/* Set while it is offline: it must get this one too. */
	ASSERT_EQ(0, set(self->m.fd, 1, FN(EV_DIV)));
	ASSERT_EQ(1, pwrite(fd, "1", 1, 0));
	close(fd);
	EXPECT_EQ(0, counts_on_cpu(cpu, 0, FN(EV_TICKS)));
	EXPECT_EQ(0, counts_on_cpu(cpu, 1, FN(EV_DIV)));
}

/* Unloading with functions set: clean, and the PMU is given back. */
TEST_F(sys, unload_while_set)
{
	struct pctrst st;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, set_in_child(0, FN(EV_TICKS)));
	EXPECT_EQ(1, read_long(TAKEN));
	close(self->m.fd);
	self->m.fd = -1;
	/* No module reference is held by a setting. */
	EXPECT_EQ(0, unload());
	EXPECT_FALSE(loaded());
	ASSERT_EQ(0, load("pmu=sim mode=system"));
	self->m.fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, self->m.fd);
	/* A new load starts with nothing set. */
	EXPECT_EQ(0, read_long(TAKEN));
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_TRUE(st_clean(&st));
}

/* Run @prog (a path from this test's directory); all its output. */
static int run_as(uid_t uid, const char *prog, const char *args, char *out,
		  size_t len)
{
	return run_in(self_dir(), uid, RUN_STDERR, prog, args, out, len);
}

static int run_beside(const char *prog, const char *args, char *out,
		      size_t len)
{
	return run_as(0, prog, args, out, len);
}

/* " ctrN = value" of @out, or -1. */
static long long ctr_value(const char *out, int n)
{
	char pat[16];
	const char *l;
	long long v;

	snprintf(pat, sizeof(pat), " ctr%d = ", n);
	l = strstr(out, pat);
	if (!l || sscanf(l + strlen(pat), "%lld", &v) != 1)
		return -1;
	return v;
}

/*
 * OpenBSD's way: obsd_pctr -s sets a function in one run, and a later,
 * separate run (without -s) reads it back counting.
 */
TEST_F(sys, openbsd_program_sets_then_reads)
{
	char out[4096];
	long long v1, v2;

	RETURN_IF_SKIPPED();
	/* Both runs on one CPU, so that their counts compare. */
	pin_to_cpu(0);
	ASSERT_EQ(0, run_beside("obsd_pctr", "-s 1 -f 01 -n 1000", out,
				sizeof(out)))
		TH_LOG("%s", out);
	ASSERT_EQ(0, run_beside("obsd_pctr", "", out, sizeof(out)))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "[--kuEN 01 00 +0]")) TH_LOG("%s", out);
	v1 = ctr_value(out, 1);
	EXPECT_LT(0, v1) TH_LOG("%s", out);
	spin(0.01);
	ASSERT_EQ(0, run_beside("obsd_pctr", "", out, sizeof(out)))
		TH_LOG("%s", out);
	v2 = ctr_value(out, 1);
	EXPECT_LT(v1, v2) TH_LOG("%s", out);
}

#define PCTR_BIN	"../tools/pctr"

/*
 * One line of pctr(1)'s OpenBSD output for counter @n, field by field:
 * " ctrN = " then the value in 16 columns, two spaces, and
 * "[flags event umask +threshold name]".  1 if found and well formed.
 */
struct obsd_line {
	unsigned long long	val;
	char			flags[8];
	unsigned int		ev, um, thr;
	char			name[64];
};

/* A number right-aligned in exactly 16 columns at @p? */
static int col16(const char *p)
{
	size_t sp = strspn(p, " ");

	return sp < 16 && sp + strspn(p + sp, "0123456789") == 16;
}

static int obsd_line(const char *out, int n, struct obsd_line *l)
{
	char pat[32], close;
	const char *p;
	int used = 0;

	snprintf(pat, sizeof(pat), " ctr%d = ", n);
	for (p = out; (p = strstr(p, pat)); p++)
		if (p == out || p[-1] == '\n')
			break;
	if (!p)
		return 0;
	p += strlen(pat);
	/* The value right-aligned in exactly 16 columns, then two spaces. */
	if (!col16(p) || strncmp(p + 16, "  [", 3))
		return 0;
	memset(l, 0, sizeof(*l));
	if (sscanf(p, "%llu  [%4[-iekuiu] %2x %2x +%u %63[^]]%c%n", &l->val,
		   l->flags, &l->ev, &l->um, &l->thr, l->name, &close,
		   &used) != 7 || close != ']' || strlen(l->flags) != 4)
		return 0;
	return p[used] == '\n';
}

/*
 * pctr(1) as OpenBSD's: -s sets for the machine in one run, a bare run
 * later prints each counter in OpenBSD's format and the TSC; -s alone
 * frees a counter; -l lists the events; uid 1000 is told it needs
 * CAP_PERFMON.
 */
TEST_F(sys, pctr_openbsd_options)
{
	unsigned long long tsc, first;
	struct obsd_line l;
	char out[8192];
	const char *p;
	int ngen, i;

	RETURN_IF_SKIPPED();
	ngen = read_long(PCTR_SYSFS "/counters");
	pin_to_cpu(0);
	ASSERT_EQ(0, run_beside(PCTR_BIN, "-s 0 -f 01 -u", out, sizeof(out)))
		TH_LOG("%s", out);
	EXPECT_STREQ("", out);
	ASSERT_EQ(0, run_beside(PCTR_BIN, "-s 1 -f 03 -m 0f -k", out,
				sizeof(out)))
		TH_LOG("%s", out);
	ASSERT_EQ(0, run_beside(PCTR_BIN, "", out, sizeof(out)))
		TH_LOG("%s", out);
	ASSERT_TRUE(obsd_line(out, 0, &l)) TH_LOG("%s", out);
	EXPECT_STREQ("---u", l.flags);
	EXPECT_EQ(0x01, l.ev);
	EXPECT_EQ(0, l.um);
	EXPECT_EQ(0, l.thr);
	EXPECT_STREQ("sim_ticks", l.name);
	EXPECT_LT(0, l.val);
	first = l.val;
	ASSERT_TRUE(obsd_line(out, 1, &l)) TH_LOG("%s", out);
	EXPECT_STREQ("--k-", l.flags);
	EXPECT_EQ(0x03, l.ev);
	EXPECT_EQ(0x0f, l.um);
	EXPECT_STREQ("sim_ticks_div_umask", l.name);
	/* Every general counter is listed; the free ones say so. */
	for (i = 2; i < ngen; i++) {
		ASSERT_TRUE(obsd_line(out, i, &l)) TH_LOG("%d: %s", i, out);
		EXPECT_STREQ("----", l.flags);
		EXPECT_EQ(0, l.val);
		EXPECT_STREQ("-", l.name);
	}
	EXPECT_EQ(NULL, strstr(out, " ctr16 = "));
	/* The last line: "  tsc = " and the TSC in 16 columns. */
	p = strstr(out, "\n  tsc = ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	p += strlen("\n  tsc = ");
	EXPECT_TRUE(col16(p));
	EXPECT_STREQ("\n", p + 16);
	tsc = strtoull(p, NULL, 10);
	EXPECT_LT(0, tsc);
	/* A later run: the same function, counting on. */
	spin(0.01);
	ASSERT_EQ(0, run_beside(PCTR_BIN, "", out, sizeof(out)));
	ASSERT_TRUE(obsd_line(out, 0, &l)) TH_LOG("%s", out);
	EXPECT_LT(first, l.val);
	/* -s alone frees the counter. */
	ASSERT_EQ(0, run_beside(PCTR_BIN, "-s 1", out, sizeof(out)));
	ASSERT_EQ(0, run_beside(PCTR_BIN, "", out, sizeof(out)));
	ASSERT_TRUE(obsd_line(out, 1, &l)) TH_LOG("%s", out);
	EXPECT_STREQ("----", l.flags);
	EXPECT_EQ(0, l.val);
	/* -l: the events, "event umask  name  description". */
	ASSERT_EQ(0, run_beside(PCTR_BIN, "-l", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "01 00  sim_ticks ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "03 00  sim_ticks_div_umask "));
	/* Not privileged: the capability named, exit 1; reading works. */
	EXPECT_EQ(1, run_as(1000, PCTR_BIN, "-s 2 -f 01", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "needs CAP_PERFMON")) TH_LOG("%s", out);
	EXPECT_EQ(0, run_as(1000, PCTR_BIN, "", out, sizeof(out)));
	EXPECT_TRUE(obsd_line(out, 0, &l)) TH_LOG("%s", out);
	/* The kernel's refusal of a function: exit 1, its reason. */
	EXPECT_EQ(1, run_beside(PCTR_BIN, "-s 0 -f 01 -t 2", out,
				sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "PCIOCS0: ")) TH_LOG("%s", out);
}

/* --- user-mode rdpmc, on the Intel and AMD backends ------------------ */

RELOAD_FIXTURE(sysx86, "pmu=auto mode=system");
RELOAD_FIXTURE(sysx86_off, "pmu=auto mode=system user_rdpmc=0");

#define INSNS	PCTR_FN(0xc0, 0, PCTR_U | PCTR_K | PCTR_EN)

/* Branches retired, a general-counter event: Intel 0xc4, AMD 0xc2. */
static unsigned int branch_event(int fd)
{
	struct pctr_info info;

	if (!pctr_get_info(fd, &info) &&
	    info.pi_backend_id == PCTR_BACKEND_AMD)
		return 0xc2;
	return 0xc4;
}

/* rdpmc of counter 0 in a child: 0 if it read, else how it died. */
static int rdpmc_in_child(int open_own)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (open_own && open(PCTR_DEV, O_RDONLY) < 0)
			_exit(50);
		(void)rdpmc(0);
		_exit(0);
	}
	return wait_exit(pid);
}

/*
 * The start of every x86 system-mode test: the fixture set up, and an
 * Intel or AMD backend (not the sim) under it.
 */
#define X86_START() do {						\
	RETURN_IF_SKIPPED();						\
	if (!x86_backend(self->m.fd))					\
		SKIP(return, "no Intel or AMD backend here");		\
} while (0)

/*
 * A process with the device open may rdpmc while a function is set:
 * the CPU's count, growing; not before one is set, nor after the last
 * is cleared (the counters are perf's again then).
 */
TEST_F(sysx86, rdpmc_while_set)
{
	uint64_t a, b;

	X86_START();
	EXPECT_EQ(128 + SIGSEGV, rdpmc_in_child(1));
	ASSERT_EQ(0, set(self->m.fd, 0, INSNS));
	a = rdpmc(0);
	spin(0.01);
	b = rdpmc(0);
	EXPECT_LT(a, b);
	EXPECT_EQ(0, rdpmc_in_child(1));
	ASSERT_EQ(0, set(self->m.fd, 0, 0));
	EXPECT_EQ(128 + SIGSEGV, rdpmc_in_child(1));
	ASSERT_EQ(0, set(self->m.fd, 0, INSNS));
	EXPECT_EQ(0, rdpmc_in_child(1));
}

/* Use a general counter through perf on this CPU, and let it go. */
static int perf_dirties_a_counter(unsigned int ev)
{
	struct perf_event_attr pa = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(pa),
		.config = ev,		/* branches retired: general only */
	};
	uint64_t v = 0;
	int fd;

	fd = syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	spin(0.01);
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	close(fd);
	return v ? 0 : -1;
}

/*
 * The kernel's rdpmc switch zeroes, once per CPU, the counters perf used
 * before pctr took them: counted from zero, never a near-2^48 jump.
 */
TEST_F(sysx86, perf_zeroing_a_counter_is_no_bogus_count)
{
	unsigned int ev = branch_event(self->m.fd);
	const uint64_t br = PCTR_FN(ev, 0, PCTR_U | PCTR_K | PCTR_EN);
	struct pctrst st;
	pid_t pid;
	int i;

	X86_START();
	pin_to_cpu(0);
	if (perf_dirties_a_counter(ev))
		SKIP(return, "perf cannot count branches here");
	ASSERT_EQ(0, set(self->m.fd, 0, br));
	ASSERT_EQ(0, set(self->m.fd, 1, br));
	/* Another process runs on CPU 0 while this one sleeps: switches. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		pin_to_cpu(0);
		spin(0.2);
		_exit(0);
	}
	for (i = 0; i < 20; i++)
		usleep(5000);
	EXPECT_EQ(0, wait_exit(pid));
	usleep(5000);
	ASSERT_EQ(0, rd(self->m.fd, &st));
	TH_LOG("slot 0 %llu, slot 1 %llu", (unsigned long long)st.pctr_hwc[0],
	       (unsigned long long)st.pctr_hwc[1]);
	EXPECT_GT(1ULL << 40, st.pctr_hwc[0]);
	EXPECT_GT(1ULL << 40, st.pctr_hwc[1]);
	EXPECT_LT(0, st.pctr_hwc[0]);
}

/* A fault exits with 90 + the CPU it happened on. */
static void rdpmc_fault(int sig)
{
	_exit(90 + sched_getcpu());
}

/*
 * In a child: open the device on CPU @a, rdpmc on CPU @b (the leave
 * follows the process to a CPU it had not run on), close, then rdpmc on
 * CPU @c, which must fault.  0 if all went so; 90 + @b: the first
 * faulted; 63: the second read; else what failed.
 */
static int rdpmc_follows(int a, int b, int c)
{
	pid_t pid = fork();
	int fd, r;

	if (pid < 0)
		return -1;
	if (pid) {
		r = wait_exit(pid);
		return r == 90 + c ? 0 : r;
	}
	signal(SIGSEGV, rdpmc_fault);
	pin_to_cpu(a);
	fd = open(PCTR_DEV, O_RDONLY);
	if (fd < 0)
		_exit(60);
	pin_to_cpu(b);
	if (sched_getcpu() != b)
		_exit(61);
	(void)rdpmc(0);
	close(fd);
	pin_to_cpu(c);
	if (sched_getcpu() != c)
		_exit(62);
	(void)rdpmc(0);
	_exit(63);
}

/*
 * A child forked now, before the function is set (a fork copies the
 * address space's rdpmc leave, perf_rdpmc_allowed), that waits for a byte
 * on @go and then exits with @fn(@n); its pid, or -1.  go_child() lets
 * it run once the function is set.
 */
static pid_t fork_waiting(int go[2], int (*fn)(int), int n)
{
	char c;
	pid_t pid;

	if (pipe(go))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(70);
		_exit(fn(n));
	}
	close(go[0]);
	return pid;
}

static int go_child(int go[2])
{
	int ok = write(go[1], "", 1) == 1;

	close(go[1]);
	return ok ? 0 : -1;
}

/* In the child: from each of the @n CPUs, the rdpmc leave follows it. */
static int follows_on_every_cpu(int n)
{
	int i, r;

	for (i = 0; i < n; i++) {
		r = rdpmc_follows(i, (i + 1) % n, i);
		if (!r)
			r = rdpmc_follows(i, (i + 1) % n, (i + 2) % n);
		if (r) {
			fprintf(stderr, "# from CPU %d: %d\n", i, r);
			return r;
		}
	}
	return 0;
}

/*
 * The open and the close tell only the CPUs the process ran on; a CPU
 * it moves to later gets the right CR4.PCE at the switch: rdpmc works
 * there while the device is open and faults there once it is closed.
 * The children come from a helper forked before the function is set:
 * a fork copies the address space's rdpmc leave (perf_rdpmc_allowed),
 * and this process has the leave of its own descriptor once it is set.
 */
TEST_F(sysx86, rdpmc_follows_the_process)
{
	int n = online_cpus(), go[2];
	pid_t pid;

	X86_START();
	if (n < 2)
		SKIP(return, "one CPU");
	pid = fork_waiting(go, follows_on_every_cpu, n);
	ASSERT_LE(0, pid);
	ASSERT_EQ(0, set(self->m.fd, 0, INSNS));
	ASSERT_EQ(0, go_child(go));
	EXPECT_EQ(0, wait_exit(pid));
}

/* Each CPU's function-call interrupts (/proc/interrupts, CAL); 0 if read. */
static int call_irqs(unsigned long long *v, int n)
{
	char line[4096], *p, *end;
	FILE *f = fopen("/proc/interrupts", "r");
	int i, ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "CAL:", 4))
			continue;
		p += 4;
		for (i = 0; i < n; i++) {
			v[i] = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
		}
		ret = i == n ? 0 : -1;
		break;
	}
	fclose(f);
	return ret;
}

#define OPENS	2000

/* In the child: @opens opens and closes, the first one read through. */
static int opens_and_closes(int opens)
{
	int i, fd;

	for (i = 0; i < opens; i++) {
		fd = open(PCTR_DEV, O_RDONLY);
		if (fd < 0)
			return 71;
		if (!i)
			(void)rdpmc(0);	/* granted here */
		close(fd);
	}
	return 0;
}

/*
 * A process on CPU 0 that opens and closes the device in a loop while
 * functions are set switches its rdpmc leave each time: only CPU 0 may
 * hear of it, not every CPU (issue 26, point 7).  The child is forked
 * before the function is set, so its address space starts with no leave
 * from this process's descriptor.
 */
TEST_F(sysx86, open_close_interrupts_no_other_cpu)
{
	unsigned long long a[8], b[8];
	int n = online_cpus(), go[2], i;
	pid_t pid;

	X86_START();
	if (n < 2)
		SKIP(return, "one CPU");
	if (call_irqs(a, n))
		SKIP(return, "no CAL line in /proc/interrupts");
	pin_to_cpu(0);
	pid = fork_waiting(go, opens_and_closes, OPENS);
	ASSERT_LE(0, pid);
	ASSERT_EQ(0, set(self->m.fd, 0, INSNS));
	ASSERT_EQ(0, call_irqs(a, n));
	ASSERT_EQ(0, go_child(go));
	EXPECT_EQ(0, wait_exit(pid));
	ASSERT_EQ(0, call_irqs(b, n));
	for (i = 1; i < n; i++) {
		TH_LOG("CPU %d: %llu function-call interrupts in %d opens",
		       i, b[i] - a[i], OPENS);
		EXPECT_GT(OPENS / 4, b[i] - a[i]);
	}
}

/* user_rdpmc=0: no rdpmc in system mode either. */
TEST_F(sysx86_off, no_rdpmc_when_not_allowed)
{
	struct pctr_info info;

	X86_START();
	ASSERT_EQ(0, pctr_get_info(self->m.fd, &info));
	EXPECT_TRUE(info.pi_caps & PCTR_CAP_RDPMC_OFF);
	ASSERT_EQ(0, set(self->m.fd, 0, INSNS));
	EXPECT_EQ(128 + SIGSEGV, rdpmc_in_child(1));
}

/* The default mode is today's: settings are the thread's own. */
TEST_F(thr, default_mode_is_per_thread)
{
	struct pctr_info info;
	struct pctrst st;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pctr_get_info(self->m.fd, &info));
	EXPECT_FALSE(info.pi_caps & PCTR_CAP_SYSTEM);
	ASSERT_EQ(0, set_in_child(0, FN(EV_TICKS)));
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_TRUE(st_clean(&st));
	/* ... and the PMU went back when the child's context ended. */
	EXPECT_EQ(0, wait_zero(TAKEN));
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_TICKS)));
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_EQ(FN(EV_TICKS), st.pctr_fn[0]);
	EXPECT_EQ(0, ioctl(self->m.fd, PCIOCRELEASE));
}

/*
 * pctr -s in thread mode: a setting would end with the process, so it
 * is refused with exit 1, saying so; bare pctr stays "pctr info".
 */
TEST_F(thr, pctr_set_refused_in_thread_mode)
{
	char out[8192];

	RETURN_IF_SKIPPED();
	EXPECT_EQ(1, run_beside(PCTR_BIN, "-s 0 -f 01", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "thread mode")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "mode=system")) TH_LOG("%s", out);
	EXPECT_EQ(0, run_beside(PCTR_BIN, "", out, sizeof(out)));
	EXPECT_EQ(0, strncmp(out, "device ", 7)) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, " ctr0 = "));
}

TEST_HARNESS_MAIN
