// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded, seeded fuzzer of /dev/pctr, on the simulated PMU with
 * overflow interrupts: every ioctl of uapi/linux/pctr.h with valid,
 * random and hostile arguments (NULL, unmapped, kernel addresses,
 * misaligned, running into an unmapped page, huge sizes, random command
 * numbers of pctr's type), mmap with random offsets, lengths and
 * protections, descriptors closed while other threads use them, fork
 * (children as root or as nobody) and exec in between, CPU and thread
 * bindings, overflow signals, threads that end and are replaced, and
 * rmmod tried all along.
 *
 * What must hold: every failing call gives an errno Documentation/abi.rst
 * documents for it (rules[] below; anything else is a failure, printed
 * with the call); the kernel stays quiet (the VM bench fails the run on
 * any WARNING, BUG, Oops or lockdep report); afterwards no context and no
 * CPU binding is left, the module unloads, and a clean program counts
 * correctly.
 *
 *   fuzz_test [--seed N] [--calls N] [--seconds S] [--threads N]
 *             [--hotplug 1]
 *
 * --seconds runs for that long instead of a number of calls; --hotplug
 * takes the last CPU offline and online again all along.  Without
 * --calls, PCTR_FUZZ_CALLS in the environment sets the number of calls
 * (run_all passes no arguments: make check's debug-kernel guest, where
 * every call costs several times as much, makes fewer).
 *
 * The seed is printed; the same seed replays the same calls in each
 * thread (with --threads 1, one thread and no racing helpers, the same
 * run).  Documentation/testing.rst says how to reproduce a failure.
 */
#include "pctr_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#define FUZZ_PARAMS	"pmu=sim sim_width=24 sim_div=64 sim_overflow=1"
#define POOL		8	/* descriptors the threads share */
#define MAXTHREADS	256
#define NBAD		20	/* undocumented errnos described */
#define KERNEL_ADDR	0xffffffff81000000UL
#define NERRNO		160	/* errnos counted by kind (Linux's end at 133) */

static uint64_t opt_seed;
static long opt_calls = 100000;
static double opt_seconds;
static int opt_threads = 4;
static int opt_hotplug;

/* --- the errnos each call may give ---------------------------------- */

/*
 * Any call on any descriptor may find it closed (EBADF) or another file
 * in its place (ENOTTY, or ENODEV from mmap()); any pointer may be bad
 * (EFAULT).
 */
#define E_ANY		EBADF, ENOTTY, EFAULT
/*
 * A call that programs the caller's counters (abi.rst, "Errors", in
 * its order): EACCES for what the caller may not count (kernel mode
 * without privilege).
 */
#define E_PROG		EPERM, ENODEV, EINVAL, EOPNOTSUPP, EBUSY, EAGAIN, \
			ENOMEM, EACCES

enum arg { A_NONE, A_SLOT_FN, A_PCTRST, A_INFO, A_PCR, A_PRESET, A_EVENT,
	   A_BIND, A_OPTS, A_RING, A_SAMPLE };

/* One command: its argument, and the errnos abi.rst gives it. */
struct rule {
	const char	*name;
	unsigned long	cmd;
	enum arg	arg;
	int		errs[16];	/* 0-terminated */
};

/*
 * Add a command here with the errnos abi.rst documents for it; a
 * command not listed gets ENOTTY (or EBUSY, first, on a bound
 * descriptor).
 */
static const struct rule rules[] = {
	{ "PCIOCRD", PCIOCRD, A_PCTRST, { E_ANY, EAGAIN } },
	{ "PCIOCINFO", PCIOCINFO, A_INFO, { E_ANY } },
	{ "PCIOCGETPCR", PCIOCGETPCR, A_PCR, { E_ANY, EAGAIN } },
	{ "PCIOCSETPCR", PCIOCSETPCR, A_PCR, { E_ANY, E_PROG } },
	{ "PCIOCZERO", PCIOCZERO, A_NONE, { E_ANY, E_PROG } },
	{ "PCIOCPRESET", PCIOCPRESET, A_PRESET, { E_ANY, E_PROG } },
	{ "PCIOCEVENT", PCIOCEVENT, A_EVENT, { E_ANY, EINVAL, ENOENT } },
	{ "PCIOCRELEASE", PCIOCRELEASE, A_NONE, { E_ANY, EBUSY } },
	{ "PCIOCBIND", PCIOCBIND, A_BIND,
	  { E_ANY, E_PROG, ENXIO, ESRCH, EINTR } },
	{ "PCIOCSOPTS", PCIOCSOPTS, A_OPTS, { E_ANY, E_PROG } },
	{ "PCIOCGOPTS", PCIOCGOPTS, A_OPTS, { E_ANY, EAGAIN } },
	{ "PCIOCRESTART", PCIOCRESTART, A_NONE, { E_ANY, E_PROG } },
	/* On a thread-bound descriptor, also the binding's own (abi.rst). */
	{ "PCIOCENABLE", PCIOCENABLE, A_NONE, { E_ANY, E_PROG, EINTR, ESRCH } },
	{ "PCIOCDISABLE", PCIOCDISABLE, A_NONE, { E_ANY, E_PROG, EINTR, ESRCH } },
	/* The SPARC PCR as one word: EOPNOTSUPP on x86 and the sim. */
	{ "PCIOCGETPCR64", PCIOCGETPCR64, A_SLOT_FN,
	  { E_ANY, EAGAIN, EOPNOTSUPP } },
	{ "PCIOCSETPCR64", PCIOCSETPCR64, A_SLOT_FN, { E_ANY, E_PROG } },
	/* Perfmon's cache flush: any descriptor, no argument. */
	{ "PCIOCFLUSH", PCIOCFLUSH, A_NONE, { E_ANY, EINTR, ENOMEM } },
	/* Sampling: the ring once per descriptor, then a slot into it. */
	{ "PCIOCRING", PCIOCRING, A_RING, { E_ANY, E_PROG } },
	{ "PCIOCSAMPLE", PCIOCSAMPLE, A_SAMPLE,
	  { E_ANY, E_PROG, ENXIO, EINTR, ESRCH } },
	/*
	 * PCIOCS64(n) (and PCIOCS(n), its low half) for every n; slots that
	 * do not exist are EINVAL.
	 */
	{ "PCIOCS", PCIOCS64(0), A_SLOT_FN, { E_ANY, E_PROG } },
};
#define NRULES		(sizeof(rules) / sizeof(rules[0]))
#define RULE_SET	(NRULES - 1)

static const int unknown_errs[] = { E_ANY, EBUSY, 0 };
/* mmap() of the counter page (abi.rst, "The counter page"). */
static const int mmap_errs[] = { EBADF, ENODEV, EACCES, EPERM, EINVAL,
				 EBUSY, EAGAIN, ENOMEM, EOVERFLOW, 0 };
static const int mprotect_errs[] = { EACCES, EINVAL, ENOMEM, 0 };
/* rmmod while in use. */
static const int rmmod_errs[] = { EAGAIN, EBUSY, EWOULDBLOCK, 0 };

/* The errnos of command @cmd. */
static const int *errs_of(unsigned long cmd)
{
	unsigned int i;

	for (i = 0; i < NRULES; i++)
		if (rules[i].cmd == cmd)
			return rules[i].errs;
	return unknown_errs;
}

static int allowed(const int *errs, int e)
{
	for (; *errs; errs++)
		if (*errs == e)
			return 1;
	return 0;
}

/* --- what the threads share (MAP_SHARED: children report too) -------- */

struct shared {
	atomic_long	calls;		/* made so far */
	atomic_int	stop;
	atomic_long	ok, failed, signals, restarts, maps, forks, execs;
	atomic_long	binds, rmmods, reloads, closes;
	atomic_long	threads;	/* worker threads started (churned) */
	atomic_long	hotplugs;	/* CPU offline/online cycles */
	atomic_long	errnos[NERRNO];	/* failed calls by errno */
	atomic_int	nbad;
	char		bad[NBAD][200];
	atomic_int	pool[POOL];
};

static struct shared *S;
static int in_child;		/* a forked child: leaves the pool alone */
static double t_end;
/*
 * Every thread of the run waits here until all are made: on a slow
 * guest, making 200 threads while the first ones already fuzz took the
 * main thread longer than --seconds, and the rmmod racer and the
 * hotplugger, made last, never ran.
 */
static pthread_barrier_t all_made;
static int ncpu;
static long psz;

/* splitmix64: small, and the same stream from the same seed. */
static uint64_t rnd64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rnd(uint64_t *s, unsigned int n)
{
	return rnd64(s) % n;
}

static int stopping(void)
{
	if (atomic_load(&S->stop))
		return 1;
	if (opt_seconds > 0)
		return now_sec() > t_end;
	return atomic_load(&S->calls) >= opt_calls;
}

/* A failing call whose errno is not documented: counted and described. */
static void bad_errno(const char *call, const char *how, int fd, int e)
{
	int i = atomic_fetch_add(&S->nbad, 1);

	if (i < NBAD)
		snprintf(S->bad[i], sizeof(S->bad[i]),
			 "[%d] %s (%s) on fd %d: %s (errno %d)", gettid_(),
			 call, how, fd, strerror(e), e);
}

/*
 * Account for a call's result (@ret, and errno, read first thing)
 * against its documented errnos.
 */
static void judge(long ret, const int *errs, const char *call,
		  const char *how, int fd)
{
	int e = errno;

	atomic_fetch_add(&S->calls, 1);
	if (ret != -1) {
		atomic_fetch_add(&S->ok, 1);
		return;
	}
	atomic_fetch_add(&S->failed, 1);
	atomic_fetch_add(&S->errnos[e > 0 && e < NERRNO ? e : 0], 1);
	if (!allowed(errs, e))
		bad_errno(call, how, fd, e);
}

/* --- arguments ------------------------------------------------------- */

/*
 * Each thread's argument area: a page, then an unmapped one, so an
 * argument can run into it.
 */
struct area {
	char		*buf;
	char		*hole;
};

static int area_init(struct area *a)
{
	a->buf = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->buf == MAP_FAILED)
		return -1;
	a->hole = a->buf + psz;
	return munmap(a->hole, psz);
}

