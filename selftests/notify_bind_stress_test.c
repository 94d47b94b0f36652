// SPDX-License-Identifier: GPL-2.0
/*
 * Overflow signals, inheritance and bindings all at once: signals whose
 * handler restarts the counters while the thread presets, disables,
 * enables, releases and re-programs them; a thread with PCTR_O_INHERIT
 * making threads and processes (some of them exec); a process binding
 * CPUs, which invalidates every thread's counters; a tracer binding a
 * thread of another process, reading it while another thread closes the
 * descriptor or the target is killed; and rmmod attempts.  Each call's
 * errno must be one its state allows, and counts that must hold still
 * or keep in step must do so.  (lifecycle_stress_test.c stresses the
 * plain counting paths the same way.)
 */
#include "pctr_test.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

/*
 * The newer paths all at once, on the sim with sim_div=4096 (event 0x02
 * and fixed counter 1 count one event per 4096 TSC ticks, event 0x01
 * and fixed counter 0 every tick) and 24-bit general counters (event
 * 0x01 wraps every few ms).  Everything runs for NB_SECONDS (longer,
 * until each path below ran at least once, on a slow guest):
 *
 * - workers (threads, replaced as they end), some with a PCTR_INT slot
 *   preset a few hundred events short of the wrap and a SIGIO handler
 *   that restarts, each presetting, disabling, enabling, zeroing,
 *   releasing and re-programming its own counters, reading them by
 *   ioctl and from the page, and handing descriptors to a closer;
 * - an inheritor: PCTR_O_INHERIT, with and without a PCTR_INT slot,
 *   making short-lived threads and processes, which check what they
 *   inherited and make threads and processes of their own, or exec;
 * - a process binding CPUs for a few ms at a time (which invalidates
 *   every thread's counters: EAGAIN);
 * - a process tracing a spinning child and binding it (its reads are
 *   EAGAIN once a CPU binding invalidated it), reading it while
 *   another thread closes the descriptor, killing it or having it
 *   exec while bound;
 * - rmmod attempts, refused all along (a descriptor stays open).
 *
 * What must hold, besides the errno of each call:
 * - slot 1 and fixed counter 1 count the same event, so after a restart
 *   (both from their presets) they stay exactly their presets apart;
 *   likewise inherited counters, a thread binding's and a CPU binding's;
 * - a value never goes back unless the thread reset it (or the handler
 *   restarted); a disabled or frozen context's values do not move; a
 *   frozen PCTR_INT slot reads exactly 0 (the sim freezes exactly);
 * - a target's values are final once it died or exec'd;
 * - afterwards: no context, no CPU binding, counters given back, and
 *   the module unloads.
 */

#define NB_SIM_DIV	4096
#define NB_PARAMS	"pmu=sim sim_width=24 sim_div=4096"
#define NB_SECONDS	12.0
#define NB_NOTIFY	3		/* workers with a PCTR_INT slot */
#define NB_PLAIN	2		/* workers without */
#define NB_POOL		8		/* descriptors waiting for the closer */
#define NB_NMSG		12		/* unexpected events described */

#define NB_STATS(X)							\
	X(wk_threads) X(reads) X(read_eagain) X(page_maps) X(page_reads)	\
	X(mono_checks) X(sync_checks) X(still_checks)			\
	X(signals) X(restarts) X(restart_eagain) X(restart_einval)	\
	X(presets) X(preset_eagain) X(disables) X(enables) X(endis_eagain) \
	X(zeros) X(releases) X(programs) X(program_eagain) X(opts)	\
	X(program_lost)							\
	X(unprog_ops) X(fd_swaps) X(dup_closes)				\
	X(frozen_probes) X(frozen_checks) X(drained)			\
	X(inh_threads) X(inh_forks) X(inh_execs) X(inh_seen) X(inh_clean) \
	X(inh_own_eagain)						\
	X(cpu_binds) X(cpu_reads) X(cpu_bound_us)			\
	X(th_binds) X(th_bind_eagain) X(th_reads) X(th_read_eagain)	\
	X(th_close_in_read)						\
	X(th_kills) X(th_execs) X(th_target_ops)			\
	X(th_bind_exec) X(th_bind_exec_eagain) X(th_bind_ok)		\
	X(th_bind_eperm) X(th_bind_esrch)				\
	X(rmmod_refused) X(unexpected)

/* Shared by every process of the test (MAP_SHARED). */
struct nb_shared {
	atomic_int	stop;
	atomic_int	tgt_exec;	/* the thread binder's target: exec now */
#define NB_FIELD(n)	atomic_ulong n;
	NB_STATS(NB_FIELD)
#undef NB_FIELD
	atomic_int	sig_bad_code;	/* what the handler saw that it */
	atomic_int	sig_bad_errno;	/* should not have */
	atomic_int	nmsg;
	char		msg[NB_NMSG][240];
};

static struct nb_shared *S;
static int g_fd = -1;		/* open all along: the handler's, children's */
static uint64_t p_base;		/* events 0x02 in about 1 ms of running */
static int nb_ncpu;
static int have_true;		/* /bin/true to exec */
static atomic_int nb_pool[NB_POOL];

#define ST(n)		atomic_fetch_add(&S->n, 1)
#define NB_STOP()	atomic_load(&S->stop)

/* Something that must not happen: counted, and the first few described. */
static void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...)
{
	int i = atomic_fetch_add(&S->nmsg, 1), n;
	va_list ap;

	ST(unexpected);
	if (i >= NB_NMSG)
		return;
	n = snprintf(S->msg[i], sizeof(S->msg[i]), "[%d] ", gettid_());
	va_start(ap, fmt);
	vsnprintf(S->msg[i] + n, sizeof(S->msg[i]) - n, fmt, ap);
	va_end(ap);
}

static const char *en(int e)
{
	return e ? strerror(e) : "success";
}

#define ULL(x)	((unsigned long long)(x))

/* Spin in user code for about @us microseconds of wall time. */
static void spin_us(unsigned int us)
{
	spin(us / 1e6);
}

/* Take a pending (blocked) SIGIO: its si_code, or -1 if none. */
static int take_sigio(void)
{
	siginfo_t si;

	return take_pending(SIGIO, &si);
}

