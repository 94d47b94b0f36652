// SPDX-License-Identifier: GPL-2.0
/*
 * cputrack and cpustat (tools/cpc/cputrack.c, tools/cpc/cpustat.c) on the
 * simulated PMU: their output field by field against Solaris's format
 * (columns of fixed widths: "%7.3f" time, "%6d" pid with -f, "%3d" lwp,
 * "%10s" event, "%9llu " per counter; cpustat's "%3d" cpu and "%5s"
 * event; the fork and exec lines with blank counter columns and a '# '
 * comment; " # spec" after the counters when several sets cycle), the
 * fork and exec of a command followed, -N and -T honoured, sets cycling,
 * -o and -p; cpustat's per-CPU lines and total row as root, and its
 * refusal with what to do as an unprivileged user; bad input of each
 * kind refused with exit status 2.  The tools beside the selftests
 * (../tools/).  Root: the module is reloaded with pmu=sim.
 */
#include "pctr_test.h"
#include "run_tool.h"

#include <ctype.h>
#include <pthread.h>
#include <sys/stat.h>

RELOAD_FIXTURE(sim, "pmu=sim sim_div=1000");

#define USER_UID	1000

/* A shell loop of some tenths of a second under TCG, then a fork+exec. */
#define FORK_EXEC \
	"sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; /bin/true; exit 0'"
#define BUSY "sh -c 'i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done'"

/* Line @i of @out (0-based) into @line; 0 if there is none. */
static int nth_line(const char *out, unsigned int i, char *line, size_t len)
{
	const char *e;
	size_t n;

	for (; i && *out; i--) {
		e = strchr(out, '\n');
		if (!e)
			return 0;
		out = e + 1;
	}
	if (!*out)
		return 0;
	e = strchr(out, '\n');
	n = e ? (size_t)(e - out) : strlen(out);
	if (n >= len)
		n = len - 1;
	memcpy(line, out, n);
	line[n] = '\0';
	return 1;
}

/* A line of cputrack -f, split at Solaris's column positions. */
struct tline {
	double		time;
	int		pid, lwp;
	char		event[16];
	unsigned long long val[4];
	unsigned int	nval;
	char		comment[128];	/* after "# ", or "" */
};

/* Is @s, @n characters, a right-aligned field (spaces, then @what)? */
static int field(const char *s, size_t n, int (*what)(int))
{
	size_t i = 0;

	while (i < n && s[i] == ' ')
		i++;
	if (i == n)
		return 0;
	for (; i < n; i++)
		if (!what((unsigned char)s[i]))
			return 0;
	return 1;
}

static int is_time(int c)
{
	return isdigit(c) || c == '.';
}

static int is_digit(int c)
{
	return isdigit(c);
}

static int is_event(int c)
{
	return islower(c) || c == '_';
}

/*
 * A "%<width>llu " field at @l + *@off: right-aligned in @width, or
 * wider with no padding (Solaris's %9 overflows so); past it in *@off.
 */
static int take_num(const char *l, size_t *off, unsigned int width,
		    unsigned long long *v)
{
	const char *p = l + *off;
	unsigned int sp = 0, d = 0;

	while (p[sp] == ' ')
		sp++;
	while (isdigit((unsigned char)p[sp + d]))
		d++;
	if (!d || p[sp + d] != ' ' || (d <= width ? sp + d != width : sp))
		return 0;
	*v = strtoull(p + sp, NULL, 10);
	*off += sp + d + 1;
	return 1;
}

/*
 * Parse @l as cputrack prints with -f (pid column) and @npic counters:
 * each field in its columns, a space after each.  0 if it does not fit.
 */
static int parse_tline(const char *l, unsigned int npic, int with_pid,
		       struct tline *t)
{
	size_t len = strlen(l), off = 0, i;

	memset(t, 0, sizeof(*t));
	if (len < 8 || !field(l, 7, is_time) || l[7] != ' ')
		return 0;
	t->time = strtod(l, NULL);
	off = 8;
	if (with_pid) {
		if (len < off + 7 || !field(l + off, 6, is_digit) ||
		    l[off + 6] != ' ')
			return 0;
		t->pid = atoi(l + off);
		off += 7;
	}
	if (len < off + 15 || !field(l + off, 3, is_digit) || l[off + 3] != ' ' ||
	    !field(l + off + 4, 10, is_event) || l[off + 14] != ' ')
		return 0;
	t->lwp = atoi(l + off);
	if (sscanf(l + off + 4, "%15s", t->event) != 1)
		return 0;
	off += 15;
	/* fork, exec comment: two blank columns, then "# ..." */
	if (!strncmp(l + off, "                    # ", 22)) {
		snprintf(t->comment, sizeof(t->comment), "%s", l + off + 22);
		return 1;
	}
	for (i = 0; i < npic; i++)
		if (!take_num(l, &off, 9, &t->val[t->nval++]))
			return 0;
	if (off == len)
		return 1;
	if (!strncmp(l + off, " # ", 3)) {
		snprintf(t->comment, sizeof(t->comment), "%s", l + off + 3);
		return 1;
	}
	return 0;
}

