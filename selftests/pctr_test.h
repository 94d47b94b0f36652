/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the pctr selftests.  The tests use the kernel's own
 * kselftest harness, taken from the installed Linux source at build time.
 */
#ifndef _PCTR_TEST_H
#define _PCTR_TEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/pctr.h>
#include "pctr.h"

/*
 * The harness may be in one file of a program only: a program's other
 * files (notify_bind_stress_test's stressors) define PCTR_TEST_NO_HARNESS
 * and go without it and the helpers that use it.
 */
#ifndef PCTR_TEST_NO_HARNESS
#include "kselftest_harness.h"
#endif

#define PCTR_DEV	"/dev/pctr"
#define PCTR_SYSFS	"/sys/class/misc/pctr"
#define CPU_BINDINGS	PCTR_SYSFS "/cpu_bindings"

/*
 * The simulated PMU (pmu=sim) counts TSC ticks: event 0x01 and fixed
 * counter 0 one per tick, event 0x02 and fixed counter 1 one per
 * sim_div ticks.
 */
#define EV_TICKS	0x01
#define EV_DIV		0x02
#define FIX_TICKS	PCTR_FIXED(0)
#define FIX_DIV		PCTR_FIXED(1)
#define FN(ev)		PCTR_FN(ev, 0, PCTR_U | PCTR_K | PCTR_EN)
#define FIXFN		(PCTR_U | PCTR_K | PCTR_EN)
/* User mode only: what an unprivileged caller may count. */
#define FNU(ev)		PCTR_FN(ev, 0, PCTR_U | PCTR_EN)
#define FIXFNU		(PCTR_U | PCTR_EN)

/* ioctl(@fd, ...) fails, with errno @err. */
#define EXPECT_IOCTL_ERR(err, fd, ...)				\
	do {							\
		errno = 0;					\
		EXPECT_EQ(-1, ioctl(fd, __VA_ARGS__));		\
		EXPECT_EQ(err, errno);				\
	} while (0)

/* Read a small text file into buf, without the trailing newline. */
static inline int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static inline long read_long(const char *path)
{
	char buf[64];

	if (read_text(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 0);
}

/* Write @text to the file at @path (sysfs, tracefs): 0, or -1. */
static inline int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* The state letter of process @pid (/proc/@pid/stat), or 0. */
static inline char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_text(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Wait up to 5 s for process @pid to sleep (state S): 0, or -1 if it did
 * not or is gone.  A fixed sleep is no proof that it got there, on a host
 * that may not run the guest for a while.  A child that ended is left to
 * be reaped, its status said.
 */
static inline int wait_asleep(pid_t pid)
{
	siginfo_t si;
	int i;

	for (i = 0; i < 5000; i++) {
		switch (proc_state(pid)) {
		case 'S':
			return 0;
		case 0:
			return -1;
		case 'Z':
			memset(&si, 0, sizeof(si));
			if (!waitid(P_PID, pid, &si,
				    WEXITED | WNOHANG | WNOWAIT) && si.si_pid)
				fprintf(stderr, "# process %d ended: %s %d\n",
					(int)pid, si.si_code == CLD_EXITED ?
					"exit" : "signal", si.si_status);
			return -1;
		}
		usleep(1000);
	}
	return -1;
}

/* The whole kernel log (needs root or dmesg_restrict=0), malloc'd. */
static inline char *kernel_log(void)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf;
	int n;

	if (len <= 0)
		return NULL;
	buf = calloc(1, len + 1);
	if (!buf)
		return NULL;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* The last kernel log line containing needle, copied to out. */
static inline int last_log_line(const char *needle, char *out, size_t len)
{
	char *log = kernel_log(), *p, *hit = NULL, *end;

	if (!log)
		return -1;
	for (p = strstr(log, needle); p; p = strstr(p + 1, needle))
		hit = p;
	if (hit) {
		while (hit > log && hit[-1] != '\n')
			hit--;
		end = strchr(hit, '\n');
		if (end)
			*end = '\0';
		snprintf(out, len, "%s", hit);
	}
	free(log);
	return hit ? 0 : -1;
}

/* Does this (virtual) CPU offer architectural perfmon or AMD counters? */
static inline int cpu_has_flag(const char *flag)
{
	char *line = NULL, pat[64];
	size_t cap = 0;
	int found = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	snprintf(pat, sizeof(pat), " %s", flag);
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5))
			continue;
		found = strstr(line, pat) != NULL;
		break;
	}
	free(line);
	fclose(f);
	return found;
}