/* A plausible counter function: most valid, some not. */
static uint64_t some_fn(uint64_t *s, int fixed)
{
	static const uint64_t fns[] = {
		FN(EV_DIV), FN(EV_TICKS), FN(EV_DIV) | PCTR_INT,
		PCTR_FN(EV_DIV, 0, PCTR_U | PCTR_EN),
		PCTR_FN(EV_TICKS, 0, PCTR_K | PCTR_EN), FN(EV_DIV) | PCTR_ANY,
		PCTR_FN(EV_DIV, 0, PCTR_EN), FN(0x7f), FN(EV_DIV) | PCTR_E,
		0,
	};

	switch (rnd(s, 8)) {
	case 0:
		return rnd64(s);
	case 1:
		return fixed ? FIXFN | PCTR_INT : FN(EV_DIV);
	case 2:
		return fixed ? PCTR_U | PCTR_EN : FN(EV_TICKS) | PCTR_INT;
	case 3:
		return fixed ? FIXFN : FN(EV_DIV);
	default:
		return fns[rnd(s, sizeof(fns) / sizeof(fns[0]))];
	}
}

static unsigned int some_slot(uint64_t *s)
{
	switch (rnd(s, 6)) {
	case 0:
		return rnd(s, PCTR_NUM + 8);
	case 1:
		return FIX_TICKS + rnd(s, 3);
	default:
		return rnd(s, 5);
	}
}