/*
 * A command that forks and execs, followed (-f -e): the title, every
 * line in Solaris's columns, the parent's ticks, the fork line naming
 * the child, the child's exec lines (its counts, then the new command
 * in quotes), the child's and the parent's exit lines with their totals.
 */
TEST_F_TIMEOUT(sim, fork_and_exec_followed_in_solaris_format, 120)
{
	char out[32768], line[512];
	unsigned long long ticks0 = 0;
	struct tline t;
	unsigned int i, nticks = 0, nfork = 0, nexec_cmd = 0;
	unsigned int nexec_val = 0, nexit = 0;
	int parent = 0, child = 0, last_exit_pid = 0;

	RETURN_IF_SKIPPED();
#ifdef __sparc__
	/*
	 * Known failure, cause not found: in the sparc64 guest the forked
	 * child's exec is never reported (its fork and exit are), while
	 * pctx_test's exec and fork cases pass there (testing.rst).
	 */
	SKIP(return, "sparc64: a followed child's exec is not reported (known, testing.rst)");
#endif
	ASSERT_EQ(0, run_tool(0, "cputrack",
			      "-f -e -T 0.1 -c sim_ticks,sim_ticks_div "
			      FORK_EXEC " 2>&1", out, sizeof(out)))
		TH_LOG("%s", out);
	ASSERT_TRUE(nth_line(out, 0, line, sizeof(line)));
	EXPECT_STREQ("   time    pid lwp      event      pic0      pic1 ", line);
	for (i = 1; nth_line(out, i, line, sizeof(line)); i++) {
		ASSERT_TRUE(parse_tline(line, 2, 1, &t))
			TH_LOG("line %u does not fit: '%s'\n%s", i, line, out);
		if (!parent)
			parent = t.pid;
		EXPECT_EQ(1, t.lwp) TH_LOG("%s", line);
		if (!strcmp(t.event, "tick")) {
			EXPECT_EQ(2, t.nval);
			if (t.pid == parent)
				ticks0 += t.val[0];
			nticks++;
		} else if (!strcmp(t.event, "fork")) {
			EXPECT_EQ(parent, t.pid);
			child = atoi(t.comment);
			EXPECT_LT(0, child) TH_LOG("%s", line);
			nfork++;
		} else if (!strcmp(t.event, "exec")) {
			EXPECT_EQ(child, t.pid) TH_LOG("%s", line);
			if (t.nval) {
				EXPECT_LT(0, t.val[0]);
				nexec_val++;
			} else {
				EXPECT_STREQ("'/bin/true'", t.comment);
				nexec_cmd++;
			}
		} else if (!strcmp(t.event, "exit")) {
			EXPECT_EQ(2, t.nval);
			EXPECT_EQ('\0', t.comment[0]);
			/* sim_ticks_div: one per 1000 sim_ticks */
			EXPECT_GE(t.val[0] / 1000 + 20, t.val[1]);
			EXPECT_LE(t.val[0] / 1000, t.val[1] + t.val[1] / 100 + 20);
			if (t.pid == parent)
				EXPECT_LE(ticks0, t.val[0]);
			last_exit_pid = t.pid;
			nexit++;
		} else {
			TH_LOG("unexpected event '%s'", t.event);
			EXPECT_TRUE(0);
		}
	}
	EXPECT_LE(1, nticks) TH_LOG("%s", out);
	EXPECT_EQ(1, nfork) TH_LOG("%s", out);
	EXPECT_EQ(1, nexec_val) TH_LOG("%s", out);
	EXPECT_EQ(1, nexec_cmd) TH_LOG("%s", out);
	EXPECT_EQ(2, nexit) TH_LOG("%s", out);
	EXPECT_EQ(parent, last_exit_pid);
}

/*
 * Without -e: the exec lines, then counting stops; the command runs on
 * to its end (cputrack waits for it), and no exit line follows.
 */
