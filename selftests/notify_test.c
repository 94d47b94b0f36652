// SPDX-License-Identifier: GPL-2.0
/*
 * Overflow notification (PCTR_INT, PCIOCRESTART), the context options
 * (PCIOCSOPTS/PCIOCGOPTS) and inheritance (PCTR_O_INHERIT), at the ioctl
 * level, on the simulated PMU; the "be" tests on the Intel and AMD
 * backends too.
 *
 * The sim counts TSC ticks: event 0x02 and fixed counter 1 count one
 * event per sim_div (1000) ticks, event 0x01 and fixed counter 0 one per
 * tick.  Its overflow freeze is exact: when a PCTR_INT slot preset to
 * 2^64 - P wraps, it reads 0 and another slot that counted the same
 * event from 0 over the same period reads exactly P.
 */
#include "pctr_test.h"

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"

#define SIM_DIV		1000

/* Where the main program's code lies: most overflows interrupt it. */
extern char __executable_start[], etext[];

/* The default overflow signal reads back as 0 or as SIGIO. */
static int default_signo(uint32_t signo)
{
	return signo == 0 || signo == SIGIO;
}

/* The options of a thread that never set any (flags @flags). */
static int opts_default(const struct pctr_opts *o, uint32_t flags)
{
	return o->po_flags == flags && default_signo(o->po_signo) &&
	       !o->po_reserved[0] && !o->po_reserved[1] && !o->po_reserved[2];
}

static int opts_zero(const struct pctr_opts *o)
{
	return !o->po_flags && !o->po_signo && !o->po_reserved[0] &&
	       !o->po_reserved[1] && !o->po_reserved[2];
}

/* --- the overflow signal handler ----------------------------------- */

#define MAXREC	64

/* What the handler saw at one signal (the last slot takes any more). */
struct rec {
	int		signo;
	int		code;
	void		*addr;
	pid_t		tid;
	int		rd;		/* PCIOCRD: 0 or errno */
	int		rs;		/* PCIOCRESTART: 0, errno, or -1: not done */
	struct pctrst	st;
};

static struct rec recs[MAXREC];
static volatile int nsig;
/* The handler restarts this many times more, then leaves them frozen. */
static volatile int restart_left;
static int g_fd = -1;

static void ovf_handler(int sig, siginfo_t *si, void *uc)
{
	int e = errno, i = nsig;
	struct rec *r;

	r = &recs[i < MAXREC ? i : MAXREC - 1];
	r->signo = sig;
	r->code = si->si_code;
	r->addr = si->si_addr;
	r->tid = gettid_();
	r->rd = ioctl(g_fd, PCIOCRD, &r->st) ? errno : 0;
	r->rs = -1;
	if (restart_left > 0) {
		restart_left--;
		r->rs = ioctl(g_fd, PCIOCRESTART) ? errno : 0;
	}
	nsig = i + 1;
	errno = e;
}

static int on_signal(int sig)
{
	return on_siginfo(sig, ovf_handler);
}

/*
 * Spin in plain user code (no vDSO, no system call in the hot loop)
 * until *@cnt reaches @want, for at most @sec of this thread's CPU time.
 */
static int spin_until(volatile int *cnt, int want, double sec)
{
	double end = thread_cpu_sec() + sec;
	volatile long i;

	for (;;) {
		for (i = 0; i < 200000 && *cnt < want; i++)
			;
		if (*cnt >= want)
			return 0;
		if (thread_cpu_sec() > end)
			return -1;
	}
}

/* Spin until @sig is pending (blocked), for at most @sec of CPU time. */
static int spin_until_pending(int sig, double sec)
{
	double end = thread_cpu_sec() + sec;
	volatile long i;

	for (;;) {
		for (i = 0; i < 20000; i++)
			;
		if (sig_pending(sig))
			return 0;
		if (thread_cpu_sec() > end)
			return -1;
	}
}

/* --- fixtures -------------------------------------------------------- */

FIXTURE(sim) {
	struct reloaded m;
};

FIXTURE_SETUP(sim)
{
	reload_with(_metadata, &self->m, "pmu=sim sim_div=1000");
	g_fd = self->m.fd;
}

FIXTURE_TEARDOWN(sim)
{
	reload_restore(_metadata, &self->m);
}

/* The sim without overflow interrupts: no notification either. */
RELOAD_FIXTURE(nonotify, "pmu=sim sim_overflow=0");

/* Events of 0x02 in @sec seconds of running. */
static double div_events(uint64_t khz, double sec)
{
	return sec * khz * 1000.0 / SIM_DIV;
}

/* --- capability and encoding ----------------------------------------- */

TEST_F(sim, int_accepted_with_cap_notify)
{
	struct pctr_pcr pcr;
	struct pctrst st;

	RETURN_IF_SKIPPED();
	EXPECT_EQ(PCTR_CAP_NOTIFY | PCTR_CAP_OVERFLOW, pctr_caps(self->m.fd) &
		  (PCTR_CAP_NOTIFY | PCTR_CAP_OVERFLOW));

	/* General and fixed slots both take PCTR_INT. */
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV) | PCTR_INT));
	ASSERT_EQ(0, set(self->m.fd, FIX_DIV, FIXFN | PCTR_INT));
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_EQ(FN(EV_DIV) | PCTR_INT, st.pctr_fn[0]);
	EXPECT_EQ(FIXFN | PCTR_INT, st.pctr_fn[FIX_DIV]);

	/* GETPCR: the bit in the event select, bit 3 of the fixed nibble. */
	memset(&pcr, 0xa5, sizeof(pcr));
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCGETPCR, &pcr));
	EXPECT_EQ(FN(EV_DIV) | PCTR_INT, pcr.pcr_evtsel[0]);
	EXPECT_EQ(0xbULL << 4, pcr.pcr_fixed_ctrl);

	/* SETPCR sets it the same way. */
	memset(&pcr, 0, sizeof(pcr));
	pcr.pcr_evtsel[1] = FN(EV_DIV) | PCTR_INT;
	pcr.pcr_fixed_ctrl = 0xbULL;		/* fixed 0: K, U, INT */
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCSETPCR, &pcr));
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_EQ(0, st.pctr_fn[0]);
	EXPECT_EQ(FN(EV_DIV) | PCTR_INT, st.pctr_fn[1]);
	EXPECT_EQ(FIXFN | PCTR_INT, st.pctr_fn[PCTR_FIXED(0)]);
	EXPECT_EQ(0, st.pctr_fn[FIX_DIV]);
}

