// SPDX-License-Identifier: GPL-2.0
/*
 * notify_bind_stress_test's workers: threads, replaced as they end,
 * some with a PCTR_INT slot and a SIGIO handler that restarts, each
 * presetting, disabling, enabling, zeroing, releasing and re-programming
 * its own counters, reading them by ioctl and from the page, and handing
 * descriptors to a closer thread.
 */
#define PCTR_TEST_NO_HARNESS
#include "pctr_test.h"
#include "nb_stress.h"

/* Take a pending (blocked) SIGIO: its si_code, or -1 if none. */
static int take_sigio(void)
{
	siginfo_t si;

	return take_pending(SIGIO, &si);
}

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

void *nb_spawner(void *arg)
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

void *nb_closer(void *arg)
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
