// SPDX-License-Identifier: GPL-2.0
/*
 * libcpc: the Solaris interface over pctr, under the simulated PMU.
 * Sets and requests and every way of getting them wrong, binding and
 * sampling the calling thread's counters, presets, buffer arithmetic,
 * the walkers, the default error handler, and event names from libpfm4
 * (for the CPU it finds, and for a model forced with LIBPFM_FORCE_PMU).
 */
#include "pctr_test.h"

#include <pthread.h>

#include <stdarg.h>

#ifdef CPC_HAVE_PFM
#include <perfmon/pfmlib.h>
#endif

#include "libcpc.h"
#include "kselftest_harness.h"

/* The sim's events (driver/arch/sim/sim.h). */
#define SIM_EV_TICKS		0x01
#define SIM_EV_TICKS_DIV	0x02
#define SIM_DIV			64
#define SIM_GENERAL		4
#define SIM_FIXED		2

#define U	CPC_COUNT_USER
#define US	(CPC_COUNT_USER | CPC_COUNT_SYSTEM)

static int reload(const char *params)
{
	return unload_wait() ?: load(params);
}

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

FIXTURE(cpc) {
	char		params[256];
	cpc_t		*cpc;
	cpc_set_t	*set;
	uint64_t	khz;
};

FIXTURE_SETUP(cpc)
{
	pctr_t *p;

	self->cpc = NULL;
	if (geteuid() != 0)
		SKIP(return, "reloading the module needs root");
	if (read_text("/pctr/params.used", self->params, sizeof(self->params)))
		self->params[0] = '\0';
	ASSERT_EQ(0, reload("pmu=sim sim_div=64"));
	p = pctr_open(O_RDONLY);
	ASSERT_NE(NULL, p);
	self->khz = p->info.pi_tsc_khz;
	pctr_close(p);
	ASSERT_NE(0, self->khz);
	self->cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, self->cpc);
	cpc_seterrhndlr(self->cpc, quiet_errfn);
	self->set = cpc_set_create(self->cpc);
	ASSERT_NE(NULL, self->set);
}

FIXTURE_TEARDOWN(cpc)
{
	if (self->cpc)
		EXPECT_EQ(0, cpc_close(self->cpc));
	EXPECT_EQ(0, read_long(PCTR_SYSFS "/contexts"));
	EXPECT_EQ(0, reload(self->params));
}

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

TEST_F(cpc, open_versions)
{
	errno = 0;
	EXPECT_EQ(NULL, cpc_open(CPC_VER_CURRENT + 1));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, cpc_open(CPC_VER_NONE));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(cpc, cpu_description)
{
	const char *name = cpc_cciname(self->cpc);

	EXPECT_EQ(SIM_GENERAL + SIM_FIXED, cpc_npic(self->cpc));
	/* No overflow signal yet, so no overflow capability. */
	EXPECT_EQ(0, cpc_caps(self->cpc));
	ASSERT_NE(NULL, name);
	EXPECT_NE(NULL, strstr(name, "sim")) TH_LOG("cciname \"%s\"", name);
	EXPECT_NE(0, strlen(cpc_cpuref(self->cpc)));
	TH_LOG("%s; %s", name, cpc_cpuref(self->cpc));
}

