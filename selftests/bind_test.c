// SPDX-License-Identifier: GPL-2.0
/*
 * PCIOCBIND: binding a descriptor to the counters of a CPU (whatever
 * runs there) or of a thread of another process (which the caller
 * traces), on the simulated PMU.  The errors, the privileges, how CPU
 * bindings invalidate per-thread counting, release and close, and that
 * a binding holds the module.
 *
 * The sim counts TSC ticks: event 0x01 and fixed counter 0 one per tick,
 * event 0x02 and fixed counter 1 one per sim_div (1000) ticks.
 */
#include "pctr_test.h"

#include <grp.h>
#include <poll.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"

#define SIM_DIV		1000

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif

static int g_fd = -1;

/* A binding of @kind to @id: @ev in slot 0 and slot @fix, U|K. */
static void bind_init(struct pctr_bind *b, uint32_t kind, uint32_t id,
		      uint64_t ev, unsigned int fix)
{
	memset(b, 0, sizeof(*b));
	b->pb_kind = kind;
	b->pb_id = id;
	b->pb_fn[0] = FN(ev);
	b->pb_fn[fix] = FIXFN;
}

/* A CPU binding: event 0x01 in slot 0, fixed counter 0. */
static void cpu_bind_init(struct pctr_bind *b, unsigned int cpu)
{
	bind_init(b, PCTR_BIND_CPU, cpu, EV_TICKS, FIX_TICKS);
}

/* A thread binding: event 0x02 in slot 0, fixed counter 1. */
static void thread_bind_init(struct pctr_bind *b, pid_t tid)
{
	bind_init(b, PCTR_BIND_THREAD, tid, EV_DIV, FIX_DIV);
}

/* The same for an unprivileged binder: user mode only. */
static void thread_bind_init_user(struct pctr_bind *b, pid_t tid)
{
	thread_bind_init(b, tid);
	b->pb_fn[0] = FNU(EV_DIV);
	b->pb_fn[FIX_DIV] = FIXFNU;
}

static int do_bind(int fd, struct pctr_bind *b)
{
	return ioc(fd, PCIOCBIND, b);
}

/* The highest possible CPU number, from sysfs ("0-3"). */
static int max_possible_cpu(void)
{
	char buf[128], *p;

	if (read_text("/sys/devices/system/cpu/possible", buf, sizeof(buf)))
		return sysconf(_SC_NPROCESSORS_CONF) - 1;
	p = strrchr(buf, '-');
	if (!p)
		p = strrchr(buf, ',');
	return atoi(p ? p + 1 : buf);
}

/* --- ptrace ------------------------------------------------------------ */

/* Seize, bind, detach: the bind's errno, or 0.  -1: ptrace failed. */
static int traced_bind(int fd, pid_t pid, struct pctr_bind *b)
{
	int err;

	if (ptrace(PTRACE_SEIZE, pid, 0, 0))
		return -1;
	err = do_bind(fd, b);
	if (interrupt_detach(pid))
		return -1;
	return err;
}

/* CPU time of (single-threaded) process @pid, seconds. */
static double proc_cpu_sec(pid_t pid)
{
	struct timespec ts;
	clockid_t cid;

	if (clock_getcpuclockid(pid, &cid) || clock_gettime(cid, &ts))
		return -1;
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- a child that spins and obeys ------------------------------------- */

enum { OP_NONE, OP_TRY_SET, OP_OWN, OP_DISABLE, OP_ENABLE, OP_EXIT };

struct chan {
	volatile int	ready;
	volatile int	op;
	volatile int	cmd, done;
	volatile int	err[4];
	volatile uint64_t val[4];
};

static struct chan *chan_new(void)
{
	struct chan *ch = mmap(NULL, sizeof(*ch), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (ch == MAP_FAILED)
		return NULL;
	memset((void *)ch, 0, sizeof(*ch));
	return ch;
}

/*
 * The child: running all the time (a binding waits for its target to
 * run), in a loop without system calls.  @own_first: program a counter
 * of its own first.
 */
static void __attribute__((noreturn)) child_loop(int fd, struct chan *ch,
						 int own_first)
{
	volatile unsigned long x = 0;
	struct pctrst st;
	int seen = 0;

	if (own_first)
		ch->err[3] = set(fd, 0, FN(EV_DIV)) ? errno : 0;
	ch->ready = 1;
	for (;;) {
		while (ch->cmd == seen)
			x++;
		seen = ch->cmd;
		__sync_synchronize();
		switch (ch->op) {
		case OP_TRY_SET:
			/* Programming while bound by another process. */
			ch->err[0] = set(fd, 1, FN(EV_DIV)) ? errno : 0;
			ch->err[1] = ioctl(fd, PCIOCZERO) ? errno : 0;
			ch->err[2] = rd(fd, &st);
			ch->val[0] = st.pctr_fn[0];
			ch->val[1] = st.pctr_hwc[0];
			break;
		case OP_OWN:
			/* Programming its own counters. */
			ch->err[0] = set(fd, 2, FN(EV_TICKS)) ? errno : 0;
			spin(0.02);
			ch->err[1] = rd(fd, &st);
			ch->val[0] = st.pctr_fn[2];
			ch->val[1] = st.pctr_hwc[2];
			ch->val[2] = st.pctr_fn[0];
			break;
		case OP_DISABLE:
			/* Marking what to count, as under Solaris cputrack. */
			ch->err[0] = ioctl(fd, PCIOCDISABLE) ? errno : 0;
			break;
		case OP_ENABLE:
			ch->err[0] = ioctl(fd, PCIOCENABLE) ? errno : 0;
			break;
		case OP_EXIT:
			_exit(0);
		}
		__sync_synchronize();
		ch->done = seen;
	}
}

static int command(struct chan *ch, int op)
{
	double end = now_sec() + 20;

	ch->op = op;
	__sync_synchronize();
	ch->cmd++;
	while (ch->done != ch->cmd) {
		if (now_sec() > end)
			return -1;
		usleep(1000);
	}
	return 0;
}

/* Tell the child to exit (it never answers). */
static void send_exit(struct chan *ch)
{
	ch->op = OP_EXIT;
	__sync_synchronize();
	ch->cmd++;
}

static int wait_ready(struct chan *ch)
{
	double end = now_sec() + 20;

	while (!ch->ready) {
		if (now_sec() > end)
			return -1;
		usleep(1000);
	}
	return 0;
}

/* --- the fixture ---------------------------------------------------- */

#define MAXKIDS	8
#define MAXFDS	8

FIXTURE(bind) {
	struct reloaded m;
	int	ncpu;
	pid_t	kids[MAXKIDS];
	int	nkids;
	int	fds[MAXFDS];
	int	nfds;
	int	offline;	/* a CPU this test took offline, or -1 */
};

FIXTURE_SETUP(bind)
{
	self->offline = -1;
	reload_with(_metadata, &self->m, "pmu=sim sim_div=1000");
	g_fd = self->m.fd;
	self->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	EXPECT_EQ(0, read_long(CPU_BINDINGS));
}

FIXTURE_TEARDOWN(bind)
{
	char path[96];
	int i, fd;

	if (!self->m.ready)
		return;
	for (i = 0; i < self->nkids; i++) {
		kill(self->kids[i], SIGKILL);
		waitpid(self->kids[i], NULL, __WALL);
	}
	for (i = 0; i < self->nfds; i++)
		close(self->fds[i]);
	if (self->offline >= 0) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/online", self->offline);
		fd = open(path, O_WRONLY);
		if (fd >= 0) {
			EXPECT_EQ(1, write(fd, "1", 1));
			close(fd);
		}
	}
	/* This thread's context (maybe invalidated) holds the module. */
	reload_restore(_metadata, &self->m);
}

/*
 * Every test starts here: it does nothing if the setup was skipped (the
 * 6.1 harness runs it anyway), and skips on fewer than @n CPUs.
 */
#define TEST_START(n) do {						\
	RETURN_IF_SKIPPED();						\
	if (self->ncpu < (n))						\
		SKIP(return, "%d CPU(s), %d needed", self->ncpu, (n));	\
} while (0)