/* A valid-looking argument of kind @arg in @p (at least a page). */
static void valid_arg(uint64_t *s, enum arg arg, void *p, pid_t target)
{
	struct pctr_preset *ps = p;
	struct pctr_event *ev = p;
	struct pctr_bind *b = p;
	struct pctr_opts *o = p;
	struct pctr_pcr *pcr = p;
	struct pctr_ring_attr *ra = p;
	struct pctr_sample_attr *sa = p;
	static const int signos[] = { 0, SIGIO, SIGUSR1, SIGUSR2, 64, 65,
				      SIGKILL, SIGSTOP, -1 };
	unsigned int i;

	memset(p, 0, 1024);
	switch (arg) {
	case A_SLOT_FN:
		*(uint64_t *)p = some_fn(s, 0);
		break;
	case A_PCR:
		for (i = 0; i < 4; i++)
			pcr->pcr_evtsel[i] = rnd(s, 2) ? some_fn(s, 0) : 0;
		pcr->pcr_fixed_ctrl = rnd(s, 4) ? 0x33 : rnd64(s);
		break;
	case A_PRESET:
		ps->ps_ctr = some_slot(s);
		ps->ps_value = rnd(s, 2) ? -(uint64_t)(100 + rnd(s, 5000)) :
					   rnd64(s);
		ps->ps_flags = rnd(s, 8) ? 0 : rnd64(s);
		break;
	case A_EVENT:
		ev->pe_index = rnd(s, 8) ? rnd(s, 12) : rnd64(s);
		ev->pe_flags = rnd(s, 8) ? 0 : 1;
		break;
	case A_BIND:
		b->pb_kind = rnd(s, 8) ? PCTR_BIND_CPU + rnd(s, 2) : rnd(s, 9);
		b->pb_id = b->pb_kind == PCTR_BIND_THREAD && target > 0 ?
			   target : rnd(s, 4) ? rnd(s, ncpu + 2) : rnd64(s);
		b->pb_fn[0] = some_fn(s, 0);
		b->pb_fn[FIX_DIV] = rnd(s, 2) ? FIXFN : some_fn(s, 1);
		b->pb_preset[0] = rnd(s, 4) ? 0 : rnd64(s);
		b->pb_flags = rnd(s, 10) ? 0 : 1;
		break;
	case A_RING:
		ra->ra_pages = rnd(s, 8) ? 1U << rnd(s, 4) : (uint32_t)rnd64(s);
		ra->ra_watermark = rnd(s, 2) ? 0 : rnd(s, 1 << 16);
		ra->ra_reserved[0] = rnd(s, 10) ? 0 : 1;
		break;
	case A_SAMPLE:
		sa->sa_slot = some_slot(s);
		sa->sa_flags = rnd(s, 8) ? rnd(s, 4) : (uint32_t)rnd64(s);
		sa->sa_fn = some_fn(s, 0);
		sa->sa_period = rnd(s, 4) ? 1000 + rnd(s, 100000) : rnd64(s);
		sa->sa_depth = rnd(s, 200);
		sa->sa_reserved0 = rnd(s, 10) ? 0 : 1;
		break;
	case A_OPTS:
		o->po_flags = rnd(s, 4) ? rnd(s, 2) : rnd64(s);
		o->po_signo = signos[rnd(s, sizeof(signos) / sizeof(signos[0]))];
		o->po_reserved[1] = rnd(s, 10) ? 0 : 1;
		break;
	default:
		break;
	}
}

