// SPDX-License-Identifier: GPL-2.0
/*
 * pctr stat (tools/pctr/stat.c) on the simulated PMU: what it prints, field
 * by field, in each format; that the counts are the command's; that the
 * command's exit status comes back; that bad events are refused with
 * exit status 2 before the command runs; and that an unprivileged user
 * counts user mode, and only that.  Runs the pctr beside the selftests
 * (../tools/pctr).  Root: the module is reloaded with pmu=sim.
 */
#include "pctr_test.h"
#include "run_tool.h"

#include <pthread.h>
#include <sys/stat.h>

/*
 * The workload: STAT_WORKLOAD=N runs this program as a command to count
 * instead of the tests.  Four stretches of N iterations of run_insns():
 * the main thread's, two threads', and a forked child's, which then
 * execs /bin/true; the main thread waits for all and exits 7.
 */
static void *spin_thread(void *arg)
{
	run_insns((unsigned long)arg);
	return NULL;
}

static void __attribute__((constructor)) workload(void)
{
	const char *w = getenv("STAT_WORKLOAD");
	unsigned long n;
	pthread_t th[2];
	pid_t pid;
	int i;

	if (!w)
		return;
	n = strtoul(w, NULL, 10);
	if (!n)
		_exit(99);
	run_insns(n);
	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, spin_thread, (void *)n))
			_exit(98);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pid = fork();
	if (pid < 0)
		_exit(97);
	if (!pid) {
		run_insns(n);
		execl("/bin/true", "true", (char *)NULL);
		_exit(96);
	}
	if (waitpid(pid, &i, 0) != pid || !WIFEXITED(i) || WEXITSTATUS(i))
		_exit(95);
	_exit(7);
}

/*
 * STAT_SPIN_CPU1=MS: spin MS milliseconds on CPU 1, then exit 0; with
 * STAT_SPIN_READY=FILE, make FILE once on CPU 1 and about to spin.
 */
static void __attribute__((constructor)) spin_on_cpu1(void)
{
	const char *w = getenv("STAT_SPIN_CPU1");
	const char *ready = getenv("STAT_SPIN_READY");
	int fd;

	if (!w)
		return;
	pin_to_cpu(1);
	if (ready) {
		fd = open(ready, O_WRONLY | O_CREAT, 0600);
		if (fd >= 0)
			close(fd);
	}
	spin(strtoul(w, NULL, 10) / 1000.0);
	_exit(0);
}

RELOAD_FIXTURE(sim, "pmu=sim sim_div=1000");
/*
 * A thread on a bound CPU counts nothing there (sim_share=0), as on the
 * SPARC backend: its count is starved.
 */
RELOAD_FIXTURE(simstarve, "pmu=sim sim_div=1000 sim_share=0");

#define USER_UID	1000

/* A busy command of a few hundred milliseconds under TCG. */
#define BUSY	"sh -c 'i=0; while [ $i -lt 6000 ]; do i=$((i+1)); done'"

/* "pctr ARGS" as @uid, its standard output in @out (run_tool.h). */
static int run(uid_t uid, const char *args, char *out, size_t len)
{
	return run_tool(uid, "pctr", args, out, len);
}

/* The -x line whose second field is @name: its fields, or 0. */
static int csv_line(const char *out, const char *name, char f[4][64])
{
	const char *l = out, *e;
	char line[256];
	size_t len;

	for (; *l; l = *e ? e + 1 : e) {
		e = strchr(l, '\n');
		if (!e)
			e = l + strlen(l);
		len = e - l < (long)sizeof(line) - 1 ? e - l : sizeof(line) - 1;
		memcpy(line, l, len);
		line[len] = '\0';
		memset(f, 0, 4 * 64);
		if (sscanf(line, "%63[^,],%63[^,],%63[^,],%63[^\n]", f[0], f[1],
			   f[2], f[3]) >= 2 && !strcmp(f[1], name))
			return 1;
		if (sscanf(line, "%63[^,],%63[^,],,", f[0], f[1]) == 2 &&
		    !strcmp(f[1], name))
			return 1;
	}
	return 0;
}