TEST_F(nonotify, int_is_eopnotsupp_without_cap_notify)
{
	struct pctr_pcr pcr;
	struct pctrst st;

	RETURN_IF_SKIPPED();
	/* Counters, no notification. */
	EXPECT_EQ(PCTR_CAP_COUNTERS, pctr_caps(self->m.fd) &
		  (PCTR_CAP_NOTIFY | PCTR_CAP_COUNTERS));
	EXPECT_EQ(-1, set(self->m.fd, 0, FN(EV_DIV) | PCTR_INT));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, set(self->m.fd, FIX_DIV, FIXFN | PCTR_INT));
	EXPECT_EQ(EOPNOTSUPP, errno);
	memset(&pcr, 0, sizeof(pcr));
	pcr.pcr_evtsel[0] = FN(EV_DIV) | PCTR_INT;
	EXPECT_EQ(-1, ioctl(self->m.fd, PCIOCSETPCR, &pcr));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* Nothing was half set up; without the bit all is well. */
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_TRUE(st_clean(&st));
	EXPECT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
}

/* --- exact periods --------------------------------------------------- */

#define EXACT_N		20

/*
 * The period: 2000 user-mode instructions on the x86 backends.  The sim
 * counts time, the kernel's included, so its period is made long beside
 * what the handler's signal delivery, two ioctls and sigreturn cost (on a
 * KASAN kernel under TCG, a good part of a millisecond): 20000 events of
 * sim_div ticks, some 10 ms, so most overflows still interrupt the spin
 * loop, as they do the hardware's.
 */
#define EXACT_P		2000ULL
#define EXACT_P_SIM	20000ULL

/*
 * Is @addr in an executable mapping of this process (/proc/self/maps)?
 * If @where, the mapping's line is copied there.
 */
static int in_exec_mapping(const void *addr, char *where, size_t len)
{
	unsigned long lo, hi, a = (unsigned long)addr;
	char perms[8], line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 &&
		    a >= lo && a < hi && perms[2] == 'x') {
			found = 1;
			if (where)
				snprintf(where, len, "%s", line);
		}
	fclose(f);
	return found;
}

/*
 * Slot @islot notifies every @P events; slot @oslot counts the same
 * event from 0 (its preset).  The handler reads and restarts: at every
 * signal @islot reads 0 and @oslot exactly @P (the first period
 * excepted: @oslot started before the preset).  Then, frozen, nothing
 * moves; blocked, the signal waits while the counters stay frozen.
 * be.exact_periods_general and be.exact_periods_fixed run it on each
 * backend, the sim's included.
 */
static void exact_periods(struct __test_metadata *_metadata, int fd,
			  uint64_t P, unsigned int islot, uint64_t ifn,
			  unsigned int oslot, uint64_t ofn)
{
	struct pctrst a, b;
	siginfo_t si;
	int i, in_text = 0;

	ASSERT_EQ(0, on_signal(SIGIO));
	nsig = 0;
	restart_left = EXACT_N - 1;
	ASSERT_EQ(0, set(fd, oslot, ofn));
	ASSERT_EQ(0, set(fd, islot, ifn | PCTR_INT));
	ASSERT_EQ(0, preset(fd, islot, -P));
	ASSERT_EQ(0, spin_until(&nsig, EXACT_N, 30.0))
		TH_LOG("%d signals of %d", nsig, EXACT_N);
	/* The last handler did not restart: frozen from here. */
	ASSERT_EQ(EXACT_N, nsig);
	for (i = 0; i < EXACT_N; i++) {
		struct rec *r = &recs[i];

		EXPECT_EQ(SIGIO, r->signo) TH_LOG("signal %d", i);
		EXPECT_EQ(PCTR_SI_OVERFLOW, r->code) TH_LOG("signal %d", i);
		EXPECT_EQ(gettid_(), r->tid);
		EXPECT_NE(NULL, r->addr) TH_LOG("signal %d", i);
		/*
		 * A user address: in one of our executable mappings (on
		 * sparc64, user and kernel addresses are separate spaces
		 * and libraries may sit high, so no bound would do).
		 */
		EXPECT_TRUE(in_exec_mapping(r->addr, NULL, 0))
			TH_LOG("signal %d: si_addr %p", i, r->addr);
		if ((char *)r->addr >= __executable_start &&
		    (char *)r->addr < etext)
			in_text++;
		ASSERT_EQ(0, r->rd) TH_LOG("signal %d", i);
		EXPECT_EQ(ifn | PCTR_INT, r->st.pctr_fn[islot]);
		EXPECT_EQ(ofn, r->st.pctr_fn[oslot]);
		EXPECT_EQ(0, r->st.pctr_hwc[islot]) TH_LOG("signal %d", i);
		if (i == 0) {
			EXPECT_LE(P, r->st.pctr_hwc[oslot]);
		} else {
			EXPECT_EQ(P, r->st.pctr_hwc[oslot])
				TH_LOG("signal %d", i);
		}
		EXPECT_EQ(i < EXACT_N - 1 ? 0 : -1, r->rs)
			TH_LOG("signal %d", i);
	}
	TH_LOG("%d signals, %d of them in the program's text (%p..%p); first at %p",
	       EXACT_N, in_text, __executable_start, etext, recs[0].addr);
	EXPECT_GE(in_text, EXACT_N / 2) {
		for (i = 0; i < EXACT_N; i++) {
			char where[512] = "";

			in_exec_mapping(recs[i].addr, where, sizeof(where));
			TH_LOG("signal %d at %p: %s", i, recs[i].addr, where);
		}
	}

	/* Frozen: two reads with time between agree, and no more signals. */
	ASSERT_EQ(0, rd(fd, &a));
	spin(0.05);
	ASSERT_EQ(0, rd(fd, &b));
	EXPECT_EQ(0, a.pctr_hwc[islot]);
	EXPECT_EQ(P, a.pctr_hwc[oslot]);
	EXPECT_EQ(a.pctr_hwc[islot], b.pctr_hwc[islot]);
	EXPECT_EQ(a.pctr_hwc[oslot], b.pctr_hwc[oslot]);
	EXPECT_EQ(EXACT_N, nsig);

	/*
	 * Restart with the signal blocked: it counts again, from the
	 * presets, so the two slots stay exactly 2^64 - P apart; the next
	 * overflow freezes them and leaves the signal pending.
	 */
	ASSERT_EQ(0, sig_mask(SIGIO, SIG_BLOCK));
	ASSERT_EQ(0, ioctl(fd, PCIOCRESTART));
	ASSERT_EQ(0, rd(fd, &a));
	EXPECT_EQ(-P, a.pctr_hwc[islot] - a.pctr_hwc[oslot]);
	EXPECT_GE(P, a.pctr_hwc[oslot]);
	ASSERT_EQ(0, spin_until_pending(SIGIO, 10.0));
	ASSERT_EQ(0, rd(fd, &a));
	spin(0.05);
	ASSERT_EQ(0, rd(fd, &b));
	EXPECT_EQ(0, a.pctr_hwc[islot]);
	EXPECT_EQ(P, a.pctr_hwc[oslot]);
	EXPECT_EQ(0, b.pctr_hwc[islot]);
	EXPECT_EQ(P, b.pctr_hwc[oslot]);
	EXPECT_EQ(PCTR_SI_OVERFLOW, take_pending(SIGIO, &si));
	EXPECT_NE(NULL, si.si_addr);
	EXPECT_EQ(EXACT_N, nsig);
	/* Still frozen after the signal was taken. */
	ASSERT_EQ(0, rd(fd, &b));
	EXPECT_EQ(P, b.pctr_hwc[oslot]);
	ASSERT_EQ(0, sig_mask(SIGIO, SIG_UNBLOCK));
	/* And free: no signal comes any more. */
	ASSERT_EQ(0, set(fd, islot, 0));
	ASSERT_EQ(0, set(fd, oslot, 0));
}