static inline void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Wait up to 2 s for a number in sysfs to drop to 0 (work runs late). */
static inline long wait_zero(const char *path)
{
	long v = read_long(path);
	int i;

	for (i = 0; i < 200 && v != 0; i++) {
		usleep(10000);
		v = read_long(path);
	}
	return v;
}

/* --- loading and unloading the module (root) ------------------------ */

/* The module file: $PCTR_KO, else where the VM bench puts it. */
static inline const char *module_path(void)
{
	const char *p = getenv("PCTR_KO");

	return p && *p ? p : "/pctr/pctr.ko";
}

static inline int load(const char *params)
{
	int fd = open(module_path(), O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

static inline int unload(void)
{
	return syscall(SYS_delete_module, "pctr", O_NONBLOCK);
}

/*
 * The bench's debug kernel (KASAN, lockdep, kmemleak): kmemleak's object
 * cache is in /proc/slabinfo.  Every kernel path costs several times as
 * much there, which some bounds allow for.
 */
static inline int debug_kernel(void)
{
	char line[256];
	FILE *f = fopen("/proc/slabinfo", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "kmemleak_object ", 16);
	fclose(f);
	return found;
}

static inline int loaded(void)
{
	return access("/sys/module/pctr", F_OK) == 0;
}

/* Unload, waiting for exiting threads of earlier tests to let go. */
static inline int unload_wait(void)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (!loaded() || !unload())
			return 0;
		usleep(10000);
	}
	return -1;
}

/* Unload and load again with @params: 0, or -1 (errno). */
static inline int reload(const char *params)
{
	return unload_wait() ?: load(params);
}

/*
 * Switch-ins since load (sysfs "starts"): those that kept the registers
 * as they were, and those that loaded them anew.
 */
static inline void starts(unsigned long *kept, unsigned long *loaded)
{
	char buf[128];

	*kept = *loaded = 0;
	if (!read_text(PCTR_SYSFS "/starts", buf, sizeof(buf)))
		sscanf(buf, "kept %lu loaded %lu", kept, loaded);
}

/*
 * In a child: exec this program again as "@argv0 @flag @fd", which its
 * main() answers; exit 21 if the exec fails.
 */
static inline void __attribute__((noreturn))
exec_self(const char *argv0, const char *flag, int fd)
{
	char fdarg[16];

	snprintf(fdarg, sizeof(fdarg), "%d", fd);
	execl("/proc/self/exe", argv0, flag, fdarg, (char *)NULL);
	_exit(21);
}

/* --- time ------------------------------------------------------------- */

static inline double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline double thread_cpu_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Busy for @sec of wall time, or of this thread's CPU time. */
static inline void spin(double sec)
{
	double end = now_sec() + sec;
	volatile unsigned long x = 0;

	while (now_sec() < end)
		x++;
}

static inline void spin_cpu(double sec)
{
	double end = thread_cpu_sec() + sec;
	volatile unsigned long x = 0;

	while (thread_cpu_sec() < end)
		x++;
}

/*
 * In a thread: a libpctr handle of its own counting @fn in slot 0, its
 * page mapped (so rdpmc is allowed in this thread), after 5 ms of this
 * thread's CPU time; NULL if any of that fails.
 */
static inline pctr_t *own_page(uint64_t fn)
{
	pctr_t *mine = pctr_open(O_RDWR);

	if (mine && (pctr_set(mine, 0, fn) || pctr_map(mine))) {
		pctr_close(mine);
		mine = NULL;
	}
	if (mine)
		spin_cpu(0.005);
	return mine;
}

