/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running the project's tools from a selftest (cputrack_test,
 * stat_test): the tools beside the selftests (../tools/ from this
 * program, as the VM bench and the build tree lay them out), through sh,
 * as root or another user, their standard output captured.  Include
 * after pctr_test.h.
 */
#ifndef PCTR_RUN_TOOL_H
#define PCTR_RUN_TOOL_H

#include <sys/wait.h>
#include <unistd.h>

/* The tools' directory: this program's, then "../tools". */
static inline const char *tools_dir(void)
{
	static char tools[4096];
	char *slash;
	ssize_t n;

	if (tools[0])
		return tools;
	n = readlink("/proc/self/exe", tools, sizeof(tools) - 32);
	if (n < 0)
		return ".";
	tools[n] = '\0';
	slash = strrchr(tools, '/');
	if (slash)
		*slash = '\0';
	strcat(tools, "/../tools");
	return tools;
}

/*
 * Run "TOOL ARGS" (@tool from tools_dir()) through sh as @uid (0: as we
 * are), its standard output in @out (@len bytes, NUL-terminated); its
 * exit status, 128 + the signal that ended it, or -1.
 */
static inline int run_tool(uid_t uid, const char *tool, const char *args,
			   char *out, size_t len)
{
	char cmd[8192];
	size_t got = 0;
	int p[2], st;
	ssize_t n;
	pid_t pid;

	snprintf(cmd, sizeof(cmd), "%s/%s %s", tools_dir(), tool, args);
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		if (uid && (setgid(uid) || setuid(uid)))
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

#endif /* PCTR_RUN_TOOL_H */
