// SPDX-License-Identifier: GPL-2.0
/*
 * testing/papi/papi_loop: a calibrated loop counted through PAPI, by a
 * program that knows only <papi.h> (PAPI_library_init, an event set of
 * PAPI_TOT_INS, start/read/stop), whatever component serves it.
 *
 *   papi_loop N1 N2
 *
 * Reads PAPI_TOT_INS (and PAPI_BR_INS when the event set takes it)
 * around a loop of N1 iterations, then around one of N2: each iteration
 * is two instructions and one branch (testing/vm/emu/loop.c's loop), so
 * the second difference less the first is exactly 2 (N2 - N1)
 * instructions and N2 - N1 branches: the reads' own cost cancels.
 * Prints what it counted; exits 0 when both are exact, 1 when not, 2 when
 * PAPI failed.
 */
#include <stdio.h>
#include <stdlib.h>

#include <papi.h>

static void loop(unsigned long n)
{
	/* dec; jnz: two instructions and one branch per iteration */
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

static int fail(const char *what, int ret)
{
	fprintf(stderr, "papi_loop: %s: %s\n", what, PAPI_strerror(ret));
	return 2;
}

int main(int argc, char **argv)
{
	long long v0[2] = { 0, 0 }, v1[2] = { 0, 0 }, v2[2] = { 0, 0 };
	long long vs[2], ins, br;
	unsigned long n1, n2;
	int es = PAPI_NULL, ret, nev = 1, exact;

	if (argc != 3 || !(n1 = strtoul(argv[1], NULL, 0)) ||
	    (n2 = strtoul(argv[2], NULL, 0)) <= n1) {
		fprintf(stderr, "usage: papi_loop N1 N2 (0 < N1 < N2)\n");
		return 2;
	}
	ret = PAPI_library_init(PAPI_VER_CURRENT);
	if (ret != PAPI_VER_CURRENT)
		return fail("PAPI_library_init", ret < 0 ? ret : PAPI_EINVAL);
	ret = PAPI_create_eventset(&es);
	if (ret != PAPI_OK)
		return fail("PAPI_create_eventset", ret);
	ret = PAPI_add_event(es, PAPI_TOT_INS);
	if (ret != PAPI_OK)
		return fail("PAPI_add_event PAPI_TOT_INS", ret);
	if (PAPI_add_event(es, PAPI_BR_INS) == PAPI_OK)
		nev = 2;
	ret = PAPI_start(es);
	if (ret != PAPI_OK)
		return fail("PAPI_start", ret);
	ret = PAPI_read(es, v0);
	loop(n1);
	ret |= PAPI_read(es, v1);
	loop(n2);
	ret |= PAPI_read(es, v2);
	if (ret != PAPI_OK)
		return fail("PAPI_read", ret);
	ret = PAPI_stop(es, vs);
	if (ret != PAPI_OK)
		return fail("PAPI_stop", ret);

	ins = (v2[0] - v1[0]) - (v1[0] - v0[0]);
	br = (v2[1] - v1[1]) - (v1[1] - v0[1]);
	exact = ins == 2 * (long long)(n2 - n1);
	printf("papi_loop: PAPI_TOT_INS %lld for %lu iterations, %lld for %lu: difference %lld (expected %lld)\n",
	       v1[0] - v0[0], n1, v2[0] - v1[0], n2, ins,
	       2 * (long long)(n2 - n1));
	if (nev == 2) {
		printf("papi_loop: PAPI_BR_INS difference %lld (expected %lld)\n",
		       br, (long long)(n2 - n1));
		exact = exact && br == (long long)(n2 - n1);
	}
	return exact ? 0 : 1;
}