/* The handler restarts: signals keep coming, one per P events of CPU. */
TEST_F_TIMEOUT(sim, signals_follow_run_time, 120)
{
	const uint64_t P = 200000;
	double c0, c1, want;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, on_signal(SIGIO));
	nsig = 0;
	restart_left = 1000;
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV) | PCTR_INT));
	ASSERT_EQ(0, preset(self->m.fd, 0, -P));
	c0 = thread_cpu_sec();
	spin_cpu(1.0);
	c1 = thread_cpu_sec();
	restart_left = 0;
	want = div_events(self->m.khz, c1 - c0) / P;
	TH_LOG("%d signals in %.3f s of CPU (expected about %.1f)", nsig,
	       c1 - c0, want);
	EXPECT_GE(nsig, (int)(want * 0.5));
	EXPECT_LE(nsig, (int)(want * 1.3) + 1);
	ASSERT_EQ(0, set(self->m.fd, 0, 0));
}

/* --- restart and presets --------------------------------------------- */

TEST_F_TIMEOUT(sim, restart_restores_presets, 120)
{
	const uint64_t P = 200000;
	uint64_t other_fn = PCTR_FN(EV_DIV, 0, PCTR_U | PCTR_EN);
	const uint64_t KEPT = 1ULL << 40;
	struct pctrst st, before;
	siginfo_t si;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, on_signal(SIGIO));
	ASSERT_EQ(0, sig_mask(SIGIO, SIG_BLOCK));
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV) | PCTR_INT));
	ASSERT_EQ(0, set(self->m.fd, 1, FN(EV_DIV)));
	ASSERT_EQ(0, set(self->m.fd, 2, FN(EV_DIV)));

	/*
	 * Not frozen: restart still sets every slot to its preset.  What a
	 * slot counted since is bounded by the TSC between the read before
	 * the restart and the one after (the sim counts TSC / SIM_DIV), not
	 * by a fixed time: a loaded host may stop the guest in between.
	 */
	ASSERT_EQ(0, preset(self->m.fd, 1, 12345));
	spin(0.05);
	ASSERT_EQ(0, rd(self->m.fd, &before));
	EXPECT_GT(before.pctr_hwc[1], 12345 + div_events(self->m.khz, 0.02));
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCRESTART));
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_LE(12345, st.pctr_hwc[1]);
	EXPECT_GE(12345 + (st.pctr_tsc - before.pctr_tsc) / SIM_DIV + 2,
		  st.pctr_hwc[1]);
	/* Slots 0 and 2 have preset 0 and restarted from 0 with slot 1. */
	EXPECT_EQ(st.pctr_hwc[1] - 12345, st.pctr_hwc[0]);
	EXPECT_EQ(st.pctr_hwc[0], st.pctr_hwc[2]);

	/*
	 * The same function again keeps the preset; another drops it (a
	 * preset so large that no run of this test can count up to it).
	 */
	ASSERT_EQ(0, preset(self->m.fd, 2, KEPT));
	ASSERT_EQ(0, set(self->m.fd, 1, FN(EV_DIV)));
	ASSERT_EQ(0, set(self->m.fd, 2, other_fn));
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_LE(12345, st.pctr_hwc[1]);
	EXPECT_GT(KEPT, st.pctr_hwc[2]);

	/* Overflow: slot 1 froze near 12345 + P (it was preset earlier). */
	ASSERT_EQ(0, preset(self->m.fd, 0, -P));
	ASSERT_EQ(0, spin_until_pending(SIGIO, 20.0));
	EXPECT_EQ(PCTR_SI_OVERFLOW, take_pending(SIGIO, &si));
	ASSERT_EQ(0, rd(self->m.fd, &before));
	EXPECT_EQ(0, before.pctr_hwc[0]);
	EXPECT_LE(12345 + P, before.pctr_hwc[1]);
	EXPECT_GT(12345 + P + div_events(self->m.khz, 0.2), before.pctr_hwc[1]);

	/* Restart: every slot from its preset, counting again. */
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCRESTART));
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_LE(12345, st.pctr_hwc[1]);
	EXPECT_GE(12345 + (st.pctr_tsc - before.pctr_tsc) / SIM_DIV + 2,
		  st.pctr_hwc[1]);
	EXPECT_EQ(-P, st.pctr_hwc[0] - (st.pctr_hwc[1] - 12345));
	EXPECT_EQ(st.pctr_hwc[1] - 12345, st.pctr_hwc[2]);

	/* A full period from the presets: exact. */
	ASSERT_EQ(0, spin_until_pending(SIGIO, 20.0));
	EXPECT_EQ(PCTR_SI_OVERFLOW, take_pending(SIGIO, &si));
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_EQ(0, st.pctr_hwc[0]);
	EXPECT_EQ(12345 + P, st.pctr_hwc[1]);
	EXPECT_EQ(P, st.pctr_hwc[2]);
	EXPECT_EQ(other_fn, st.pctr_fn[2]);
	ASSERT_EQ(0, set(self->m.fd, 0, 0));
	ASSERT_EQ(0, sig_mask(SIGIO, SIG_UNBLOCK));
}

/* --- the counter page -------------------------------------------------- */