/* -x: one line per counter (count, event, slot, function), then times. */
TEST_F(sim, csv_fields_are_the_commands_counts)
{
	unsigned long long ticks, div;
	double el, usr, sys, counted;
	char out[8192], f[4][64];

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, run(0, "stat -x, -- " BUSY " 2>&1", out, sizeof(out)))
		TH_LOG("%s", out);
	ASSERT_TRUE(csv_line(out, "sim_ticks:u", f)) TH_LOG("%s", out);
	EXPECT_STREQ("pmc0", f[2]);
	EXPECT_STREQ("0x410001", f[3]);
	ticks = strtoull(f[0], NULL, 10);
	ASSERT_TRUE(csv_line(out, "sim_ticks_div:u", f)) TH_LOG("%s", out);
	EXPECT_STREQ("pmc1", f[2]);
	EXPECT_STREQ("0x410002", f[3]);
	div = strtoull(f[0], NULL, 10);
	ASSERT_TRUE(csv_line(out, "seconds-elapsed", f)) TH_LOG("%s", out);
	el = strtod(f[0], NULL);
	ASSERT_TRUE(csv_line(out, "seconds-user", f)) TH_LOG("%s", out);
	usr = strtod(f[0], NULL);
	ASSERT_TRUE(csv_line(out, "seconds-sys", f)) TH_LOG("%s", out);
	sys = strtod(f[0], NULL);
	EXPECT_EQ(NULL, strstr(out, ",ipc,"));	/* no instructions here */

	/* One sim_ticks_div per 1000 sim_ticks, within a few per stint. */
	EXPECT_LT(0, div);
	EXPECT_LE(ticks / 1000, div + div / 100 + 20) TH_LOG("%s", out);
	EXPECT_GE(ticks / 1000 + div / 100 + 20, div) TH_LOG("%s", out);
	/*
	 * sim_ticks counts the TSC while the command's thread runs: no more
	 * than the time it ran between start and end, and (a busy loop)
	 * about its CPU time.
	 */
	counted = ticks / (self->m.khz * 1e3);
	TH_LOG("counted %.3f s, elapsed %.3f s, cpu %.3f s", counted, el,
	       usr + sys);
	EXPECT_LT(0.05, counted);
	EXPECT_GE(el * 1.02 + 0.001, counted);
	EXPECT_GE((usr + sys) * 1.2 + 0.05, counted);
	EXPECT_LE((usr + sys) * 0.5 - 0.05, counted);
}

/*
 * Root's CPU binding holds slot 0 (and so every CPU's slot 0 from
 * threads); uid 1000's pctr stat, whose default events would take it,
 * places them elsewhere: sysfs "held_slots" is anyone's to read, where
 * "bindings" is root's (reading that, it got EBUSY); pctr status shows
 * the mask to uid 1000 too.
 */
TEST_F(sim, held_slot_goes_elsewhere_for_any_user)
{
	struct pctr_bind b = { .pb_kind = PCTR_BIND_CPU, .pb_id = 0 };
	char out[8192], st[4096], f[4][64];
	int fd;

	RETURN_IF_SKIPPED();
	b.pb_fn[0] = FN(EV_TICKS);
	fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, PCIOCBIND, &b)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, run(USER_UID, "status", st, sizeof(st))) TH_LOG("%s", st);
	EXPECT_NE(NULL, strstr(st, "held by 1 CPU binding(s): slots mask 0x1 everywhere"))
		TH_LOG("%s", st);
	EXPECT_EQ(0, run(USER_UID, "stat -x, -- " BUSY " 2>&1", out, sizeof(out)))
		TH_LOG("%s", out);
	close(fd);
	ASSERT_TRUE(csv_line(out, "sim_ticks:u", f)) TH_LOG("%s", out);
	EXPECT_STRNE("pmc0", f[2]);
	EXPECT_LT(0, strtoull(f[0], NULL, 10)) TH_LOG("%s", out);
}