/* --- the overflow signal --------------------------------------------- */

/*
 * Per thread, shared with the handler: t_reset moves whenever values may
 * have been reset (so "never goes back" does not apply across it);
 * t_prog is odd while the thread changes what slot 1 and fixed counter
 * 1 hold, and t_synced is the t_prog of the last restart, which set both
 * to their presets: while the two are equal, the two slots are exactly
 * their presets apart.
 */
static __thread volatile unsigned long t_reset;
static __thread volatile unsigned long t_prog;
static __thread volatile unsigned long t_synced = 1;

static void restarted(void)
{
	t_reset++;
	if (!(t_prog & 1))
		t_synced = t_prog;
}

/*
 * Restart, as a handler does.  PCIOCRESTART: 0, or EAGAIN once a CPU
 * binding invalidated the context.  Not EINVAL: the signal is sent by
 * the thread itself on its way to user space, and not once its context
 * has ended (these workers never free every slot, which would leave a
 * context with a page and no counters).
 */
static void nb_on_sigio(int sig, siginfo_t *si, void *uc)
{
	int e = errno, r;

	ST(signals);
	if (si->si_code != PCTR_SI_OVERFLOW) {
		atomic_store(&S->sig_bad_code, si->si_code ? si->si_code : -1);
		ST(unexpected);
	}
	r = ioctl(g_fd, PCIOCRESTART) ? errno : 0;
	if (!r) {
		ST(restarts);
		restarted();
	} else if (r == EAGAIN) {
		ST(restart_eagain);
	} else if (r == EINVAL) {
		ST(restart_einval);
		ST(unexpected);
	} else {
		atomic_store(&S->sig_bad_errno, r);
		ST(unexpected);
	}
	errno = e;
}

/* --- workers ------------------------------------------------------------ */

/*
 * A worker's counters: slot 0 event 0x02 (with PCTR_INT for a notify
 * worker, preset a few hundred events short of the wrap), slot 1 event
 * 0x02 from 0, fixed counter 1 (event 0x02 too) from q, slot 3 event
 * 0x01 (wrapping every few ms).
 */
struct wk {
	int		fd;
	int		notify;
	int		programmed;	/* the four slots set */
	int		disabled;	/* 1 after PCIOCDISABLE, 0 after ENABLE or
					 * RELEASE, DIS_UNKNOWN after programming */
	int		invalid;	/* a call said EAGAIN */
	uint64_t	f0;
	uint64_t	q;		/* fixed counter 1's preset */
	pctr_t		pc;		/* the page, for inline reads */
	struct pctrst	last;
	unsigned long	last_reset;
	int		have_last;
	unsigned int	seed;
};

/*
 * Programming keeps a context disabled, unless a CPU binding invalidated
 * it (then it starts afresh, enabled); one can come and go unseen.
 */
#define DIS_UNKNOWN	2

static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	return n ? rand_r(seed) % n : 0;
}

static uint64_t want_fn(const struct wk *w, unsigned int s)
{
	if (!w->programmed)
		return 0;
	switch (s) {
	case 0:
		return w->f0;
	case 1:
		return FN(EV_DIV);
	case 3:
		return FN(EV_TICKS);
	case FIX_DIV:
		return FIXFN;
	}
	return 0;
}

/*
 * After programming slot by slot: are all the slots there?  0 if a slot
 * was lost (see wk_program()); *e set to EAGAIN if PCIOCRD says so.
 */
static int programmed_ok(const struct wk *w, int *e)
{
	struct pctrst st;
	unsigned int s;

	*e = rd(w->fd, &st);
	if (*e)
		return 1;
	for (s = 0; s < PCTR_NUM; s++)
		if (st.pctr_fn[s] != want_fn(w, s))
			return 0;
	return 1;
}

/*
 * An errno for a call that changes counters: 0 and EAGAIN (invalidated)
 * with counters; without (never programmed, or released: no context at
 * all, as these workers free no slot alone), @none.
 */
static int wk_errno_ok(struct wk *w, int e, int none, const char *what)
{
	if (w->programmed) {
		if (e == EAGAIN)
			w->invalid = 1;
		if (e == 0 || e == EAGAIN)
			return 1;
	} else if (e == none) {
		return 1;
	}
	note("%s %s: %s", w->programmed ? "programmed" : "released", what,
	     en(e));
	return 0;
}

static void wk_unmap(struct wk *w)
{
	if (w->pc.page)
		munmap((void *)w->pc.page, PCTR_PAGE_SIZE);
	w->pc.page = NULL;
}

/* PCIOCRELEASE: always 0; the thread then has no counters and no page. */
static void wk_release(struct wk *w)
{
	int e;

	t_prog++;
	t_reset++;
	wk_unmap(w);
	e = ioc(w->fd, PCIOCRELEASE, NULL);
	if (e)
		note("PCIOCRELEASE: %s", en(e));
	ST(releases);
	w->programmed = 0;
	w->disabled = 0;
	w->invalid = 0;
	w->have_last = 0;
	t_prog++;
}

/*
 * Program the four slots (SETPCR, or PCIOCS one by one), then the
 * presets and, for a notify worker, the options.  Each call: 0, or
 * EAGAIN while a CPU binding exists; after an EAGAIN the context is
 * released, to be programmed again later.
 */