/* A consistent copy of the page (retrying while the kernel writes it). */
static int page_copy(const volatile struct pctr_page *pg, struct pctr_page *out)
{
	uint32_t seq;
	int i;

	for (i = 0; i < 1000000; i++) {
		seq = pg->pg_seq;
		if (seq & 1)
			continue;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		memcpy(out, (const void *)pg, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (pg->pg_seq == seq)
			return 0;
	}
	return -1;
}

/*
 * The page's copy in @c, frozen or running as @frozen says; with @masks,
 * the slots' ps_mask too: none while frozen, live while running.
 */
static void page_state(struct __test_metadata *_metadata,
		       const volatile struct pctr_page *pg, struct pctr_page *c,
		       bool frozen, bool masks)
{
	int i;

	ASSERT_EQ(0, page_copy(pg, c));
	if (frozen) {
		EXPECT_TRUE(c->pg_flags & PCTR_PG_FROZEN)
			TH_LOG("pg_flags %#x", c->pg_flags);
	} else {
		EXPECT_FALSE(c->pg_flags & PCTR_PG_FROZEN)
			TH_LOG("pg_flags %#x", c->pg_flags);
	}
	for (i = 0; masks && i < 2; i++) {
		if (frozen) {
			EXPECT_EQ(0, c->pg_slot[i].ps_mask);
		} else {
			EXPECT_NE(0, c->pg_slot[i].ps_mask);
		}
	}
}

/*
 * The page of a frozen context: slots 0 (notifying) and 1 count @fn;
 * after two overflows of slot 0, the second exact, the page shows the
 * context frozen with the sums at the freeze, still so a while later,
 * and running again after PCIOCRESTART.  With @sim also the slots'
 * ps_mask (live while running, none while frozen) and PCIOCRD at the
 * freeze.
 */
static void frozen_page(struct __test_metadata *_metadata, int fd,
			uint64_t fn, bool sim)
{
	const uint64_t P = 200000;
	const volatile struct pctr_page *pg;
	struct pctr_page c;
	struct pctrst st;
	siginfo_t si;
	void *m;

	ASSERT_EQ(0, on_signal(SIGIO));
	ASSERT_EQ(0, sig_mask(SIGIO, SIG_BLOCK));
	ASSERT_EQ(0, set(fd, 0, fn | PCTR_INT));
	ASSERT_EQ(0, set(fd, 1, fn));
	m = mmap(NULL, PCTR_PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	pg = m;
	if (sim)
		page_state(_metadata, pg, &c, false, true);

	ASSERT_EQ(0, preset(fd, 0, -P));
	ASSERT_EQ(0, spin_until_pending(SIGIO, 20.0));
	EXPECT_EQ(PCTR_SI_OVERFLOW, take_pending(SIGIO, &si));
	ASSERT_EQ(0, ioctl(fd, PCIOCRESTART));
	/* The second period is exact. */
	ASSERT_EQ(0, spin_until_pending(SIGIO, 20.0));
	EXPECT_EQ(PCTR_SI_OVERFLOW, take_pending(SIGIO, &si));
	page_state(_metadata, pg, &c, true, sim);
	EXPECT_EQ(0, c.pg_slot[0].ps_sum);
	EXPECT_EQ(P, c.pg_slot[1].ps_sum);
	if (sim) {
		ASSERT_EQ(0, rd(fd, &st));
		EXPECT_EQ(P, st.pctr_hwc[1]);
	}
	/* Still so a while later. */
	spin(0.05);
	page_state(_metadata, pg, &c, true, false);
	EXPECT_EQ(P, c.pg_slot[1].ps_sum);

	/* Restarted: running counters again. */
	ASSERT_EQ(0, ioctl(fd, PCIOCRESTART));
	page_state(_metadata, pg, &c, false, sim);
	ASSERT_EQ(0, set(fd, 0, 0));
	ASSERT_EQ(0, set(fd, 1, 0));
	munmap(m, PCTR_PAGE_SIZE);
	ASSERT_EQ(0, sig_mask(SIGIO, SIG_UNBLOCK));
}

/*
 * On the sim, besides what be.page_shows_frozen checks on each backend:
 * the slots' ps_mask and PCIOCRD at the freeze.
 */
TEST_F_TIMEOUT(sim, page_shows_frozen, 120)
{
	RETURN_IF_SKIPPED();
	frozen_page(_metadata, self->m.fd, FN(EV_DIV), true);
}

/* --- the same on every backend ----------------------------------------- */

/*
 * Notification on the sim and on the Intel and AMD backends (their
 * overflow interrupt is an NMI: driver/arch/x86/pmi.c), where pmu=auto
 * finds that PMU (testing/vm/run --emulated-pmu intel|amd).  The slots
 * count user-mode work: instructions retired on x86, exactly under the
 * emulated PMU's -icount (where its PMI comes right after the
 * instruction that overflowed); the sim's divided ticks.  Nothing
 * freezes the x86 counters at the overflow: the interrupt stops them
 * while the thread is in the kernel, which user-mode counts do not see.
 */
FIXTURE(be) {
	struct reloaded m;
};

BACKEND_VARIANTS(be, "pmu=sim sim_div=1000");

FIXTURE_SETUP(be)
{
	backend_reload(_metadata, &self->m, &variant->be);
	g_fd = self->m.fd;
}

FIXTURE_TEARDOWN(be)
{
	reload_restore(_metadata, &self->m);
}

/* A general counter's user-mode work on @be. */
static uint64_t be_fn(const struct backend *be)
{
	return PCTR_FN(be->insns, 0, PCTR_U | PCTR_EN);
}

/* exact_periods()'s period on @be. */
static uint64_t be_period(const struct backend *be)
{
	return be->id == PCTR_BACKEND_SIM ? EXACT_P_SIM : EXACT_P;
}

TEST_F(be, cap_notify)
{
	const struct backend *be = &variant->be;
	struct pctrst st;

	RETURN_IF_SKIPPED();
	EXPECT_TRUE(pctr_caps(self->m.fd) & PCTR_CAP_NOTIFY);
	EXPECT_EQ(0, set(self->m.fd, 0, be_fn(be) | PCTR_INT));
	if (be->fix_insns >= 0)
		EXPECT_EQ(0, set(self->m.fd, be->fix_insns,
				 PCTR_U | PCTR_EN | PCTR_INT));
	ASSERT_EQ(0, rd(self->m.fd, &st));
	EXPECT_EQ(be_fn(be) | PCTR_INT, st.pctr_fn[0]);
	EXPECT_EQ(0, set(self->m.fd, 0, 0));
}

TEST_F_TIMEOUT(be, exact_periods_general, 120)
{
	RETURN_IF_SKIPPED();
	exact_periods(_metadata, self->m.fd, be_period(&variant->be), 0,
		      be_fn(&variant->be), 1, be_fn(&variant->be));
}

/* The notifying slot the fixed counter of the same work (not on AMD). */
TEST_F_TIMEOUT(be, exact_periods_fixed, 120)
{
	const struct backend *be = &variant->be;

	RETURN_IF_SKIPPED();
	if (be->fix_insns < 0)
		SKIP(return, "the %s backend has no fixed counters", be->name);
	exact_periods(_metadata, self->m.fd, be_period(be), be->fix_insns,
		      PCTR_U | PCTR_EN, 0, be_fn(be));
}

/*
 * Exact counts: a loop of N user-mode instructions, with a handler that
 * restarts at each signal, gives N / P signals (within one: the
 * handler's own instructions count too, a few hundred a signal).  Only
 * where instructions are counted exactly (the sim counts time: see
 * signals_follow_run_time).
 */
TEST_F_TIMEOUT(be, signals_count_instructions, 120)
{
	const struct backend *be = &variant->be;
	const uint64_t P = 100000, N = 10000000;
	struct pctrst st0, st1;
	int want = N / P;

	RETURN_IF_SKIPPED();
	if (!be->exact)
		SKIP(return, "the %s backend counts time, not instructions",
		     be->name);
	ASSERT_EQ(0, on_signal(SIGIO));
	nsig = 0;
	restart_left = 1 << 30;
	ASSERT_EQ(0, set(self->m.fd, 1, be_fn(be)));
	ASSERT_EQ(0, set(self->m.fd, 0, be_fn(be) | PCTR_INT));
	ASSERT_EQ(0, preset(self->m.fd, 0, -P));
	ASSERT_EQ(0, rd(self->m.fd, &st0));
	run_insns(N / 2);
	ASSERT_EQ(0, rd(self->m.fd, &st1));
	restart_left = 0;
	TH_LOG("%d signals for %llu instructions at period %llu (slot 1 counted %llu)",
	       nsig, (unsigned long long)N, (unsigned long long)P,
	       (unsigned long long)(st1.pctr_hwc[1] - st0.pctr_hwc[1]));
	EXPECT_GE(nsig, want - 1);
	EXPECT_LE(nsig, want + 1);
	ASSERT_EQ(0, set(self->m.fd, 0, 0));
	ASSERT_EQ(0, set(self->m.fd, 1, 0));
}

/*
 * The same signals on a CPU whose binding samples (what pctr record -a
 * does), the thread counting beside the binding (PCTR_CAP_CPU_SHARE):
 * the overflow interrupts of both on one CPU go each to its owner.  The
 * binding holds slot 0, sampling every PB of the CPU's user-mode
 * instructions into its ring; the thread's slot 1 signals every P.  Both
 * exact (within one, and a few for the signal handler's instructions
 * the binding counts too).
 */
TEST_F_TIMEOUT(be, signals_beside_a_sampling_binding, 120)
{
	const struct backend *be = &variant->be;
	const uint64_t P = 200000, PB = 50000, N = 10000000;
	int cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1, want = N / P, fb;
	struct pctr_bind b = { .pb_kind = PCTR_BIND_CPU };
	struct pctr_sample_attr sa = { .sa_slot = 0, .sa_period = PB };
	struct pctr_ring_attr ra = { .ra_pages = 64 };
	const struct pctr_sample_rec *rec;
	struct pctr_ring_cpu *rc;
	uint64_t head, tail, bad = 0, nsamp = 0;
	char *base;

	RETURN_IF_SKIPPED();
	if (!be->exact)
		SKIP(return, "the %s backend counts time, not instructions",
		     be->name);
	EXPECT_TRUE(pctr_caps(self->m.fd) & PCTR_CAP_CPU_SHARE);
	pin_to_cpu(cpu);
	fb = open(PCTR_DEV, O_RDWR);
	ASSERT_LE(0, fb);
	b.pb_id = cpu;
	b.pb_fn[0] = be_fn(be);
	sa.sa_fn = be_fn(be);
	ASSERT_EQ(0, ioctl(fb, PCIOCBIND, &b));
	ASSERT_EQ(0, ioctl(fb, PCIOCRING, &ra));
	base = mmap(NULL, ra.ra_mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fb, PCTR_RING_OFFSET);
	ASSERT_NE(MAP_FAILED, base);
	rc = (struct pctr_ring_cpu *)(base + sizeof(struct pctr_ring_ctl));
	ASSERT_EQ(0, ioctl(fb, PCIOCSAMPLE, &sa));

	ASSERT_EQ(0, on_signal(SIGIO));
	nsig = 0;
	restart_left = 1 << 30;
	ASSERT_EQ(0, set(self->m.fd, 1, be_fn(be) | PCTR_INT));
	ASSERT_EQ(0, preset(self->m.fd, 1, -P));
	EXPECT_EQ(-1, set(self->m.fd, 0, be_fn(be)));
	EXPECT_EQ(EBUSY, errno);
	tail = __atomic_load_n(&rc->rc_head, __ATOMIC_ACQUIRE);
	rc->rc_tail = tail;
	run_insns(N / 2);
	restart_left = 0;
	head = __atomic_load_n(&rc->rc_head, __ATOMIC_ACQUIRE);
	while ((rec = ring_next(base + ra.ra_ctl_size, ra.ra_data_size,
				&tail, head, &bad)))
		if (rec->sr_type == PCTR_REC_SAMPLE && rec->sr_cpu == cpu)
			nsamp++;
	TH_LOG("%s on CPU %d beside its binding: %d signals at period %llu, the binding %llu samples at period %llu, for %llu instructions",
	       be->name, cpu, nsig, (unsigned long long)P,
	       (unsigned long long)nsamp, (unsigned long long)PB,
	       (unsigned long long)N);
	EXPECT_GE(nsig, want - 1);
	EXPECT_LE(nsig, want + 1);
	EXPECT_GE(nsamp, N / PB - 1);
	EXPECT_LE(nsamp, N / PB + 5);
	EXPECT_EQ(0, bad);
	ASSERT_EQ(0, set(self->m.fd, 1, 0));
	munmap(base, ra.ra_mmap_size);
	close(fb);
}

/* The page shows a frozen context, with exact sums at the freeze. */
TEST_F_TIMEOUT(be, page_shows_frozen, 120)
{
	RETURN_IF_SKIPPED();
	frozen_page(_metadata, self->m.fd, be_fn(&variant->be), false);
}

/* --- options ------------------------------------------------------------ */

TEST_F_TIMEOUT(sim, opts_signal_and_errors, 120)
{
	const uint64_t P = 20000;
	struct pctr_opts o;
	int i;
	struct {
		uint32_t flags, signo;
		int res;		/* po_reserved[res - 1] = 1 */
	} bad[] = {
		{ 0, SIGKILL, 0 }, { 0, SIGSTOP, 0 }, { 0, 0x1000, 0 },
		{ 0, 65, 0 }, { 0, 0xffffffff, 0 },
		{ 2, SIGUSR1, 0 }, { PCTR_O_INHERIT | 0x80000000u, 0, 0 },
		{ 0, SIGUSR1, 1 }, { 0, SIGUSR1, 2 }, { 0, SIGUSR1, 3 },
	};

	RETURN_IF_SKIPPED();
	/* No context: GOPTS gives zeros, SOPTS is EINVAL. */
	ASSERT_EQ(0, gopts(self->m.fd, &o));
	EXPECT_TRUE(opts_zero(&o));
	EXPECT_EQ(EINVAL, sopts(self->m.fd, 0, SIGUSR1));
	EXPECT_EQ(EINVAL, sopts(self->m.fd, PCTR_O_INHERIT, 0));
	EXPECT_EQ(EINVAL, sopts(self->m.fd, 0, 0));

	ASSERT_EQ(0, set(self->m.fd, 1, FN(EV_DIV)));
	ASSERT_EQ(0, gopts(self->m.fd, &o));
	EXPECT_TRUE(opts_default(&o, 0)) TH_LOG("po_signo %u", o.po_signo);
	ASSERT_EQ(0, sopts(self->m.fd, 0, SIGUSR1));
	ASSERT_EQ(0, gopts(self->m.fd, &o));
	EXPECT_EQ(0, o.po_flags);
	EXPECT_EQ(SIGUSR1, o.po_signo);
	EXPECT_EQ(0, o.po_reserved[0] | o.po_reserved[1] | o.po_reserved[2]);

	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		struct pctr_opts b = {
			.po_flags = bad[i].flags, .po_signo = bad[i].signo,
		};

		if (bad[i].res)
			b.po_reserved[bad[i].res - 1] = 1;
		EXPECT_EQ(-1, ioctl(self->m.fd, PCIOCSOPTS, &b))
			TH_LOG("case %d", i);
		EXPECT_EQ(EINVAL, errno) TH_LOG("case %d", i);
	}
	/* Unchanged by the refused calls. */
	ASSERT_EQ(0, gopts(self->m.fd, &o));
	EXPECT_EQ(0, o.po_flags);
	EXPECT_EQ(SIGUSR1, o.po_signo);

	/* Both fields read back; the highest real-time signal is valid. */
	ASSERT_EQ(0, sopts(self->m.fd, PCTR_O_INHERIT, 64));
	ASSERT_EQ(0, gopts(self->m.fd, &o));
	EXPECT_EQ(PCTR_O_INHERIT, o.po_flags);
	EXPECT_EQ(64, o.po_signo);
	ASSERT_EQ(0, sopts(self->m.fd, 0, SIGUSR1));

	/* SIGUSR1 it is, three periods, and no SIGIO. */
	ASSERT_EQ(0, on_signal(SIGIO));
	ASSERT_EQ(0, on_signal(SIGUSR1));
	ASSERT_EQ(0, on_signal(SIGRTMIN + 2));
	nsig = 0;
	restart_left = 2;
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV) | PCTR_INT));
	ASSERT_EQ(0, preset(self->m.fd, 0, -P));
	ASSERT_EQ(0, spin_until(&nsig, 3, 20.0));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(SIGUSR1, recs[i].signo) TH_LOG("signal %d", i);
		EXPECT_EQ(PCTR_SI_OVERFLOW, recs[i].code);
		EXPECT_EQ(0, recs[i].st.pctr_hwc[0]);
	}
	EXPECT_EQ(P, recs[1].st.pctr_hwc[1]);
	EXPECT_EQ(P, recs[2].st.pctr_hwc[1]);

	/* Frozen now.  A real-time signal, then the default again. */
	spin(0.02);
	ASSERT_EQ(3, nsig);
	ASSERT_EQ(0, sopts(self->m.fd, 0, SIGRTMIN + 2));
	nsig = 0;
	restart_left = 1;
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCRESTART));
	ASSERT_EQ(0, spin_until(&nsig, 2, 20.0));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(SIGRTMIN + 2, recs[i].signo) TH_LOG("signal %d", i);
		EXPECT_EQ(PCTR_SI_OVERFLOW, recs[i].code);
		EXPECT_EQ(P, recs[i].st.pctr_hwc[1]);
	}

	spin(0.02);
	ASSERT_EQ(2, nsig);
	ASSERT_EQ(0, sopts(self->m.fd, 0, 0));
	ASSERT_EQ(0, gopts(self->m.fd, &o));
	EXPECT_TRUE(opts_default(&o, 0)) TH_LOG("po_signo %u", o.po_signo);
	nsig = 0;
	restart_left = 1;
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCRESTART));
	ASSERT_EQ(0, spin_until(&nsig, 2, 20.0));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(SIGIO, recs[i].signo) TH_LOG("signal %d", i);
		EXPECT_EQ(PCTR_SI_OVERFLOW, recs[i].code);
		EXPECT_EQ(P, recs[i].st.pctr_hwc[1]);
	}
	ASSERT_EQ(0, set(self->m.fd, 0, 0));
}

