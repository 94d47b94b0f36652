// SPDX-License-Identifier: GPL-2.0
/*
 * notify_bind_stress_test's thread binder: a process tracing a spinning
 * child and binding it (its reads are EAGAIN once a CPU binding
 * invalidated it), reading it while another thread closes the
 * descriptor, killing it or having it exec while bound.
 */
#define PCTR_TEST_NO_HARNESS
#include "pctr_test.h"
#include "nb_stress.h"

/*
 * The target: spins, and now and then reads its counters (0, EAGAIN)
 * or disables or enables them (0; EINVAL when not bound; EAGAIN when
 * invalidated), as a measured program marking what to count.
 */
/* SIGUSR1 makes the target exec: that ends a binding too. */
static void target_exec(int sig)
{
	if (have_true)
		execl("/bin/true", "true", (char *)NULL);
	_exit(0);
}

static void __attribute__((noreturn)) target_loop(unsigned int seed)
{
	volatile unsigned long x = 0;
	struct pctrst st;
	unsigned long i;
	int e;

	/* (SIGUSR1's handler comes from the binder: set before any fork.) */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		for (i = 0; i < 50000; i++) {
			x++;
			if (!(i & 1023) && atomic_load(&S->tgt_exec))
				target_exec(0);
		}
		switch (rnd(&seed, 6)) {
		case 0:
			e = rd(g_fd, &st);
			if (e && e != EAGAIN)
				note("target PCIOCRD: %s", en(e));
			break;
		case 1:
			e = ioc(g_fd, PCIOCDISABLE, NULL);
			if (e && e != EINVAL && e != EAGAIN)
				note("target PCIOCDISABLE: %s", en(e));
			break;
		case 2:
			e = ioc(g_fd, PCIOCENABLE, NULL);
			if (e && e != EINVAL && e != EAGAIN)
				note("target PCIOCENABLE: %s", en(e));
			break;
		default:
			continue;
		}
		ST(th_target_ops);
	}
}

static pid_t spawn_target(unsigned int seed)
{
	pid_t pid = fork();

	if (pid == 0)
		target_loop(seed);
	if (pid < 0)
		note("fork (target): %s", en(errno));
	return pid;
}

/* Reads of one thread binding. */
struct bread {
	int		fd;
	uint64_t	pb;		/* fixed counter 1's preset */
	int		have;
	struct pctrst	last;
	unsigned long	n;
};

/* A binding's read: slot 0 and fixed 1 (both event 0x02) pb apart. */
static void bread_check(struct bread *r, const struct pctrst *st,
			const char *who)
{
	unsigned int s;

	ST(th_reads);
	for (s = 0; s < PCTR_NUM; s++)
		if (st->pctr_fn[s] != (s == 0 ? FN(EV_DIV) :
				       s == FIX_DIV ? FIXFN : 0)) {
			note("%s: slot %u function %#llx", who, s,
			     ULL(st->pctr_fn[s]));
			return;
		}
	if (st->pctr_hwc[FIX_DIV] - st->pctr_hwc[0] != r->pb)
		note("%s: fixed 1 %llu - slot 0 %llu != preset %llu", who,
		     ULL(st->pctr_hwc[FIX_DIV]), ULL(st->pctr_hwc[0]),
		     ULL(r->pb));
	if (r->have && (st->pctr_hwc[0] < r->last.pctr_hwc[0] ||
			st->pctr_hwc[FIX_DIV] < r->last.pctr_hwc[FIX_DIV]))
		note("%s: went back: %llu after %llu", who,
		     ULL(st->pctr_hwc[0]), ULL(r->last.pctr_hwc[0]));
	r->last = *st;
	r->have = 1;
	r->n++;
}

/*
 * Reads until the other thread's close makes the descriptor EBADF.
 * PCIOCRD on a thread binding: 0; EAGAIN once a CPU binding invalidated
 * it (until its target ends: then the final values).
 */
