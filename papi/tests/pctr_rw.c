// SPDX-License-Identifier: GPL-2.0
/*
 * pctr_rw: an event set's life through pctr's component, as the
 * component's description has it (papi/pctr_papi.c): reads during a
 * run only grow and a longer loop counts more; PAPI_reset starts from
 * zero again; PAPI_stop gives at least the last read; a stopped event
 * set started again counts from zero.  Then many short runs in a row,
 * each taking and giving back the counters (PAPI_start, PAPI_stop), as
 * PAPI's destroy test and many tools do: they must all count.
 */
#include "pctr_test.h"

#define RUNS 2000

int main(int argc, char **argv)
{
	long long a, b, c, r, s, again;
	char name[PAPI_MAX_STR_LEN];
	int quiet, cidx, code, es, ret, i;

	quiet = tests_quiet(argc, argv);
	cidx = pctr_test_init(quiet);
	code = pctr_test_event(cidx, name);
	es = pctr_test_eventset(cidx, code);

	ret = PAPI_start(es);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_start", ret);
	ret = PAPI_read(es, &a);
	pctr_test_loop(100000);
	ret |= PAPI_read(es, &b);
	pctr_test_loop(1000000);
	ret |= PAPI_read(es, &c);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_read", ret);
	if (!quiet)
		printf("%s: %lld, %lld, %lld\n", name, a, b, c);
	if (a < 0 || b <= a || c <= b || c - b <= b - a)
		test_fail(__FILE__, __LINE__, "reads do not grow with the loop",
			  PAPI_EBUG);
	ret = PAPI_reset(es);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_reset", ret);
	ret = PAPI_read(es, &r);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_read", ret);
	if (r < 0 || r >= c - b) {
		if (!quiet)
			printf("after PAPI_reset: %lld\n", r);
		test_fail(__FILE__, __LINE__, "PAPI_reset did not start from zero",
			  PAPI_EBUG);
	}
	ret = PAPI_stop(es, &s);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_stop", ret);
	if (s < r)
		test_fail(__FILE__, __LINE__, "PAPI_stop gave less than a read",
			  PAPI_EBUG);
	ret = PAPI_start(es);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_start again", ret);
	ret = PAPI_stop(es, &again);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_stop again", ret);
	if (again < 0 || again >= c - b) {
		if (!quiet)
			printf("started again: %lld\n", again);
		test_fail(__FILE__, __LINE__, "a new run did not start from zero",
			  PAPI_EBUG);
	}

	for (i = 0; i < RUNS; i++) {
		ret = PAPI_start(es);
		if (ret != PAPI_OK)
			test_fail(__FILE__, __LINE__, "PAPI_start in a run", ret);
		pctr_test_loop(1000);
		ret = PAPI_stop(es, &s);
		if (ret != PAPI_OK)
			test_fail(__FILE__, __LINE__, "PAPI_stop in a run", ret);
		if (s <= 0) {
			if (!quiet)
				printf("run %d counted %lld\n", i, s);
			test_fail(__FILE__, __LINE__, "a short run counted nothing",
				  PAPI_EBUG);
		}
	}
	if (!quiet)
		printf("%d runs of start, 1000 iterations, stop\n", RUNS);
	test_pass(__FILE__);
}