static void wk_program(struct wk *w)
{
	struct pctr_pcr pcr;
	uint64_t p;
	int e;

	t_prog++;
	t_reset++;
	w->f0 = FN(EV_DIV) | (w->notify ? PCTR_INT : 0);
	if (rnd(&w->seed, 2)) {
		memset(&pcr, 0, sizeof(pcr));
		pcr.pcr_evtsel[0] = w->f0;
		pcr.pcr_evtsel[1] = FN(EV_DIV);
		pcr.pcr_evtsel[3] = FN(EV_TICKS);
		pcr.pcr_fixed_ctrl = 0x3ULL << 4;	/* fixed 1: K, U */
		e = ioc(w->fd, PCIOCSETPCR, &pcr);
	} else {
		e = err_of(set(w->fd, 0, w->f0));
		if (!e)
			e = err_of(set(w->fd, 1, FN(EV_DIV)));
		if (!e)
			e = err_of(set(w->fd, FIX_DIV, FIXFN));
		if (!e)
			e = err_of(set(w->fd, 3, FN(EV_TICKS)));
		/*
		 * A CPU binding made and ended between two of these calls
		 * invalidated the context: the next call must say EAGAIN,
		 * never take it up without the slots set before.
		 */
		w->programmed = 1;
		if (!e && !programmed_ok(w, &e)) {
			ST(program_lost);
			note("programming lost slots set before");
			t_prog++;
			wk_release(w);
			return;
		}
	}
	if (w->notify)
		p = -(p_base / 4 + rnd(&w->seed, 2 * p_base) + 50);
	else
		p = rnd(&w->seed, 1000000);
	w->q = 1000000 + rnd(&w->seed, 1000000);
	if (!e)
		e = err_of(preset(w->fd, 0, p));
	if (!e)
		e = err_of(preset(w->fd, FIX_DIV, w->q));
	if (!e)
		e = err_of(preset(w->fd, 3, rnd(&w->seed, 1 << 20)));
	if (!e && w->notify) {
		ST(opts);
		e = sopts(w->fd, 0, rnd(&w->seed, 2) ? SIGIO : 0);
	}
	w->have_last = 0;
	w->invalid = 0;
	if (w->disabled)
		w->disabled = DIS_UNKNOWN;
	t_prog++;
	if (!e) {
		w->programmed = 1;
		ST(programs);
	} else if (e == EAGAIN) {
		ST(program_eagain);
		w->programmed = 1;	/* maybe partly: end it */
		wk_release(w);
	} else {
		note("programming: %s", en(e));
		w->programmed = 1;
		wk_release(w);
	}
}

/* PCIOCRD: 0, or EAGAIN with (invalidated) counters. */
static void wk_read(struct wk *w)
{
	unsigned long g = t_reset, p = t_prog;
	int synced = t_synced == p && !(p & 1);
	static const unsigned int mono[] = { 1, 3, FIX_DIV };
	struct pctrst st;
	unsigned int s;
	int e;

	ST(reads);
	e = rd(w->fd, &st);
	if (e == EAGAIN && w->programmed) {
		ST(read_eagain);
		w->invalid = 1;
		w->have_last = 0;
		return;
	}
	if (e) {
		note("PCIOCRD (%s): %s",
		     w->programmed ? "programmed" : "released", en(e));
		return;
	}
	for (s = 0; s < PCTR_NUM; s++)
		if (st.pctr_fn[s] != want_fn(w, s)) {
			note("slot %u: function %#llx, expected %#llx", s,
			     ULL(st.pctr_fn[s]), ULL(want_fn(w, s)));
			return;
		}
	if (!w->programmed) {
		if (!st_clean(&st))
			note("no counters, yet values");
		return;
	}
	if (synced) {
		ST(sync_checks);
		if (st.pctr_hwc[FIX_DIV] - st.pctr_hwc[1] != w->q)
			note("fixed 1 %llu - slot 1 %llu != its preset %llu",
			     ULL(st.pctr_hwc[FIX_DIV]), ULL(st.pctr_hwc[1]),
			     ULL(w->q));
	}
	if (w->have_last && w->last_reset == g && t_reset == g) {
		ST(mono_checks);
		for (s = 0; s < 3; s++)
			if (st.pctr_hwc[mono[s]] < w->last.pctr_hwc[mono[s]])
				note("slot %u went back: %llu after %llu%s",
				     mono[s], ULL(st.pctr_hwc[mono[s]]),
				     ULL(w->last.pctr_hwc[mono[s]]),
				     w->disabled == 1 ? " (disabled)" : "");
		if (w->disabled == 1) {
			ST(still_checks);
			for (s = 0; s < PCTR_NUM; s++)
				if (st.pctr_hwc[s] != w->last.pctr_hwc[s])
					note("disabled, slot %u moved: %llu -> %llu",
					     s, ULL(w->last.pctr_hwc[s]),
					     ULL(st.pctr_hwc[s]));
		}
	}
	w->last = st;
	w->last_reset = g;
	w->have_last = t_reset == g;
}

/* Slot 1 from the page (mapping it first if need be). */
static void wk_page_read(struct wk *w)
{
	unsigned long g = t_reset;
	uint64_t v;
	int e;

	if (!w->pc.page) {
		w->pc.fd = w->fd;
		if (pctr_map(&w->pc))
			note("mmap: %s", en(errno));
		else
			ST(page_maps);
		return;
	}
	v = pctr_read(&w->pc, 1);
	if (v == (uint64_t)-1) {
		e = errno;
		if (e == EAGAIN && w->programmed) {
			ST(read_eagain);
			w->invalid = 1;
			return;
		}
		note("inline read (%s): %s",
		     w->programmed ? "programmed" : "released", en(e));
		return;
	}
	ST(page_reads);
	if (!w->programmed) {
		if (v)
			note("no counters, yet slot 1 reads %llu inline", ULL(v));
		return;
	}
	if (w->have_last && w->last_reset == g && t_reset == g) {
		ST(mono_checks);
		if (v < w->last.pctr_hwc[1])
			note("slot 1 went back inline: %llu after %llu",
			     ULL(v), ULL(w->last.pctr_hwc[1]));
		if (w->disabled == 1 && v != w->last.pctr_hwc[1])
			note("disabled, slot 1 moved inline: %llu -> %llu",
			     ULL(w->last.pctr_hwc[1]), ULL(v));
		if (t_reset == g)
			w->last.pctr_hwc[1] = v;
	}
}

/* DISABLE or ENABLE: 0 or EAGAIN with counters, EINVAL without. */
static void wk_toggle(struct wk *w)
{
	int on = w->disabled == DIS_UNKNOWN ? (int)rnd(&w->seed, 2) :
					      w->disabled, e;

	e = ioc(w->fd, on ? PCIOCENABLE : PCIOCDISABLE, NULL);
	if (on)
		ST(enables);
	else
		ST(disables);
	if (!wk_errno_ok(w, e, EINVAL, on ? "PCIOCENABLE" : "PCIOCDISABLE"))
		return;
	if (e == EAGAIN)
		ST(endis_eagain);
	if (!e) {
		w->disabled = !on;
		/* Read now: while disabled, the next reads must agree. */
		w->have_last = 0;
		wk_read(w);
	}
}