/* The count of own_page()'s handle @mine, closed then. */
static inline uint64_t own_page_end(pctr_t *mine)
{
	uint64_t v = pctr_read(mine, 0);

	pctr_release(mine);
	pctr_close(mine);
	return v;
}

/* pctr_read() of slot 0 and pctr_vtsc(), each with the errno it left. */
struct handle_reads {
	uint64_t	v, t;
	int		e_v, e_t;
};

static inline void handle_read(pctr_t *p, struct handle_reads *r)
{
	errno = 0;
	r->v = pctr_read(p, 0);
	r->e_v = errno;
	errno = 0;
	r->t = pctr_vtsc(p);
	r->e_t = errno;
}

/* Did handle_read() find both reads refused, -1 and EINVAL each? */
static inline int reads_refused(const struct handle_reads *r)
{
	return r->v == (uint64_t)-1 && r->e_v == EINVAL &&
	       r->t == (uint64_t)-1 && r->e_t == EINVAL;
}

static inline int pctr_get_info(int fd, struct pctr_info *info)
{
	memset(info, 0xa5, sizeof(*info));
	return ioctl(fd, PCIOCINFO, info);
}

/* PCIOCINFO's capabilities (PCTR_CAP_*); 0 if the call fails. */
static inline uint32_t pctr_caps(int fd)
{
	struct pctr_info info;

	return pctr_get_info(fd, &info) ? 0 : info.pi_caps;
}

/* Does the module run the Intel or the AMD backend? */
static inline int x86_backend(int fd)
{
	struct pctr_info info;

	if (pctr_get_info(fd, &info))
		return 0;
	return info.pi_backend_id == PCTR_BACKEND_INTEL ||
	       info.pi_backend_id == PCTR_BACKEND_AMD;
}

/* No function and no value in any slot of a PCIOCRD result. */
static inline int st_clean(const struct pctrst *st)
{
	int i;

	for (i = 0; i < PCTR_NUM; i++)
		if (st->pctr_fn[i] || st->pctr_hwc[i])
			return 0;
	return 1;
}

static inline pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

/* Wait for child @pid: its exit status, 128 + the signal that killed it, or -1. */
static inline int wait_exit(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Stop a seized tracee and detach, re-injecting the signal of a
 * signal-delivery-stop: what a library does after PCIOCBIND.
 */
static inline int interrupt_detach(pid_t pid)
{
	int status, sig;
	pid_t w;

	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0)) {
		fprintf(stderr, "# interrupt_detach(%d): PTRACE_INTERRUPT: %s\n",
			(int)pid, strerror(errno));
		return -1;
	}
	w = waitpid(pid, &status, __WALL);
	if (w != pid || !WIFSTOPPED(status)) {
		fprintf(stderr, "# interrupt_detach(%d): waitpid: %d, status %#x (%s)\n",
			(int)pid, (int)w, status, w < 0 ? strerror(errno) : "not a stop");
		return -1;
	}
	sig = (status >> 16) == PTRACE_EVENT_STOP ? 0 : WSTOPSIG(status);
	if (ptrace(PTRACE_DETACH, pid, 0, (void *)(long)sig)) {
		fprintf(stderr, "# interrupt_detach(%d): PTRACE_DETACH (status %#x): %s\n",
			(int)pid, status, strerror(errno));
		return -1;
	}
	return 0;
}

/* --- the ioctls, in a line each ----------------------------------- */

/* A call's errno, or 0: for calls that return 0 or -1. */
static inline int err_of(int ret)
{
	return ret ? errno : 0;
}

/* An ioctl's errno, or 0. */
static inline int ioc(int fd, unsigned long req, void *arg)
{
	return err_of(ioctl(fd, req, arg));
}

/* PCIOCS64: program @slot with @fn (0: free it).  0 or -1 (errno). */
static inline int set(int fd, unsigned int slot, uint64_t fn)
{
	return ioctl(fd, PCIOCS64(slot), &fn);
}

