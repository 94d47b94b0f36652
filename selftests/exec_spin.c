// SPDX-License-Identifier: GPL-2.0
/*
 * security_test's set-id program (its root part installs a set-uid-root
 * copy): linked static, not position independent, its text at
 * EXEC_SPIN_BASE (the Makefile's -Ttext-segment), so that any address
 * of this program in a sample is recognised whatever the ASLR.  Spins
 * in user mode for argv[1] milliseconds (default 0) and exits 0.
 */
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double end = now_ms() + (argc > 1 ? atof(argv[1]) : 0);
	volatile unsigned long n = 0;

	while (now_ms() < end)
		n++;
	return 0;
}