/* A new descriptor, closed by the teardown if the test does not. */
static int new_fd(struct __test_metadata *_metadata, FIXTURE_DATA(bind) *self)
{
	int fd = open(PCTR_DEV, O_RDWR);

	ASSERT_LE(0, fd);
	if (self->nfds < MAXFDS)
		self->fds[self->nfds++] = fd;
	return fd;
}

/* Close one of new_fd()'s descriptors now. */
static void close_fd(FIXTURE_DATA(bind) *self, int fd)
{
	int i;

	for (i = 0; i < self->nfds; i++)
		if (self->fds[i] == fd) {
			self->fds[i] = self->fds[--self->nfds];
			break;
		}
	close(fd);
}

static void add_kid(FIXTURE_DATA(bind) *self, pid_t pid)
{
	if (pid > 0 && self->nkids < MAXKIDS)
		self->kids[self->nkids++] = pid;
}

static void reap_kid(FIXTURE_DATA(bind) *self, pid_t pid, int *status)
{
	int i;

	waitpid(pid, status, __WALL);
	for (i = 0; i < self->nkids; i++)
		if (self->kids[i] == pid) {
			self->kids[i] = self->kids[--self->nkids];
			break;
		}
}

/* A child spinning forever, pinned to @cpu (-1: anywhere). */
static pid_t spinner(FIXTURE_DATA(bind) *self, int cpu)
{
	volatile unsigned long x = 0;
	pid_t pid = fork();

	if (pid == 0) {
		if (cpu >= 0)
			pin_to_cpu(cpu);
		for (;;)
			x++;
	}
	add_kid(self, pid);
	return pid;
}

/* A commanded child (see child_loop). */
/* An obedient child, ready, and its channel in *@chp. */
static pid_t obedient(struct __test_metadata *_metadata,
		      FIXTURE_DATA(bind) *self, struct chan **chp, int own_first)
{
	struct chan *ch = chan_new();
	pid_t pid;

	ASSERT_NE(NULL, ch);
	pid = fork();
	if (pid == 0)
		child_loop(self->m.fd, ch, own_first);
	ASSERT_LT(0, pid);
	add_kid(self, pid);
	ASSERT_EQ(0, wait_ready(ch));
	*chp = ch;
	return pid;
}

/* Tell obedient child @pid to exit and reap it: it exits normally. */
static void end_obedient(struct __test_metadata *_metadata,
			 FIXTURE_DATA(bind) *self, struct chan *ch, pid_t pid)
{
	int status;

	send_exit(ch);
	reap_kid(self, pid, &status);
	EXPECT_TRUE(WIFEXITED(status));
}

/* What a fresh thread (no context of its own) can do. */
struct fresh {
	int		rd_err, getpcr_err, set_err, setpcr_err;
	int		rd2_err, release_err;
	struct pctrst	st, st2;
	struct pctr_pcr	pcr;
};

static void *fresh_thread(void *arg)
{
	struct fresh *f = arg;
	struct pctr_pcr pcr;

	f->rd_err = rd(g_fd, &f->st);
	memset(&f->pcr, 0xa5, sizeof(f->pcr));
	f->getpcr_err = ioc(g_fd, PCIOCGETPCR, &f->pcr);
	f->set_err = set(g_fd, 0, FN(EV_DIV)) ? errno : 0;
	memset(&pcr, 0, sizeof(pcr));
	pcr.pcr_evtsel[0] = FN(EV_DIV);
	pcr.pcr_evtsel[1] = FN(EV_DIV);
	f->setpcr_err = ioc(g_fd, PCIOCSETPCR, &pcr);
	spin_cpu(0.02);
	f->rd2_err = rd(g_fd, &f->st2);
	f->release_err = ioctl(g_fd, PCIOCRELEASE) ? errno : 0;
	return NULL;
}

static int run_fresh(struct fresh *f)
{
	pthread_t t;

	memset(f, 0, sizeof(*f));
	if (pthread_create(&t, NULL, fresh_thread, f))
		return -1;
	return pthread_join(t, NULL);
}

/* --- CPU bindings ------------------------------------------------------------ */