/* PCIOCPRESET: 0 or -1 (errno). */
static inline int preset(int fd, unsigned int slot, uint64_t value)
{
	struct pctr_preset ps = { .ps_ctr = slot, .ps_value = value };

	return ioctl(fd, PCIOCPRESET, &ps);
}

/* PCIOCRD into @st (filled with 0xa5 first): 0, or the errno. */
static inline int rd(int fd, struct pctrst *st)
{
	memset(st, 0xa5, sizeof(*st));
	return ioc(fd, PCIOCRD, st);
}

/* PCIOCRD's result, all zero if the call failed. */
static inline struct pctrst rd_now(int fd)
{
	struct pctrst st;

	if (rd(fd, &st))
		memset(&st, 0, sizeof(st));
	return st;
}

/* PCIOCSOPTS: 0, or the errno. */
static inline int sopts(int fd, uint32_t flags, uint32_t signo)
{
	struct pctr_opts o = { .po_flags = flags, .po_signo = signo };

	return ioc(fd, PCIOCSOPTS, &o);
}

/* PCIOCGOPTS into @o (filled with 0xa5 first): 0, or the errno. */
static inline int gopts(int fd, struct pctr_opts *o)
{
	memset(o, 0xa5, sizeof(*o));
	return ioc(fd, PCIOCGOPTS, o);
}

/* --- signals ---------------------------------------------------------- */

/* Handle @sig with @fn (SA_SIGINFO, system calls restarted). */
static inline int on_siginfo(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

/* Block (SIG_BLOCK) or unblock (SIG_UNBLOCK) @sig in this thread. */
static inline int sig_mask(int sig, int how)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return pthread_sigmask(how, &set, NULL);
}

static inline int sig_pending(int sig)
{
	sigset_t p;

	sigemptyset(&p);
	sigpending(&p);
	return sigismember(&p, sig);
}

