// SPDX-License-Identifier: GPL-2.0
/*
 * papi_bench: what PAPI_read costs, of one event and of four, through
 * whichever component serves PAPI's presets: pctr's (the PAPI build of
 * testing/papi/build) or perf_event (Debian's libpapi, by
 * LD_LIBRARY_PATH).  Written only against <papi.h>; bench/bench builds
 * it against the pctr build and runs it against both libraries in the
 * same guest.
 *
 *   papi_bench [-i] [reads-per-round] [rounds]
 *
 * The thread times a loop of PAPI_read calls on a running event set of
 * PAPI_TOT_INS, then on one of four presets (PAPI_TOT_INS, PAPI_TOT_CYC,
 * PAPI_BR_INS and the first of PAPI_BR_MSP, PAPI_REF_CYC, PAPI_BR_CN
 * the component has), round by round, and prints the median per read.
 * -i: the guest runs under -icount shift=0, where one nanosecond is one
 * instruction: the figures are instructions.  Prints
 *   papi_bench: COMPONENT: N event(s): X ns per PAPI_read (median of R)
 * and "@papi COMPONENT N X" lines for bench/bench; exits 0 when both
 * event sets ran, 2 when PAPI failed (no component, no such preset).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <papi.h>

#define MAXROUNDS	64

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int fail(const char *what, int ret)
{
	fprintf(stderr, "papi_bench: %s: %s\n", what, PAPI_strerror(ret));
	return 2;
}

/* An event set of the first @n presets of want[] the component has. */
static int make_set(int *set, int n, int *got)
{
	static const int want[] = {
		PAPI_TOT_INS, PAPI_TOT_CYC, PAPI_BR_INS,
		PAPI_BR_MSP, PAPI_REF_CYC, PAPI_BR_CN,
	};
	unsigned int i;
	int ret;

	*set = PAPI_NULL;
	*got = 0;
	ret = PAPI_create_eventset(set);
	if (ret != PAPI_OK)
		return ret;
	for (i = 0; i < sizeof(want) / sizeof(want[0]) && *got < n; i++)
		if (PAPI_add_event(*set, want[i]) == PAPI_OK)
			(*got)++;
	return *got == n ? PAPI_OK : PAPI_ENOEVNT;
}

/* The median cost of one PAPI_read of @set, in ns. */
static double time_reads(int set, long reads, int rounds)
{
	long long v[4];
	double t[MAXROUNDS], t0;
	long i;
	int r;

	for (r = 0; r < rounds; r++) {
		t0 = now_ns();
		for (i = 0; i < reads; i++)
			PAPI_read(set, v);
		t[r] = (now_ns() - t0) / reads;
	}
	qsort(t, rounds, sizeof(t[0]), cmp_double);
	return t[rounds / 2];
}

int main(int argc, char **argv)
{
	const PAPI_component_info_t *ci;
	const char *unit = "ns";
	long reads = 100000;
	int rounds = 7, a = 1, set, got, ret, k;
	static const int sizes[] = { 1, 4 };
	long long v[4];
	double ns;

	if (a < argc && !strcmp(argv[a], "-i")) {
		unit = "instructions";
		a++;
	}
	if (a < argc)
		reads = atol(argv[a++]);
	if (a < argc)
		rounds = atoi(argv[a++]);
	if (reads < 1 || rounds < 1 || rounds > MAXROUNDS) {
		fprintf(stderr, "usage: papi_bench [-i] [reads-per-round] [rounds (1..%d)]\n",
			MAXROUNDS);
		return 2;
	}
	ret = PAPI_library_init(PAPI_VER_CURRENT);
	if (ret != PAPI_VER_CURRENT)
		return fail("PAPI_library_init", ret);
	ci = PAPI_get_component_info(0);
	if (!ci || ci->disabled)
		return fail(ci ? ci->disabled_reason : "component 0",
			    PAPI_ECMP);
	for (k = 0; k < 2; k++) {
		ret = make_set(&set, sizes[k], &got);
		if (ret != PAPI_OK)
			return fail("the presets", ret);
		ret = PAPI_start(set);
		if (ret != PAPI_OK)
			return fail("PAPI_start", ret);
		ns = time_reads(set, reads, rounds);
		PAPI_stop(set, v);
		PAPI_cleanup_eventset(set);
		PAPI_destroy_eventset(&set);
		printf("papi_bench: %s: %d event%s: %.1f %s per PAPI_read (median of %d rounds of %ld)\n",
		       ci->name, got, got > 1 ? "s" : "", ns, unit, rounds,
		       reads);
		printf("@papi %s %d %.1f\n", ci->name, got, ns);
	}
	return 0;
}