TEST_F_TIMEOUT(bind, cpu_counts_whatever_runs, 60)
{
	const uint64_t pre = 1ULL << 40;
	struct pctrst a, b, c;
	struct pctr_bind bd;
	struct pctr_preset ps = { .ps_ctr = 0, .ps_value = 1 };
	struct pctr_opts o = { 0 };
	struct pctr_pcr pcr;
	uint64_t t0, t1, t2, t3, tb;
	double ratio;
	void *m;
	int fd;

	TEST_START(2);
	/* CPU 1 busy with another process: that is what it counts. */
	ASSERT_LT(0, spinner(self, 1));
	fd = new_fd(_metadata, self);
	cpu_bind_init(&bd, 1);
	bd.pb_preset[0] = pre;
	tb = rdtsc();
	ASSERT_EQ(0, do_bind(fd, &bd));
	EXPECT_EQ(1, read_long(CPU_BINDINGS));

	t0 = rdtsc();
	ASSERT_EQ(0, rd(fd, &a));
	t1 = rdtsc();
	usleep(100000);
	t2 = rdtsc();
	ASSERT_EQ(0, rd(fd, &b));
	t3 = rdtsc();
	EXPECT_EQ(FN(EV_TICKS), a.pctr_fn[0]);
	EXPECT_EQ(FIXFN, a.pctr_fn[FIX_TICKS]);
	EXPECT_EQ(0, a.pctr_fn[1]);
	/* From the preset; both count ticks from the same moment. */
	EXPECT_LE(pre, a.pctr_hwc[0]);
	EXPECT_GE(t1 - tb, a.pctr_hwc[0] - pre);
	EXPECT_EQ(a.pctr_hwc[0] - pre, a.pctr_hwc[FIX_TICKS]);
	EXPECT_EQ(b.pctr_hwc[0] - pre, b.pctr_hwc[FIX_TICKS]);
	ratio = (double)(b.pctr_hwc[0] - a.pctr_hwc[0]) /
		((t3 + t2) / 2.0 - (t1 + t0) / 2.0);
	TH_LOG("busy CPU 1: %llu ticks counted in %llu..%llu TSC ticks (%.3f)",
	       (unsigned long long)(b.pctr_hwc[0] - a.pctr_hwc[0]),
	       (unsigned long long)(t2 - t1), (unsigned long long)(t3 - t0),
	       ratio);
	/*
	 * Each read took its value somewhere between the TSC readings
	 * around it.  Those windows are short on an idle host, but the
	 * guest's vCPUs share one host thread and a read that needs CPU 1
	 * waits for its turn, which a loaded host stretches to a good part
	 * of the 100 ms: compared with the midpoints, the count was off by
	 * more than 10%.  So bound it by the windows: at least the time
	 * between the reads (less the switch path of the spinner's
	 * preemptions), at most the time from before the first to after the
	 * second, which can only be exceeded by counting more than ticks.
	 */
	EXPECT_LT((t2 - t1) * 0.9, b.pctr_hwc[0] - a.pctr_hwc[0]);
	EXPECT_GE(t3 - t0, b.pctr_hwc[0] - a.pctr_hwc[0]);

	/* Idle, for the record. */
	kill(self->kids[0], SIGKILL);
	reap_kid(self, self->kids[0], NULL);
	usleep(20000);
	t0 = rdtsc();
	ASSERT_EQ(0, rd(fd, &a));
	usleep(100000);
	ASSERT_EQ(0, rd(fd, &b));
	t1 = rdtsc();
	TH_LOG("idle CPU 1: %llu ticks counted in %llu TSC ticks",
	       (unsigned long long)(b.pctr_hwc[0] - a.pctr_hwc[0]),
	       (unsigned long long)(t1 - t0));
	EXPECT_LE(a.pctr_hwc[0], b.pctr_hwc[0]);

	/* Calls that program counters are EBUSY on a bound descriptor. */
	EXPECT_EQ(-1, set(fd, 0, FN(EV_DIV)));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, set(fd, FIX_DIV, FIXFN));
	EXPECT_EQ(EBUSY, errno);
	memset(&pcr, 0, sizeof(pcr));
	EXPECT_EQ(EBUSY, ioc(fd, PCIOCSETPCR, &pcr));
	EXPECT_EQ(EBUSY, ioc(fd, PCIOCZERO, NULL));
	EXPECT_EQ(EBUSY, ioc(fd, PCIOCPRESET, &ps));
	EXPECT_EQ(EBUSY, ioc(fd, PCIOCRESTART, NULL));
	EXPECT_EQ(EBUSY, ioc(fd, PCIOCSOPTS, &o));
	m = mmap(NULL, PCTR_PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EBUSY, errno);
	/* GETPCR reads the calling thread's state: none. */
	memset(&pcr, 0xa5, sizeof(pcr));
	EXPECT_EQ(0, ioc(fd, PCIOCGETPCR, &pcr));
	EXPECT_EQ(0, pcr.pcr_evtsel[0]);
	EXPECT_EQ(0, pcr.pcr_fixed_ctrl);
	/* The binding is unchanged by all that. */
	ASSERT_EQ(0, rd(fd, &c));
	EXPECT_EQ(FN(EV_TICKS), c.pctr_fn[0]);
	EXPECT_LE(b.pctr_hwc[0], c.pctr_hwc[0]);

	/* Released: the descriptor reads this thread's (no) counters. */
	EXPECT_EQ(0, ioctl(fd, PCIOCRELEASE));
	EXPECT_EQ(0, wait_zero(CPU_BINDINGS));
	ASSERT_EQ(0, rd(fd, &a));
	EXPECT_TRUE(st_clean(&a));
	/* It can be bound again, and programs as any descriptor after. */
	ASSERT_EQ(0, do_bind(fd, &bd));
	EXPECT_EQ(1, read_long(CPU_BINDINGS));
	EXPECT_EQ(0, ioctl(fd, PCIOCRELEASE));
	EXPECT_EQ(0, wait_zero(CPU_BINDINGS));
	EXPECT_EQ(0, set(fd, 0, FN(EV_DIV)));
	EXPECT_EQ(0, ioctl(fd, PCIOCRELEASE));
}

TEST_F(bind, cpu_bind_errors)
{
	struct pctr_bind b;
	int fa, fb;

	TEST_START(2);
	fa = new_fd(_metadata, self);
	fb = new_fd(_metadata, self);
	cpu_bind_init(&b, 1);
	ASSERT_EQ(0, do_bind(fa, &b));
	/* CPU 1 is taken; fa is bound. */
	EXPECT_EQ(EAGAIN, do_bind(fb, &b));
	cpu_bind_init(&b, 0);
	EXPECT_EQ(EBUSY, do_bind(fa, &b));

	/* Each bad field alone, on the free CPU 0. */
#define EINVAL_WITH(change) do {					\
		cpu_bind_init(&b, 0);					\
		change;							\
		EXPECT_EQ(EINVAL, do_bind(fb, &b)) TH_LOG("%s", #change); \
	} while (0)
	EINVAL_WITH(b.pb_id = max_possible_cpu() + 5);
	EINVAL_WITH(b.pb_id = 0xffffffffu);
	EINVAL_WITH(b.pb_flags = 1);
	EINVAL_WITH(b.pb_reserved = 1);
	EINVAL_WITH(b.pb_fn[0] |= PCTR_INT);
	EINVAL_WITH(b.pb_fn[FIX_TICKS] |= PCTR_INT);
	EINVAL_WITH(b.pb_kind = 7);
	EINVAL_WITH(b.pb_kind = 0);
	EINVAL_WITH(b.pb_fn[1] = FN(0x7f));		/* no such event */
	EINVAL_WITH(b.pb_fn[4] = FN(EV_TICKS));		/* no such slot */
	EINVAL_WITH(b.pb_fn[FIX_TICKS] = FIXFN | 0x01);	/* event on a fixed slot */
#undef EINVAL_WITH

	/* Nothing was half made: CPU 0 is still free. */
	EXPECT_EQ(1, read_long(CPU_BINDINGS));
	cpu_bind_init(&b, 0);
	EXPECT_EQ(0, do_bind(fb, &b));
	EXPECT_EQ(2, read_long(CPU_BINDINGS));
	close_fd(self, fa);
	EXPECT_EQ(1, read_long(CPU_BINDINGS));
	close_fd(self, fb);
	EXPECT_EQ(0, wait_zero(CPU_BINDINGS));
}

/* A CPU that is not online: ENXIO. */
TEST_F(bind, cpu_bind_offline_is_enxio)
{
	struct pctr_bind b;
	char path[96];
	int fd, cpu = self->ncpu - 1;

	TEST_START(1);
	if (cpu < 1)
		SKIP(return, "one CPU");
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		SKIP(return, "CPU %d cannot go offline", cpu);
	if (write(fd, "0", 1) != 1) {
		close(fd);
		SKIP(return, "CPU %d cannot go offline: %s", cpu,
		     strerror(errno));
	}
	self->offline = cpu;
	cpu_bind_init(&b, cpu);
	EXPECT_EQ(ENXIO, do_bind(self->m.fd, &b));
	EXPECT_EQ(0, read_long(CPU_BINDINGS));
	ASSERT_EQ(1, write(fd, "1", 1));
	close(fd);
	self->offline = -1;
	EXPECT_EQ(0, do_bind(self->m.fd, &b));
	EXPECT_EQ(1, read_long(CPU_BINDINGS));
	EXPECT_EQ(0, ioctl(self->m.fd, PCIOCRELEASE));
	EXPECT_EQ(0, wait_zero(CPU_BINDINGS));
}

static int become_user(uint64_t caps);

/* PCIOCRDX: 0 or the error; all zero if the call failed. */
static int rdx(int fd, struct pctrstx *x)
{
	int err;

	memset(x, 0xa5, sizeof(*x));
	err = ioc(fd, PCIOCRDX, x);
	if (err)
		memset(x, 0, sizeof(*x));
	return err;
}

/* Binding @fb closed (gone once CPU_BINDINGS is 0), spin @secs on this CPU: its PCIOCRDX. */
static int unbind_spin_rdx(FIXTURE_DATA(bind) *self, int fb, double secs,
			   struct pctrstx *x)
{
	close_fd(self, fb);
	if (wait_zero(CPU_BINDINGS))
		return -1;
	spin_cpu(secs);
	return rdx(self->m.fd, x);
}