/* Take a pending blocked @sig: its si_code, or -1 if none. */
static inline int take_pending(int sig, siginfo_t *si)
{
	struct timespec zero = { 0, 0 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	memset(si, 0, sizeof(*si));
	if (sigtimedwait(&set, si, &zero) != sig)
		return -1;
	return si->si_code;
}

/* --- threads ---------------------------------------------------------- */

/*
 * Run @fn in @n threads at once, the i-th on @args + i * @size, and wait
 * for them all: 0, or -1 if a thread could not be made.
 */
static inline int run_threads(int n, void *(*fn)(void *), void *args,
			      size_t size)
{
	pthread_t *t = calloc(n, sizeof(*t));
	int i, made, ret = 0;

	if (!t)
		return -1;
	for (made = 0; made < n; made++)
		if (pthread_create(&t[made], NULL, fn,
				   (char *)args + made * size)) {
			ret = -1;
			break;
		}
	for (i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	free(t);
	return ret;
}

/* Run @fn(@arg) in a thread of its own and wait for it: 0 or -1. */
static inline int run_thread(void *(*fn)(void *), void *arg)
{
	return run_threads(1, fn, arg, 0);
}

/* --- sample rings ------------------------------------------------------ */

/*
 * The record at *@tail of one CPU's ring data @data (@size bytes, a power
 * of two), below @head, and *@tail moved past it; NULL at the head or at
 * a malformed record (its size below 8, not a multiple of 8, or past the
 * head), which *@bad counts and *@tail skips to the head.
 */
static inline struct pctr_sample_rec *ring_next(char *data, uint64_t size,
						uint64_t *tail, uint64_t head,
						uint64_t *bad)
{
	struct pctr_sample_rec *rec;

	if (*tail >= head)
		return NULL;
	rec = (void *)(data + (*tail & (size - 1)));
	if (rec->sr_size < 8 || rec->sr_size % 8 ||
	    rec->sr_size > head - *tail) {
		(*bad)++;
		*tail = head;
		return NULL;
	}
	*tail += rec->sr_size;
	return rec;
}

/* --- a fixture that reloads the module (root) --------------------------- */

/*
 * The parameters the bench loaded the module with (testing/vm/init writes
 * them), so a test that reloads it can restore them.
 */
static inline void bench_params(char *buf, size_t len)
{
	if (read_text("/pctr/params.used", buf, len))
		buf[0] = '\0';
}

struct reloaded {
	char		params[256];	/* the bench's, restored afterwards */
	int		fd;		/* /dev/pctr, read-write, or -1 */
	uint64_t	khz;		/* the TSC rate PCIOCINFO gives */
	int		ready;		/* the setup got to its end */
};

#ifndef PCTR_TEST_NO_HARNESS
/*
 * Reload the module with @params and open it; remember what to restore.
 * With PCTR_NO_SIM in the environment a reload onto the simulated PMU
 * skips: the emulated-PMU guests set it (testing/check), as the plain
 * guests run those tests already.
 *
 * The 6.1 harness runs the test even after a SKIP in the setup: tests
 * and teardowns check m->ready.
 */
static inline void reload_with(struct __test_metadata *_metadata,
			       struct reloaded *m, const char *params)
{
	struct pctr_info info;

	m->fd = -1;
	m->ready = 0;
	if (geteuid() != 0)
		SKIP(return, "reloading the module needs root");
	if (getenv("PCTR_NO_SIM") && strstr(params, "pmu=sim"))
		SKIP(return, "pmu=sim: the simulator's tests run in the plain guests (PCTR_NO_SIM)");
	if (access(module_path(), R_OK))
		SKIP(return, "no module file at %s", module_path());
	bench_params(m->params, sizeof(m->params));
	ASSERT_EQ(0, unload_wait());
	ASSERT_EQ(0, load(params)) TH_LOG("insmod %s: %s", params,
					  strerror(errno));
	m->fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, m->fd);
	ASSERT_EQ(0, pctr_get_info(m->fd, &info));
	m->khz = info.pi_tsc_khz;
	ASSERT_NE(0, m->khz);
	m->ready = 1;
}

/*
 * End this thread's context (it holds the module), close m->fd, and
 * load the module again with the bench's parameters.
 */
static inline void reload_restore(struct __test_metadata *_metadata,
				  struct reloaded *m)
{
	int fd;

	if (!m->ready)
		return;
	fd = open(PCTR_DEV, O_RDWR);
	if (fd >= 0) {
		EXPECT_EQ(0, ioctl(fd, PCIOCRELEASE));
		close(fd);
	}
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
	EXPECT_EQ(0, unload_wait());
	EXPECT_EQ(0, load(m->params));
}

/* handle_read() refused both reads: -1 and EINVAL each. */
static inline void expect_reads_refused(struct __test_metadata *_metadata,
					const struct handle_reads *r)
{
	EXPECT_EQ((uint64_t)-1, r->v);
	EXPECT_EQ(EINVAL, r->e_v);
	EXPECT_EQ((uint64_t)-1, r->t);
	EXPECT_EQ(EINVAL, r->e_t);
}
#endif /* PCTR_TEST_NO_HARNESS */

/*
 * A fixture @name whose tests run on the module loaded with @params:
 * self->m.fd is open on it, self->m.khz the TSC rate.
 */
#define RELOAD_FIXTURE(name, params)					\
	FIXTURE(name) {							\
		struct reloaded m;					\
	};								\
	FIXTURE_SETUP(name) { reload_with(_metadata, &self->m, params); } \
	FIXTURE_TEARDOWN(name) { reload_restore(_metadata, &self->m); }

/*
 * The first line of a test on such a fixture: nothing to do if the setup
 * was skipped (the 6.1 harness runs the test anyway).
 */
#define RETURN_IF_SKIPPED() do {					\
	if (!self->m.ready)						\
		return;							\
} while (0)

/* --- one test body on each backend -------------------------------------- */