static const char *const how_names[] = {
	"valid", "random bytes", "NULL", "unmapped", "kernel address",
	"misaligned", "into a hole", "huge address",
};

/* An argument for @r: valid, random or hostile.  *@how says which. */
static void *some_arg(uint64_t *s, struct area *a, enum arg arg,
		      pid_t target, const char **how)
{
	unsigned int k = rnd(s, 16), i;
	char *p;

	if (k >= 8)
		k = 0;				/* valid, half the time */
	*how = how_names[k];
	switch (k) {
	case 0:
		valid_arg(s, arg, a->buf, target);
		return a->buf;
	case 1:
		for (i = 0; i < 1024; i += 8)
			*(uint64_t *)(a->buf + i) = rnd64(s);
		return a->buf;
	case 2:
		return NULL;
	case 3:
		return a->hole;
	case 4:
		return (void *)(KERNEL_ADDR + rnd(s, 4096));
	case 5:
		/*
		 * Built aligned and moved: a misaligned store of our own
		 * would fault on CPUs without unaligned access (SIGBUS on
		 * sparc64); only the kernel is to read it misaligned.
		 */
		p = a->buf + 1 + rnd(s, 7);
		valid_arg(s, arg, a->buf, target);
		memmove(p, a->buf, 1024);
		return p;
	case 6:
		return a->hole - 1 - rnd(s, 64);
	default:
		return (void *)(uintptr_t)(rnd(s, 2) ? ~0UL - rnd(s, 64) :
					    0x7ffffffff000UL);
	}
}

/* --- the calls ------------------------------------------------------- */

/* Overflow signals: restart from the handler, now and then. */
static __thread int t_fd = -1;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int e = errno;

	if (si->si_code == PCTR_SI_OVERFLOW) {
		atomic_fetch_add(&S->signals, 1);
		if (t_fd >= 0 && !ioctl(t_fd, PCIOCRESTART))
			atomic_fetch_add(&S->restarts, 1);
	} else if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
		   sig == SIGFPE || sig == SIGABRT || sig == SIGSYS) {
		signal(sig, SIG_DFL);		/* a real fault: die of it */
	}
	errno = e;
}