/* Options belong to the thread: another thread sees its own (none). */
static void *gopts_thread(void *arg)
{
	struct pctr_opts *o = arg;

	if (gopts(g_fd, o))
		o->po_flags = 0xdead;
	return NULL;
}

TEST_F(sim, opts_are_per_thread)
{
	struct pctr_opts o;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	ASSERT_EQ(0, sopts(self->m.fd, 0, SIGUSR2));
	ASSERT_EQ(0, run_thread(gopts_thread, &o));
	EXPECT_TRUE(opts_zero(&o));
	/* Releasing the context drops its options. */
	ASSERT_EQ(0, ioctl(self->m.fd, PCIOCRELEASE));
	ASSERT_EQ(0, gopts(self->m.fd, &o));
	EXPECT_TRUE(opts_zero(&o));
	EXPECT_EQ(EINVAL, sopts(self->m.fd, 0, SIGUSR2));
}

/* --- inheritance ---------------------------------------------------------- */

#define INH_PRESET	777000ULL

struct tres {
	sem_t		go;
	int		err;
	pid_t		tid;
	struct pctrst	st0, st1;
	struct pctr_opts o;
	struct tres	*sub;		/* a thread this one creates */
};

/* A thread made before the option: waits, then looks at its counters. */
static void *early_thread(void *arg)
{
	struct tres *r = arg;

	sem_wait(&r->go);
	r->err = rd(g_fd, &r->st0);
	if (!r->err)
		r->err = gopts(g_fd, &r->o);
	return NULL;
}

