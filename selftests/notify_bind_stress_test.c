// SPDX-License-Identifier: GPL-2.0
/*
 * Overflow signals, inheritance and bindings all at once: signals whose
 * handler restarts the counters while the thread presets, disables,
 * enables, releases and re-programs them; a thread with PCTR_O_INHERIT
 * making threads and processes (some of them exec); a process binding
 * CPUs under the counting threads, which starve there; a tracer binding a
 * thread of another process, reading it while another thread closes the
 * descriptor or the target is killed; and rmmod attempts.  Each call's
 * errno must be one its state allows, and counts that must hold still
 * or keep in step must do so.  (lifecycle_stress_test.c stresses the
 * plain counting paths the same way.)
 *
 * This file is the test: the shared state, the overflow signal's
 * handler, the rmmod attempts and the checks; each other stressor is a
 * file of its own, named below.
 */
#include "pctr_test.h"
#include "nb_stress.h"

/*
 * The newer paths all at once, on the sim with sim_div=4096 (event 0x02
 * and fixed counter 1 count one event per 4096 TSC ticks, event 0x01
 * and fixed counter 0 every tick) and 24-bit general counters (event
 * 0x01 wraps every few ms).  Everything runs for NB_SECONDS (longer,
 * until each path below ran at least once, on a slow guest):
 *
 * - workers (nb_workers.c): threads, replaced as they end, some with
 *   a PCTR_INT slot preset a few hundred events short of the wrap and
 *   a SIGIO handler that restarts, each presetting, disabling,
 *   enabling, zeroing, releasing and re-programming its own counters,
 *   reading them by ioctl and from the page, and handing descriptors
 *   to a closer;
 * - an inheritor (nb_inheritor.c): PCTR_O_INHERIT, with and without a
 *   PCTR_INT slot, making short-lived threads and processes, which
 *   check what they inherited and make threads and processes of their
 *   own, or exec;
 * - a process binding CPUs for a few ms at a time (nb_cpu_binder.c),
 *   which invalidates every thread's counters (EAGAIN);
 * - a process tracing a spinning child and binding it
 *   (nb_thread_binder.c; its reads are EAGAIN once a CPU binding
 *   invalidated it), reading it while another thread closes the
 *   descriptor, killing it or having it exec while bound;
 * - rmmod attempts, refused all along (a descriptor stays open), from
 *   the test itself.
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

struct nb_shared *S;
int g_fd = -1;
uint64_t p_base;
int nb_ncpu;
int have_true;
atomic_int nb_pool[NB_POOL];

void note(const char *fmt, ...)
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

/* --- the overflow signal --------------------------------------------- */

__thread volatile unsigned long t_reset;
__thread volatile unsigned long t_prog;
__thread volatile unsigned long t_synced = 1;

void restarted(void)
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

/*
 * Release a bound descriptor: it is this thread's own again, with
 * nothing programmed.
 */
void release_bound(int fd, const char *what)
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
	RAN(still_checks), RAN(inh_seen), RAN(cpu_binds),
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
	for (i = 0; i < (int)(sizeof(ran) / sizeof(ran[0])); i++) {
		/* The handler after an EXPECT is a loop of its own: braced. */
		EXPECT_LT(0, atomic_load((atomic_ulong *)((char *)S + ran[i].off)))
			TH_LOG("never happened: %s", ran[i].name);
	}
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