TEST_F_TIMEOUT(sim, exec_ends_tracking_without_e, 120)
{
	char out[8192], line[512], buf[64];
	struct timespec t0, t1;
	unsigned int i, nexec = 0, nexit = 0;
	struct tline t;

	RETURN_IF_SKIPPED();
	unlink("/tmp/cputrack_test.after");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, run_tool(0, "cputrack", "-T 0 -c sim_ticks sh -c "
			      "'exec sh -c \"sleep 0.3; echo ran >/tmp/cputrack_test.after\"' 2>&1",
			      out, sizeof(out))) TH_LOG("%s", out);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = 1; nth_line(out, i, line, sizeof(line)); i++) {
		ASSERT_TRUE(parse_tline(line, 1, 0, &t)) TH_LOG("'%s'", line);
		if (!strcmp(t.event, "exec"))
			nexec++;
		if (!strcmp(t.event, "exit"))
			nexit++;
	}
	EXPECT_EQ(2, nexec) TH_LOG("%s", out);
	EXPECT_EQ(0, nexit) TH_LOG("%s", out);
	EXPECT_LE(0.3, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	ASSERT_EQ(0, read_text("/tmp/cputrack_test.after", buf, sizeof(buf)));
	EXPECT_STREQ("ran", buf);
	unlink("/tmp/cputrack_test.after");
}

/* Without -f no pid column; -N ticks then the end; -T's spacing. */
TEST_F_TIMEOUT(sim, count_and_interval_honoured, 120)
{
	char out[16384], line[512];
	unsigned int i, nticks = 0;
	struct tline t;
	double last = -1;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, run_tool(0, "cputrack", "-N 3 -T 0.2 -c sim_ticks " BUSY
			      " 2>&1", out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_TRUE(nth_line(out, 0, line, sizeof(line)));
	EXPECT_STREQ("   time lwp      event      pic0 ", line);
	for (i = 1; nth_line(out, i, line, sizeof(line)); i++) {
		ASSERT_TRUE(parse_tline(line, 1, 0, &t)) TH_LOG("'%s'", line);
		if (strcmp(t.event, "tick"))
			continue;
		/*
		 * Tick k falls due k intervals after the start: never
		 * early; a late one (a busy host) brings the next closer.
		 */
		nticks++;
		EXPECT_LE(0.2 * nticks - 0.05, t.time) TH_LOG("%s", out);
		EXPECT_GE(0.2 * nticks + 5, t.time) TH_LOG("%s", out);
		EXPECT_LT(last, t.time) TH_LOG("%s", out);
		last = t.time;
	}
	EXPECT_EQ(3, nticks) TH_LOG("%s", out);

	/* -T 0: no ticks, the exit line only; -n: no title. */
	ASSERT_EQ(0, run_tool(0, "cputrack",
			      "-n -T 0 -c sim_ticks sh -c true 2>&1",
			      out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_TRUE(nth_line(out, 0, line, sizeof(line)));
	ASSERT_TRUE(parse_tline(line, 1, 0, &t)) TH_LOG("'%s'", line);
	EXPECT_STREQ("exit", t.event);
	EXPECT_FALSE(nth_line(out, 1, line, sizeof(line))) TH_LOG("%s", out);
}

/* Several -c: the sets take turns, each tick line names its set. */
TEST_F_TIMEOUT(sim, sets_cycle_each_tick, 120)
{
	char out[16384], line[512];
	unsigned int i, n = 0;
	struct tline t;
	static const char *const want[] = {
		"pic0=sim_ticks", "sim_ticks_div,nouser,sys",
	};

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, run_tool(0, "cputrack", "-N 4 -T 0.1 -c pic0=sim_ticks -c sim_ticks_div,nouser,sys "
			      BUSY " 2>&1", out, sizeof(out))) TH_LOG("%s", out);
	for (i = 1; nth_line(out, i, line, sizeof(line)); i++) {
		ASSERT_TRUE(parse_tline(line, 1, 0, &t)) TH_LOG("'%s'", line);
		if (strcmp(t.event, "tick"))
			continue;
		EXPECT_STREQ(want[n % 2], t.comment) TH_LOG("%s", out);
		/* the second set counts kernel mode only: little */
		if (n % 2 == 0)
			EXPECT_LT(0, t.val[0]);
		n++;
	}
	EXPECT_EQ(4, n) TH_LOG("%s", out);
}

/* -o FILE: the lines go there, stdout stays empty. */
TEST_F_TIMEOUT(sim, output_file, 120)
{
	char out[8192], buf[8192], args[256], dir[] = "/tmp/cputrack.XXXXXX";

	RETURN_IF_SKIPPED();
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(args, sizeof(args), "-o %s/log -c sim_ticks true", dir);
	ASSERT_EQ(0, run_tool(0, "cputrack", args, out, sizeof(out)));
	EXPECT_STREQ("", out);
	snprintf(args, sizeof(args), "%s/log", dir);
	ASSERT_EQ(0, read_text(args, buf, sizeof(buf)));
	EXPECT_EQ(0, strncmp(buf, "   time lwp      event      pic0 \n", 34))
		TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "   1       exit ")) TH_LOG("%s", buf);
	unlink(args);
	rmdir(dir);
}