TEST_F(cpc, add_request_einval)
{
	cpc_attr_t bad_name = { "bogus", 1 }, no_name = { NULL, 0 };
	cpc_attr_t umask_big = { "umask", 256 }, edge_two = { "edge", 2 };
	cpc_attr_t pic_none = { "picnum", SIM_GENERAL + SIM_FIXED };
	cpc_attr_t pic_fixed = { "picnum", SIM_GENERAL };
	cpc_attr_t pic0 = { "picnum", 0 };
	cpc_t *other;
	cpc_set_t *s = self->set, *os;
	int i;

	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "no_such_event", 0, U,
					0, NULL), EINVAL, CPC_INVALID_EVENT);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "", 0, U, 0, NULL),
		    EINVAL, CPC_INVALID_EVENT);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "0x1000", 0, U, 0, NULL),
		    EINVAL, CPC_INVALID_EVENT);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "0xzz", 0, U, 0, NULL),
		    EINVAL, CPC_INVALID_EVENT);
	/* Flags: one of user and system, nothing unknown, no overflow yet. */
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "sim_ticks", 0, 0, 0,
					NULL), EINVAL, CPC_REQ_INVALID_FLAGS);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "sim_ticks", 0,
					U | 0x100, 0, NULL),
		    EINVAL, CPC_REQ_INVALID_FLAGS);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "sim_ticks", 0,
					U | CPC_OVF_NOTIFY_EMT, 0, NULL),
		    ENOTSUP, CPC_NOT_SUPPORTED);
	/* Attributes. */
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "sim_ticks", 0, U, 1,
					&bad_name), EINVAL,
		    CPC_INVALID_ATTRIBUTE);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "sim_ticks", 0, U, 1,
					&no_name), EINVAL,
		    CPC_INVALID_ATTRIBUTE);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "sim_ticks", 0, U, 1,
					NULL), EINVAL, CPC_INVALID_ARGUMENT);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "sim_ticks", 0, U, 1,
					&umask_big), EINVAL,
		    CPC_ATTRIBUTE_OUT_OF_RANGE);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "sim_ticks", 0, U, 1,
					&edge_two), EINVAL,
		    CPC_ATTRIBUTE_OUT_OF_RANGE);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "sim_ticks", 0, U, 1,
					&pic_none), EINVAL, CPC_INVALID_PICNUM);
	/* The sim's named events are general-counter events only. */
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "sim_ticks", 0, U, 1,
					&pic_fixed), EINVAL,
		    CPC_PIC_NOT_CAPABLE);

	/* A set of another handle. */
	other = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, other);
	os = cpc_set_create(other);
	ASSERT_NE(NULL, os);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, os, "sim_ticks", 0, U, 0,
					NULL), EINVAL, CPC_INVALID_ARGUMENT);
	EXPECT_FAIL(cpc_bind_curlwp(self->cpc, os, 0), EINVAL,
		    CPC_INVALID_ARGUMENT);
	cpc_close(other);

	/* Nothing failed was added. */
	EXPECT_EQ(0, cpc_set_add_request(self->cpc, s, "sim_ticks", 0, U, 1,
					 &pic0));
	/* Counter 0 is taken: another request for it conflicts. */
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "sim_ticks_div", 0, U,
					1, &pic0), EINVAL,
		    CPC_CONFLICTING_REQS);
	/* Only as many requests as general counters for general events. */
	for (i = 1; i < SIM_GENERAL; i++)
		EXPECT_EQ(i, cpc_set_add_request(self->cpc, s, "sim_ticks", 0,
						 US, 0, NULL));
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "sim_ticks", 0, U, 0,
					NULL), EINVAL, CPC_CONFLICTING_REQS);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, s, "0x2", 0, U, 0, NULL),
		    EINVAL, CPC_CONFLICTING_REQS);
}

TEST_F(cpc, bind_einval)
{
	cpc_buf_t *buf = cpc_buf_create(self->cpc, self->set);

	ASSERT_NE(NULL, buf);
	/* Empty set. */
	EXPECT_FAIL(cpc_bind_curlwp(self->cpc, self->set, 0), EINVAL,
		    CPC_INVALID_ARGUMENT);
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, self->set, "sim_ticks",
					 0, U, 0, NULL));
	EXPECT_FAIL(cpc_bind_curlwp(self->cpc, self->set, 0x80), EINVAL,
		    CPC_REQ_INVALID_FLAGS);
	EXPECT_FAIL(cpc_bind_curlwp(self->cpc, self->set,
				    CPC_BIND_LWP_INHERIT), ENOTSUP,
		    CPC_NOT_SUPPORTED);
	EXPECT_FAIL(cpc_bind_cpu(self->cpc, 0, self->set, 0), ENOTSUP,
		    CPC_NOT_SUPPORTED);
	/* Not bound: nothing to unbind, sample, preset or restart. */
	EXPECT_FAIL(cpc_unbind(self->cpc, self->set), EINVAL,
		    CPC_INVALID_ARGUMENT);
	EXPECT_FAIL(cpc_set_sample(self->cpc, self->set, buf), EINVAL,
		    CPC_INVALID_ARGUMENT);
	EXPECT_FAIL(cpc_request_preset(self->cpc, 0, 5), EINVAL,
		    CPC_INVALID_ARGUMENT);
	EXPECT_FAIL(cpc_set_restart(self->cpc, self->set), EINVAL,
		    CPC_INVALID_ARGUMENT);
	EXPECT_EQ(0, read_long(PCTR_SYSFS "/contexts"));

	/* Bound: a buffer made before the request was added is too small. */
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, self->set, 0));
	EXPECT_FAIL(cpc_set_sample(self->cpc, self->set, buf), EINVAL,
		    CPC_INVALID_ARGUMENT);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, self->set, "sim_ticks", 0,
					U, 0, NULL), EINVAL,
		    CPC_INVALID_ARGUMENT);
	EXPECT_FAIL(cpc_request_preset(self->cpc, 1, 5), EINVAL,
		    CPC_INVALID_ARGUMENT);
	EXPECT_EQ(0, cpc_unbind(self->cpc, self->set));
}

