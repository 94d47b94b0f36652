// SPDX-License-Identifier: GPL-2.0
/*
 * pctr selfcheck against perf: perf stat counts instructions:u and
 * branches:u of this program's hidden "selfcheck --loop N" at the two
 * loop lengths, before pctr programs anything (while any thread has pctr
 * counters, perf cannot have them); the check compares the differences.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "selfcheck_internal.h"

const char *const sc_perf_event[SC_PERF_NEV] = {
	"instructions:u", "branches:u",
};

/* @prog's path in $PATH. */
static bool sc_which(const char *prog, char *buf, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;
	size_t n;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		n = end - p;
		if (!n)
			continue;
		snprintf(buf, len, "%.*s/%s", (int)n, p, prog);
		if (access(buf, X_OK) == 0)
			return true;
	}
	return false;
}

/* Run @argv with its stderr in @out (stdout dropped); its wait status. */
static int sc_run_capture(char *const argv[], char *out, size_t len)
{
	int pipefd[2], status, null;
	char drain[512];
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		dup2(pipefd[1], STDERR_FILENO);
		execv(argv[0], argv);
		dprintf(pipefd[1], "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	while (got + 1 < len) {
		n = read(pipefd[0], out + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	out[got] = '\0';
	/* Drain what did not fit, so the child is never stuck writing. */
	while ((n = read(pipefd[0], drain, sizeof(drain))) > 0 ||
	       (n < 0 && errno == EINTR))
		;
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

/* The first line of @text that says something, trimmed, in @buf. */
static const char *sc_first_line(const char *text, char *buf, size_t len)
{
	const char *p = text;
	size_t n;

	while (*p == '\n' || *p == ' ' || *p == '\t')
		p++;
	n = strcspn(p, "\n");
	snprintf(buf, len, "%.*s", (int)n, p);
	return buf;
}

/* Which of our events perf's event field @name is, or -1. */
static int sc_perf_which(const char *name)
{
	if (strstr(name, "instructions") && !strstr(name, "branch"))
		return SC_PERF_INS;
	if (strstr(name, "branches"))
		return SC_PERF_BR;
	return -1;
}

/*
 * perf stat -x, prints "value,unit,event,..." per event, and one line
 * per PMU on hybrid CPUs (cpu_core/..., cpu_atom/...): add up the
 * numeric ones.  What perf printed instead of a number ("<not
 * supported>", "<not counted>") is the reason when no line of the event
 * has one.  Returns a mask of the events that got a count.
 */
static unsigned int sc_perf_parse(const char *out, int64_t *val,
				  char why[][200])
{
	char line[256], *f[3], *rest;
	unsigned int nf, have = 0;
	const char *p;
	size_t n, used;
	int e;

	for (e = 0; e < SC_PERF_NEV; e++) {
		val[e] = 0;
		why[e][0] = '\0';
	}
	for (p = out; *p; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (!line[0] || line[0] == '#')
			continue;
		rest = line;
		for (nf = 0; nf < 3 && rest; nf++)
			f[nf] = strsep(&rest, ",");
		if (nf < 3)
			continue;
		e = sc_perf_which(f[2]);
		if (e < 0)
			continue;
		if (f[0][0] == '<') {
			used = strlen(why[e]);
			snprintf(why[e] + used, sizeof(why[e]) - used, "%s%s %s",
				 used ? ", " : "perf: ", f[2], f[0]);
			continue;
		}
		val[e] += strtoll(f[0], NULL, 10);
		have |= 1U << e;
	}
	for (e = 0; e < SC_PERF_NEV; e++)
		if (!(have & (1U << e)) && !why[e][0])
			snprintf(why[e], sizeof(why[e]),
				 "perf printed no count of %s",
				 sc_perf_event[e]);
	return have;
}

/*
 * One perf run of "selfcheck --loop @n": the events it counted, and in
 * @why the reason for each it did not.
 */
static unsigned int sc_perf_once(struct sc *sc, const char *perf,
				 const char *exe, unsigned long n,
				 int64_t *val, char why[][200])
{
	char out[4096], nbuf[32], line[160];
	char *argv[] = {
		(char *)perf, "stat", "-x,", "-e", "instructions:u,branches:u",
		"--", (char *)exe, "selfcheck", "--loop", nbuf, NULL,
	};
	int status, e;

	snprintf(nbuf, sizeof(nbuf), "%lu", n);
	status = sc_run_capture(argv, out, sizeof(out));
	if (sc->verbose)
		printf("  perf stat ... --loop %lu: status %d\n%s", n, status,
		       out);
	if (status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status))
		return sc_perf_parse(out, val, why);

	sc_first_line(out, line, sizeof(line));
	for (e = 0; e < SC_PERF_NEV; e++) {
		if (status < 0)
			snprintf(why[e], sizeof(why[e]), "cannot run perf: %s",
				 strerror(errno));
		else
			snprintf(why[e], sizeof(why[e]),
				 "perf failed (status %d)%s%s",
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1,
				 line[0] ? ": " : "", line);
	}
	return 0;
}

/* perf cannot compare anything, for the reason given. */
static void __printf(2, 3)
sc_perf_fail(struct sc_perf *res, const char *fmt, ...)
{
	va_list ap;
	int e;

	for (e = 0; e < SC_PERF_NEV; e++) {
		res->ok[e] = false;
		va_start(ap, fmt);
		vsnprintf(res->why[e], sizeof(res->why[e]), fmt, ap);
		va_end(ap);
	}
}

/* Keep the reason of each event @ok had and @got has not. */
static void sc_perf_lost(struct sc_perf *res, unsigned int ok,
			 unsigned int got, char why[][200])
{
	int e;

	for (e = 0; e < SC_PERF_NEV; e++)
		if ((ok & ~got) & (1U << e))
			memcpy(res->why[e], why[e], sizeof(res->why[e]));
}

/*
 * perf's counts of the same loops, taken before pctr programs anything:
 * while any thread has pctr counters, perf cannot have them.
 */
void sc_perf_measure(struct sc *sc, struct sc_perf *res)
{
	int64_t d[SC_PERF_NEV][SC_PERF_REPS], v1[SC_PERF_NEV], v2[SC_PERF_NEV];
	unsigned int r, got, ok = (1U << SC_PERF_NEV) - 1;
	bool use[SC_PERF_REPS] = { false };
	char perf[PATH_MAX], exe[PATH_MAX];
	char why[SC_PERF_NEV][200];
	ssize_t n;
	int e;

	if (!sc->use_perf) {
		sc_perf_fail(res, "--no-perf");
		return;
	}
	if (!sc_which("perf", perf, sizeof(perf))) {
		sc_perf_fail(res, "perf not found in PATH");
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		sc_perf_fail(res, "cannot find this program's executable: %s",
			     strerror(errno));
		return;
	}
	exe[n] = '\0';

	memset(res, 0, sizeof(*res));
	for (r = 0; r < SC_PERF_REPS && ok; r++) {
		got = sc_perf_once(sc, perf, exe, sc->n1, v1, why);
		sc_perf_lost(res, ok, got, why);
		ok &= got;
		if (!ok)
			break;
		got = sc_perf_once(sc, perf, exe, sc->n2, v2, why);
		sc_perf_lost(res, ok, got, why);
		ok &= got;
		for (e = 0; e < SC_PERF_NEV; e++)
			d[e][r] = v2[e] - v1[e];
		use[r] = true;
	}
	for (e = 0; e < SC_PERF_NEV; e++) {
		res->ok[e] = ok & (1U << e);
		if (res->ok[e])
			res->delta[e] = sc_median(d[e], use, SC_PERF_REPS);
	}
}

/* pctr's count of the loop difference @m against perf's event @e. */
void sc_perf_compare(struct sc *sc, const struct sc_perf *perf,
			    int e, const struct sc_meas *m)
{
	char name[48];
	int64_t ours;
	double off;

	snprintf(name, sizeof(name), "perf %s", sc_perf_event[e]);
	if (!perf->ok[e]) {
		sc_skip(sc, name, "%s", perf->why[e]);
		return;
	}
	if (!m->wanted || m->skip || m->slot < 0 || m->err || !m->used) {
		sc_skip(sc, name, "pctr has no count to compare");
		return;
	}
	ours = m->v[sc_pick(m, NULL)];
	off = sc_rel(ours, perf->delta[e]);
	sc_result(sc, sc_abs(off) <= SC_TOL_PERF, name,
		  "%lld (pctr %s) vs %lld (perf) (tolerance %g%%, off by %+.4f%%)",
		  (long long)ours, m->event, (long long)perf->delta[e],
		  SC_TOL_PERF * 100, off * 100);
}