static void *sub_thread(void *arg)
{
	struct tres *r = arg;

	r->err = rd(g_fd, &r->st0);
	return NULL;
}

/* A thread made after it: reads, runs 0.2 s, reads, makes a thread. */
static void *late_thread(void *arg)
{
	struct tres *r = arg;
	pthread_t t;

	r->tid = gettid_();
	r->err = rd(g_fd, &r->st0);
	if (r->err)
		return NULL;
	spin_cpu(0.2);
	r->err = rd(g_fd, &r->st1);
	if (!r->err)
		r->err = gopts(g_fd, &r->o);
	if (!r->err && r->sub) {
		r->err = pthread_create(&t, NULL, sub_thread, r->sub);
		if (!r->err)
			r->err = pthread_join(t, NULL);
	}
	return NULL;
}

TEST_F_TIMEOUT(sim, inherit_to_threads, 60)
{
	struct tres early, late, sub;
	struct pctrst st, st2;
	struct pctr_opts o;
	pthread_t te;
	uint64_t run, bound;

	RETURN_IF_SKIPPED();
	memset(&early, 0, sizeof(early));
	memset(&late, 0, sizeof(late));
	memset(&sub, 0, sizeof(sub));
	late.sub = &sub;
	sem_init(&early.go, 0, 0);

	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	ASSERT_EQ(0, set(self->m.fd, FIX_DIV, FIXFN));
	ASSERT_EQ(0, preset(self->m.fd, 0, INH_PRESET));
	ASSERT_EQ(0, pthread_create(&te, NULL, early_thread, &early));
	ASSERT_EQ(0, sopts(self->m.fd, PCTR_O_INHERIT, 0));
	ASSERT_EQ(0, gopts(self->m.fd, &o));
	EXPECT_EQ(PCTR_O_INHERIT, o.po_flags);

	/* The parent's own value runs well past its preset first. */
	spin_cpu(0.3);
	ASSERT_EQ(0, rd(self->m.fd, &st));
	run = st.pctr_hwc[0] - INH_PRESET;
	ASSERT_LT(div_events(self->m.khz, 0.15), run);
	bound = run / 2;

	ASSERT_EQ(0, run_thread(late_thread, &late));
	ASSERT_EQ(0, rd(self->m.fd, &st2));
	ASSERT_EQ(0, late.err);
	TH_LOG("parent at %llu; new thread starts at %llu, fixed %llu, then %llu",
	       (unsigned long long)st.pctr_hwc[0],
	       (unsigned long long)late.st0.pctr_hwc[0],
	       (unsigned long long)late.st0.pctr_hwc[FIX_DIV],
	       (unsigned long long)late.st1.pctr_hwc[0]);
	/* Same functions, values from the presets, the same options. */
	EXPECT_EQ(FN(EV_DIV), late.st0.pctr_fn[0]);
	EXPECT_EQ(FIXFN, late.st0.pctr_fn[FIX_DIV]);
	EXPECT_EQ(0, late.st0.pctr_fn[1]);
	EXPECT_LE(INH_PRESET, late.st0.pctr_hwc[0]);
	EXPECT_GT(INH_PRESET + bound, late.st0.pctr_hwc[0]);
	EXPECT_GT(bound, late.st0.pctr_hwc[FIX_DIV]);
	/* It counts its own run time. */
	EXPECT_LT(late.st0.pctr_hwc[0] + div_events(self->m.khz, 0.1),
		  late.st1.pctr_hwc[0]);
	EXPECT_EQ(late.st1.pctr_hwc[0] - INH_PRESET,
		  late.st1.pctr_hwc[FIX_DIV]);
	EXPECT_TRUE(opts_default(&late.o, PCTR_O_INHERIT))
		TH_LOG("po_flags %#x po_signo %u", late.o.po_flags,
		       late.o.po_signo);
	/*
	 * ... which is not added to the parent's, who slept in join: the
	 * parent's count grew less than the thread's own run (not less
	 * than a fixed time: a busy host stretches a guest's moments).
	 */
	EXPECT_GT(late.st1.pctr_hwc[0] - late.st0.pctr_hwc[0],
		  st2.pctr_hwc[0] - st.pctr_hwc[0]);
	/* Its own thread inherits in turn. */
	EXPECT_EQ(0, sub.err);
	EXPECT_EQ(FN(EV_DIV), sub.st0.pctr_fn[0]);
	EXPECT_LE(INH_PRESET, sub.st0.pctr_hwc[0]);
	EXPECT_GT(INH_PRESET + bound, sub.st0.pctr_hwc[0]);

	/* The thread made before the option has nothing. */
	sem_post(&early.go);
	ASSERT_EQ(0, pthread_join(te, NULL));
	ASSERT_EQ(0, early.err);
	EXPECT_TRUE(st_clean(&early.st0));
	EXPECT_TRUE(opts_zero(&early.o));
}