/* Counts, virtual TSC and time grow with the thread's own run time. */
TEST_F(cpc, sample_counts_run_time)
{
	cpc_buf_t *a, *b, *d;
	uint64_t ticks, divs, fn, vtsc;
	double c0, c1, cpu_ms, hr_ms;
	int i0, i1, slot;

	i0 = cpc_set_add_request(self->cpc, self->set, "sim_ticks", 0, US, 0,
				 NULL);
	i1 = cpc_set_add_request(self->cpc, self->set, "sim_ticks_div", 0, U,
				 0, NULL);
	ASSERT_EQ(0, i0);
	ASSERT_EQ(1, i1);
	a = cpc_buf_create(self->cpc, self->set);
	b = cpc_buf_create(self->cpc, self->set);
	d = cpc_buf_create(self->cpc, self->set);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, d);

	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, self->set, 0));
	EXPECT_EQ(1, read_long(PCTR_SYSFS "/contexts"));
	ASSERT_EQ(0, cpc_request_fn(self->cpc, self->set, i0, &fn, &slot));
	EXPECT_EQ(PCTR_FN(SIM_EV_TICKS, 0, PCTR_U | PCTR_K | PCTR_EN), fn);
	EXPECT_EQ(0, slot);
	ASSERT_EQ(0, cpc_request_fn(self->cpc, self->set, i1, &fn, &slot));
	EXPECT_EQ(PCTR_FN(SIM_EV_TICKS_DIV, 0, PCTR_U | PCTR_EN), fn);
	EXPECT_EQ(1, slot);

	c0 = thread_cpu_sec();
	ASSERT_EQ(0, cpc_set_sample(self->cpc, self->set, a));
	spin_cpu(0.3);
	ASSERT_EQ(0, cpc_set_sample(self->cpc, self->set, b));
	c1 = thread_cpu_sec();
	cpc_buf_sub(self->cpc, d, b, a);
	ASSERT_EQ(0, cpc_buf_get(self->cpc, d, i0, &ticks));
	ASSERT_EQ(0, cpc_buf_get(self->cpc, d, i1, &divs));
	vtsc = cpc_buf_tick(self->cpc, d);
	cpu_ms = (c1 - c0) * 1e3;
	hr_ms = (cpc_buf_hrtime(self->cpc, b) -
		 cpc_buf_hrtime(self->cpc, a)) / 1e6;
	TH_LOG("thread CPU %.1f ms: sim_ticks %.1f ms, sim_ticks_div*64 %.1f ms, tick %.1f ms, hrtime %.1f ms",
	       cpu_ms, ticks / (double)self->khz,
	       divs * (double)SIM_DIV / self->khz, vtsc / (double)self->khz,
	       hr_ms);
	EXPECT_GT(ticks / (double)self->khz, cpu_ms * 0.8);
	EXPECT_LT(ticks / (double)self->khz, cpu_ms * 1.2);
	EXPECT_GT(divs * (double)SIM_DIV / self->khz, cpu_ms * 0.8);
	EXPECT_LT(divs * (double)SIM_DIV / self->khz, cpu_ms * 1.2);
	EXPECT_GT(vtsc / (double)self->khz, cpu_ms * 0.8);
	EXPECT_LT(vtsc / (double)self->khz, cpu_ms * 1.2);
	/* One event per 64 ticks, sampled together: within 1%. */
	EXPECT_LT(divs * (double)SIM_DIV, ticks * 1.01);
	EXPECT_GT(divs * (double)SIM_DIV, ticks * 0.99);
	EXPECT_GE(hr_ms, cpu_ms * 0.8);
	EXPECT_EQ(0, cpc_unbind(self->cpc, self->set));
}