/*
 * A CPU binding holds the slots it programs (slot 0 and fixed counter 0
 * here), as hwpmc's system-scope PMCs hold their rows: a thread asking
 * for one gets EBUSY, never silence, uid 1000 as root.  Threads keep
 * every other slot, and a context made before the binding keeps its
 * values and counts on, on the CPUs the binding does not hold.
 */
TEST_F_TIMEOUT(bind, cpu_binding_holds_its_slots, 60)
{
	const volatile struct pctr_page *pg;
	struct pctr_bind b, tb;
	struct pctr_pcr pcr;
	struct pctrst st, st2;
	struct fresh f;
	struct chan *ch;
	pid_t pid;
	int fb, fc, fd;
	void *m;

	TEST_START(2);
	pin_to_cpu(0);
	/* This thread counts in slot 0 and slot 1, its page mapped. */
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	ASSERT_EQ(0, set(self->m.fd, 1, FN(EV_TICKS)));
	m = mmap(NULL, PCTR_PAGE_SIZE, PROT_READ, MAP_SHARED, self->m.fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	pg = m;

	/* A binding may take a slot a thread has: CPU 1's slot 0. */
	fb = new_fd(_metadata, self);
	cpu_bind_init(&b, 1);
	ASSERT_EQ(0, do_bind(fb, &b));
	EXPECT_EQ(1, read_long(CPU_BINDINGS));

	/* On CPU 0 this thread counts on, in both slots. */
	ASSERT_EQ(0, rd(self->m.fd, &st));
	spin_cpu(0.05);
	ASSERT_EQ(0, rd(self->m.fd, &st2));
	EXPECT_EQ(FN(EV_DIV), st2.pctr_fn[0]);
	EXPECT_EQ(FN(EV_TICKS), st2.pctr_fn[1]);
	EXPECT_LT(st.pctr_hwc[0], st2.pctr_hwc[0]);
	EXPECT_LT(st.pctr_hwc[1], st2.pctr_hwc[1]);
	EXPECT_FALSE(pg->pg_flags & PCTR_PG_INVALID);

	/* A held slot is EBUSY, unless it keeps its function; others do. */
	EXPECT_EQ(-1, set(self->m.fd, 0, FN(EV_TICKS)));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, set(self->m.fd, FIX_TICKS, FIXFN));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	EXPECT_EQ(0, set(self->m.fd, 2, FN(EV_DIV)));
	EXPECT_EQ(0, set(self->m.fd, FIX_DIV, FIXFN));
	memset(&pcr, 0, sizeof(pcr));
	pcr.pcr_evtsel[0] = FN(EV_TICKS);
	EXPECT_EQ(EBUSY, ioc(self->m.fd, PCIOCSETPCR, &pcr));

	/* A new thread: slot 0 is held, to PCIOCS and SETPCR alike. */
	ASSERT_EQ(0, run_fresh(&f));
	EXPECT_EQ(0, f.rd_err);
	EXPECT_EQ(EBUSY, f.set_err);
	EXPECT_EQ(EBUSY, f.setpcr_err);

	/* A thread binding asking for slot 0 is EBUSY; its own slot 2 not. */
	pid = obedient(_metadata, self, &ch, 0);
	fc = new_fd(_metadata, self);
	thread_bind_init(&tb, pid);
	EXPECT_EQ(EBUSY, traced_bind(fc, pid, &tb));
	ASSERT_EQ(0, command(ch, OP_OWN));
	EXPECT_EQ(0, ch->err[0]);
	EXPECT_EQ(FN(EV_TICKS), ch->val[0]);
	EXPECT_LT(0, ch->val[1]);
	send_exit(ch);
	reap_kid(self, pid, NULL);

	/* The same for uid 1000. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (become_user(0))
			_exit(10);
		fd = open(PCTR_DEV, O_RDWR);
		if (fd < 0)
			_exit(11);
		if (set(fd, 0, FNU(EV_DIV)) != -1 || errno != EBUSY)
			_exit(12);
		if (set(fd, 1, FNU(EV_DIV)))
			_exit(13);
		_exit(0);
	}
	EXPECT_EQ(0, wait_exit(pid));

	/* The binding gone, its slots are free again. */
	close_fd(self, fb);
	EXPECT_EQ(0, wait_zero(CPU_BINDINGS));
	EXPECT_EQ(0, set(self->m.fd, 0, FN(EV_TICKS)));
	EXPECT_EQ(0, set(self->m.fd, FIX_TICKS, FIXFN));
	munmap(m, PCTR_PAGE_SIZE);
	EXPECT_EQ(0, ioctl(self->m.fd, PCIOCRELEASE));
}

/*
 * The sim's default: a thread on the bound CPU counts in its slots
 * beside the binding's (PCTR_CAP_CPU_SHARE), its running time its
 * enabled time, from the binding's start under it, across its own
 * switches and past the binding's end; the binding counts all the
 * while, the thread's time too.  A thread that kept a slot the binding
 * took (it had it before) starves there still.
 */
TEST_F_TIMEOUT(bind, thread_counts_beside_the_binding, 60)
{
	struct pctrstx x1, x2;
	struct pctrst b1, b2;
	struct pctr_bind b;
	uint64_t dt, dr, db;
	double ratio;
	int fb;

	TEST_START(2);
	EXPECT_TRUE(pctr_caps(self->m.fd) & PCTR_CAP_CPU_SHARE);
	pin_to_cpu(1);
	ASSERT_EQ(0, set(self->m.fd, 1, FN(EV_TICKS)));
	spin_cpu(0.02);

	/* Bound under it: the binding holds slot 0 and FIX_TICKS. */
	fb = new_fd(_metadata, self);
	cpu_bind_init(&b, 1);
	ASSERT_EQ(0, do_bind(fb, &b));
	ASSERT_EQ(0, rd(fb, &b1));
	ASSERT_EQ(0, rdx(self->m.fd, &x1));
	spin_cpu(0.05);
	usleep(20000);		/* switched out and in again */
	spin_cpu(0.05);
	ASSERT_EQ(0, rdx(self->m.fd, &x2));
	ASSERT_EQ(0, rd(fb, &b2));
	dt = x2.pctr_st.pctr_hwc[1] - x1.pctr_st.pctr_hwc[1];
	dr = x2.pctr_running[1] - x1.pctr_running[1];
	db = b2.pctr_hwc[0] - b1.pctr_hwc[0];
	EXPECT_EQ(x1.pctr_enabled[1], x1.pctr_running[1]);
	EXPECT_EQ(x2.pctr_enabled[1], x2.pctr_running[1]);
	/*
	 * One event a TSC tick it ran, as many as its running time (a read
	 * takes the values and the times at two TSC samples: a host that
	 * stalls the guest between them skews one read by that stall).
	 */
	ratio = dr ? (double)dt / dr : 0;
	EXPECT_LT(0.9, ratio) TH_LOG("ticks/running %.3f", ratio);
	EXPECT_GT(1.1, ratio) TH_LOG("ticks/running %.3f", ratio);
	/* The binding counts every tick of CPU 1's, the thread's too. */
	EXPECT_LE(dt, db) TH_LOG("thread %llu binding %llu",
				 (unsigned long long)dt, (unsigned long long)db);
	EXPECT_LT(b1.pctr_hwc[FIX_TICKS], b2.pctr_hwc[FIX_TICKS]);

	/* Unbound while it runs: it counts on. */
	ASSERT_EQ(0, unbind_spin_rdx(self, fb, 0.05, &x1));
	EXPECT_LT(x2.pctr_st.pctr_hwc[1], x1.pctr_st.pctr_hwc[1]);
	EXPECT_EQ(x1.pctr_enabled[1], x1.pctr_running[1]);

	/* Slot 0 its own before the binding takes it: it starves there. */
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_TICKS)));
	fb = new_fd(_metadata, self);
	ASSERT_EQ(0, do_bind(fb, &b));
	ASSERT_EQ(0, rdx(self->m.fd, &x1));
	spin_cpu(0.05);
	ASSERT_EQ(0, rdx(self->m.fd, &x2));
	EXPECT_EQ(x1.pctr_st.pctr_hwc[1], x2.pctr_st.pctr_hwc[1]);
	EXPECT_EQ(x1.pctr_st.pctr_hwc[0], x2.pctr_st.pctr_hwc[0]);
	EXPECT_EQ(x1.pctr_running[1], x2.pctr_running[1]);
	EXPECT_LT(x1.pctr_enabled[1], x2.pctr_enabled[1]);
	close_fd(self, fb);
	EXPECT_EQ(0, wait_zero(CPU_BINDINGS));
	EXPECT_EQ(0, ioctl(self->m.fd, PCIOCRELEASE));
}

