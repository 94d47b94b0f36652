// SPDX-License-Identifier: GPL-2.0
/*
 * Who may read the PIC in user mode ("rd %pic", PCR.PRIV clear), run as
 * root in the sun4u guest (the emulated UltraSPARC traps a user PIC
 * access while PRIV is set); the rules' readers are uid 1000:
 *
 *   - a thread counting its own events reads its PIC (the documented
 *     permission: Perfmon programs map no page);
 *   - a thread bound by its tracer (PCIOCBIND) does not: the counts, the
 *     kernel's too if the binder may count them, are the binder's;
 *   - mode=system: once root has set the machine's functions, no process
 *     reads them in user mode, not even one with the device open, unless
 *     pctr was loaded with system_rdpic=1; then every process does,
 *     until the functions are cleared.
 *
 * The module is reloaded for each mode (mode=system, then thread mode
 * as it was).  Output is TAP; exit 0 only if every check passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfmon.h"
#include "tap.h"

#define USER_UID	1000
#define MODULE		"/pctr/pctr.ko"
#define PCR_COUNT	(PCR_S0_INSTR_CNT | PCR_S1_CYCLE_CNT | PCR_USER_TRACE)

/* How a child's "rd %pic" ended: 0 read (and advanced), else why not. */
enum { READ_OK, READ_SIGILL, READ_STILL, READ_SETUP };

static int load(const char *params)
{
	int fd = open(MODULE, O_RDONLY), ret;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

/* Unload, waiting for contexts that end in the background. */
static int unload(void)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (!syscall(SYS_delete_module, "pctr", O_NONBLOCK) ||
		    errno == ENOENT)
			return 0;
		usleep(10000);
	}
	return -1;
}

static int reload(const char *params)
{
	return unload() || load(params) ? -1 : 0;
}

static void sigill_exit(int sig)
{
	(void)sig;
	_exit(READ_SIGILL);
}

/* In a child: drop to uid 1000 (no capabilities left). */
static void become_user(void)
{
	if (setgroups(0, NULL) || setresgid(USER_UID, USER_UID, USER_UID) ||
	    setresuid(USER_UID, USER_UID, USER_UID))
		_exit(READ_SETUP);
}

/* Read the PIC twice: READ_OK if instructions advanced. */
static int read_pic(void)
{
	unsigned long long a, b;

	signal(SIGILL, sigill_exit);
	a = get_pic();
	b = get_pic();
	return extract_pic0(b) > extract_pic0(a) ? READ_OK : READ_STILL;
}

static int child_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/*
 * A child reads the PIC: as uid 1000 if @user, with a descriptor of
 * its own open if @open, counting its own events if @count.
 */
static int child_reads(int user, int open_dev, int count)
{
	unsigned long long pcr = PCR_COUNT;
	pid_t pid;
	int fd;

	pid = tap_fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (user)
			become_user();
		if (open_dev || count) {
			/* Perfmon's device may program read-only. */
			fd = open(count ? "/dev/perfmon" : "/dev/pctr",
				  O_RDONLY);
			if (fd < 0 ||
			    (count && ioctl(fd, PERFMON_SETPCR, &pcr)))
				_exit(READ_SETUP);
		}
		_exit(read_pic());
	}
	return child_status(pid);
}

static const char *how(int r)
{
	switch (r) {
	case READ_OK:
		return "read";
	case READ_SIGILL:
		return "SIGILL";
	case READ_STILL:
		return "read, but the PIC did not advance";
	case READ_SETUP:
		return "its setup failed";
	}
	return "did not exit";
}

static void expect(int got, int want, const char *what)
{
	check(got == want, what);
	if (got != want)
		printf("# %s: %s\n", what, how(got));
}

/* mode=system: root sets the machine's functions; who reads them? */
static void system_mode(int rdpic)
{
	unsigned long long pcr = PCR_COUNT, none = 0;
	int fd, want = rdpic ? READ_OK : READ_SIGILL;
	char what[160];

	fd = open("/dev/pctr", O_RDWR);
	check(fd >= 0 && !ioctl(fd, PCIOCSETPCR64, &pcr),
	      "mode=system: root sets the machine's PCR");
	snprintf(what, sizeof(what), "mode=system%s: a uid 1000 process %s",
		 rdpic ? " system_rdpic=1" : "",
		 rdpic ? "reads the PIC" : "gets SIGILL from rd %pic");
	expect(child_reads(1, 0, 0), want, what);
	snprintf(what, sizeof(what), "mode=system%s: ... with the device open too",
		 rdpic ? " system_rdpic=1" : "");
	expect(child_reads(1, 1, 0), want, what);
	snprintf(what, sizeof(what), "mode=system%s: ... and root, the setter's descriptor open",
		 rdpic ? " system_rdpic=1" : "");
	expect(child_reads(0, 0, 0), want, what);
	check(fd >= 0 && !ioctl(fd, PCIOCSETPCR64, &none),
	      "mode=system: root clears the machine's PCR");
	expect(child_reads(1, 0, 0), READ_SIGILL,
	       "mode=system: functions cleared, rd %pic is SIGILL");
	if (fd >= 0)
		close(fd);
}

/*
 * A uid 1000 child, bound by root (its tracer for the call), reads the
 * PIC once told to.
 */
static void bound_thread(void)
{
	volatile int *go = mmap(NULL, sizeof(*go), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct pctr_bind b = {
		.pb_kind = PCTR_BIND_THREAD,
		.pb_fn = { PCTR_FN(0x1, 0, PCTR_U | PCTR_EN),
			   PCTR_FN(0x0, 0, PCTR_U | PCTR_EN) },
	};
	struct pctrst st;
	int fd, bound, st_wait;
	pid_t pid;

	if (go == MAP_FAILED) {
		check(0, "thread binding: shared memory");
		return;
	}
	*go = 0;
	pid = tap_fork();
	if (pid < 0)
		return;
	if (!pid) {
		become_user();
		while (!*go)
			;
		_exit(read_pic());
	}
	fd = open("/dev/pctr", O_RDWR);
	b.pb_id = pid;
	bound = fd >= 0 && !ptrace(PTRACE_SEIZE, pid, 0, 0) &&
		!ioctl(fd, PCIOCBIND, &b);
	if (!ptrace(PTRACE_INTERRUPT, pid, 0, 0) &&
	    waitpid(pid, &st_wait, 0) == pid)
		ptrace(PTRACE_DETACH, pid, 0, 0);
	check(bound, "thread binding: root binds a uid 1000 thread it traces");
	*go = 1;
	expect(child_status(pid), READ_SIGILL,
	       "thread binding: the bound thread's rd %pic is SIGILL");
	check(fd >= 0 && !ioctl(fd, PCIOCRD, &st) && st.pctr_fn[0],
	      "thread binding: the binder reads the binding");
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	printf("TAP version 13\n");
	if (geteuid()) {
		printf("1..0 # SKIP needs root (reloads pctr, binds, drops to uid %d)\n",
		       USER_UID);
		return 0;
	}
	check(!reload("mode=system"), "load pctr mode=system");
	system_mode(0);
	check(!reload("mode=system system_rdpic=1"),
	      "load pctr mode=system system_rdpic=1");
	system_mode(1);
	check(!reload(""), "load pctr in thread mode");
	expect(child_reads(1, 0, 1), READ_OK,
	       "a uid 1000 thread counting its own events reads its PIC");
	expect(child_reads(1, 1, 0), READ_SIGILL,
	       "a uid 1000 thread with the device open but no counters gets SIGILL");
	bound_thread();
	return tap_done();
}