TEST_F(cpc, presets)
{
	const uint64_t preset = 1ULL << 40;
	cpc_buf_t *buf;
	uint64_t v, fn;
	int i;

	i = cpc_set_add_request(self->cpc, self->set, "sim_ticks_div", preset,
				U, 0, NULL);
	ASSERT_EQ(0, i);
	ASSERT_EQ(1, cpc_set_add_request(self->cpc, self->set, "sim_ticks",
					 0, U, 0, NULL));
	buf = cpc_buf_create(self->cpc, self->set);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, self->set, 0));
	spin_cpu(0.02);
	ASSERT_EQ(0, cpc_set_sample(self->cpc, self->set, buf));
	ASSERT_EQ(0, cpc_buf_get(self->cpc, buf, i, &v));
	EXPECT_GE(v, preset);
	EXPECT_LT(v, preset + (1ULL << 32));
	ASSERT_EQ(0, cpc_buf_get(self->cpc, buf, 1, &v));
	EXPECT_LT(v, 1ULL << 40);

	/* A new preset takes effect at the restart. */
	ASSERT_EQ(0, cpc_request_preset(self->cpc, 1, 1ULL << 50));
	ASSERT_EQ(0, cpc_set_restart(self->cpc, self->set));
	ASSERT_EQ(0, cpc_set_sample(self->cpc, self->set, buf));
	ASSERT_EQ(0, cpc_buf_get(self->cpc, buf, 1, &v));
	EXPECT_GE(v, 1ULL << 50);
	EXPECT_LT(v, (1ULL << 50) + (1ULL << 32));
	ASSERT_EQ(0, cpc_buf_get(self->cpc, buf, i, &v));
	EXPECT_GE(v, preset);
	EXPECT_LT(v, preset + (1ULL << 32));
	ASSERT_EQ(0, cpc_request_fn(self->cpc, self->set, 1, &fn, NULL));
	EXPECT_EQ(PCTR_FN(SIM_EV_TICKS, 0, PCTR_U | PCTR_EN), fn);
	EXPECT_EQ(0, cpc_unbind(self->cpc, self->set));
}

TEST_F(cpc, buffer_arithmetic)
{
	cpc_buf_t *a, *b, *d, *s1;
	cpc_set_t *one;
	uint64_t v;
	hrtime_t h, lh = 0;
	uint64_t t, lt = 0;
	int k;

	ASSERT_EQ(0, cpc_set_add_request(self->cpc, self->set, "sim_ticks", 0,
					 U, 0, NULL));
	ASSERT_EQ(1, cpc_set_add_request(self->cpc, self->set, "sim_ticks_div",
					 0, U, 0, NULL));
	a = cpc_buf_create(self->cpc, self->set);
	b = cpc_buf_create(self->cpc, self->set);
	d = cpc_buf_create(self->cpc, self->set);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, d);

	ASSERT_EQ(0, cpc_buf_set(self->cpc, a, 0, 100));
	ASSERT_EQ(0, cpc_buf_set(self->cpc, a, 1, 7));
	ASSERT_EQ(0, cpc_buf_set(self->cpc, b, 0, 30));
	ASSERT_EQ(0, cpc_buf_set(self->cpc, b, 1, 2));
	errno = 0;
	EXPECT_EQ(-1, cpc_buf_set(self->cpc, a, 2, 1));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, cpc_buf_get(self->cpc, a, -1, &v));
	EXPECT_EQ(EINVAL, errno);

	cpc_buf_sub(self->cpc, d, a, b);
	cpc_buf_get(self->cpc, d, 0, &v);
	EXPECT_EQ(70, v);
	cpc_buf_get(self->cpc, d, 1, &v);
	EXPECT_EQ(5, v);
	cpc_buf_add(self->cpc, d, d, b);	/* in place */
	cpc_buf_get(self->cpc, d, 0, &v);
	EXPECT_EQ(100, v);
	cpc_buf_get(self->cpc, d, 1, &v);
	EXPECT_EQ(7, v);
	cpc_buf_copy(self->cpc, d, b);
	cpc_buf_get(self->cpc, d, 0, &v);
	EXPECT_EQ(30, v);
	cpc_buf_zero(self->cpc, d);
	cpc_buf_get(self->cpc, d, 0, &v);
	EXPECT_EQ(0, v);
	cpc_buf_get(self->cpc, d, 1, &v);
	EXPECT_EQ(0, v);
	EXPECT_EQ(0, cpc_buf_hrtime(self->cpc, d));
	EXPECT_EQ(0, cpc_buf_tick(self->cpc, d));

	/* A buffer of another set's size is left alone. */
	one = cpc_set_create(self->cpc);
	ASSERT_NE(NULL, one);
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, one, "sim_ticks", 0, U, 0,
					 NULL));
	s1 = cpc_buf_create(self->cpc, one);
	ASSERT_NE(NULL, s1);
	cpc_buf_set(self->cpc, s1, 0, 9);
	cpc_buf_copy(self->cpc, s1, a);
	cpc_buf_get(self->cpc, s1, 0, &v);
	EXPECT_EQ(9, v);
	EXPECT_EQ(0, cpc_buf_destroy(self->cpc, s1));
	EXPECT_EQ(0, cpc_set_destroy(self->cpc, one));

	/* Samples: hrtime, tick and counts never go back. */
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, self->set, 0));
	for (k = 0; k < 200; k++) {
		ASSERT_EQ(0, cpc_set_sample(self->cpc, self->set, b));
		h = cpc_buf_hrtime(self->cpc, b);
		t = cpc_buf_tick(self->cpc, b);
		ASSERT_GE(h, lh);
		ASSERT_GE(t, lt);
		if (k) {
			cpc_buf_sub(self->cpc, d, b, a);
			cpc_buf_get(self->cpc, d, 0, &v);
			ASSERT_LT(v, 1ULL << 62);	/* not negative */
			EXPECT_EQ(h, cpc_buf_hrtime(self->cpc, d));
			EXPECT_EQ(t - lt, cpc_buf_tick(self->cpc, d));
		}
		cpc_buf_copy(self->cpc, a, b);
		lh = h;
		lt = t;
		spin_cpu(0.0005);
	}
	/* The tick is the thread's run time since the bind. */
	{
		double cpu = thread_cpu_sec();

		ASSERT_EQ(0, cpc_set_sample(self->cpc, self->set, b));
		TH_LOG("tick %.1f ms, thread CPU time %.1f ms (all of it)",
		       cpc_buf_tick(self->cpc, b) / (double)self->khz,
		       cpu * 1e3);
		EXPECT_LT(cpc_buf_tick(self->cpc, b) / (double)self->khz,
			  cpu * 1e3 * 1.2);
		EXPECT_GT(cpc_buf_tick(self->cpc, b) / (double)self->khz, 80);
	}
	EXPECT_EQ(0, cpc_unbind(self->cpc, self->set));
	EXPECT_EQ(0, cpc_buf_destroy(self->cpc, a));
	EXPECT_FAIL(cpc_buf_destroy(self->cpc, a), EINVAL,
		    CPC_INVALID_ARGUMENT);
}