static void *spinner(void *arg)
{
	for (;;)
		run_insns(1000000);
	return NULL;
}

/* -p: the threads of a running process; it runs on afterwards. */
TEST_F_TIMEOUT(sim, attach_with_p, 120)
{
	char out[8192], line[512], args[128];
	unsigned int i, lwp_seen = 0;
	struct tline t;
	pthread_t th;
	int st, n, ready[2];
	pid_t pid;
	char c;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		alarm(30);
		close(ready[0]);
		if (pthread_create(&th, NULL, spinner, NULL))
			_exit(1);
		/* Its second thread exists: cputrack -p may look. */
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		close(ready[1]);
		spinner(NULL);
	}
	close(ready[1]);
	n = read(ready[0], &c, 1);
	close(ready[0]);
	if (n != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	ASSERT_EQ(1, n) TH_LOG("the child did not start its thread");
	snprintf(args, sizeof(args), "-N 2 -T 0.1 -c sim_ticks -p %d 2>&1",
		 (int)pid);
	EXPECT_EQ(0, run_tool(0, "cputrack", args, out, sizeof(out)))
		TH_LOG("%s", out);
	for (i = 1; nth_line(out, i, line, sizeof(line)); i++) {
		ASSERT_TRUE(parse_tline(line, 1, 0, &t)) TH_LOG("'%s'", line);
		if (!strcmp(t.event, "tick")) {
			EXPECT_LT(0, t.val[0]);
			lwp_seen |= 1U << t.lwp;
		}
	}
	EXPECT_EQ(6U, lwp_seen) TH_LOG("%s", out);	/* lwps 1 and 2 */
	EXPECT_EQ(0, kill(pid, 0));			/* still running */
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

/*
 * -h: the usage, then the same listing from both tools (cpctool.c): the
 * interface, and the events, generic events and attributes of this CPU,
 * the sim's among them.  cpustat -h needs no privilege.
 */
TEST_F_TIMEOUT(sim, help_lists_events, 120)
{
	static const char *const want[] = {
		"\tEvents:", " sim_ticks ", " sim_ticks_div",
		"\tGeneric events:", " PAPI_tot_cyc", "\tAttributes:",
	};
	static char track[16384], stat[16384];
	const char *lt, *ls;
	unsigned int i;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, run_tool(0, "cputrack", "-h 2>&1", track,
			      sizeof(track))) TH_LOG("%s", track);
	ASSERT_EQ(0, run_tool(USER_UID, "cpustat", "-h 2>&1", stat,
			      sizeof(stat))) TH_LOG("%s", stat);
	EXPECT_EQ(0, strncmp(stat, "Usage:", 6)) TH_LOG("%s", stat);
	lt = strstr(track, "\tCPU performance counter interface: ");
	ls = strstr(stat, "\tCPU performance counter interface: ");
	ASSERT_NE(NULL, lt) TH_LOG("%s", track);
	ASSERT_NE(NULL, ls) TH_LOG("%s", stat);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		EXPECT_NE(NULL, strstr(lt, want[i])) TH_LOG("%u: %s", i, track);
	}
	EXPECT_STREQ(lt, ls);
}

#define CPUTRACK_RAN	"/tmp/cputrack_test.ran"

static const char *cputrack_cmd(const struct refusal *r)
{
	return "touch " CPUTRACK_RAN;
}

static const char *cpustat_cmd(const struct refusal *r)
{
	return "";
}