/* --json: one object with the command, its status and the counters. */
TEST_F(sim, json_fields)
{
	unsigned long long n = 0;
	char out[8192], *c;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, run(0, "stat --json -e sim_ticks_div,0x01 -- true 2>&1",
			 out, sizeof(out)));
	EXPECT_EQ('{', out[0]) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"command\": [ \"true\" ]")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"exit_status\": 0,"));
	EXPECT_NE(NULL, strstr(out, "\"scope\": \"threads-and-children\""));
	EXPECT_NE(NULL, strstr(out, "\"backend\": \"sim\""));
	EXPECT_NE(NULL, strstr(out, "\"late_start\": false"));
	c = strstr(out, "{ \"event\": \"sim_ticks_div:u\", \"slot\": \"pmc0\", \"function\": \"0x410002\", \"count\": ");
	ASSERT_NE(NULL, c) TH_LOG("%s", out);
	c = strstr(out, "{ \"event\": \"0x01:u\", \"slot\": \"pmc1\", \"function\": \"0x410001\", \"count\": ");
	ASSERT_NE(NULL, c) TH_LOG("%s", out);
	EXPECT_EQ(1, sscanf(strstr(c, "\"count\": "), "\"count\": %llu", &n));
	EXPECT_LT(0, n);
	EXPECT_NE(NULL, strstr(out, "\"seconds_elapsed\": "));
	EXPECT_NE(NULL, strstr(out, "\"seconds_user\": "));
	EXPECT_NE(NULL, strstr(out, "\"seconds_sys\": "));
	EXPECT_EQ(NULL, strstr(out, "\"ipc\""));
	EXPECT_NE(NULL, strstr(out, " }\n"));
}

/* Whether @s is valid UTF-8 (RFC 3629); else where it goes wrong. */
static const char *bad_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int cp, n, i;

	while (*p) {
		if (*p < 0x80) {
			p++;
			continue;
		}
		if (*p >= 0xc2 && *p <= 0xdf)
			n = 2, cp = *p & 0x1f;
		else if (*p >= 0xe0 && *p <= 0xef)
			n = 3, cp = *p & 0x0f;
		else if (*p >= 0xf0 && *p <= 0xf4)
			n = 4, cp = *p & 0x07;
		else
			return (const char *)p;
		for (i = 1; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return (const char *)p;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if ((n == 3 && cp < 0x800) || (cp >= 0xd800 && cp <= 0xdfff) ||
		    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
			return (const char *)p;
		p += n;
	}
	return NULL;
}

/*
 * --json of a command line that is not UTF-8 (any bytes are a valid
 * argument): each byte that is not valid UTF-8 becomes U+FFFD, valid
 * UTF-8 stays, so that JSON parsers take the output.  testing/json-check
 * gives the same output to Python's json module.
 */
TEST_F(sim, json_invalid_utf8_as_fffd)
{
	char out[8192], *bad;

	RETURN_IF_SKIPPED();
	/* ff fe; an overlong '/' (c0 af); a lone surrogate; then é, valid. */
	ASSERT_EQ(0, run(0, "stat --json -e sim_ticks -- sh -c 'exit 0' "
			 "\"$(printf '\\377\\376')\" "
			 "\"$(printf 'a\\300\\257b')\" "
			 "\"$(printf '\\355\\240\\200')\" "
			 "\"$(printf '\\303\\251')\" 2>&1",
			 out, sizeof(out)));
	bad = (char *)bad_utf8(out);
	EXPECT_EQ(NULL, bad) TH_LOG("not UTF-8 at byte %ld: %s",
				    bad ? (long)(bad - out) : 0L, out);
	EXPECT_NE(NULL, strstr(out, "\"command\": [ \"sh\", \"-c\", \"exit 0\", "
			       "\"\xef\xbf\xbd\xef\xbf\xbd\", "
			       "\"a\xef\xbf\xbd\xef\xbf\xbd" "b\", "
			       "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\", "
			       "\"\xc3\xa9\" ]"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"exit_status\": 0,"));
}

/*
 * The default output: the backend's default events and the times, on
 * stderr (or -o FILE); the command's standard output untouched.
 */
TEST_F(sim, human_output_and_stdout_untouched)
{
	char out[8192], dir[] = "/tmp/stat_test.XXXXXX", file[64], buf[4096];

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, run(0, "stat -- echo hello 2>/dev/null", out,
			 sizeof(out)));
	EXPECT_STREQ("hello\n", out);
	ASSERT_EQ(0, run(0, "stat -- echo hello 2>&1 >/dev/null", out,
			 sizeof(out)));
	EXPECT_NE(NULL, strstr(out, " Counter stats for 'echo hello' (pid "))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "1 thread in 1 process; sim backend"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "      sim_ticks:u\n"));
	EXPECT_NE(NULL, strstr(out, "      sim_ticks_div:u\n"));
	EXPECT_NE(NULL, strstr(out, " seconds time elapsed\n"));
	EXPECT_NE(NULL, strstr(out, " seconds user\n"));
	EXPECT_NE(NULL, strstr(out, " seconds sys\n"));

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/out", dir);
	snprintf(buf, sizeof(buf), "stat -x ';' -o %s -- true 2>&1", file);
	ASSERT_EQ(0, run(0, buf, out, sizeof(out)));
	EXPECT_STREQ("", out);
	ASSERT_EQ(0, read_text(file, buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, ";sim_ticks:u;pmc0;0x410001\n")) TH_LOG("%s", buf);
	unlink(file);
	rmdir(dir);
}