/*
 * A notify worker's overflow, watched with SIGIO blocked: preset slot 0
 * a little short of the wrap and restart, wait for the signal, and the
 * context must be frozen with slot 0 at exactly 0.
 */
static void wk_frozen_probe(struct wk *w)
{
	uint64_t ps = p_base / 8 + rnd(&w->seed, p_base / 2 + 1) + 50;
	struct pctrst a, b;
	double cpu_end, wall_end;
	int e, ea, eb, pending = 0, code;
	unsigned int s;

	ST(frozen_probes);
	sig_mask(SIGIO, SIG_BLOCK);
	e = ioc(w->fd, PCIOCENABLE, NULL);
	if (!wk_errno_ok(w, e, EINVAL, "PCIOCENABLE (probe)") || e)
		goto out;
	w->disabled = 0;
	e = err_of(preset(w->fd, 0, -ps));
	if (!wk_errno_ok(w, e, EINVAL, "PCIOCPRESET (probe)") || e)
		goto out;
	e = ioc(w->fd, PCIOCRESTART, NULL);
	if (!wk_errno_ok(w, e, EINVAL, "PCIOCRESTART (probe)") || e)
		goto out;
	restarted();
	w->have_last = 0;
	/* A signal of before the restart: its overflow is gone. */
	while (take_sigio() > 0)
		ST(drained);
	cpu_end = thread_cpu_sec() + 0.5;
	wall_end = now_sec() + 5;
	while (!(pending = sig_pending(SIGIO)) && !NB_STOP() &&
	       thread_cpu_sec() < cpu_end && now_sec() < wall_end)
		spin_us(20);
	ea = rd(w->fd, &a);
	spin_us(50);
	eb = rd(w->fd, &b);
	if ((ea && ea != EAGAIN) || (eb && eb != EAGAIN)) {
		note("PCIOCRD (frozen): %s, %s", en(ea), en(eb));
	} else if (ea || eb) {
		w->invalid = 1;		/* a CPU binding came */
	} else if (pending || a.pctr_hwc[0] == 0) {
		ST(frozen_checks);
		if (a.pctr_hwc[0] != 0)
			note("frozen: slot 0 reads %llu, not 0 (preset -%llu)",
			     ULL(a.pctr_hwc[0]), ULL(ps));
		for (s = 0; s < PCTR_NUM; s++)
			if (a.pctr_hwc[s] != b.pctr_hwc[s]) {
				note("frozen, slot %u moved: %llu -> %llu", s,
				     ULL(a.pctr_hwc[s]), ULL(b.pctr_hwc[s]));
				break;
			}
	} else if (!NB_STOP()) {
		note("no overflow %llu events from the wrap: slot 0 at %#llx",
		     ULL(ps), ULL(a.pctr_hwc[0]));
	}
	if (pending) {
		code = take_sigio();
		ST(signals);
		if (code != PCTR_SI_OVERFLOW)
			note("blocked SIGIO: si_code %d", code);
	}
	e = ioc(w->fd, PCIOCRESTART, NULL);
	if (wk_errno_ok(w, e, EINVAL, "PCIOCRESTART (after probe)") && !e)
		restarted();
	w->have_last = 0;
out:
	sig_mask(SIGIO, SIG_UNBLOCK);
}

/* Give a descriptor of this file to the closer. */
static void pool_put(int fd, unsigned int *seed)
{
	int old;

	if (fd < 0)
		return;
	old = atomic_exchange(&nb_pool[rnd(seed, NB_POOL)], fd);
	if (old >= 0)
		close(old);
}

static int wk_open(struct wk *w)
{
	w->fd = open(PCTR_DEV, O_RDWR | O_CLOEXEC);
	if (w->fd < 0) {
		note("open: %s", en(errno));
		return -1;
	}
	pool_put(dup(w->fd), &w->seed);
	w->pc.fd = w->fd;
	return 0;
}

/* One call on a thread that has no counters: refused, but ZERO. */
static void wk_unprogrammed_op(struct wk *w)
{
	unsigned int s = rnd(&w->seed, 2) ? 0 : FIX_DIV;
	int e;

	ST(unprog_ops);
	switch (rnd(&w->seed, 6)) {
	case 0:
		e = err_of(preset(w->fd, s, 5));
		wk_errno_ok(w, e, EINVAL, "PCIOCPRESET");
		break;
	case 1:
		e = ioc(w->fd, PCIOCRESTART, NULL);
		wk_errno_ok(w, e, EINVAL, "PCIOCRESTART");
		break;
	case 2:
		wk_toggle(w);
		break;
	case 3:
		/* Nothing to zero: 0. */
		e = ioc(w->fd, PCIOCZERO, NULL);
		wk_errno_ok(w, e, 0, "PCIOCZERO");
		break;
	case 4:
		e = sopts(w->fd, 0, SIGIO);
		wk_errno_ok(w, e, EINVAL, "PCIOCSOPTS");
		break;
	default:
		wk_read(w);
		break;
	}
}