/* A descriptor from the pool (maybe closed by now), or a new one. */
static int pool_fd(uint64_t *s)
{
	int i = rnd(s, POOL), fd = atomic_load(&S->pool[i]), nfd;

	if (fd >= 0)
		return fd;
	nfd = open(PCTR_DEV, rnd(s, 4) ? O_RDWR : O_RDONLY);
	if (nfd < 0 || in_child)
		return nfd;		/* -1: the module is out, rmmod won */
	if (!atomic_compare_exchange_strong(&S->pool[i], &fd, nfd)) {
		close(nfd);
		return fd;
	}
	return nfd;
}

/* Close a pool descriptor, maybe while another thread uses it. */
static void op_close(uint64_t *s)
{
	int fd = atomic_exchange(&S->pool[rnd(s, POOL)], -1);

	if (fd >= 0) {
		judge(close(fd), (const int[]){ EBADF, 0 }, "close",
		      "pool", fd);
		atomic_fetch_add(&S->closes, 1);
	}
}

static void op_ioctl(uint64_t *s, struct area *a, pid_t target)
{
	const struct rule *r;
	unsigned long cmd;
	const char *how;
	char name[48];
	void *arg;
	int fd = pool_fd(s), k = rnd(s, 20);

	if (fd < 0)
		return;
	t_fd = fd;
	if (k == 0) {
		/* A random command of pctr's type, any size and direction. */
		cmd = _IOC(rnd(s, 4), PCTR_IOC_MAGIC, rnd(s, 256),
			   rnd(s, 3) ? rnd(s, 512) : rnd(s, 1 << 14));
		for (r = rules; r < rules + NRULES; r++)
			if (r->cmd == cmd)
				break;
		if (r == rules + NRULES && (_IOC_NR(cmd) < PCTR_IOC_SET_BASE ||
		    _IOC_NR(cmd) >= PCTR_IOC_SET_BASE + PCTR_NUM ||
		    (cmd != PCIOCS(_IOC_NR(cmd) - PCTR_IOC_SET_BASE) &&
		     cmd != PCIOCS64(_IOC_NR(cmd) - PCTR_IOC_SET_BASE)))) {
			arg = some_arg(s, a, A_NONE, target, &how);
			snprintf(name, sizeof(name), "ioctl 0x%lx", cmd);
			judge(ioctl(fd, cmd, arg), unknown_errs, name,
			      how, fd);
			return;
		}
	}
	r = &rules[rnd(s, NRULES)];
	cmd = r->cmd;
	if (r == &rules[RULE_SET])
		cmd = (rnd(s, 4) ? PCIOCS64(0) : PCIOCS(0)) +
		      (rnd(s, 8) ? some_slot(s) : rnd(s, 32));
	arg = some_arg(s, a, r->arg, target, &how);
	if (r->arg == A_SLOT_FN && how == how_names[0] &&
	    _IOC_NR(cmd) - PCTR_IOC_SET_BASE >= PCTR_FIXED_BASE)
		*(uint64_t *)arg = some_fn(s, 1);
	if (r->arg == A_NONE && rnd(s, 2))
		arg = NULL;
	judge(ioctl(fd, cmd, arg), r->errs, r->name, how, fd);
	if (cmd == PCIOCBIND && how == how_names[0])
		atomic_fetch_add(&S->binds, 1);
}

static void op_mmap(uint64_t *s)
{
	static const size_t lens[] = { PCTR_PAGE_SIZE, PCTR_PAGE_SIZE,
				       2 * PCTR_PAGE_SIZE, 1, 0,
				       1UL << 40 };
	int fd = pool_fd(s), prot, flags;
	off_t off;
	size_t len;
	void *p;

	if (fd < 0)
		return;
	len = lens[rnd(s, sizeof(lens) / sizeof(lens[0]))];
	prot = rnd(s, 2) ? PROT_READ : rnd(s, 8);
	flags = rnd(s, 4) ? MAP_SHARED : MAP_PRIVATE;
	off = rnd(s, 2) ? 0 : rnd(s, 2) ? (off_t)psz * rnd(s, 4) :
	      (off_t)(rnd64(s) & ~(uint64_t)(psz - 1) & INT64_MAX);
	p = mmap(NULL, len, prot, flags, fd, off);
	judge(p == MAP_FAILED ? -1 : 0, mmap_errs, "mmap",
	      "random", fd);
	if (p == MAP_FAILED)
		return;
	atomic_fetch_add(&S->maps, 1);
	if (prot & PROT_READ)
		(void)*(volatile uint32_t *)p;
	if (rnd(s, 2)) {
		judge(mprotect(p, len, PROT_READ | PROT_WRITE),
		      mprotect_errs, "mprotect", "to write", fd);
	}
	munmap(p, len);
}