TEST_F(sim, no_inherit_without_option)
{
	struct tres r;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	ASSERT_EQ(0, preset(self->m.fd, 0, INH_PRESET));
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, run_thread(sub_thread, &r));
	ASSERT_EQ(0, r.err);
	EXPECT_TRUE(st_clean(&r.st0));

	/* Set, then cleared again: nothing either. */
	ASSERT_EQ(0, sopts(self->m.fd, PCTR_O_INHERIT, 0));
	ASSERT_EQ(0, sopts(self->m.fd, 0, 0));
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, run_thread(sub_thread, &r));
	ASSERT_EQ(0, r.err);
	EXPECT_TRUE(st_clean(&r.st0));
}

/* In a forked child: an inherited context, from the preset; 0 if so. */
static int check_inherited(int fd, uint64_t bound, uint64_t khz)
{
	struct pctrst a, b;
	struct pctr_opts o;

	if (rd(fd, &a))
		return 2;
	if (a.pctr_fn[0] != FN(EV_DIV))
		return 3;
	if (a.pctr_hwc[0] < INH_PRESET)
		return 4;
	if (a.pctr_hwc[0] >= INH_PRESET + bound)
		return 5;
	spin_cpu(0.1);
	if (rd(fd, &b))
		return 6;
	if (b.pctr_hwc[0] < a.pctr_hwc[0] + div_events(khz, 0.05))
		return 7;
	/* The options too, the signal included. */
	if (gopts(fd, &o) || o.po_flags != PCTR_O_INHERIT ||
	    o.po_signo != SIGUSR2)
		return 8;
	return 0;
}