/*
 * A backend for a fixture with a variant per backend (BACKEND_VARIANTS):
 * the simulated PMU, or the Intel or AMD backend that pmu=auto finds on a
 * CPU with that PMU (the bench's emulated PMUs, testing/vm/run
 * --emulated-pmu, or real hardware).  Where the PMU is absent the
 * variant's tests skip, saying so.
 *
 * @insns counts a thread's work: instructions retired (on the sim, ticks
 * / sim_div).  @cycles counts its time: core cycles (the sim's ticks).
 * @fix_insns is the fixed counter that counts what @insns does, or -1.
 * @exact: user-mode instructions of a loop are counted exactly, 2 per
 * iteration of run_insns() (the emulated PMU under -icount, as real
 * hardware counts them; the sim counts time).
 */
struct backend {
	const char	*name;
	const char	*params;	/* the module's, for this variant */
	uint32_t	id;		/* PCTR_BACKEND_* */
	const char	*flag;		/* its /proc/cpuinfo flag, or NULL */
	uint8_t		insns;
	uint8_t		cycles;
	int		fix_insns;
	int		exact;
};

#define BACKEND_SIM(params)						\
	{ "sim", params, PCTR_BACKEND_SIM, NULL, EV_DIV, EV_TICKS,	\
	  PCTR_FIXED(1), 0 }
#define BACKEND_INTEL							\
	{ "intel", "pmu=auto", PCTR_BACKEND_INTEL, "arch_perfmon", 0xc0, \
	  0x3c, PCTR_FIXED(0), 1 }
#define BACKEND_AMD							\
	{ "amd", "pmu=auto", PCTR_BACKEND_AMD, "perfctr_core", 0xc0, 0x76, \
	  -1, 1 }

/*
 * Variants sim (the module loaded with @simparams), intel and amd of
 * fixture @f: variant->be is the backend.
 */
#define BACKEND_VARIANTS(f, simparams)					\
	FIXTURE_VARIANT(f) { struct backend be; };			\
	FIXTURE_VARIANT_ADD(f, sim) { .be = BACKEND_SIM(simparams) };	\
	FIXTURE_VARIANT_ADD(f, intel) { .be = BACKEND_INTEL };		\
	FIXTURE_VARIANT_ADD(f, amd) { .be = BACKEND_AMD }

/* @be's PMU is absent here: why, or NULL if it may be present. */
static inline const char *backend_absent(const struct backend *be)
{
	if (be->flag && !cpu_has_flag(be->flag))
		return "no such PMU in this CPU";
	return NULL;
}

#ifndef PCTR_TEST_NO_HARNESS
/*
 * reload_with() for backend @be: skips, restoring the bench's module,
 * unless the module then runs that backend.
 */
static inline void backend_reload(struct __test_metadata *_metadata,
				  struct reloaded *m,
				  const struct backend *be)
{
	struct pctr_info info;

	m->fd = -1;
	m->ready = 0;
	if (backend_absent(be))
		SKIP(return, "no %s PMU here (%s is not in /proc/cpuinfo; testing/vm/run --emulated-pmu %s has one)",
		     be->name, be->flag, be->name);
	reload_with(_metadata, m, be->params);
	if (!m->ready)
		return;
	ASSERT_EQ(0, pctr_get_info(m->fd, &info));
	if (info.pi_backend_id != be->id) {
		reload_restore(_metadata, m);
		m->ready = 0;
		SKIP(return, "no %s PMU here (pmu=auto found %s)", be->name,
		     info.pi_backend);
	}
}
#endif /* PCTR_TEST_NO_HARNESS */

/*
 * @n iterations of dec; jnz: 2 @n user-mode instructions, @n branches.
 * (sparc64, for the cross-build: subcc, bne and its delay slot, 3 @n.)
 */
static inline void run_insns(unsigned long n)
{
#if defined(__sparc__)
	__asm__ volatile("1: subcc %0, 1, %0\n\tbne,pt %%xcc, 1b\n\t nop"
			 : "+r"(n) : : "cc");
#else
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#endif
}

#endif /* _PCTR_TEST_H */
