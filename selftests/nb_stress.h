/* SPDX-License-Identifier: GPL-2.0 */
/*
 * notify_bind_stress_test: what its stressors share.  The test
 * (notify_bind_stress_test.c) sets the state up, runs them all at once
 * and checks what they counted; each stressor is a file of its own:
 * nb_workers.c (counters changing under overflow signals), nb_inheritor.c
 * (PCTR_O_INHERIT), nb_cpu_binder.c (CPU bindings) and nb_thread_binder.c
 * (a tracer binding another process's thread).  Those four include
 * pctr_test.h without the harness (PCTR_TEST_NO_HARNESS), then this.
 */
#ifndef _NB_STRESS_H
#define _NB_STRESS_H

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

extern struct nb_shared *S;
extern int g_fd;		/* open all along: the handler's, children's */
extern uint64_t p_base;		/* events 0x02 in about 1 ms of running */
extern int nb_ncpu;
extern int have_true;		/* /bin/true to exec */
extern atomic_int nb_pool[NB_POOL];

#define ST(n)		atomic_fetch_add(&S->n, 1)
#define NB_STOP()	atomic_load(&S->stop)

/* Something that must not happen: counted, and the first few described. */
void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...);

static inline const char *en(int e)
{
	return e ? strerror(e) : "success";
}

#define ULL(x)	((unsigned long long)(x))

/* Spin in user code for about @us microseconds of wall time. */
static inline void spin_us(unsigned int us)
{
	spin(us / 1e6);
}

static inline unsigned int rnd(unsigned int *seed, unsigned int n)
{
	return n ? rand_r(seed) % n : 0;
}

/*
 * Per thread, shared with the overflow signal's handler (nb_on_sigio()
 * in notify_bind_stress_test.c): t_reset moves whenever values may
 * have been reset (so "never goes back" does not apply across it);
 * t_prog is odd while the thread changes what slot 1 and fixed counter
 * 1 hold, and t_synced is the t_prog of the last restart, which set both
 * to their presets: while the two are equal, the two slots are exactly
 * their presets apart.
 */
extern __thread volatile unsigned long t_reset;
extern __thread volatile unsigned long t_prog;
extern __thread volatile unsigned long t_synced;

/* The counters were restarted: the handler's bookkeeping, after it. */
void restarted(void);

/* Release a bound descriptor (nothing programmed on it afterwards). */
void release_bound(int fd, const char *what);

/* The stressors. */
void *nb_spawner(void *arg);		/* nb_workers.c */
void *nb_closer(void *arg);
void *nb_inheritor(void *arg);		/* nb_inheritor.c */
void __attribute__((noreturn)) cpu_binder(unsigned int seed);
void __attribute__((noreturn)) thread_binder(unsigned int seed);

#endif /* _NB_STRESS_H */