static void *nb_worker(void *arg)
{
	struct wk w;
	int round, rounds, i, e;
	unsigned int op;

	memset(&w, 0, sizeof(w));
	w.notify = (uintptr_t)arg & 1;
	w.seed = (unsigned int)(uintptr_t)arg * 2654435761u;
	ST(wk_threads);
	rounds = 2 + rnd(&w.seed, 3);
	for (round = 0; round < rounds && !NB_STOP(); round++) {
		if (wk_open(&w))
			break;
		for (i = 0; i < 40 && !NB_STOP(); i++) {
			spin_us(50 + rnd(&w.seed, 200));
			if (w.invalid) {
				/* Mostly released first; or programmed afresh. */
				if (rnd(&w.seed, 4))
					wk_release(&w);
				wk_program(&w);
				continue;
			}
			if (!w.programmed) {
				if (rnd(&w.seed, 3))
					wk_unprogrammed_op(&w);
				else
					wk_program(&w);
				continue;
			}
			op = rnd(&w.seed, 100);
			if (op < 30) {
				wk_read(&w);
			} else if (op < 40) {
				wk_page_read(&w);
			} else if (op < 50) {
				/* Slot 0 (a new distance from the wrap), or 3. */
				ST(presets);
				t_reset++;
				if (rnd(&w.seed, 2)) {
					e = err_of(preset(w.fd, 0, w.notify ?
						-(p_base / 4 + rnd(&w.seed, 2 * p_base) + 50) :
						rnd(&w.seed, 1000000)));
				} else {
					e = err_of(preset(w.fd, 3, rnd(&w.seed, 1 << 23)));
				}
				if (wk_errno_ok(&w, e, EINVAL, "PCIOCPRESET") &&
				    e == EAGAIN)
					ST(preset_eagain);
			} else if (op < 58) {
				wk_toggle(&w);
			} else if (op < 62) {
				t_prog++;
				t_reset++;
				e = ioc(w.fd, PCIOCZERO, NULL);
				t_prog++;
				ST(zeros);
				wk_errno_ok(&w, e, 0, "PCIOCZERO");
			} else if (op < 68) {
				if (w.notify) {
					wk_frozen_probe(&w);
				} else {
					e = ioc(w.fd, PCIOCRESTART, NULL);
					if (wk_errno_ok(&w, e, EINVAL, "PCIOCRESTART") &&
					    !e) {
						restarted();
						ST(restarts);
					}
				}
			} else if (op < 71) {
				ST(opts);
				e = sopts(w.fd, 0, SIGIO);
				wk_errno_ok(&w, e, EINVAL, "PCIOCSOPTS");
			} else if (op < 75) {
				wk_program(&w);
			} else if (op < 79) {
				wk_release(&w);
			} else if (op < 84) {
				/* A new descriptor; the old file may end in the closer. */
				close(w.fd);
				if (wk_open(&w))
					return NULL;
				ST(fd_swaps);
			} else {
				spin_us(500 + rnd(&w.seed, 2000));
				wk_read(&w);
			}
		}
		switch (rnd(&w.seed, 3)) {
		case 0:
			wk_release(&w);
			break;
		default:
			break;	/* counting on, into the next round or to exit */
		}
		wk_unmap(&w);
		close(w.fd);
	}
	return NULL;
}

static void *nb_spawner(void *arg)
{
	pthread_t t[NB_NOTIFY + NB_PLAIN];
	uintptr_t n = 1;
	int i, ok[NB_NOTIFY + NB_PLAIN];

	while (!NB_STOP()) {
		for (i = 0; i < NB_NOTIFY + NB_PLAIN; i++, n++) {
			ok[i] = !pthread_create(&t[i], NULL, nb_worker,
						(void *)((n << 1) | (i < NB_NOTIFY)));
			if (!ok[i])
				note("pthread_create");
		}
		for (i = 0; i < NB_NOTIFY + NB_PLAIN; i++)
			if (ok[i])
				pthread_join(t[i], NULL);
	}
	return NULL;
}

static void *nb_closer(void *arg)
{
	unsigned int seed = 77;
	int fd;

	while (!NB_STOP()) {
		fd = atomic_exchange(&nb_pool[rnd(&seed, NB_POOL)], -1);
		if (fd >= 0) {
			close(fd);
			ST(dup_closes);
		}
		usleep(rnd(&seed, 400));
	}
	return NULL;
}

/* --- inheritance ------------------------------------------------------- */

/* What a thread or process made by the inheritor should start with. */
struct inh {
	uint64_t	f0;		/* slot 0's function */
	uint64_t	p0, pf;		/* slot 0's and fixed counter 1's presets */
	int		what;		/* what the new thread does */
	int		err;
	unsigned int	seed;
};

/*
 * In a new thread or process: nothing (a CPU binding was there when it
 * was made, or invalidated its creator's counters), EAGAIN (one came
 * since), or exactly the inheritor's functions and options, slot 0 and
 * fixed counter 1 their presets apart (a PCTR_INT slot was restarted by
 * the handler, before this thread's own code ran).  0, or a code.
 */
static int inh_check(const struct inh *e)
{
	unsigned long g = t_reset;
	struct pctr_opts o;
	struct pctrst a, b;
	unsigned int s;
	int r;

	r = rd(g_fd, &a);
	if (r == EAGAIN) {
		ST(read_eagain);
		return 0;
	}
	if (r)
		return 10;
	if (st_clean(&a)) {
		ST(inh_clean);
		return 0;
	}
	ST(inh_seen);
	for (s = 0; s < PCTR_NUM; s++)
		if (a.pctr_fn[s] != (s == 0 ? e->f0 : s == FIX_DIV ? FIXFN : 0))
			return 11;
	if (a.pctr_hwc[FIX_DIV] - a.pctr_hwc[0] != e->pf - e->p0)
		return 12;
	memset(&o, 0xa5, sizeof(o));
	if (ioc(g_fd, PCIOCGOPTS, &o) || o.po_flags != PCTR_O_INHERIT ||
	    o.po_signo != SIGIO)
		return 13;
	spin_us(200);
	r = rd(g_fd, &b);
	if (r == EAGAIN)
		return 0;
	if (r)
		return 14;
	if (b.pctr_hwc[FIX_DIV] - b.pctr_hwc[0] != e->pf - e->p0)
		return 15;
	if (t_reset == g && b.pctr_hwc[FIX_DIV] < a.pctr_hwc[FIX_DIV])
		return 16;
	return 0;
}

static void *inh_thread(void *arg);

/*
 * What a new thread or process does: check, then exit at once (0), spin
 * and check again (1), make a thread (2) or a process (3) that checks,
 * all inheriting in turn.  0, or a code (sub-thread 20+, sub-process 40+).
 */
static int inh_child(struct inh *e)
{
	struct inh sub;
	pthread_t t;
	int r, status;
	pid_t pid;

	r = inh_check(e);
	if (r)
		return r;
	switch (e->what) {
	case 1:
		spin_us(500 + rnd(&e->seed, 2000));
		return inh_check(e);
	case 2:
		sub = *e;
		sub.what = 1;
		sub.err = 0;
		if (pthread_create(&t, NULL, inh_thread, &sub))
			return 19;
		pthread_join(t, NULL);
		return sub.err ? 20 + sub.err : 0;
	case 3:
		pid = fork();
		if (pid < 0)
			return 39;
		if (pid == 0)
			_exit(inh_check(e));
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return 38;
		return WEXITSTATUS(status) ? 40 + WEXITSTATUS(status) : 0;
	}
	return 0;
}