/* The command's exit status, 128 + N for signal N, 127 if not found. */
TEST_F(sim, exit_status_passes_through)
{
	char out[8192];

	RETURN_IF_SKIPPED();
	EXPECT_EQ(3, run(0, "stat -- sh -c 'exit 3' 2>/dev/null", out,
			 sizeof(out)));
	EXPECT_EQ(0, run(0, "stat -- true 2>/dev/null", out, sizeof(out)));
	EXPECT_EQ(128 + SIGUSR1,
		  run(0, "stat -- sh -c 'kill -USR1 $$' 2>/dev/null", out,
		      sizeof(out)));
	EXPECT_EQ(127, run(0, "stat -- /nonexistent/cmd 2>&1", out,
			   sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "/nonexistent/cmd: No such file"));
}

#define STAT_RAN	"/tmp/stat_test.ran"

/* The command pctr stat would run, but for the line without one. */
static const char *stat_cmd(const struct refusal *r)
{
	return *r->args ? "-- touch " STAT_RAN : "";
}

/*
 * Bad events: exit 2 and a message saying what is wrong, nothing run.
 * Sixteen runs of pctr stat: the debug kernel's guest on a loaded host
 * took more than the harness's default 30 s (as cputrack's test does).
 */
TEST_F_TIMEOUT(sim, bad_events_exit_2_before_the_command, 120)
{
	static const struct refusal bad[] = {
		{ "-e sim_tick", "unknown event 'sim_tick': did you mean 'sim_ticks'?" },
		{ "-e no_such_event_at_all", "unknown event 'no_such_event_at_all'" },
		{ "-e sim_ticks:x", "unknown mode ':x'" },
		{ "-e 0x410001", "the mode comes from :u or :k" },
		{ "-e 0xzz", "is not a hex number" },
		{ "-e 0x0101", "does not accept it" },	/* sim: no unit mask */
		{ "-e instructions", "the sim backend does not count it" },
		{ "-e sim_ticks,sim_ticks,sim_ticks,sim_ticks,sim_ticks",
		  "no free counter for 'sim_ticks'" },
		{ "-x, --json", "exclude each other" },
		{ "-I 5", "an interval in milliseconds, 10 to" },
		{ "-I 1s", "an interval in milliseconds" },
		{ "-p 0", "-p 0: not a process id" },
		{ "-p 12x", "not a process id" },
		{ "-p 1", "-p and a command exclude each other" },
		{ "-q", "unknown option" },
		{ "", "no command to run" },
	};

	RETURN_IF_SKIPPED();
	expect_refusals(_metadata, "pctr", "stat", bad,
			sizeof(bad) / sizeof(bad[0]), stat_cmd, STAT_RAN);
}