/* Calls in a forked child: as root or as nobody; then exit or exec. */
static void op_fork(uint64_t *s, struct area *a)
{
	uint64_t cs = rnd64(s);
	pid_t pid;
	int i;

	atomic_fetch_add(&S->forks, 1);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		in_child = 1;
		if (rnd(&cs, 2) && setresuid(65534, 65534, 65534))
			_exit(1);
		for (i = 0; i < 20; i++)
			op_ioctl(&cs, a, 0);
		if (rnd(&cs, 2)) {
			atomic_fetch_add(&S->execs, 1);
			execl("/proc/self/exe", "fuzz_test", "--exit",
			      (char *)NULL);
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

/*
 * The whole sequence abi.rst gives for a thread binding, on a spinning
 * child: seize, bind, detach, then read, and the child is killed.
 */
static void op_thread_bind(uint64_t *s, struct area *a)
{
	int fd = pool_fd(s), i;
	pid_t pid;

	if (fd < 0)
		return;
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		volatile unsigned long n = 0;

		for (;;)
			n++;
	}
	if (!ptrace(PTRACE_SEIZE, pid, 0, 0)) {
		for (i = 0; i < 3; i++)
			op_ioctl(s, a, pid);
		interrupt_detach(pid);
	}
	for (i = 0; i < 3; i++)
		op_ioctl(s, a, pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, __WALL);
}

/*
 * Arm an overflow signal: slot 1 notifies a few thousand events from
 * now, and the thread runs into it (or not: its context may be bound,
 * invalidated or gone by then).
 */
static void op_overflow(uint64_t *s)
{
	uint64_t fn = FN(EV_DIV) | PCTR_INT;
	struct pctr_preset ps = { .ps_ctr = 1 };
	int fd = pool_fd(s);

	if (fd < 0)
		return;
	t_fd = fd;
	ps.ps_value = -(uint64_t)(500 + rnd(s, 5000));
	judge(ioctl(fd, PCIOCS64(1), &fn), errs_of(PCIOCS64(0)), "PCIOCS",
	      "arming", fd);
	judge(ioctl(fd, PCIOCPRESET, &ps), errs_of(PCIOCPRESET), "PCIOCPRESET",
	      "arming", fd);
	spin(0.0005);
}

/* One random call, or a random thing between calls. */
static void one_op(uint64_t *s, struct area *a)
{
	unsigned int k = rnd(s, 1000);

	if (k < 860)
		op_ioctl(s, a, 0);
	else if (k < 880)
		op_overflow(s);
	else if (k < 940)
		op_mmap(s);
	else if (k < 995)
		op_close(s);
	else if (k < 997)
		op_fork(s, a);
	else if (k < 998)
		pin_to_cpu(rnd(s, ncpu));	/* migrate */
	else
		op_thread_bind(s, a);
}

/* --- threads ---------------------------------------------------------- */

struct worker {
	uint64_t	seed;
	int		calls;		/* then the thread ends */
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	struct area a;
	int i;

	if (area_init(&a))
		return NULL;
	for (i = 0; i < w->calls && !stopping(); i++)
		one_op(&w->seed, &a);
	/* Leave the context to thread exit, or end it. */
	if (rnd(&w->seed, 2) && t_fd >= 0)
		ioctl(t_fd, PCIOCRELEASE);
	munmap(a.buf, psz);
	return NULL;
}

/* Slot @i's threads: each lives for a while and is replaced. */
static void *spawner(void *arg)
{
	uint64_t seed = opt_seed ^ (0x1000193ULL * ((uintptr_t)arg + 1));
	struct worker w;
	pthread_t t;

	pthread_barrier_wait(&all_made);
	while (!stopping()) {
		w.seed = rnd64(&seed);
		w.calls = 100 + rnd(&seed, 2000);
		if (pthread_create(&t, NULL, worker, &w))
			break;
		atomic_fetch_add(&S->threads, 1);
		pthread_join(t, NULL);
	}
	return NULL;
}

/* rmmod all along: refused while in use; when it wins, load again. */
static void *rmmod_racer(void *arg)
{
	pthread_barrier_wait(&all_made);
	while (!stopping()) {
		usleep(3000);
		if (unload() == 0) {
			atomic_fetch_add(&S->reloads, 1);
			if (load(FUZZ_PARAMS))
				bad_errno("insmod after rmmod", FUZZ_PARAMS, -1,
					  errno);
		} else if (!allowed(rmmod_errs, errno)) {
			bad_errno("rmmod", "while in use", -1, errno);
		}
		atomic_fetch_add(&S->rmmods, 1);
	}
	return NULL;
}

/* The last CPU goes offline and comes back, all along. */
static void *hotplugger(void *arg)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 ncpu - 1);
	fd = open(path, O_WRONLY);
	pthread_barrier_wait(&all_made);
	if (fd < 0)
		return NULL;
	while (!stopping()) {
		if (write(fd, "0", 1) == 1) {
			usleep(20000);
			if (write(fd, "1", 1) != 1)
				bad_errno("CPU online", path, fd, errno);
			else
				atomic_fetch_add(&S->hotplugs, 1);
		}
		usleep(50000);
	}
	close(fd);
	return NULL;
}