/*
 * On a backend that owns the whole PMU in each start() (SPARC; the sim
 * with sim_share=0), a thread on the CPU a binding holds does not count
 * there, and says so: its slots' running time (PCIOCRDX) falls short of
 * their enabled time by the time the binding held the CPU, the counts
 * do not move meanwhile, and it counts again at once when the binding
 * ends.
 */
TEST_F_TIMEOUT(bind, starved_slots_say_so, 60)
{
	struct pctrstx x0, x1, x2;
	struct pctr_bind b, tb;
	struct pctrst st;
	struct chan *ch;
	double ratio;
	pid_t pid;
	int fb, fc;

	TEST_START(2);
	close(self->m.fd);
	ASSERT_EQ(0, reload("pmu=sim sim_div=1000 sim_share=0"));
	self->m.fd = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, self->m.fd);
	g_fd = self->m.fd;
	EXPECT_FALSE(pctr_caps(self->m.fd) & PCTR_CAP_CPU_SHARE);
	pin_to_cpu(1);
	ASSERT_EQ(0, set(self->m.fd, 1, FN(EV_TICKS)));
	spin_cpu(0.1);
	ASSERT_EQ(0, rdx(self->m.fd, &x0));
	EXPECT_LT(0, x0.pctr_enabled[1]);
	EXPECT_EQ(x0.pctr_enabled[1], x0.pctr_running[1]);
	EXPECT_EQ(0, x0.pctr_enabled[0]);

	/* Bound under it: the thread runs on, its slot 1 counts nothing. */
	fb = new_fd(_metadata, self);
	cpu_bind_init(&b, 1);
	ASSERT_EQ(0, do_bind(fb, &b));
	ASSERT_EQ(0, rdx(self->m.fd, &x1));
	spin_cpu(0.1);
	ASSERT_EQ(0, rdx(self->m.fd, &x2));
	EXPECT_EQ(x1.pctr_st.pctr_hwc[1], x2.pctr_st.pctr_hwc[1]);
	EXPECT_EQ(x1.pctr_running[1], x2.pctr_running[1]);
	EXPECT_LT(x1.pctr_enabled[1], x2.pctr_enabled[1]);
	/* PCIOCRD agrees with PCIOCRDX's first part. */
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_EQ(x2.pctr_st.pctr_hwc[1], st.pctr_hwc[1]);

	/* Unbound: counting again at once, the shortfall kept. */
	ASSERT_EQ(0, unbind_spin_rdx(self, fb, 0.1, &x2));
	EXPECT_LT(x1.pctr_st.pctr_hwc[1], x2.pctr_st.pctr_hwc[1]);
	EXPECT_LT(x2.pctr_running[1], x2.pctr_enabled[1]);
	ratio = (double)x2.pctr_running[1] / x2.pctr_enabled[1];
	EXPECT_LT(0.45, ratio) TH_LOG("running/enabled %.3f", ratio);
	EXPECT_GT(0.85, ratio) TH_LOG("running/enabled %.3f", ratio);
	/* Scaled as perf stat does, the count comes near the whole run's. */
	ratio = (double)x2.pctr_st.pctr_hwc[1] / x2.pctr_running[1];
	EXPECT_LT(0.5, ratio) TH_LOG("ticks/running %.3f", ratio);

	/* A new function starts the slot's times anew. */
	ASSERT_EQ(0, set(self->m.fd, 1, FN(EV_DIV)));
	ASSERT_EQ(0, rdx(self->m.fd, &x2));
	EXPECT_EQ(x2.pctr_enabled[1], x2.pctr_running[1]);
	EXPECT_GT(x1.pctr_enabled[1], x2.pctr_enabled[1]);

	/* A thread binding's times, read by the binder. */
	pid = obedient(_metadata, self, &ch, 0);
	fc = new_fd(_metadata, self);
	thread_bind_init(&tb, pid);
	ASSERT_EQ(0, traced_bind(fc, pid, &tb));
	usleep(50000);
	ASSERT_EQ(0, rdx(fc, &x1));
	EXPECT_LT(0, x1.pctr_enabled[0]);
	EXPECT_EQ(x1.pctr_enabled[0], x1.pctr_running[0]);
	EXPECT_EQ(0, x1.pctr_enabled[1]);
	send_exit(ch);
	reap_kid(self, pid, NULL);
	EXPECT_EQ(0, ioctl(self->m.fd, PCIOCRELEASE));
}

/* Capabilities for an otherwise unprivileged process: @caps only. */
static int keep_only_caps(uint64_t caps)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	d[0].effective = d[0].permitted = (uint32_t)caps;
	d[1].effective = d[1].permitted = (uint32_t)(caps >> 32);
	return syscall(SYS_capset, &h, d);
}

/* Become uid/gid 1000, keeping @caps (0: none). */
static int become_user(uint64_t caps)
{
	if (caps && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -1;
	if (setgroups(0, NULL) || setresgid(1000, 1000, 1000) ||
	    setresuid(1000, 1000, 1000))
		return -1;
	if (caps && keep_only_caps(caps))
		return -1;
	return 0;
}

TEST_F(bind, cpu_bind_needs_privilege)
{
	struct pctr_bind b;
	pid_t pid;
	int status, fd;

	TEST_START(2);
	cpu_bind_init(&b, 1);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (become_user(0))
			_exit(10);
		/* The descriptor root opened, and one of our own. */
		if (do_bind(self->m.fd, &b) != EACCES)
			_exit(11);
		fd = open(PCTR_DEV, O_RDWR);
		if (fd < 0)
			_exit(12);
		if (do_bind(fd, &b) != EACCES)
			_exit(13);
		/* Counting one's own user mode needs nothing. */
		if (set(fd, 0, FNU(EV_DIV)))
			_exit(14);
		_exit(0);
	}
	EXPECT_EQ(0, wait_exit(pid));

	/* CAP_PERFMON alone is enough, and so is CAP_SYS_ADMIN. */
	for (int i = 0; i < 2; i++) {
		uint64_t cap = 1ULL << (i ? CAP_SYS_ADMIN : CAP_PERFMON);

		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			if (become_user(cap))
				_exit(10);
			fd = open(PCTR_DEV, O_RDWR);
			if (fd < 0)
				_exit(12);
			status = do_bind(fd, &b);
			if (status)
				_exit(20 + status % 100);
			for (;;)
				pause();
		}
		add_kid(self, pid);
		/* Bound, and waiting to be killed; or failed. */
		for (int j = 0; j < 500; j++) {
			if (read_long(CPU_BINDINGS) == 1 ||
			    waitpid(pid, &status, WNOHANG) == pid)
				break;
			usleep(10000);
		}
		EXPECT_EQ(1, read_long(CPU_BINDINGS))
			TH_LOG("with %s: exit status %d",
			       i ? "CAP_SYS_ADMIN" : "CAP_PERFMON",
			       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		kill(pid, SIGKILL);
		reap_kid(self, pid, &status);
		/* Its exit closed the descriptor, and so ended the binding. */
		EXPECT_EQ(0, wait_zero(CPU_BINDINGS));
	}
}