static void *inh_thread(void *arg)
{
	struct inh *e = arg;

	e->err = inh_child(e);
	return NULL;
}

/* The inheritor's own counters: 0, or EAGAIN (then released). */
static int inh_program(int with_int, struct inh *cur, unsigned int *seed)
{
	struct pctrst st;
	int e;

	cur->f0 = FN(EV_DIV) | (with_int ? PCTR_INT : 0);
	cur->p0 = with_int ? -(3 * p_base + rnd(seed, p_base)) :
			     777000 + rnd(seed, 1000);
	cur->pf = 5000000 + rnd(seed, 1000000);
	e = err_of(set(g_fd, 0, cur->f0));
	if (!e)
		e = err_of(set(g_fd, FIX_DIV, FIXFN));
	/* Never slot 0 lost to a CPU binding made and ended meanwhile. */
	if (!e) {
		e = rd(g_fd, &st);
		if (!e && (st.pctr_fn[0] != cur->f0 ||
			   st.pctr_fn[FIX_DIV] != FIXFN)) {
			ST(program_lost);
			note("inheritor: programming lost slot 0");
			e = EAGAIN;
		}
	}
	if (!e)
		e = err_of(preset(g_fd, 0, cur->p0));
	if (!e)
		e = err_of(preset(g_fd, FIX_DIV, cur->pf));
	if (!e)
		e = sopts(g_fd, PCTR_O_INHERIT, rnd(seed, 2) ? SIGIO : 0);
	if (e && e != EAGAIN)
		note("inheritor programming: %s", en(e));
	if (e)
		ioctl(g_fd, PCIOCRELEASE);
	return e;
}

#define INH_BATCH	4

static void *nb_inheritor(void *arg)
{
	struct inh cur, ts[INH_BATCH];
	pthread_t t[INH_BATCH];
	pid_t pid[INH_BATCH];
	unsigned int seed = 4242;
	int with_int = 0, programmed = 0, batch = 0, n, k, r, status;
	struct pctrst st;

	memset(&cur, 0, sizeof(cur));
	while (!NB_STOP()) {
		if (!programmed) {
			r = inh_program(with_int, &cur, &seed);
			if (r) {
				usleep(500);
				continue;
			}
			programmed = 1;
		}
		n = 1 + rnd(&seed, INH_BATCH);
		for (k = 0; k < n; k++) {
			ts[k] = cur;
			ts[k].what = rnd(&seed, 5);
			ts[k].seed = rand_r(&seed);
			ts[k].err = 0;
			pid[k] = 0;
			if (rnd(&seed, 2) && ts[k].what < 4) {
				ST(inh_threads);
				if (pthread_create(&t[k], NULL, inh_thread, &ts[k])) {
					note("pthread_create (inheritor)");
					pid[k] = -1;
				}
				continue;
			}
			ST(inh_forks);
			pid[k] = fork();
			if (pid[k] == 0) {
				r = inh_child(&ts[k]);
				if (ts[k].what == 4 && !r && have_true) {
					/* A signal on the way would kill it. */
					sig_mask(SIGIO, SIG_BLOCK);
					execl("/bin/true", "true", (char *)NULL);
					_exit(90);
				}
				_exit(r);
			}
			if (pid[k] < 0)
				note("fork (inheritor): %s", en(errno));
			else if (ts[k].what == 4 && have_true)
				ST(inh_execs);
		}
		for (k = 0; k < n; k++) {
			if (pid[k] < 0)
				continue;
			if (pid[k] == 0) {
				pthread_join(t[k], NULL);
				if (ts[k].err)
					note("inherited thread (what %d, INT %d): code %d",
					     ts[k].what, with_int, ts[k].err);
				continue;
			}
			if (waitpid(pid[k], &status, 0) != pid[k])
				note("waitpid (inheritor): %s", en(errno));
			else if (!WIFEXITED(status) || WEXITSTATUS(status))
				note("inherited process (what %d, INT %d): %s %d",
				     ts[k].what, with_int,
				     WIFEXITED(status) ? "code" : "signal",
				     WIFEXITED(status) ? WEXITSTATUS(status) :
							 WTERMSIG(status));
		}
		/* Its own counters: as programmed, or invalidated. */
		r = rd(g_fd, &st);
		if (r == EAGAIN) {
			ST(inh_own_eagain);
			ioctl(g_fd, PCIOCRELEASE);
			programmed = 0;
		} else if (r) {
			note("inheritor PCIOCRD: %s", en(r));
		} else if (st.pctr_fn[0] != cur.f0 ||
			   st.pctr_fn[FIX_DIV] != FIXFN) {
			note("inheritor functions %#llx %#llx",
			     ULL(st.pctr_fn[0]), ULL(st.pctr_fn[FIX_DIV]));
		}
		if (++batch % 8 == 0) {
			ioctl(g_fd, PCIOCRELEASE);
			programmed = 0;
			with_int = !with_int;
		}
	}
	ioctl(g_fd, PCIOCRELEASE);
	return NULL;
}

/*
 * Release a bound descriptor: it is this thread's own again, with
 * nothing programmed.
 */
static void release_bound(int fd, const char *what)
{
	struct pctrst st;
	int e;

	e = ioc(fd, PCIOCRELEASE, NULL);
	if (e)
		note("PCIOCRELEASE (%s): %s", what, en(e));
	e = rd(fd, &st);
	if (e || !st_clean(&st))
		note("released %s reads: %s", what, en(e));
}

/* --- the CPU binder ------------------------------------------------------- */

/*
 * Binds a CPU for 1-5 ms, reads it, lets go (PCIOCRELEASE or close),
 * waits 4-12 ms, and again.  Every call must succeed: it is the only
 * one binding CPUs.  Slot 0 (event 0x01, 24 bits) and fixed counter 0
 * count every tick, from their presets.
 */
