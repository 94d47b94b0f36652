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

#endif /* PCTR_RUN_TOOL_H */
