// SPDX-License-Identifier: GPL-2.0
/*
 * PCR.PRIV as user space sees it on sparc64 (run in the sun4u guest,
 * whose emulated UltraSPARC traps a user PIC access while PRIV is set):
 * a process without counters gets SIGILL from "rd %pic" and "wr %pic";
 * a thread counting through /dev/perfmon reads its PIC; once its
 * descriptor is closed PRIV is back and a new process traps again.
 * Every check would fail if pctr left PRIV clear for everyone, or never
 * cleared it.
 *
 * Output is TAP; exit 0 only if every check passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfmon.h"
#include "tap.h"

/* How a child that reads (or clears) the PIC ends: its signal, or 0. */
static int child_pic(int write)
{
	pid_t pid;
	int st;

	pid = tap_fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* get_pic() is an asm volatile: it runs, used or not. */
		if (write)
			clr_pic();
		else
			get_pic();
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

int main(void)
{
	unsigned long long pcr = PCR_S0_INSTR_CNT | PCR_S1_CYCLE_CNT |
				 PCR_USER_TRACE, a, b;
	int fd, sig;

	printf("TAP version 13\n");
	sig = child_pic(0);
	check(sig == SIGILL, "no counters: user rd %pic is SIGILL (PRIV set)");
	printf("# rd %%pic without counters: signal %d\n", sig);
	sig = child_pic(1);
	check(sig == SIGILL, "no counters: user wr %pic is SIGILL");

	fd = open("/dev/perfmon", O_RDONLY);
	if (fd < 0) {
		perror("open(/dev/perfmon)");
		tap_done();
		return 1;
	}
	check(ioctl(fd, PERFMON_SETPCR, &pcr) == 0, "PERFMON_SETPCR");
	a = get_pic();
	b = get_pic();
	check(extract_pic0(b) > extract_pic0(a),
	      "while counting: rd %pic works and instructions advance");
	printf("# PIC 0x%llx then 0x%llx\n", a, b);
	close(fd);

	sig = child_pic(0);
	check(sig == SIGILL, "descriptor closed: a new process's rd %pic is SIGILL again");

	return tap_done();
}