/* Bad input: exit 2 and what is wrong, the command not run. */
TEST_F_TIMEOUT(sim, bad_input_exit_2, 120)
{
	static const struct refusal cputrack[] = {
		{ "-c foo=bar", "bad token 'foo=bar'" },
		{ "-c pic9=sim_ticks", "'pic9': there are" },
		{ "-c pic0=sim_ticks,pic0=sim_ticks_div", "repeated 'pic0' token" },
		{ "-c pic0=", "missing 'pic0' value" },
		{ "-c sim_ticks,umask=zz", "invalid value 'zz' for attribute 'umask'" },
		{ "-c no_such_event", "no event named \"no_such_event\"" },
		{ "-c ,", "no event in" },
		{ "", "no events: give them with -c" },
		{ "-c sim_ticks -N x", "invalid count 'x'" },
		{ "-c sim_ticks -T -1", "invalid interval '-1'" },
		{ "-c sim_ticks -p 0", "invalid pid '0'" },
		{ "-c sim_ticks -p 1", "a command and -p exclude each other" },
		{ "-c sim_ticks -Z", "unknown option" },
	}, cpustat[] = {
		{ "-c foo=bar 1 1", "bad token 'foo=bar'" },
		{ "-c sim_ticks 0", "invalid argument \"0\"" },
		{ "-c sim_ticks 1 x", "invalid argument \"x\"" },
		{ "-c sim_ticks -T x 1 1", "-T takes u or d" },
		{ "1 1", "no events: give them with -c" },
		{ "-c sim_ticks 1 2 3", "too many arguments" },
	};

	RETURN_IF_SKIPPED();
	expect_refusals(_metadata, "cputrack", "", cputrack,
			sizeof(cputrack) / sizeof(cputrack[0]), cputrack_cmd,
			CPUTRACK_RAN);
	expect_refusals(_metadata, "cpustat", "", cpustat,
			sizeof(cpustat) / sizeof(cpustat[0]), cpustat_cmd,
			CPUTRACK_RAN);
}

/*
 * cpustat as root: the title, a tick line per CPU and interval in
 * Solaris's columns, and a total row whose cpu column is the number of
 * CPUs and whose counts are the sum of every tick line.
 */
TEST_F_TIMEOUT(sim, cpustat_per_cpu_and_total, 120)
{
	unsigned long long sum[2] = { 0, 0 }, v[2];
	char out[16384], line[512], ev[16];
	unsigned int i, nticks = 0, cpus = 0, ntotal = 0;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu;
	size_t off;
	double t;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, run_tool(0, "cpustat",
			      "-c sim_ticks,sim_ticks_div 0.2 2 2>&1",
			      out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_TRUE(nth_line(out, 0, line, sizeof(line)));
	EXPECT_STREQ("   time cpu event      pic0      pic1 ", line);
	for (i = 1; nth_line(out, i, line, sizeof(line)); i++) {
		/* "%7.3f %3d %5s %9llu %9llu " */
		off = 18;
		ASSERT_TRUE(field(line, 7, is_time) && line[7] == ' ' &&
			    field(line + 8, 3, is_digit) && line[11] == ' ' &&
			    field(line + 12, 5, is_event) && line[17] == ' ' &&
			    take_num(line, &off, 9, &v[0]) &&
			    take_num(line, &off, 9, &v[1]) &&
			    off == strlen(line))
			TH_LOG("'%s'", line);
		ASSERT_EQ(5, sscanf(line, "%lf %d %15s %llu %llu", &t, &cpu,
				    ev, &v[0], &v[1]));
		if (!strcmp(ev, "tick")) {
			EXPECT_GT(ncpu, cpu);
			cpus |= 1U << cpu;
			sum[0] += v[0];
			sum[1] += v[1];
			nticks++;
		} else {
			EXPECT_STREQ("total", ev);
			EXPECT_EQ(ncpu, cpu);
			EXPECT_EQ(sum[0], v[0]);
			EXPECT_EQ(sum[1], v[1]);
			EXPECT_FALSE(nth_line(out, i + 1, line, sizeof(line)));
			ntotal++;
		}
	}
	EXPECT_EQ(2 * ncpu, nticks) TH_LOG("%s", out);
	EXPECT_EQ((1U << ncpu) - 1, cpus);
	EXPECT_EQ(1, ntotal) TH_LOG("%s", out);
	/* The sim counts every CPU's time: some of 0.4 s per CPU. */
	EXPECT_LT(0, sum[0]);
}

/* cpustat unprivileged: refused, saying what would let it count. */
TEST_F_TIMEOUT(sim, cpustat_needs_cap_perfmon, 120)
{
	char out[8192];

	RETURN_IF_SKIPPED();
	EXPECT_EQ(1, run_tool(USER_UID, "cpustat", "-c sim_ticks 0.1 1 2>&1",
			      out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "counting a CPU needs CAP_PERFMON"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "setcap cap_perfmon+ep")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, " total ")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
