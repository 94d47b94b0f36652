// SPDX-License-Identifier: GPL-2.0
/*
 * cpc_bind_curlwp(3CPC)'s Example 2 ("Write a signal handler to catch
 * overflow signals", solaris-cpc_bind_curlwp.3cpc.txt) completed as its
 * text says, with only what the page leaves to the user; the page's own
 * lines are testing/examples/extract's cpc_example2_handler.c ("The
 * signal handler:") and cpc_example2_setup.c ("The setup code, which
 * can be positioned after the code that opens the CPC library and
 * creates a set"), included below.  The user's part:
 *
 *   - Example 1's includes and error() ("builds on Example 1");
 *   - the handler's ind1 and val1, which the page never declares: the
 *     request it presets again is the page's one request, index, and
 *     its preset is PRESET, set where the setup leaves code out ("...",
 *     which extract makes USER_ELIDED);
 *   - Example 1's code that opens the library and creates a set, with
 *     the event taken as Example 1 takes its first one (EVENT0);
 *   - the computation measured (USER_COMPUTATION, after the page's
 *     "Computation to be measured goes here");
 *   - main()'s end.
 *
 * gregs[PC] and gregs[SP] are Solaris's names; on x86-64 the build adds
 * -D_GNU_SOURCE -DPC=REG_RIP -DSP=REG_RSP (porting-from-solaris.rst),
 * and -fno-builtin-index for the page's global "index".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <libcpc.h>
#include <errno.h>

#include "cpc_error.h"

#define ind1 index
static uint64_t val1;
#define USER_ELIDED (val1 = PRESET)

static volatile double work_sum;

/*
 * 10000 additions, and on for 2 ms of the clock at least: on the sim,
 * whose counts are time, an overflow's interrupt (an hrtimer) can come
 * late in a starved guest, and each iteration must outlast that for the
 * handler's preset to arm a next overflow within the computation.
 */
static void work(void)
{
	struct timespec t0, t;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < 10000; i++)
			work_sum += i * 0.5;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L +
		 (t.tv_nsec - t0.tv_nsec) < 2000000L);
}

#define USER_COMPUTATION work()

#include "cpc_example2_handler.c"

int main(int argc, char *argv[])
{
	int iter;
	char *event;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		error("perf counters unavailable: %s", strerror(errno));
	if ((event = getenv("EVENT0")) == NULL)
		event = "EC_ref";
	if ((set = cpc_set_create(cpc)) == NULL)
		error("could not create set: %s", strerror(errno));

#include "cpc_example2_setup.c"

	return 0;
}
