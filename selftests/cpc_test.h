/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libcpc tests share (cpc_test.c, cpc_inherit_test.c,
 * cpc_bind_test.c): the fixture, on the simulated PMU, and the helpers
 * they use.
 */
#ifndef _CPC_TEST_H
#define _CPC_TEST_H

#include "pctr_test.h"

#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/time.h>
#include <sys/wait.h>

#ifdef CPC_HAVE_PFM
#include <perfmon/pfmlib.h>
#endif

#include "libcpc.h"
#include "libpctx.h"
#include "kselftest_harness.h"

/* The sim's events (driver/arch/sim/sim.h). */
#define SIM_EV_TICKS		0x01
#define SIM_EV_TICKS_DIV	0x02
#define SIM_DIV			64
#define SIM_GENERAL		4
#define SIM_FIXED		2

#define U	CPC_COUNT_USER
#define US	(CPC_COUNT_USER | CPC_COUNT_SYSTEM)

/* An error handler that records the last error instead of printing. */
static int last_subcode = -1, nerrors;
static char last_fn[64], last_msg[256];

static void quiet_errfn(const char *fn, int subcode, const char *fmt,
			va_list ap)
{
	nerrors++;
	last_subcode = subcode;
	snprintf(last_fn, sizeof(last_fn), "%s", fn);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
}

/*
 * A fixture's libcpc handle (self->cpc), its errors counted quietly by
 * quiet_errfn, and an empty set (self->set).
 */
#define CPC_OPEN_SET() do {						\
	self->cpc = cpc_open(CPC_VER_CURRENT);				\
	ASSERT_NE(NULL, self->cpc);					\
	cpc_seterrhndlr(self->cpc, quiet_errfn);			\
	self->set = cpc_set_create(self->cpc);				\
	ASSERT_NE(NULL, self->set);					\
} while (0)

FIXTURE(cpc) {
	char		params[256];
	cpc_t		*cpc;
	cpc_set_t	*set;
	uint64_t	khz;
	pid_t		kid;		/* a child to kill at the end */
};

FIXTURE_SETUP(cpc)
{
	pctr_t *p;

	self->cpc = NULL;
	self->kid = 0;
	/*
	 * Leave through the harness's own jump, as a failed ASSERT does:
	 * after SKIP(return) the 6.1 harness would run the test anyway.
	 */
	if (geteuid() != 0)
		SKIP(longjmp(_metadata->env, 1),
		     "reloading the module needs root");
	bench_params(self->params, sizeof(self->params));
	ASSERT_EQ(0, reload("pmu=sim sim_div=64"));
	p = pctr_open(O_RDONLY);
	ASSERT_NE(NULL, p);
	self->khz = p->info.pi_tsc_khz;
	pctr_close(p);
	ASSERT_NE(0, self->khz);
	CPC_OPEN_SET();
}

FIXTURE_TEARDOWN(cpc)
{
	int status;

	/* Its counters would keep the module: gone before the reload. */
	if (self->kid > 0) {
		kill(self->kid, SIGKILL);
		waitpid(self->kid, &status, 0);
	}
	if (self->cpc)
		EXPECT_EQ(0, cpc_close(self->cpc));
	EXPECT_EQ(0, read_long(PCTR_SYSFS "/contexts"));
	EXPECT_EQ(0, reload(self->params));
}

/*
 * Samples @a, runs @work(@sec), samples @b, reading @clock on both sides
 * of each sample: what the set counted in between lies between the time
 * from after the first sample to before the second (*@in_ms) and from
 * before the first to after the second (*@out_ms), however long the
 * host stalls the vCPU within a sample.  0, or -1 if a sample failed.
 */
static inline int sample_around(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *a,
				cpc_buf_t *b, double (*clock)(void),
				void (*work)(double), double sec,
				double *in_ms, double *out_ms)
{
	double o0, i0, i1;

	o0 = clock();
	if (cpc_set_sample(cpc, set, a))
		return -1;
	i0 = clock();
	work(sec);
	i1 = clock();
	if (cpc_set_sample(cpc, set, b))
		return -1;
	*out_ms = (clock() - o0) * 1e3;
	*in_ms = (i1 - i0) * 1e3;
	return 0;
}

