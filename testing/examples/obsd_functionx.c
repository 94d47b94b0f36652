// SPDX-License-Identifier: GPL-2.0
/*
 * OpenBSD pctr(4)'s hypothetical functionx() (openbsd-pctr.4.txt, "Time
 * stamp counter"), a million additions, and a main() that calls the
 * page's time_functionx(): what the page leaves to the user
 * (testing/examples/extract).
 */
#include "obsd_functionx.h"

static volatile unsigned long functionx_sum;

void functionx(void)
{
	unsigned long i;

	for (i = 0; i < 1000000; i++)
		functionx_sum += i;
}

int main(void)
{
	time_functionx();
	return 0;
}
