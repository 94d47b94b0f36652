// SPDX-License-Identifier: GPL-2.0
/*
 * testing/vm/tsc-khz: the host's TSC rate in kHz, against
 * CLOCK_MONOTONIC_RAW over 0.3 s.  A TCG guest's TSC is the host's (not
 * under -icount), and testing/vm/run gives the guest kernel this rate
 * (tsc_early_khz): its own calibration, against the emulated PIT while
 * the host is loaded, once came out 5.9 times too low, and every time
 * in that guest ran 5.9 times too fast.
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double ns_of(const struct timespec *t)
{
	return t->tv_sec * 1e9 + t->tv_nsec;
}

/* A TSC reading and the clock's at the same moment: the tightest of 20. */
static void pair(unsigned long long *tsc, double *ns)
{
	unsigned long long a, b, best = ~0ULL;
	struct timespec t;
	int i;

	for (i = 0; i < 20; i++) {
		a = __rdtsc();
		clock_gettime(CLOCK_MONOTONIC_RAW, &t);
		b = __rdtsc();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = ns_of(&t);
		}
	}
}

int main(void)
{
	unsigned long long t0, t1;
	double n0, n1;
	struct timespec d = { 0, 300000000 };

	pair(&t0, &n0);
	nanosleep(&d, NULL);
	pair(&t1, &n1);
	printf("%.0f\n", (t1 - t0) / (n1 - n0) * 1e6);
	return 0;
}