static void __attribute__((noreturn)) cpu_binder(unsigned int seed)
{
	struct pctr_bind b;
	struct pctrst st, last;
	uint64_t p0, pf;
	unsigned int s, cpu;
	int fd, e, have;
	long n;
	double t0, end;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (!NB_STOP()) {
		fd = open(PCTR_DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			note("open (CPU binder): %s", en(errno));
			usleep(10000);
			continue;
		}
		cpu = rnd(&seed, nb_ncpu);
		p0 = (uint64_t)rand_r(&seed) << 8;
		pf = (uint64_t)rand_r(&seed) << 4;
		memset(&b, 0, sizeof(b));
		b.pb_kind = PCTR_BIND_CPU;
		b.pb_id = cpu;
		b.pb_fn[0] = FN(EV_TICKS);
		b.pb_preset[0] = p0;
		b.pb_fn[FIX_TICKS] = FIXFN;
		b.pb_preset[FIX_TICKS] = pf;
		e = ioc(fd, PCIOCBIND, &b);
		if (e) {
			note("PCIOCBIND CPU %u: %s", cpu, en(e));
		} else {
			ST(cpu_binds);
			memset(&last, 0, sizeof(last));
			n = read_long(CPU_BINDINGS);
			if (n != 1)
				note("bound: cpu_bindings %ld", n);
			have = 0;
			t0 = now_sec();
			end = t0 + (1 + rnd(&seed, 3)) / 1000.0;
			do {
				e = rd(fd, &st);
				if (e) {
					note("PCIOCRD (CPU %u): %s", cpu, en(e));
					break;
				}
				ST(cpu_reads);
				for (s = 0; s < PCTR_NUM; s++)
					if (st.pctr_fn[s] != (s == 0 ? FN(EV_TICKS) :
							      s == FIX_TICKS ? FIXFN : 0))
						note("CPU %u slot %u: function %#llx",
						     cpu, s, ULL(st.pctr_fn[s]));
				if (st.pctr_hwc[0] - p0 != st.pctr_hwc[FIX_TICKS] - pf)
					note("CPU %u: slot 0 %llu - %llu != fixed 0 %llu - %llu",
					     cpu, ULL(st.pctr_hwc[0]), ULL(p0),
					     ULL(st.pctr_hwc[FIX_TICKS]), ULL(pf));
				if (have && (st.pctr_hwc[0] < last.pctr_hwc[0] ||
					     st.pctr_hwc[FIX_TICKS] < last.pctr_hwc[FIX_TICKS]))
					note("CPU %u: went back", cpu);
				last = st;
				have = 1;
				usleep(300);
			} while (now_sec() < end && !NB_STOP());
			atomic_fetch_add(&S->cpu_bound_us,
					 (unsigned long)((now_sec() - t0) * 1e6));
			if (rnd(&seed, 2)) {
				release_bound(fd, "CPU binding");
			}
		}
		close(fd);
		n = read_long(CPU_BINDINGS);
		if (n != 0)
			note("closed: cpu_bindings %ld", n);
		usleep(15000 + rnd(&seed, 20000));
	}
	_exit(0);
}