/* --- options ----------------------------------------------------------- */

static void parse_args(int argc, char **argv)
{
	const char *env = getenv("PCTR_FUZZ_CALLS");
	int i;

	opt_seed = (uint64_t)time(NULL) * 0x9e3779b1u ^ getpid();
	if (env && *env)
		opt_calls = strtol(env, NULL, 0);
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--seed"))
			opt_seed = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--calls"))
			opt_calls = strtol(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--seconds"))
			opt_seconds = strtod(argv[i + 1], NULL);
		else if (!strcmp(argv[i], "--threads"))
			opt_threads = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--hotplug"))
			opt_hotplug = atoi(argv[i + 1]);
	}
	if (opt_threads < 1)
		opt_threads = 1;
	if (opt_threads > MAXTHREADS)
		opt_threads = MAXTHREADS;
}

/* --- the figures -------------------------------------------------------- */

/*
 * One "# fuzz: ..." line per figure on standard output, whatever the
 * verdict, for make soak to collect (Documentation/testing.rst).
 */
static void print_figures(double secs)
{
	char line[1024];
	int e, n = 0;

	ksft_print_msg("fuzz: duration %.0f s, %d threads, seed 0x%llx\n", secs,
		       opt_threads, (unsigned long long)opt_seed);
	ksft_print_msg("fuzz: calls %ld (%ld succeeded, %ld failed, %d undocumented)\n",
		       atomic_load(&S->calls), atomic_load(&S->ok),
		       atomic_load(&S->failed), atomic_load(&S->nbad));
	line[0] = 0;
	for (e = 0; e < NERRNO; e++) {
		long c = atomic_load(&S->errnos[e]);
		const char *name = e ? strerrorname_np(e) : "other";

		if (c && n < (int)sizeof(line))
			n += snprintf(line + n, sizeof(line) - n, " %s %ld",
				      name ? name : "?", c);
	}
	ksft_print_msg("fuzz: errnos%s\n", n ? line : " none");
	ksft_print_msg("fuzz: threads churned %ld, hotplug cycles %ld, rmmod attempts %ld (%ld won)\n",
		       atomic_load(&S->threads), atomic_load(&S->hotplugs),
		       atomic_load(&S->rmmods), atomic_load(&S->reloads));
	ksft_print_msg("fuzz: maps %ld, closes %ld, forks %ld (%ld exec), binds %ld, overflow signals %ld (%ld restarts)\n",
		       atomic_load(&S->maps), atomic_load(&S->closes),
		       atomic_load(&S->forks), atomic_load(&S->execs),
		       atomic_load(&S->binds), atomic_load(&S->signals),
		       atomic_load(&S->restarts));
}

/* --- the test ----------------------------------------------------------- */

RELOAD_FIXTURE(fuzz, FUZZ_PARAMS);