TEST_F(cpc, unbind_ends_context)
{
	cpc_set_t *s2;
	cpc_buf_t *buf;

	ASSERT_EQ(0, cpc_set_add_request(self->cpc, self->set, "sim_ticks", 0,
					 U, 0, NULL));
	buf = cpc_buf_create(self->cpc, self->set);
	ASSERT_NE(NULL, buf);
	EXPECT_EQ(0, read_long(PCTR_SYSFS "/contexts"));
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, self->set, 0));
	EXPECT_EQ(1, read_long(PCTR_SYSFS "/contexts"));
	EXPECT_EQ(0, cpc_set_sample(self->cpc, self->set, buf));
	EXPECT_EQ(0, cpc_unbind(self->cpc, self->set));
	EXPECT_EQ(0, read_long(PCTR_SYSFS "/contexts"));
	EXPECT_FAIL(cpc_set_sample(self->cpc, self->set, buf), EINVAL,
		    CPC_INVALID_ARGUMENT);
	EXPECT_FAIL(cpc_unbind(self->cpc, self->set), EINVAL,
		    CPC_INVALID_ARGUMENT);

	/* Rebinding works; binding a second set replaces the first. */
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, self->set, 0));
	s2 = cpc_set_create(self->cpc);
	ASSERT_NE(NULL, s2);
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, s2, "sim_ticks_div", 0, U,
					 0, NULL));
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, s2, 0));
	EXPECT_EQ(1, read_long(PCTR_SYSFS "/contexts"));
	EXPECT_FAIL(cpc_set_sample(self->cpc, self->set, buf), EINVAL,
		    CPC_INVALID_ARGUMENT);
	EXPECT_EQ(0, cpc_set_sample(self->cpc, s2, buf));
	/* Destroying a bound set unbinds it. */
	EXPECT_EQ(0, cpc_set_destroy(self->cpc, s2));
	EXPECT_EQ(0, read_long(PCTR_SYSFS "/contexts"));

	/* So does closing the handle. */
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, self->set, 0));
	EXPECT_EQ(1, read_long(PCTR_SYSFS "/contexts"));
	EXPECT_EQ(0, cpc_close(self->cpc));
	self->cpc = NULL;
	EXPECT_EQ(0, read_long(PCTR_SYSFS "/contexts"));
}

