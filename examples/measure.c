// SPDX-License-Identifier: GPL-2.0
/*
 * measure: count two events over each of 20 iterations of a computation,
 * with libcpc, as the first example of Solaris' cpc_bind_curlwp(3CPC)
 * does (our own code).  The events come from $EVENT0 and $EVENT1; the
 * defaults are the generic PAPI_tot_cyc and PAPI_tot_ins, which libcpc
 * maps to the backend's own events (on the simulated PMU, TSC ticks).
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libcpc.h>

/* The computation to be measured: a little arithmetic on an array. */
static double work(int iter)
{
	static double a[4096];
	double sum = 0;
	int i, rep;

	for (rep = 0; rep < 20 * iter; rep++)
		for (i = 0; i < 4096; i++) {
			a[i] = a[i] * 0.5 + i;
			sum += a[i];
		}
	return sum;
}

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

int main(void)
{
	const char *event0 = env_or("EVENT0", "PAPI_tot_cyc");
	const char *event1 = env_or("EVENT1", "PAPI_tot_ins");
	cpc_buf_t *before, *after, *diff;
	volatile double sink = 0;
	uint64_t val0, val1;
	int ind0, ind1, iter;
	cpc_set_t *set;
	cpc_t *cpc;

	cpc = cpc_open(CPC_VER_CURRENT);
	if (!cpc)
		errx(1, "performance counters unavailable: %s", strerror(errno));
	set = cpc_set_create(cpc);
	if (!set)
		errx(1, "cannot create a set: %s", strerror(errno));
	ind0 = cpc_set_add_request(cpc, set, event0, 0, CPC_COUNT_USER, 0, NULL);
	if (ind0 < 0)
		errx(1, "cannot count %s: %s", event0, strerror(errno));
	ind1 = cpc_set_add_request(cpc, set, event1, 0, CPC_COUNT_USER, 0, NULL);
	if (ind1 < 0)
		errx(1, "cannot count %s: %s", event1, strerror(errno));

	before = cpc_buf_create(cpc, set);
	after = cpc_buf_create(cpc, set);
	diff = cpc_buf_create(cpc, set);
	if (!before || !after || !diff)
		errx(1, "cannot create buffers: %s", strerror(errno));

	if (cpc_bind_curlwp(cpc, set, 0) < 0)
		errx(1, "cannot bind this thread: %s", strerror(errno));

	printf("counting %s and %s on %s\n", event0, event1,
	       cpc_cciname(cpc));
	for (iter = 1; iter <= 20; iter++) {
		if (cpc_set_sample(cpc, set, before) < 0)
			break;
		sink += work(iter);
		if (cpc_set_sample(cpc, set, after) < 0)
			break;
		cpc_buf_sub(cpc, diff, after, before);
		cpc_buf_get(cpc, diff, ind0, &val0);
		cpc_buf_get(cpc, diff, ind1, &val1);
		printf("iter %2d: %s %12" PRIu64 "  %s %12" PRIu64
		       "  ticks %12" PRIu64 "\n", iter, event0, val0, event1,
		       val1, cpc_buf_tick(cpc, diff));
	}
	if (iter <= 20)
		errx(1, "cannot sample: %s", strerror(errno));

	cpc_unbind(cpc, set);
	cpc_buf_destroy(cpc, diff);
	cpc_buf_destroy(cpc, after);
	cpc_buf_destroy(cpc, before);
	cpc_set_destroy(cpc, set);
	cpc_close(cpc);
	return 0;
}