/* --- thread bindings ------------------------------------------------------- */

TEST_F_TIMEOUT(bind, thread_counts_its_target, 90)
{
	struct pctr_bind b;
	struct pctrst a, c;
	struct chan *ch;
	double p0, c0, c1, p1, want, most;
	pid_t pid;
	int fb, fc;

	TEST_START(1);
	pid = obedient(_metadata, self, &ch, 0);
	fb = new_fd(_metadata, self);
	thread_bind_init(&b, pid);
	b.pb_preset[FIX_DIV] = 1000000;
	ASSERT_EQ(0, traced_bind(fb, pid, &b)) TH_LOG("%s", strerror(errno));
	/* Detached: the binding stays. */
	EXPECT_EQ(0, read_long(CPU_BINDINGS));

	/*
	 * The target's CPU time, inside and outside the reads: the count is
	 * between the two.  The reads may wait for the target's vCPU to get
	 * its turn on the host, which a loaded host stretches; the count
	 * compared with the inner time alone was seen over its 1.2 bound.
	 */
	p0 = proc_cpu_sec(pid);
	ASSERT_EQ(0, rd(fb, &a));
	c0 = proc_cpu_sec(pid);
	usleep(500000);
	c1 = proc_cpu_sec(pid);
	ASSERT_EQ(0, rd(fb, &c));
	p1 = proc_cpu_sec(pid);
	EXPECT_EQ(FN(EV_DIV), c.pctr_fn[0]);
	EXPECT_EQ(FIXFN, c.pctr_fn[FIX_DIV]);
	EXPECT_EQ(0, c.pctr_fn[1]);
	EXPECT_EQ(a.pctr_hwc[0] + 1000000, a.pctr_hwc[FIX_DIV]);
	EXPECT_EQ(c.pctr_hwc[0] + 1000000, c.pctr_hwc[FIX_DIV]);
	want = (c1 - c0) * self->m.khz * 1000.0 / SIM_DIV;
	most = (p1 - p0) * self->m.khz * 1000.0 / SIM_DIV;
	TH_LOG("target: %llu events in 0.5 s, %.3f..%.3f s of its CPU time (expected ~%.0f..%.0f)",
	       (unsigned long long)(c.pctr_hwc[0] - a.pctr_hwc[0]), c1 - c0,
	       p1 - p0, want, most);
	EXPECT_LT(0, c.pctr_hwc[0] - a.pctr_hwc[0]);
	EXPECT_LT(want * 0.8, c.pctr_hwc[0] - a.pctr_hwc[0]);
	EXPECT_GT(most * 1.2 + 10, c.pctr_hwc[0] - a.pctr_hwc[0]);

	/* The target cannot program counters while bound. */
	ASSERT_EQ(0, command(ch, OP_TRY_SET));
	EXPECT_EQ(EBUSY, ch->err[0]);
	EXPECT_EQ(EBUSY, ch->err[1]);
	TH_LOG("the target's own PCIOCRD: %d, fn0 %#llx, value %llu",
	       ch->err[2], (unsigned long long)ch->val[0],
	       (unsigned long long)ch->val[1]);
	/* It may stop and resume the counting, though. */
	ASSERT_EQ(0, command(ch, OP_DISABLE));
	EXPECT_EQ(0, ch->err[0]);
	ASSERT_EQ(0, rd(fb, &a));
	usleep(200000);
	ASSERT_EQ(0, rd(fb, &c));
	EXPECT_EQ(a.pctr_hwc[0], c.pctr_hwc[0]);
	ASSERT_EQ(0, command(ch, OP_ENABLE));
	EXPECT_EQ(0, ch->err[0]);
	usleep(200000);
	ASSERT_EQ(0, rd(fb, &c));
	EXPECT_LT(a.pctr_hwc[0], c.pctr_hwc[0]);

	/* Nor can another binding take it. */
	fc = new_fd(_metadata, self);
	EXPECT_EQ(EBUSY, traced_bind(fc, pid, &b));

	/* Released: the descriptor is this thread's again ... */
	EXPECT_EQ(0, ioctl(fb, PCIOCRELEASE));
	ASSERT_EQ(0, rd(fb, &a));
	EXPECT_TRUE(st_clean(&a));
	/* ... and the target may count for itself. */
	ASSERT_EQ(0, command(ch, OP_OWN));
	EXPECT_EQ(0, ch->err[0]);
	EXPECT_EQ(0, ch->err[1]);
	EXPECT_EQ(FN(EV_TICKS), ch->val[0]);
	EXPECT_LT(0, ch->val[1]);
	EXPECT_EQ(0, ch->val[2]);		/* the binding's slot is gone */
	end_obedient(_metadata, self, ch, pid);
}

/*
 * A new descriptor with a thread binding of @pid, which counts: its
 * values after 0.2 s are in *@a.
 */
static int bind_counting(struct __test_metadata *_metadata,
			 FIXTURE_DATA(bind) *self, pid_t pid, struct pctrst *a)
{
	struct pctr_bind b;
	int fd = new_fd(_metadata, self);

	thread_bind_init(&b, pid);
	ASSERT_EQ(0, traced_bind(fd, pid, &b));
	usleep(200000);
	ASSERT_EQ(0, rd(fd, a));
	EXPECT_LT(0, a->pctr_hwc[0]);
	return fd;
}

/*
 * A thread binding whose target has ended: its values, read 0.1 s apart,
 * hold still, and are no less than @a, read before the end.  The first
 * read is in *@c.
 */
static void expect_final(struct __test_metadata *_metadata, int fd,
			 const struct pctrst *a, struct pctrst *c)
{
	struct pctrst d;

	ASSERT_EQ(0, rd(fd, c));
	usleep(100000);
	ASSERT_EQ(0, rd(fd, &d));
	EXPECT_EQ(FN(EV_DIV), c->pctr_fn[0]);
	EXPECT_LE(a->pctr_hwc[0], c->pctr_hwc[0]);
	EXPECT_EQ(c->pctr_hwc[0], d.pctr_hwc[0]);
	EXPECT_EQ(c->pctr_hwc[FIX_DIV], d.pctr_hwc[FIX_DIV]);
}