struct names {
	int	n;
	char	seen[16][64];
};

static void note(void *arg, const char *name)
{
	struct names *w = arg;

	if (w->n < 16)
		snprintf(w->seen[w->n], sizeof(w->seen[0]), "%s", name);
	w->n++;
}

static void note_pic(void *arg, uint_t picno, const char *name)
{
	note(arg, name);
}

static int has(const struct names *w, const char *name)
{
	int i;

	for (i = 0; i < w->n && i < 16; i++)
		if (!strcmp(w->seen[i], name))
			return 1;
	return 0;
}

TEST_F(cpc, walkers)
{
	struct names w;
	uint64_t fn_generic, fn_native;

	memset(&w, 0, sizeof(w));
	cpc_walk_events_all(self->cpc, &w, note);
	EXPECT_EQ(3, w.n);
	EXPECT_TRUE(has(&w, "sim_ticks"));
	EXPECT_TRUE(has(&w, "sim_ticks_div"));
	EXPECT_TRUE(has(&w, "sim_ticks_div_umask"));

	memset(&w, 0, sizeof(w));
	cpc_walk_events_pic(self->cpc, SIM_GENERAL - 1, &w, note_pic);
	EXPECT_EQ(3, w.n);
	memset(&w, 0, sizeof(w));
	cpc_walk_events_pic(self->cpc, SIM_GENERAL, &w, note_pic);
	EXPECT_EQ(0, w.n);		/* fixed: no named events */
	memset(&w, 0, sizeof(w));
	cpc_walk_events_pic(self->cpc, 99, &w, note_pic);
	EXPECT_EQ(0, w.n);

	memset(&w, 0, sizeof(w));
	cpc_walk_generic_events_all(self->cpc, &w, note);
	EXPECT_EQ(2, w.n);
	EXPECT_TRUE(has(&w, "PAPI_tot_cyc"));
	EXPECT_TRUE(has(&w, "PAPI_tot_ins"));
	memset(&w, 0, sizeof(w));
	cpc_walk_generic_events_pic(self->cpc, 0, &w, note_pic);
	EXPECT_EQ(2, w.n);

	memset(&w, 0, sizeof(w));
	cpc_walk_attrs(self->cpc, &w, note);
	EXPECT_TRUE(has(&w, "picnum"));
	EXPECT_TRUE(has(&w, "umask"));
	EXPECT_TRUE(has(&w, "cmask"));
	EXPECT_TRUE(has(&w, "edge"));
	EXPECT_TRUE(has(&w, "inv"));

	/* A generic name is its native event. */
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, self->set, "PAPI_tot_cyc",
					 0, U, 0, NULL));
	ASSERT_EQ(1, cpc_set_add_request(self->cpc, self->set, "sim_ticks",
					 0, U, 0, NULL));
	cpc_request_fn(self->cpc, self->set, 0, &fn_generic, NULL);
	cpc_request_fn(self->cpc, self->set, 1, &fn_native, NULL);
	EXPECT_EQ(fn_native, fn_generic);
	EXPECT_FAIL(cpc_set_add_request(self->cpc, self->set, "PAPI_br_ins",
					0, U, 0, NULL), EINVAL,
		    CPC_INVALID_EVENT);
}

/* Raw codes and attributes make the function; the sim counts it. */
TEST_F(cpc, raw_codes_and_attributes)
{
	cpc_attr_t attrs[] = {
		{ "umask", 1 }, { "picnum", 2 }, { "edge", 1 }, { "edge", 0 },
		{ "cmask", 3 }, { "cmask", 0 },
	};
	uint64_t fn, v, v1;
	cpc_buf_t *buf, *b0;
	int slot;

	ASSERT_EQ(0, cpc_set_add_request(self->cpc, self->set, "0x3", 0, U,
					 6, attrs));
	ASSERT_EQ(0, cpc_request_fn(self->cpc, self->set, 0, &fn, &slot));
	EXPECT_EQ(PCTR_FN(0x3, 1, PCTR_U | PCTR_EN), fn);
	EXPECT_EQ(-1, slot);
	ASSERT_EQ(1, cpc_set_add_request(self->cpc, self->set, "0X02", 0, U,
					 0, NULL));
	buf = cpc_buf_create(self->cpc, self->set);
	b0 = cpc_buf_create(self->cpc, self->set);
	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, b0);
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, self->set, 0));
	ASSERT_EQ(0, cpc_request_fn(self->cpc, self->set, 0, NULL, &slot));
	EXPECT_EQ(2, slot);		/* picnum 2 */
	ASSERT_EQ(0, cpc_request_fn(self->cpc, self->set, 1, NULL, &slot));
	EXPECT_EQ(0, slot);
	/* Counts between two samples: the slots were started one by one. */
	ASSERT_EQ(0, cpc_set_sample(self->cpc, self->set, b0));
	spin_cpu(0.05);
	ASSERT_EQ(0, cpc_set_sample(self->cpc, self->set, buf));
	cpc_buf_sub(self->cpc, buf, buf, b0);
	cpc_buf_get(self->cpc, buf, 0, &v);
	cpc_buf_get(self->cpc, buf, 1, &v1);
	TH_LOG("0x3 umask 1: %llu, 0x2: %llu", (unsigned long long)v,
	       (unsigned long long)v1);
	EXPECT_GT(v, 0);
	/* umask 1: one event per 2 * 64 ticks, half of 0x2's (within 1%). */
	EXPECT_GT(v * 2.0, v1 * 0.99);
	EXPECT_LT(v * 2.0, v1 * 1.01);
	EXPECT_EQ(0, cpc_unbind(self->cpc, self->set));
}