/* A buffer for @set in each cpc_buf_t ** given, up to NULL; 0 if all made. */
static inline int make_bufs(cpc_t *cpc, cpc_set_t *set, ...)
{
	cpc_buf_t **b;
	va_list ap;
	int ret = 0;

	va_start(ap, set);
	while ((b = va_arg(ap, cpc_buf_t **)))
		if (!(*b = cpc_buf_create(cpc, set)))
			ret = -1;
	va_end(ap);
	return ret;
}

/* Reap forked child @pid (its status in @status): it exited 0. */
#define EXPECT_CHILD_OK(pid, status) do {				\
		ASSERT_EQ(pid, waitpid(pid, &(status), 0));		\
		EXPECT_TRUE(WIFEXITED(status)) TH_LOG("status 0x%x",	\
						      status);		\
		EXPECT_EQ(0, WEXITSTATUS(status));			\
	} while (0)

/* errno and the handler's subcode of a call expected to fail. */
#define EXPECT_FAIL(call, err, sub) do {				\
		nerrors = 0;						\
		errno = 0;						\
		EXPECT_EQ(-1, (call));					\
		EXPECT_EQ(err, errno);					\
		EXPECT_EQ(1, nerrors);					\
		EXPECT_EQ(sub, last_subcode) TH_LOG("%s: %s", last_fn,	\
						    last_msg);		\
	} while (0)

/* --- overflow signals (CPC_OVF_NOTIFY_EMT) ---------------------------- */

/*
 * Request 0 of @set counts @event from @preset and signals at the wrap;
 * request 1 counts the same from 0.  A buffer for the set, or NULL.
 */
static inline cpc_buf_t *add_signalling_pair(cpc_t *cpc, cpc_set_t *set,
					     const char *event, uint64_t preset)
{
	if (cpc_set_add_request(cpc, set, event, preset,
				U | CPC_OVF_NOTIFY_EMT, 0, NULL) != 0 ||
	    cpc_set_add_request(cpc, set, event, 0, U, 0, NULL) != 1)
		return NULL;
	return cpc_buf_create(cpc, set);
}

/*
 * What a SIGEMT handler works on: the handle, the set it samples and
 * restarts, and the set's buffer.
 */
struct emt_set {
	cpc_t		*cpc;
	cpc_set_t	*set;
	cpc_buf_t	*buf;
};

/* @e on @set of @cpc with add_signalling_pair()'s requests: 0, or -1. */
static inline int emt_set_init(struct emt_set *e, cpc_t *cpc,
			       cpc_set_t *set, const char *event,
			       uint64_t preset)
{
	e->cpc = cpc;
	e->set = set;
	e->buf = add_signalling_pair(cpc, set, event, preset);
	return e->buf ? 0 : -1;
}

/*
 * In the handler: sample @e's set into its buffer, requests 0 and 1
 * into *@v0 and *@v1: 0, or -1 with errno.
 */
static inline int emt_sample(const struct emt_set *e, uint64_t *v0,
			     uint64_t *v1)
{
	if (cpc_set_sample(e->cpc, e->set, e->buf) ||
	    cpc_buf_get(e->cpc, e->buf, 0, v0) ||
	    cpc_buf_get(e->cpc, e->buf, 1, v1))
		return -1;
	return 0;
}

/* Request 0 of @e's set counts on from @preset: 0, or -1 with errno. */
static inline int emt_restart(const struct emt_set *e, uint64_t preset)
{
	if (cpc_request_preset(e->cpc, 0, preset) ||
	    cpc_set_restart(e->cpc, e->set))
		return -1;
	return 0;
}

/* @fn catches SIGEMT (SA_SIGINFO, SA_RESTART); the old action in *@old. */
static inline int catch_emt(void (*fn)(int, siginfo_t *, void *),
			    struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	return sigaction(SIGEMT, &sa, old);
}

/* A cpc_walk_requests() callback: request 0's preset into *@arg. */
static inline void note_preset0(void *arg, int index, const char *event,
				uint64_t preset, uint_t flags, int nattrs,
				const cpc_attr_t *attrs)
{
	if (index == 0)
		*(uint64_t *)arg = preset;
}

#endif /* _CPC_TEST_H */