/* After the fuzzing, on a fresh module: counting is exact again. */
static void clean_program_counts(struct __test_metadata *_metadata)
{
	struct pctrst st;
	int fd;

	ASSERT_EQ(0, load(FUZZ_PARAMS));
	fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set(fd, 0, FN(EV_DIV)));
	ASSERT_EQ(0, set(fd, FIX_DIV, FIXFN));
	ASSERT_EQ(0, ioctl(fd, PCIOCZERO));
	spin_cpu(0.3);
	ASSERT_EQ(0, rd(fd, &st));
	EXPECT_EQ(FN(EV_DIV), st.pctr_fn[0]);
	EXPECT_LT(1000, st.pctr_hwc[0]);
	EXPECT_EQ(st.pctr_hwc[FIX_DIV], st.pctr_hwc[0]);
	EXPECT_EQ(0, ioctl(fd, PCIOCRELEASE));
	close(fd);
}

TEST_F_TIMEOUT(fuzz, random_calls, 3600)
{
	pthread_t sp[MAXTHREADS], rm, hp;
	int i, fd, nsp = opt_threads, racer = opt_threads > 1;
	double t0 = now_sec();

	RETURN_IF_SKIPPED();
	if (opt_seconds > 0)
		TH_LOG("for %.0f s", opt_seconds);
	TH_LOG("seed 0x%llx: %ld calls, %d threads (reproduce: fuzz_test --seed 0x%llx%s)",
	       (unsigned long long)opt_seed, opt_calls, nsp,
	       (unsigned long long)opt_seed,
	       nsp > 1 ? "; --threads 1 replays one thread's calls alone" : "");
	ksft_print_msg("fuzz: seed 0x%llx\n", (unsigned long long)opt_seed);
	/* No descriptor of ours holds the module: rmmod may win. */
	close(self->m.fd);
	self->m.fd = -1;
	S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, S);
	memset(S, 0, sizeof(*S));
	for (i = 0; i < POOL; i++)
		atomic_store(&S->pool[i], -1);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	psz = sysconf(_SC_PAGESIZE);
	for (i = 1; i < 65; i++)
		if (i != SIGKILL && i != SIGSTOP && i != 32 && i != 33)
			on_siginfo(i, on_signal);

	ASSERT_EQ(0, pthread_barrier_init(&all_made, NULL, nsp + racer +
					  (opt_hotplug && ncpu > 1) + 1));
	for (i = 0; i < nsp; i++)
		ASSERT_EQ(0, pthread_create(&sp[i], NULL, spawner,
					    (void *)(uintptr_t)i));
	if (racer)
		ASSERT_EQ(0, pthread_create(&rm, NULL, rmmod_racer, NULL));
	if (opt_hotplug && ncpu > 1)
		ASSERT_EQ(0, pthread_create(&hp, NULL, hotplugger, NULL));
	/* --seconds counts from here, all threads made. */
	t_end = now_sec() + opt_seconds;
	pthread_barrier_wait(&all_made);
	for (i = 0; i < nsp; i++)
		pthread_join(sp[i], NULL);
	atomic_store(&S->stop, 1);
	if (racer)
		pthread_join(rm, NULL);
	if (opt_hotplug && ncpu > 1)
		pthread_join(hp, NULL);
	for (i = 0; i < POOL; i++) {
		fd = atomic_exchange(&S->pool[i], -1);
		if (fd >= 0)
			close(fd);
	}

	print_figures(now_sec() - t0);
	for (i = 0; i < atomic_load(&S->nbad) && i < NBAD; i++)
		TH_LOG("undocumented errno: %s", S->bad[i]);
	EXPECT_EQ(0, atomic_load(&S->nbad))
		TH_LOG("reproduce: fuzz_test --seed 0x%llx",
		       (unsigned long long)opt_seed);
	EXPECT_LE(opt_seconds > 0 ? 1 : opt_calls, atomic_load(&S->calls));

	/* Nothing left behind; the module unloads. */
	EXPECT_EQ(0, wait_zero(PCTR_SYSFS "/contexts"));
	EXPECT_EQ(0, wait_zero(CPU_BINDINGS));
	EXPECT_EQ(0, wait_zero(PCTR_SYSFS "/taken"));
	ASSERT_EQ(0, unload_wait());
	EXPECT_FALSE(loaded());
	clean_program_counts(_metadata);
	munmap(S, sizeof(*S));
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return 0;		/* exec'd by a forked child */
	parse_args(argc, argv);
	return test_harness_run(argc, argv);
}