/* Without a handler of one's own: "libcpc: function: message" on stderr. */
TEST_F(cpc, default_error_handler)
{
	char out[512] = "";
	int pfd[2], saved;
	ssize_t n;

	cpc_seterrhndlr(self->cpc, NULL);
	ASSERT_EQ(0, pipe(pfd));
	fflush(stderr);
	saved = dup(2);
	ASSERT_LE(0, saved);
	ASSERT_EQ(2, dup2(pfd[1], 2));
	close(pfd[1]);
	errno = 0;
	EXPECT_EQ(-1, cpc_set_add_request(self->cpc, self->set, "nope", 0, U,
					  0, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_bind_curlwp(self->cpc, self->set,
				      CPC_BIND_LWP_INHERIT));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = read(pfd[0], out, sizeof(out) - 1);
	close(pfd[0]);
	ASSERT_LT(0, n);
	out[n] = '\0';
	TH_LOG("stderr: %s", out);
	EXPECT_EQ(0, strncmp(out, "libcpc: cpc_set_add_request: ",
			     strlen("libcpc: cpc_set_add_request: ")));
	EXPECT_NE(NULL, strstr(out, "\"nope\" on pctr sim"));
	EXPECT_NE(NULL, strstr(out, "\nlibcpc: cpc_bind_curlwp: CPC_BIND_LWP_INHERIT"));
	EXPECT_EQ('\n', out[n - 1]);
}

#ifdef CPC_HAVE_PFM
/* libpfm4's own encoding of @name, as libcpc should program it. */
static int pfm_fn(const char *name, int plm, uint64_t *fn)
{
	pfm_pmu_encode_arg_t arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(name, plm, PFM_OS_NONE, &arg);
	if (ret != PFM_SUCCESS || arg.count != 1) {
		free(arg.codes);
		return -1;
	}
	*fn = (arg.codes[0] & ~PCTR_INT) | PCTR_EN;
	free(arg.codes);
	return 0;
}

/* libpfm4 names for the CPU it finds (none under QEMU's TCG). */
TEST_F(cpc, pfm_native_names)
{
	static const char *const names[] = {
		"INST_RETIRED:ANY_P", "RETIRED_INSTRUCTIONS",
	};
	const char *name = NULL;
	uint64_t want = 0, fn;
	unsigned int i;

	ASSERT_EQ(PFM_SUCCESS, pfm_initialize());
	for (i = 0; i < 2 && !name; i++)
		if (!pfm_fn(names[i], PFM_PLM3, &want))
			name = names[i];
	if (!name)
		SKIP(return, "libpfm4 finds no PMU on this CPU");
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, self->set, name, 0, U, 0,
					 NULL));
	ASSERT_EQ(0, cpc_request_fn(self->cpc, self->set, 0, &fn, NULL));
	TH_LOG("%s: 0x%llx", name, (unsigned long long)fn);
	EXPECT_EQ(want, fn);
	EXPECT_EQ(0, fn & PCTR_INT);
}