TEST_F_TIMEOUT(sim, inherit_to_processes, 60)
{
	struct pctrst st;
	uint64_t bound;
	pid_t pid, gpid;
	int status, rc;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, set(self->m.fd, 0, FN(EV_DIV)));
	ASSERT_EQ(0, preset(self->m.fd, 0, INH_PRESET));
	ASSERT_EQ(0, sopts(self->m.fd, PCTR_O_INHERIT, SIGUSR2));
	spin_cpu(0.3);
	ASSERT_EQ(0, rd(self->m.fd, &st));
	ASSERT_LT(div_events(self->m.khz, 0.15), st.pctr_hwc[0] - INH_PRESET);
	bound = (st.pctr_hwc[0] - INH_PRESET) / 2;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		rc = check_inherited(self->m.fd, bound, self->m.khz);
		if (rc)
			_exit(rc);
		/* The grandchild inherits from the child. */
		gpid = fork();
		if (gpid < 0)
			_exit(20);
		if (gpid == 0)
			_exit(check_inherited(self->m.fd, bound, self->m.khz));
		if (waitpid(gpid, &status, 0) != gpid || !WIFEXITED(status))
			_exit(21);
		_exit(WEXITSTATUS(status) ? 30 + WEXITSTATUS(status) : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("signal %d", WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("child (< 30) or grandchild (30 + n) failed check %d",
		       WEXITSTATUS(status));
}

/*
 * A notifying slot starts at 2^64 - 1 in a new thread, frozen, and the
 * thread is signalled at once; a plain slot is frozen at its preset.
 * PCIOCRESTART starts both from the inherited presets.
 */
#define NOTIFY_FAR	1000000000000ULL	/* hours away for the parent */

struct nres {
	pid_t		tid;
	int		got, rs;
	int		err;
	struct pctrst	st0, st1, st2;
};

static void notified_child(struct nres *r)
{
	double end = now_sec() + 2.0;

	r->tid = gettid_();
	while (nsig < 1 && now_sec() < end)
		;
	r->got = nsig;
	r->err = rd(g_fd, &r->st0);
	spin(0.05);
	r->err = r->err ?: rd(g_fd, &r->st1);
	r->rs = ioctl(g_fd, PCIOCRESTART) ? errno : 0;
	spin_cpu(0.05);
	r->err = r->err ?: rd(g_fd, &r->st2);
}

static void *notified_thread(void *arg)
{
	notified_child(arg);
	return NULL;
}

static void set_up_notify_inherit(struct __test_metadata *_metadata, int fd)
{
	ASSERT_EQ(0, on_signal(SIGIO));
	nsig = 0;
	restart_left = 0;
	ASSERT_EQ(0, set(fd, 0, FN(EV_DIV) | PCTR_INT));
	ASSERT_EQ(0, set(fd, 1, FN(EV_DIV)));
	ASSERT_EQ(0, preset(fd, 0, -NOTIFY_FAR));
	ASSERT_EQ(0, preset(fd, 1, 5000));
	ASSERT_EQ(0, sopts(fd, PCTR_O_INHERIT, 0));
	spin_cpu(0.05);
}

TEST_F_TIMEOUT(sim, inherit_notify_slot_thread, 60)
{
	struct nres r;

	RETURN_IF_SKIPPED();
	set_up_notify_inherit(_metadata, self->m.fd);
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, run_thread(notified_thread, &r));
	ASSERT_EQ(0, r.err);

	/* One signal, the new thread's, at once. */
	ASSERT_EQ(1, nsig);
	EXPECT_EQ(1, r.got);
	EXPECT_EQ(r.tid, recs[0].tid);
	EXPECT_EQ(SIGIO, recs[0].signo);
	EXPECT_EQ(PCTR_SI_OVERFLOW, recs[0].code);
	EXPECT_EQ(0, recs[0].rd);
	EXPECT_EQ(UINT64_MAX, recs[0].st.pctr_hwc[0]);
	EXPECT_EQ(5000, recs[0].st.pctr_hwc[1]);
	/* Frozen until restarted. */
	EXPECT_EQ(FN(EV_DIV) | PCTR_INT, r.st0.pctr_fn[0]);
	EXPECT_EQ(UINT64_MAX, r.st0.pctr_hwc[0]);
	EXPECT_EQ(5000, r.st0.pctr_hwc[1]);
	EXPECT_EQ(UINT64_MAX, r.st1.pctr_hwc[0]);
	EXPECT_EQ(5000, r.st1.pctr_hwc[1]);
	/* Restarted from the presets, together. */
	EXPECT_EQ(0, r.rs);
	EXPECT_LT(5000 + div_events(self->m.khz, 0.02), r.st2.pctr_hwc[1]);
	EXPECT_EQ(r.st2.pctr_hwc[1] - 5000, r.st2.pctr_hwc[0] + NOTIFY_FAR)
		TH_LOG("slot 0 %llu, slot 1 %llu",
		       (unsigned long long)r.st2.pctr_hwc[0],
		       (unsigned long long)r.st2.pctr_hwc[1]);
}

TEST_F_TIMEOUT(sim, inherit_notify_slot_fork, 60)
{
	struct nres *r;
	pid_t pid;

	RETURN_IF_SKIPPED();
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	memset(r, 0, sizeof(*r));
	set_up_notify_inherit(_metadata, self->m.fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		notified_child(r);
		/* The child's handler ran in the child, once. */
		if (nsig == 1 && recs[0].code == PCTR_SI_OVERFLOW &&
		    recs[0].st.pctr_hwc[0] == UINT64_MAX)
			_exit(0);
		_exit(1);
	}
	EXPECT_EQ(0, wait_exit(pid)) TH_LOG("128 + n: killed by signal n");
	EXPECT_EQ(0, nsig);
	ASSERT_EQ(0, r->err);
	EXPECT_EQ(1, r->got);
	EXPECT_EQ(pid, r->tid);
	EXPECT_EQ(UINT64_MAX, r->st0.pctr_hwc[0]);
	EXPECT_EQ(5000, r->st0.pctr_hwc[1]);
	EXPECT_EQ(UINT64_MAX, r->st1.pctr_hwc[0]);
	EXPECT_EQ(5000, r->st1.pctr_hwc[1]);
	EXPECT_EQ(0, r->rs);
	EXPECT_LT(5000 + div_events(self->m.khz, 0.02), r->st2.pctr_hwc[1]);
	EXPECT_EQ(r->st2.pctr_hwc[1] - 5000, r->st2.pctr_hwc[0] + NOTIFY_FAR);
	munmap(r, sizeof(*r));
}

/* --- exec ------------------------------------------------------------------- */

/* exec drops the counters, the options and inheritance. */
TEST_F(sim, exec_clears_notify_and_inherit)
{
	pid_t pid;

	RETURN_IF_SKIPPED();
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (set(self->m.fd, 0, FN(EV_DIV) | PCTR_INT) ||
		    set(self->m.fd, 1, FN(EV_DIV)) ||
		    preset(self->m.fd, 0, -NOTIFY_FAR) ||
		    sopts(self->m.fd, PCTR_O_INHERIT, SIGUSR1))
			_exit(20);
		exec_self("notify_test", "--check-exec", self->m.fd);
	}
	EXPECT_EQ(0, wait_exit(pid)) TH_LOG("128 + n: killed by signal n");
}

static void *exec_thread(void *arg)
{
	struct pctrst st;

	*(int *)arg = rd(g_fd, &st) ? 1 : !st_clean(&st);
	return NULL;
}

/*
 * Re-executed by exec_clears_notify_and_inherit.  A signal now would
 * kill it (SIGUSR1's default action).
 */
static int check_exec(int fd)
{
	struct pctr_opts o;
	struct pctrst st;
	pthread_t t;
	pid_t pid;
	int status, bad = 1;

	g_fd = fd;
	if (rd(fd, &st))
		return 2;
	if (!st_clean(&st))
		return 3;
	if (gopts(fd, &o) || !opts_zero(&o))
		return 4;
	if (pthread_create(&t, NULL, exec_thread, &bad) ||
	    pthread_join(t, NULL) || bad)
		return 5;
	pid = fork();
	if (pid < 0)
		return 6;
	if (pid == 0)
		_exit(rd(fd, &st) || !st_clean(&st));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 7;
	spin_cpu(0.05);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--check-exec"))
		return check_exec(atoi(argv[2]));
	return test_harness_run(argc, argv);
}
