/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What selftests/sparc's programs share: TAP output, one "ok N - what"
 * or "not ok N - what" a check, the plan at the end, and their exit
 * status (0 only if every check passed).
 */
#ifndef PCTR_SPARC_TAP_H
#define PCTR_SPARC_TAP_H

#include <stdio.h>
#include <unistd.h>

static int failed, n_test;

static void check(int ok, const char *what)
{
	n_test++;
	printf("%s %d - %s\n", ok ? "ok" : "not ok", n_test, what);
	if (!ok)
		failed++;
}

/*
 * fork(), stdout flushed first: else the child's copy of the buffered
 * TAP lines would be printed again when it exits.
 */
static inline pid_t tap_fork(void)
{
	fflush(stdout);
	return fork();
}

/* The plan, "1..N" for the N checks made; the exit status. */
static int tap_done(void)
{
	printf("1..%d\n", n_test);
	return failed ? 1 : 0;
}

#endif /* PCTR_SPARC_TAP_H */