/* A model forced with LIBPFM_FORCE_PMU: runs on any CPU. */
TEST_F(cpc, pfm_forced_pmu)
{
	uint64_t want, fn;

	/* libcpc initializes libpfm4 at its first name look-up, after this. */
	ASSERT_EQ(0, setenv("LIBPFM_FORCE_PMU", "skl", 1));
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, self->set,
					 "INST_RETIRED:ANY_P", 0, U, 0, NULL));
	ASSERT_EQ(0, cpc_request_fn(self->cpc, self->set, 0, &fn, NULL));
	EXPECT_EQ(PCTR_FN(0xc0, 0, PCTR_U | PCTR_EN), fn);
	ASSERT_EQ(0, pfm_fn("INST_RETIRED:ANY_P", PFM_PLM3, &want));
	EXPECT_EQ(want, fn);

	/* Modifiers, and both privilege levels from the flags. */
	ASSERT_EQ(1, cpc_set_add_request(self->cpc, self->set,
					 "BR_INST_RETIRED:ALL_BRANCHES:c=2:i",
					 0, US, 0, NULL));
	ASSERT_EQ(0, cpc_request_fn(self->cpc, self->set, 1, &fn, NULL));
	ASSERT_EQ(0, pfm_fn("BR_INST_RETIRED:ALL_BRANCHES:c=2:i",
			    PFM_PLM3 | PFM_PLM0, &want));
	EXPECT_EQ(want, fn);
	EXPECT_EQ(PCTR_FN(0xc4, 0, PCTR_U | PCTR_K | PCTR_EN | PCTR_I) |
		  (2ULL << PCTR_CM_SHIFT), fn);

	/* An attribute overrides what the name set. */
	{
		cpc_attr_t um = { "umask", 0x20 };

		ASSERT_EQ(2, cpc_set_add_request(self->cpc, self->set,
						 "INST_RETIRED:ANY_P", 0, U,
						 1, &um));
		ASSERT_EQ(0, cpc_request_fn(self->cpc, self->set, 2, &fn,
					    NULL));
		EXPECT_EQ(PCTR_FN(0xc0, 0x20, PCTR_U | PCTR_EN), fn);
	}
	EXPECT_FAIL(cpc_set_add_request(self->cpc, self->set,
					"INST_RETIRED:ANY_P:nosuchmod=1", 0, U,
					0, NULL), EINVAL,
		    CPC_INVALID_ATTRIBUTE);
	/* The sim's names still come first. */
	EXPECT_EQ(3, cpc_set_add_request(self->cpc, self->set, "sim_ticks", 0,
					 U, 0, NULL));
}
#endif

/*
 * A set bound by another, living thread belongs to it: destroying,
 * rebinding or closing from here is refused and changes nothing.  Once
 * that thread has exited (its counters went with it), the set may be
 * cleaned up from anywhere.
 */
struct binder {
	cpc_t			*cpc;
	cpc_set_t		*set;
	pthread_barrier_t	bound, done;
	int			rc;
};

static void *bind_and_wait(void *arg)
{
	struct binder *b = arg;

	b->rc = cpc_bind_curlwp(b->cpc, b->set, 0);
	pthread_barrier_wait(&b->bound);
	pthread_barrier_wait(&b->done);
	return NULL;			/* exits still bound */
}

TEST_F(cpc, set_bound_elsewhere_is_left_alone)
{
	struct binder b = { .cpc = self->cpc, .set = self->set };
	pthread_t t;

	ASSERT_LE(0, cpc_set_add_request(self->cpc, self->set, "sim_ticks", 0,
					 CPC_COUNT_USER, 0, NULL));
	pthread_barrier_init(&b.bound, NULL, 2);
	pthread_barrier_init(&b.done, NULL, 2);
	ASSERT_EQ(0, pthread_create(&t, NULL, bind_and_wait, &b));
	pthread_barrier_wait(&b.bound);
	ASSERT_EQ(0, b.rc);
	EXPECT_EQ(1, read_long(PCTR_SYSFS "/contexts"));

	EXPECT_FAIL(cpc_set_destroy(self->cpc, self->set), EINVAL,
		    CPC_INVALID_ARGUMENT);
	EXPECT_FAIL(cpc_bind_curlwp(self->cpc, self->set, 0), EINVAL,
		    CPC_INVALID_ARGUMENT);
	EXPECT_FAIL(cpc_close(self->cpc), EINVAL, CPC_INVALID_ARGUMENT);
	/* Still counting in the other thread. */
	EXPECT_EQ(1, read_long(PCTR_SYSFS "/contexts"));

	pthread_barrier_wait(&b.done);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, wait_zero(PCTR_SYSFS "/contexts"));
	/* The binder is gone: the set can be destroyed here. */
	EXPECT_EQ(0, cpc_set_destroy(self->cpc, self->set));
	self->set = NULL;
}

TEST_HARNESS_MAIN