/* An unprivileged user counts user mode; kernel mode is refused. */
TEST_F(sim, unprivileged_user)
{
	char out[8192], f[4][64];

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, run(USER_UID, "stat -x, -e sim_ticks -- " BUSY " 2>&1",
			 out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_TRUE(csv_line(out, "sim_ticks:u", f)) TH_LOG("%s", out);
	EXPECT_LT(0, strtoull(f[0], NULL, 10));
	EXPECT_EQ(1, run(USER_UID, "stat -e sim_ticks:k -- true 2>&1", out,
			 sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "counting kernel mode needs CAP_PERFMON"))
		TH_LOG("%s", out);
}

/* This test program's path, for STAT_WORKLOAD. */
static const char *self_path(void)
{
	static char path[256];
	ssize_t n;

	if (!path[0]) {
		n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		if (n > 0)
			path[n] = '\0';
	}
	return path;
}

/*
 * Run the workload, @n loops, under "pctr stat @opts-x, -e @ev" with
 * its output in @out: the user-mode count of @ev it gives.
 */
static unsigned long long stat_workload(struct __test_metadata *_metadata,
					const char *opts, const char *ev,
					unsigned long n, char *out, size_t size)
{
	char args[512], f[4][64];

	snprintf(args, sizeof(args),
		 "stat %s-x, -e %s -- env STAT_WORKLOAD=%lu %s 2>&1", opts, ev,
		 n, self_path());
	ASSERT_EQ(7, run(0, args, out, size)) TH_LOG("%s", out);
	snprintf(args, sizeof(args), "%s:u", ev);
	ASSERT_TRUE(csv_line(out, args, f)) TH_LOG("%s", out);
	return strtoull(f[0], NULL, 10);
}

/* -t -x lines "pid/lwp,count,event": their sum and number, pids seen. */
struct per_thread {
	unsigned long long sum, big[16];
	unsigned int n, nbig, npids;
	int pids[16];
};

static void per_thread_lines(const char *out, const char *event,
			     struct per_thread *pt)
{
	const char *l;
	char label[128];
	unsigned long long c;
	unsigned int i;
	int pid, lwp;

	memset(pt, 0, sizeof(*pt));
	for (l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (sscanf(l, "%d/%d,%llu,%127[^\n]", &pid, &lwp, &c, label) != 4 ||
		    strcmp(label, event))
			continue;
		pt->sum += c;
		if (pt->n < 16)
			pt->big[pt->n] = c;
		pt->n++;
		for (i = 0; i < pt->npids; i++)
			if (pt->pids[i] == pid)
				break;
		if (i == pt->npids && pt->npids < 16)
			pt->pids[pt->npids++] = pid;
	}
}

/*
 * A command with two more threads and a child that execs: every thread
 * of both processes is counted (six: env's image before its exec, the
 * main thread, two threads, the child before and after its exec), the
 * total is the sum of the threads', the command's status comes back.
 * Counting the main thread alone gave one record and a quarter of it.
 */
TEST_F(sim, threads_and_children_are_counted)
{
	char out[16384], f[4][64];
	unsigned long long total;
	struct per_thread pt;
	unsigned int i;

	RETURN_IF_SKIPPED();
	total = stat_workload(_metadata, "-t ", "sim_ticks", 2000000, out,
			      sizeof(out));
	per_thread_lines(out, "sim_ticks:u", &pt);
	EXPECT_EQ(6, pt.n) TH_LOG("%s", out);
	EXPECT_EQ(2, pt.npids) TH_LOG("%s", out);
	EXPECT_EQ(total, pt.sum) TH_LOG("%s", out);
	ASSERT_TRUE(csv_line(out, "threads", f));
	EXPECT_STREQ("6", f[0]);
	ASSERT_TRUE(csv_line(out, "processes", f));
	EXPECT_STREQ("2", f[0]);
	/*
	 * Every thread counted something.  (How much is time on the sim,
	 * and TCG's time is too uneven to compare the spinners: the
	 * emulated Intel PMU's test below counts their instructions.)
	 */
	for (i = 0; i < pt.n && i < 16; i++) {
		EXPECT_LT(0, pt.big[i]) TH_LOG("%s", out);
	}
}

/*
 * -I: a line per interval and event, "seconds,count,event"; the
 * intervals of a run add up to its total exactly.
 */
TEST_F(sim, intervals_add_up_to_the_total)
{
	char out[65536], label[128];
	unsigned long long total, c, sum = 0;
	unsigned int lines = 0;
	double t, last = 0;
	const char *l;

	RETURN_IF_SKIPPED();
	total = stat_workload(_metadata, "-I 20 ", "sim_ticks", 10000000, out,
			      sizeof(out));
	for (l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (sscanf(l, "%lf,%llu,%127[^\n]", &t, &c, label) != 3 ||
		    !strchr(l, '.') || strchr(label, ','))
			continue;
		EXPECT_STREQ("sim_ticks:u", label);
		EXPECT_LE(last, t);
		last = t;
		sum += c;
		lines++;
	}
	TH_LOG("%u interval lines over %.3f s", lines, last);
	EXPECT_LE(3, lines) TH_LOG("%s", out);
	EXPECT_EQ(total, sum) TH_LOG("%s", out);
}

/* Has a tracer attached to this process (TracerPid in its status)? */
static int traced(void)
{
	char buf[4096], *t;

	if (read_text("/proc/self/status", buf, sizeof(buf)))
		return 0;
	t = strstr(buf, "TracerPid:");
	return t && strtol(t + 10, NULL, 10) != 0;
}

/* -p: the threads of a running process, until it ends. */
TEST_F(sim, attach_counts_a_running_process)
{
	char out[8192], args[128], f[4][64];
	struct per_thread pt;
	pthread_t th;
	pid_t pid;
	int st;

	RETURN_IF_SKIPPED();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/*
		 * Run until 2 s after pctr stat attached (ptrace: a tracer
		 * in /proc/self/status), however long it took to start on
		 * a busy host; 60 s at most.
		 */
		alarm(60);
		if (pthread_create(&th, NULL, spin_thread, (void *)~0UL))
			_exit(1);
		while (!traced())
			run_insns(1000000);
		alarm(2);
		for (;;)
			run_insns(1000000);
	}
	usleep(300000);
	snprintf(args, sizeof(args), "stat -t -x, -e sim_ticks -p %d 2>&1",
		 (int)pid);
	EXPECT_EQ(0, run(0, args, out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM);
	ASSERT_TRUE(csv_line(out, "sim_ticks:u", f)) TH_LOG("%s", out);
	per_thread_lines(out, "sim_ticks:u", &pt);
	EXPECT_EQ(2, pt.n) TH_LOG("%s", out);
	EXPECT_EQ(strtoull(f[0], NULL, 10), pt.sum);
	EXPECT_LT(0, pt.sum);
	ASSERT_TRUE(csv_line(out, "threads", f));
	EXPECT_STREQ("2", f[0]);
}

/*
 * A command on CPU 1 while a CPU binding holds CPU 1 for part of its
 * run (another slot than pctr stat's: the binding takes the CPU, not the
 * slot, where the backend cannot share it): its count is scaled and
 * marked with the share of its enabled time it counted, as perf stat
 * marks a multiplexed event.  The binder waits for the command to be
 * spinning (a debug kernel on a loaded host took longer than a fixed
 * 0.3 s to start pctr stat and the command, and the binding was over
 * before the command ran).
 */
TEST_F(simstarve, starved_count_is_scaled_and_marked)
{
	char out[8192], args[4300], ready[64];
	struct pctr_bind b = { .pb_kind = PCTR_BIND_CPU, .pb_id = 1 };
	const char *line;
	double pct = 0, end;
	pid_t pid;
	int st, fd;

	RETURN_IF_SKIPPED();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU");
	b.pb_fn[3] = FN(EV_TICKS);
	snprintf(ready, sizeof(ready), "/tmp/stat_spin.%d", (int)getpid());
	unlink(ready);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* From 0.2 s into the command's 1.2 s, for 0.5 s. */
		end = now_sec() + 60;
		while (access(ready, F_OK) && now_sec() < end)
			usleep(10000);
		usleep(200000);
		fd = open(PCTR_DEV, O_RDWR);
		if (fd < 0 || ioctl(fd, PCIOCBIND, &b))
			_exit(1);
		usleep(500000);
		_exit(0);
	}
	snprintf(args, sizeof(args),
		 "stat -e sim_ticks -- env STAT_SPIN_CPU1=1200 STAT_SPIN_READY=%s %s/stat_test 2>&1",
		 ready, self_dir());
	EXPECT_EQ(0, run(0, args, out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	unlink(ready);
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	line = strstr(out, "sim_ticks:u  (");
	ASSERT_NE(NULL, line) TH_LOG("%s", out);
	EXPECT_EQ(1, sscanf(line, "sim_ticks:u  (%lf%%)", &pct));
	TH_LOG("sim_ticks counted %.2f%% of the time", pct);
	EXPECT_LT(20, pct) TH_LOG("%s", out);
	EXPECT_GT(90, pct) TH_LOG("%s", out);
}

/*
 * On a PMU that counts instructions exactly (the emulated Intel PMU
 * under -icount): the workload with twice the iterations counts 4
 * stretches x 2 instructions x N more, all threads and the child
 * included.  The loops are counted exactly; what the rest of the
 * program runs varies by some tens of instructions from run to run
 * (thread start and join, system calls restarted after libpctx's
 * stops): within 1000 of 8,000,000.  Missing a thread or the child
 * would be 2,000,000 short.
 */
FIXTURE(intel) {
	struct reloaded m;
};

FIXTURE_SETUP(intel)
{
	static const struct backend be = BACKEND_INTEL;

	backend_reload(_metadata, &self->m, &be);
}

FIXTURE_TEARDOWN(intel)
{
	if (self->m.ready)
		reload_restore(_metadata, &self->m);
}

TEST_F(intel, children_and_threads_counted_exactly)
{
	unsigned long long c[2];
	char out[16384];
	unsigned long n[2] = { 1000000, 2000000 };
	int i;

	RETURN_IF_SKIPPED();
	for (i = 0; i < 2; i++)
		c[i] = stat_workload(_metadata, "", "instructions", n[i], out,
				     sizeof(out));
	TH_LOG("%llu and %llu instructions: %lld more, %lu expected", c[0],
	       c[1], (long long)(c[1] - c[0]), 8 * (n[1] - n[0]));
	EXPECT_GE(1000, llabs((long long)(c[1] - c[0]) -
			      (long long)(8 * (n[1] - n[0]))));
}

/*
 * A libpfm4 name (with its PMU's prefix, so that it is not a backend
 * name) counts what the backend's own name counts: the same workload's
 * instructions within the run-to-run noise above.
 */
TEST_F(intel, libpfm4_names)
{
	unsigned long long c[2];
	char out[16384];
	static const char *const ev[2] = {
		"instructions", "ix86arch::INSTRUCTION_RETIRED",
	};
	int i;

	RETURN_IF_SKIPPED();
	for (i = 0; i < 2; i++)
		c[i] = stat_workload(_metadata, "", ev[i], 1000000, out,
				     sizeof(out));
	TH_LOG("%s %llu, %s %llu", ev[0], c[0], ev[1], c[1]);
	EXPECT_GE(1000, llabs((long long)(c[1] - c[0])));
}

TEST_HARNESS_MAIN
