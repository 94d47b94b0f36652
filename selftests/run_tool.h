/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running the project's programs from a selftest (cputrack_test,
 * stat_test, sys_test): the tools beside the selftests (../tools/ from
 * this program, as the VM bench and the build tree lay them out) or the
 * selftests' own helpers, through sh, as root or another user, their
 * output captured.  Include after pctr_test.h.
 */
#ifndef PCTR_RUN_TOOL_H
#define PCTR_RUN_TOOL_H

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* This program's directory. */
static inline const char *self_dir(void)
{
	static char dir[4096];
	char *slash;
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n < 0)
		return ".";
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return dir;
}

/* The tools' directory: "../tools" from this program's. */
static inline const char *tools_dir(void)
{
	static char tools[4096 + 16];

	if (!tools[0])
		snprintf(tools, sizeof(tools), "%s/../tools", self_dir());
	return tools;
}

#define RUN_STDERR	1	/* standard error into @out too */

/*
 * Run "DIR/PROG ARGS" through sh as @uid (0: as we are), its standard
 * output (and with RUN_STDERR its standard error) in @out (@len bytes,
 * NUL-terminated); its exit status, 128 + the signal that ended it, or
 * -1.
 */
static inline int run_in(const char *dir, uid_t uid, int flags,
			 const char *prog, const char *args, char *out,
			 size_t len)
{
	char cmd[8192];
	size_t got = 0;
	int p[2], st;
	ssize_t n;
	pid_t pid;

	if (snprintf(cmd, sizeof(cmd), "%s/%s %s", dir, prog, args) >=
	    (int)sizeof(cmd) || pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(p[1], 1);
		if (flags & RUN_STDERR)
			dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		if (uid && (setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			_exit(99);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(98);
	}
	close(p[1]);
	while (got + 1 < len && (n = read(p[0], out + got, len - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	close(p[0]);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Run "TOOL ARGS", @tool from tools_dir(), as run_in() does. */
static inline int run_tool(uid_t uid, const char *tool, const char *args,
			   char *out, size_t len)
{
	return run_in(tools_dir(), uid, 0, tool, args, out, len);
}

/* A command line a tool must refuse, and what its message says. */
struct refusal {
	const char	*args, *msg;
};

/*
 * Each of @n refusals: "@tool @sub ARGS CMD 2>&1", CMD what @cmd gives
 * for it (a command that makes the file @ran, or ""), exits 2, a usage
 * error, with its message in the output, and CMD never runs.
 */
static inline void expect_refusals(struct __test_metadata *_metadata,
				   const char *tool, const char *sub,
				   const struct refusal *r, unsigned int n,
				   const char *(*cmd)(const struct refusal *),
				   const char *ran)
{
	char out[8192], args[512];
	struct stat sb;
	unsigned int i;

	unlink(ran);
	for (i = 0; i < n; i++) {
		snprintf(args, sizeof(args), "%s %s %s 2>&1", sub, r[i].args,
			 cmd(&r[i]));
		EXPECT_EQ(2, run_tool(0, tool, args, out, sizeof(out)))
			TH_LOG("%s %s: %s", tool, args, out);
		EXPECT_NE(NULL, strstr(out, r[i].msg))
			TH_LOG("%s %s: %s", tool, args, out);
		EXPECT_NE(0, stat(ran, &sb)) TH_LOG("%s %s", tool, args);
	}
}

#endif /* PCTR_RUN_TOOL_H */