/* --- the thread binder ----------------------------------------------------- */

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
 * Seizes its spinning child, binds it (0; EAGAIN while a CPU binding
 * exists), detaches, and then one of: reads and releases (after which
 * the descriptor reads the binder's own, empty, counters); reads in
 * another thread while this one closes the descriptor (the reader ends
 * at EBADF); kills the target (after detaching, or still traced) and
 * reads the final values twice; has it exec, and reads the final
 * values likewise; closes without releasing; or has it exec while the
 * binding is being set up.
 */
static void __attribute__((noreturn)) thread_binder(unsigned int seed)
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
		mode = rnd(&seed, 7);
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

/* --- the test ------------------------------------------------------------ */

/* Its descriptor (g_fd) holds the module all along. */
RELOAD_FIXTURE(stress_nb, NB_PARAMS);

static pid_t nb_fork(void (*fn)(unsigned int), unsigned int seed)
{
	pid_t pid = fork();

	if (pid == 0)
		fn(seed);
	return pid;
}

/* Figures that must not be 0: each path ran. */
#define RAN(n)	{ #n, offsetof(struct nb_shared, n) }
static const struct {
	const char	*name;
	size_t		off;
} ran[] = {
	RAN(restarts), RAN(frozen_checks), RAN(sync_checks),
	RAN(still_checks), RAN(read_eagain), RAN(inh_seen), RAN(cpu_binds),
	RAN(th_binds), RAN(th_close_in_read), RAN(th_kills), RAN(th_execs),
	RAN(rmmod_refused),
};
#undef RAN

/* Has every path run (at least once)? */
static int nb_all_ran(void)
{
	int i;

	for (i = 0; i < (int)(sizeof(ran) / sizeof(ran[0])); i++)
		if (!atomic_load((atomic_ulong *)((char *)S + ran[i].off)))
			return 0;
	return !have_true || atomic_load(&S->inh_execs);
}

TEST_F_TIMEOUT(stress_nb, notify_inherit_bind_at_once, 150)
{
	pthread_t sp, cl, ih;
	struct pctr_info info;
	pid_t cpub, thb;
	double t0, end;
	int i, fd;

	RETURN_IF_SKIPPED();
	S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, S);
	memset(S, 0, sizeof(*S));
	for (i = 0; i < NB_POOL; i++)
		atomic_store(&nb_pool[i], -1);
	g_fd = self->m.fd;
	ASSERT_EQ(0, pctr_get_info(g_fd, &info));
	ASSERT_EQ(PCTR_BACKEND_SIM, info.pi_backend_id);
	ASSERT_TRUE(info.pi_caps & PCTR_CAP_NOTIFY);
	ASSERT_NE(0, info.pi_tsc_khz);
	p_base = info.pi_tsc_khz / NB_SIM_DIV;
	if (p_base < 100)
		p_base = 100;
	nb_ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	have_true = access("/bin/true", X_OK) == 0;
	TH_LOG("TSC %llu kHz: %llu events 0x02 a ms; %d CPUs; %s",
	       ULL(info.pi_tsc_khz), ULL(p_base), nb_ncpu,
	       have_true ? "children exec /bin/true" : "no /bin/true to exec");

	ASSERT_EQ(0, on_siginfo(SIGIO, nb_on_sigio));

	/* The processes first, from this thread, which has no counters. */
	cpub = nb_fork(cpu_binder, 1);
	ASSERT_LT(0, cpub);
	thb = nb_fork(thread_binder, 2);
	ASSERT_LT(0, thb);
	ASSERT_EQ(0, pthread_create(&sp, NULL, nb_spawner, NULL));
	ASSERT_EQ(0, pthread_create(&cl, NULL, nb_closer, NULL));
	ASSERT_EQ(0, pthread_create(&ih, NULL, nb_inheritor, NULL));

	/*
	 * NB_SECONDS, and on until every path ran.  12 s is plenty on an
	 * idle host, but a guest whose vCPUs wait for their turns on a
	 * loaded host did so little in them that some paths never ran
	 * (frozen checks, killed and exec'ing targets ...).  Give those up
	 * to NB_SECONDS * 4 more before the checks below call them missed.
	 */
	t0 = now_sec();
	end = t0 + NB_SECONDS;
	while (now_sec() < end ||
	       (!nb_all_ran() && now_sec() < end + NB_SECONDS * 4)) {
		usleep(20000);
		/* g_fd holds the module: every attempt is refused. */
		if (unload() == 0) {
			note("rmmod succeeded while in use");
			ASSERT_EQ(0, load(NB_PARAMS));
		} else if (errno == EAGAIN || errno == EBUSY) {
			ST(rmmod_refused);
		} else {
			note("rmmod: %s", en(errno));
		}
	}
	TH_LOG("ran %.1f s", now_sec() - t0);
	atomic_store(&S->stop, 1);
	ASSERT_EQ(0, pthread_join(sp, NULL));
	ASSERT_EQ(0, pthread_join(cl, NULL));
	ASSERT_EQ(0, pthread_join(ih, NULL));
	EXPECT_EQ(0, wait_exit(cpub));
	EXPECT_EQ(0, wait_exit(thb));
	for (i = 0; i < NB_POOL; i++) {
		fd = atomic_exchange(&nb_pool[i], -1);
		if (fd >= 0)
			close(fd);
	}
	close(g_fd);
	self->m.fd = -1;

#define V(n)	atomic_load(&S->n)
	TH_LOG("workers: %lu threads; %lu reads (%lu EAGAIN), %lu inline "
	       "(%lu maps); checks: %lu monotonic, %lu in step, %lu still",
	       V(wk_threads), V(reads), V(read_eagain), V(page_reads),
	       V(page_maps), V(mono_checks), V(sync_checks), V(still_checks));
	TH_LOG("workers: %lu programs (%lu EAGAIN, %lu lost slots), "
	       "%lu presets (%lu EAGAIN), %lu disables, %lu enables "
	       "(%lu EAGAIN), %lu zeros, %lu opts, %lu releases",
	       V(programs), V(program_eagain), V(program_lost), V(presets),
	       V(preset_eagain), V(disables), V(enables), V(endis_eagain),
	       V(zeros), V(opts), V(releases));
	TH_LOG("workers: %lu calls without counters; %lu descriptors "
	       "swapped, %lu closed by the closer",
	       V(unprog_ops), V(fd_swaps), V(dup_closes));
	TH_LOG("overflow: %lu signals, %lu restarts (%lu EAGAIN, %lu EINVAL); "
	       "%lu frozen checks in %lu probes (%lu stale signals drained)",
	       V(signals), V(restarts), V(restart_eagain), V(restart_einval),
	       V(frozen_checks), V(frozen_probes), V(drained));
	TH_LOG("inheritance: %lu threads, %lu processes (%lu exec); "
	       "%lu inherited, %lu without (CPU binding); inheritor "
	       "invalidated %lu times",
	       V(inh_threads), V(inh_forks), V(inh_execs), V(inh_seen),
	       V(inh_clean), V(inh_own_eagain));
	TH_LOG("CPU bindings: %lu, %lu reads, bound %.1f s in all",
	       V(cpu_binds), V(cpu_reads), V(cpu_bound_us) / 1e6);
	TH_LOG("thread bindings: %lu (%lu EAGAIN), %lu reads (%lu EAGAIN), "
	       "%lu closed while read, %lu targets killed, %lu exec'd, "
	       "%lu target calls",
	       V(th_binds), V(th_bind_eagain), V(th_reads), V(th_read_eagain),
	       V(th_close_in_read), V(th_kills), V(th_execs),
	       V(th_target_ops));
	TH_LOG("binds racing exec: %lu (%lu bound, %lu EPERM, %lu ESRCH, "
	       "%lu EAGAIN)",
	       V(th_bind_exec), V(th_bind_ok), V(th_bind_eperm),
	       V(th_bind_esrch), V(th_bind_exec_eagain));
	TH_LOG("rmmod refused %lu times; %lu unexpected", V(rmmod_refused),
	       V(unexpected));
	for (i = 0; i < atomic_load(&S->nmsg) && i < NB_NMSG; i++)
		TH_LOG("unexpected: %s", S->msg[i]);
	if (atomic_load(&S->sig_bad_code))
		TH_LOG("unexpected: a SIGIO with si_code %d",
		       atomic_load(&S->sig_bad_code));
	if (atomic_load(&S->sig_bad_errno))
		TH_LOG("unexpected: PCIOCRESTART in the handler: %s",
		       en(atomic_load(&S->sig_bad_errno)));
	EXPECT_EQ(0, V(unexpected));
	/* Each path ran. */
	for (i = 0; i < (int)(sizeof(ran) / sizeof(ran[0])); i++)
		EXPECT_LT(0, atomic_load((atomic_ulong *)((char *)S + ran[i].off)))
			TH_LOG("never happened: %s", ran[i].name ?: "?");
	if (have_true)
		EXPECT_LT(0, V(inh_execs));
#undef V

	/* Everything has ended: nothing may be left behind. */
	EXPECT_EQ(0, wait_zero(PCTR_SYSFS "/contexts"));
	EXPECT_EQ(0, wait_zero(CPU_BINDINGS));
	EXPECT_EQ(0, wait_zero(PCTR_SYSFS "/taken"));
	EXPECT_EQ(0, unload_wait());
	EXPECT_FALSE(loaded());
	munmap(S, sizeof(*S));
}

TEST_HARNESS_MAIN