static void *bread_thread(void *arg)
{
	struct bread *r = arg;
	struct pctrst st;
	int e;

	for (;;) {
		e = rd(r->fd, &st);
		if (e == EBADF)
			break;
		if (e == EAGAIN) {
			ST(th_read_eagain);
			usleep(100);
			continue;
		}
		if (e) {
			note("bound PCIOCRD racing close: %s", en(e));
			break;
		}
		bread_check(r, &st, "read racing close");
	}
	return NULL;
}

static void bread_some(struct bread *r, int n, unsigned int *seed,
		       const char *who)
{
	struct pctrst st;
	int e;

	while (n-- > 0) {
		e = rd(r->fd, &st);
		if (e == EAGAIN) {
			ST(th_read_eagain);	/* invalidated: for good */
			return;
		}
		if (e) {
			note("%s PCIOCRD: %s", who, en(e));
			return;
		}
		bread_check(r, &st, who);
		usleep(200 + rnd(seed, 800));
	}
}

/* Kill the target (traced or not) and reap it. */
static void kill_target(pid_t *tgt)
{
	int status;

	kill(*tgt, SIGKILL);
	if (waitpid(*tgt, &status, __WALL) != *tgt)
		note("waitpid (target): %s", en(errno));
	else if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		note("target ended with status %#x", status);
	*tgt = 0;
	ST(th_kills);
}

/* Make the target exec /bin/true (or exit) and reap it. */
static void exec_target(pid_t *tgt)
{
	int status;

	kill(*tgt, SIGUSR1);
	if (waitpid(*tgt, &status, __WALL) != *tgt)
		note("waitpid (exec target): %s", en(errno));
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		note("exec target ended with status %#x", status);
	*tgt = 0;
	ST(th_execs);
}

/* A dead target's values: final, read twice. */
static void final_values(struct bread *r)
{
	struct pctrst a, b;
	int e;

	e = rd(r->fd, &a);
	if (!e)
		bread_check(r, &a, "dead target");
	usleep(1000);
	e = e ?: rd(r->fd, &b);
	if (e)
		note("dead target PCIOCRD: %s", en(e));
	else if (b.pctr_hwc[0] != a.pctr_hwc[0] ||
		 b.pctr_hwc[FIX_DIV] != a.pctr_hwc[FIX_DIV])
		note("dead target's values moved: %llu -> %llu",
		     ULL(a.pctr_hwc[0]), ULL(b.pctr_hwc[0]));
}

/*
 * PCIOCBIND while the (still traced) target execs /bin/true and exits:
 * 0 (set up before the exec, which ended it), EPERM (the setup found
 * another program running), ESRCH (found it exiting), or EAGAIN (a CPU
 * binding).  Without PTRACE_O_TRACEEXEC a seized tracee does not stop
 * at exec: the next wait is its exit.
 */
static void bind_racing_exec(struct bread *r, pid_t *tgt, int e)
{
	int status;

	if (waitpid(*tgt, &status, __WALL) != *tgt)
		note("waitpid (exec'ing target): %s", en(errno));
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		note("exec'ing target ended with status %#x", status);
	*tgt = 0;
	ST(th_bind_exec);
	switch (e) {
	case 0:
		ST(th_binds);
		ST(th_bind_ok);
		final_values(r);
		break;
	case EPERM:
		ST(th_bind_eperm);
		break;
	case ESRCH:
		ST(th_bind_esrch);
		break;
	case EAGAIN:
		ST(th_bind_eagain);
		ST(th_bind_exec_eagain);
		break;
	default:
		note("PCIOCBIND racing exec: %s", en(e));
	}
}

/*
 * The next of the NB_TB_MODES ways to use a binding: each round of them
 * in a random order, so that every way is taken once a round.  Drawn
 * independently, one (closing while a read waits) never came up in the
 * 20 bindings of a starved debug guest's 60 s.
 */
#define NB_TB_MODES	7
static int next_mode(unsigned int *seed)
{
	static int bag[NB_TB_MODES], left;
	int i, j, t;

	if (!left) {
		for (i = 0; i < NB_TB_MODES; i++)
			bag[i] = i;
		for (i = NB_TB_MODES - 1; i > 0; i--) {
			j = rnd(seed, i + 1);
			t = bag[i];
			bag[i] = bag[j];
			bag[j] = t;
		}
		left = NB_TB_MODES;
	}
	return bag[--left];
}

