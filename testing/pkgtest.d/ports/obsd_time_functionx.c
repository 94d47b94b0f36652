/*
 * OpenBSD pctr(4)'s time_functionx, as the page prints it, with the
 * includes the page says every pctr program needs and what the page
 * leaves to the user (marked "user:"): <stdio.h> for printf, the
 * hypothetical functionx(), and a main() that calls time_functionx().
 * testing/pkgtest builds it against the installed OpenBSD overlay,
 * pkg-config pctr-openbsd, with -Werror.
 */
#include <sys/types.h>
#include <machine/cpu.h>
#include <machine/pctr.h>

#include <stdio.h>	/* user: printf */

/* user: the subroutine to time, some arithmetic */
static volatile unsigned long functionx_sum;

static void
functionx(void)
{
	unsigned long i;

	for (i = 0; i < 1000000; i++)
		functionx_sum += i;
}

void
time_functionx(void)
{
	pctrval tsc;

	tsc = rdtsc();
	functionx();
	tsc = rdtsc() - tsc;
	printf ("Functionx took %qd cycles.\n", tsc);
}

/* user: run it */
int
main(void)
{
	time_functionx();
	return (0);
}