/* After the target exits the binding keeps its final values. */
TEST_F_TIMEOUT(bind, thread_final_values_after_exit, 60)
{
	struct pctrst a, c;
	struct chan *ch;
	pid_t pid;
	int fb;

	TEST_START(1);
	pid = obedient(_metadata, self, &ch, 0);
	fb = bind_counting(_metadata, self, pid, &a);
	end_obedient(_metadata, self, ch, pid);

	expect_final(_metadata, fb, &a, &c);
	EXPECT_EQ(c.pctr_hwc[0], c.pctr_hwc[FIX_DIV]);
	/* Still bound (to the dead thread's values) until released. */
	EXPECT_EQ(-1, set(fb, 0, FN(EV_DIV)));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, ioctl(fb, PCIOCRELEASE));
	ASSERT_EQ(0, rd(fb, &c));
	EXPECT_TRUE(st_clean(&c));
}

/* Seize @pid and hold it in a ptrace stop; 0, or -1 if that failed. */
static int seize_stopped(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_SEIZE, pid, 0, 0) ||
	    ptrace(PTRACE_INTERRUPT, pid, 0, 0) ||
	    waitpid(pid, &status, __WALL) != pid || !WIFSTOPPED(status))
		return -1;
	return 0;
}

/* An obedient child held in a ptrace stop, its channel in *@chp. */
static pid_t obedient_stopped(struct __test_metadata *_metadata,
			      FIXTURE_DATA(bind) *self, struct chan **chp)
{
	pid_t pid = obedient(_metadata, self, chp, 0);

	ASSERT_EQ(0, seize_stopped(pid));
	return pid;
}

/*
 * A target held in a ptrace stop (as a tracer holds a child stopped at
 * its exec: PAPI_attach) cannot set a binding up: EAGAIN, unless the
 * binding asks to be deferred (PCTR_BF_DEFER).  Then it is made at once,
 * reads as its presets while the target stays stopped, and counts from
 * the target's resume on, as any binding.  Released before the resume,
 * it leaves nothing behind.
 */
TEST_F_TIMEOUT(bind, thread_bind_deferred_while_stopped, 60)
{
	char list[512];
	struct pctr_bind b;
	struct pctrst a, c;
	struct chan *ch;
	pid_t pid;
	int fb;

	TEST_START(1);
	pid = obedient_stopped(_metadata, self, &ch);
	fb = new_fd(_metadata, self);
	thread_bind_init(&b, pid);
	b.pb_preset[FIX_DIV] = 1000000;
	EXPECT_EQ(EAGAIN, do_bind(fb, &b));
	b.pb_flags = PCTR_BF_DEFER;
	ASSERT_EQ(0, do_bind(fb, &b)) TH_LOG("%s", strerror(errno));

	/* Pending: the functions and presets, nothing counted. */
	usleep(100000);
	ASSERT_EQ(0, rd(fb, &a));
	EXPECT_EQ(FN(EV_DIV), a.pctr_fn[0]);
	EXPECT_EQ(FIXFN, a.pctr_fn[FIX_DIV]);
	EXPECT_EQ(0, a.pctr_hwc[0]);
	EXPECT_EQ(1000000, a.pctr_hwc[FIX_DIV]);
	ASSERT_EQ(0, read_text(PCTR_SYSFS "/bindings", list, sizeof(list)));
	TH_LOG("bindings: %s", list);
	EXPECT_NE(NULL, strstr(list, " pending"));
	EXPECT_EQ(EAGAIN, ioc(fb, PCIOCDISABLE, NULL));

	/* Resumed: it counts, and the target may not program its own. */
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	usleep(300000);
	ASSERT_EQ(0, rd(fb, &c));
	EXPECT_EQ(FN(EV_DIV), c.pctr_fn[0]);
	EXPECT_LT(0, c.pctr_hwc[0]);
	EXPECT_EQ(c.pctr_hwc[0] + 1000000, c.pctr_hwc[FIX_DIV]);
	ASSERT_EQ(0, read_text(PCTR_SYSFS "/bindings", list, sizeof(list)));
	EXPECT_EQ(NULL, strstr(list, " pending"));
	ASSERT_EQ(0, interrupt_detach(pid));
	ASSERT_EQ(0, command(ch, OP_TRY_SET));
	EXPECT_EQ(EBUSY, ch->err[0]);
	end_obedient(_metadata, self, ch, pid);
	expect_final(_metadata, fb, &c, &a);
	EXPECT_EQ(0, ioctl(fb, PCIOCRELEASE));

	/* Released while pending: the target is free to count for itself. */
	pid = obedient_stopped(_metadata, self, &ch);
	thread_bind_init(&b, pid);
	b.pb_flags = PCTR_BF_DEFER;
	ASSERT_EQ(0, do_bind(fb, &b));
	EXPECT_EQ(0, ioctl(fb, PCIOCRELEASE));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	ASSERT_EQ(0, interrupt_detach(pid));
	ASSERT_EQ(0, command(ch, OP_OWN));
	EXPECT_EQ(0, ch->err[0]);
	EXPECT_EQ(0, ch->val[2]);		/* the binding's slot never came */
	ASSERT_EQ(0, read_text(PCTR_SYSFS "/bindings", list, sizeof(list)));
	EXPECT_EQ(NULL, strstr(list, "thread"));
	send_exit(ch);
	reap_kid(self, pid, NULL);
}

/*
 * exec ends the binding too: its values stay as they were, and the new
 * program may count for itself (run_after_exec() below reports).
 */
TEST_F_TIMEOUT(bind, thread_binding_ends_at_exec, 60)
{
	struct pollfd pfd;
	struct pctrst a, c;
	char arg1[16], arg2[16], x;
	int fb, status, p[2];
	struct chan *ch;
	pid_t pid;

	TEST_START(1);
	/* The target: spins until told, then execs this program. */
	ch = chan_new();
	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		volatile unsigned long n = 0;

		close(p[0]);
		ch->ready = 1;
		while (!ch->cmd)
			n++;
		snprintf(arg1, sizeof(arg1), "%d", self->m.fd);
		snprintf(arg2, sizeof(arg2), "%d", p[1]);
		execl("/proc/self/exe", "bind_test", "--after-exec", arg1, arg2,
		      (char *)NULL);
		_exit(98);
	}
	add_kid(self, pid);
	close(p[1]);
	ASSERT_EQ(0, wait_ready(ch));
	fb = bind_counting(_metadata, self, pid, &a);
	ch->cmd = 1;

	/* The new program says it runs. */
	pfd.fd = p[0];
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 20000));
	ASSERT_EQ(1, read(p[0], &x, 1));
	expect_final(_metadata, fb, &a, &c);
	reap_kid(self, pid, &status);
	close(p[0]);
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("signal %d", WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("the new program could not count for itself (%d)",
		       WEXITSTATUS(status));
	/* Its own counting did not move the ended binding. */
	ASSERT_EQ(0, rd(fb, &a));
	EXPECT_EQ(c.pctr_hwc[0], a.pctr_hwc[0]);
	EXPECT_EQ(0, ioctl(fb, PCIOCRELEASE));
}

/*
 * Re-executed by thread_binding_ends_at_exec, as the target: says so on
 * @wfd, spins 0.3 s while the tracer reads, then counts for itself.
 */
static int run_after_exec(int fd, int wfd)
{
	struct pctrst st;

	if (write(wfd, "x", 1) != 1)
		return 2;
	spin_cpu(0.3);
	if (set(fd, 0, FN(EV_TICKS)))
		return 10 + errno % 100;
	spin_cpu(0.02);
	if (rd(fd, &st) || st.pctr_fn[0] != FN(EV_TICKS) || !st.pctr_hwc[0])
		return 3;
	return 0;
}

/* A thread of the same process, as a target. */
static volatile int other_stop;
static volatile pid_t other_tid;