/*
 * Seizes its spinning child, binds it (0; EAGAIN while a CPU binding
 * exists), detaches, and then one of: reads and releases (after which
 * the descriptor reads the binder's own, empty, counters); reads in
 * another thread while this one closes the descriptor (the reader ends
 * at EBADF); kills the target (after detaching, or still traced) and
 * reads the final values twice; has it exec, and reads the final
 * values likewise; closes without releasing; or has it exec while the
 * binding is being set up.
 */
void thread_binder(unsigned int seed)
{
	struct pctr_bind b;
	struct sigaction sa;
	struct bread r;
	pthread_t t;
	pid_t tgt = 0;
	int fd, e, mode;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = target_exec;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	while (!NB_STOP()) {
		if (tgt <= 0) {
			tgt = spawn_target(rand_r(&seed));
			if (tgt < 0)
				break;
		}
		fd = open(PCTR_DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			note("open (thread binder): %s", en(errno));
			usleep(10000);
			continue;
		}
		if (ptrace(PTRACE_SEIZE, tgt, 0, 0)) {
			note("PTRACE_SEIZE: %s", en(errno));
			close(fd);
			kill_target(&tgt);
			continue;
		}
		memset(&r, 0, sizeof(r));
		r.fd = fd;
		r.pb = 1000000 + rnd(&seed, 1000000);
		memset(&b, 0, sizeof(b));
		b.pb_kind = PCTR_BIND_THREAD;
		b.pb_id = tgt;
		b.pb_fn[0] = FN(EV_DIV);
		b.pb_fn[FIX_DIV] = FIXFN;
		b.pb_preset[FIX_DIV] = r.pb;
		mode = next_mode(&seed);
		if (mode == 6) {
			/* The target execs while the binding is set up. */
			atomic_store(&S->tgt_exec, 1);
			usleep(rnd(&seed, 3000));
			e = ioc(fd, PCIOCBIND, &b);
			bind_racing_exec(&r, &tgt, e);
			atomic_store(&S->tgt_exec, 0);
			close(fd);
			continue;
		}
		e = ioc(fd, PCIOCBIND, &b);
		if (mode == 4 && !e)
			kill_target(&tgt);	/* killed while still traced */
		else if (interrupt_detach(tgt))
			note("PTRACE_INTERRUPT/DETACH: %s", en(errno));
		if (e) {
			if (e == EAGAIN)
				ST(th_bind_eagain);
			else
				note("PCIOCBIND thread: %s", en(e));
			close(fd);
			continue;
		}
		ST(th_binds);
		switch (mode) {
		case 0:
			bread_some(&r, 2 + rnd(&seed, 6), &seed, "bound");
			release_bound(fd, "thread binding");
			close(fd);
			break;
		case 1:
			if (pthread_create(&t, NULL, bread_thread, &r)) {
				note("pthread_create (binder)");
				close(fd);
				break;
			}
			usleep(rnd(&seed, 3000));
			close(fd);
			pthread_join(t, NULL);
			ST(th_close_in_read);
			break;
		case 5:
			bread_some(&r, 1 + rnd(&seed, 3), &seed, "bound");
			exec_target(&tgt);
			goto final;
		case 2:
			bread_some(&r, 1 + rnd(&seed, 3), &seed, "bound");
			kill_target(&tgt);
			/* fall through */
		case 4:
final:
			/* The target is dead (or another program): values final. */
			final_values(&r);
			if (rnd(&seed, 2) && ioc(fd, PCIOCRELEASE, NULL))
				note("PCIOCRELEASE (dead target): %s", en(errno));
			close(fd);
			break;
		default:
			bread_some(&r, 1 + rnd(&seed, 3), &seed, "bound");
			close(fd);	/* ends the binding while the target runs */
			break;
		}
		usleep(rnd(&seed, 2000));
	}
	if (tgt > 0) {
		kill(tgt, SIGKILL);
		waitpid(tgt, NULL, __WALL);
	}
	_exit(0);
}