static void *other_thread(void *arg)
{
	other_tid = gettid_();
	while (!other_stop)
		;
	return NULL;
}

TEST_F_TIMEOUT(bind, thread_bind_errors, 60)
{
	struct pctr_bind b;
	struct chan *ch, *ch2;
	pthread_t t;
	pid_t pid, gone;
	int fb;

	TEST_START(1);
	fb = new_fd(_metadata, self);

	/* Not traced: EPERM. */
	pid = obedient(_metadata, self, &ch, 0);
	thread_bind_init(&b, pid);
	EXPECT_EQ(EPERM, do_bind(fb, &b));

	/* Traced, but a bad request: EINVAL, and nothing bound. */
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, pid, 0, 0));
	thread_bind_init(&b, pid);
	b.pb_flags = 2;
	EXPECT_EQ(EINVAL, do_bind(fb, &b));
	thread_bind_init(&b, pid);
	b.pb_reserved = 1;
	EXPECT_EQ(EINVAL, do_bind(fb, &b));
	thread_bind_init(&b, pid);
	b.pb_fn[0] |= PCTR_INT;
	EXPECT_EQ(EINVAL, do_bind(fb, &b));
	thread_bind_init(&b, pid);
	b.pb_kind = 7;
	EXPECT_EQ(EINVAL, do_bind(fb, &b));
	thread_bind_init(&b, pid);
	b.pb_fn[1] = FN(0x7f);
	EXPECT_EQ(EINVAL, do_bind(fb, &b));
	ASSERT_EQ(0, interrupt_detach(pid));
	ASSERT_EQ(0, command(ch, OP_OWN));
	EXPECT_EQ(0, ch->err[0]);		/* still free to count */

	/* No such thread: ESRCH. */
	gone = fork();
	ASSERT_LE(0, gone);
	if (gone == 0)
		_exit(0);
	ASSERT_EQ(gone, waitpid(gone, NULL, 0));
	thread_bind_init(&b, gone);
	EXPECT_EQ(ESRCH, do_bind(fb, &b));

	/* Our own threads: EINVAL. */
	thread_bind_init(&b, gettid_());
	EXPECT_EQ(EINVAL, do_bind(fb, &b));
	other_stop = 0;
	other_tid = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, other_thread, NULL));
	while (!other_tid)
		usleep(1000);
	thread_bind_init(&b, other_tid);
	EXPECT_EQ(EINVAL, do_bind(fb, &b));
	other_stop = 1;
	ASSERT_EQ(0, pthread_join(t, NULL));

	/* A target counting for itself: EBUSY. */
	pid = obedient(_metadata, self, &ch2, 1);
	ASSERT_EQ(0, ch2->err[3]);
	thread_bind_init(&b, pid);
	EXPECT_EQ(EBUSY, traced_bind(fb, pid, &b));

	/* None of it bound the descriptor. */
	EXPECT_EQ(0, set(fb, 0, FN(EV_DIV)));
	EXPECT_EQ(0, ioctl(fb, PCIOCRELEASE));
}

/*
 * Unprivileged: binding one's own (traced) child works; a root process
 * cannot even be traced, so never bound.
 */
TEST_F_TIMEOUT(bind, thread_bind_unprivileged, 60)
{
	volatile unsigned long x = 0;
	struct pctr_bind b;
	struct pctrst a, c;
	pid_t pid, gpid, root = getpid();
	int status, fd;
	long scope = read_long("/proc/sys/kernel/yama/ptrace_scope");

	TEST_START(1);
	if (scope >= 2)
		SKIP(return, "yama ptrace_scope %ld", scope);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (become_user(0))
			_exit(10);
		/* Our descendants inherit this, and so are traceable. */
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		if (ptrace(PTRACE_SEIZE, root, 0, 0) != -1 || errno != EPERM)
			_exit(11);
		fd = open(PCTR_DEV, O_RDWR);
		if (fd < 0)
			_exit(12);
		thread_bind_init_user(&b, root);
		if (do_bind(fd, &b) != EPERM)
			_exit(13);
		gpid = fork();
		if (gpid < 0)
			_exit(14);
		if (gpid == 0)
			for (;;)
				x++;
		thread_bind_init_user(&b, gpid);
		status = traced_bind(fd, gpid, &b);
		if (status) {
			kill(gpid, SIGKILL);
			_exit(status < 0 ? 15 : 16);
		}
		if (rd(fd, &a) || a.pctr_fn[0] != FNU(EV_DIV))
			_exit(17);
		usleep(200000);
		if (rd(fd, &c) || c.pctr_hwc[0] <= a.pctr_hwc[0])
			_exit(18);
		if (ioctl(fd, PCIOCRELEASE))
			_exit(19);
		kill(gpid, SIGKILL);
		waitpid(gpid, NULL, 0);
		_exit(0);
	}
	EXPECT_EQ(0, wait_exit(pid))
		TH_LOG("10 setuid, 11 traced root, 12 open, 13 bound root, 15 ptrace, 16 bind, 17-19 reading");
}

/* --- the module is held by a binding ------------------------------------------ */

TEST_F_TIMEOUT(bind, rmmod_waits_for_bindings, 60)
{
	struct pctr_bind b;
	struct chan *ch;
	pid_t pid;
	int fb, status;

	TEST_START(2);
	fb = new_fd(_metadata, self);
	cpu_bind_init(&b, 1);
	ASSERT_EQ(0, do_bind(fb, &b));
	close(self->m.fd);
	self->m.fd = -1;
	EXPECT_EQ(-1, unload());
	EXPECT_TRUE(errno == EBUSY || errno == EAGAIN) TH_LOG("%s",
							       strerror(errno));
	EXPECT_TRUE(loaded());
	close_fd(self, fb);
	ASSERT_EQ(0, unload_wait());
	EXPECT_FALSE(loaded());

	/* A binding held by a process that is killed. */
	ASSERT_EQ(0, load("pmu=sim sim_div=1000"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		fb = open(PCTR_DEV, O_RDWR);
		if (fb < 0 || do_bind(fb, &b))
			_exit(1);
		for (;;)
			pause();
	}
	add_kid(self, pid);
	for (int i = 0; i < 200 && read_long(CPU_BINDINGS) != 1; i++)
		usleep(10000);
	EXPECT_EQ(1, read_long(CPU_BINDINGS));
	EXPECT_EQ(-1, unload());
	kill(pid, SIGKILL);
	reap_kid(self, pid, &status);
	ASSERT_EQ(0, unload_wait());
	EXPECT_FALSE(loaded());

	/*
	 * A thread binding closed while its target runs on: the target's
	 * counters go, and with them the module's last user.
	 */
	/* The target holds no descriptor: made before the module is back. */
	pid = obedient(_metadata, self, &ch, 0);
	ASSERT_EQ(0, load("pmu=sim sim_div=1000"));
	fb = new_fd(_metadata, self);
	thread_bind_init(&b, pid);
	ASSERT_EQ(0, traced_bind(fb, pid, &b));
	EXPECT_EQ(1, read_long(PCTR_SYSFS "/contexts"));
	close_fd(self, fb);
	EXPECT_EQ(0, wait_zero(PCTR_SYSFS "/contexts"));
	ASSERT_EQ(0, unload_wait());
	EXPECT_FALSE(loaded());
	EXPECT_EQ(0, kill(pid, 0));		/* the target still runs */
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--after-exec"))
		return run_after_exec(atoi(argv[2]), atoi(argv[3]));
	return test_harness_run(argc, argv);
}
