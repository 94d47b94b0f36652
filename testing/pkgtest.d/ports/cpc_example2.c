/*
 * cpc_bind_curlwp(3CPC), Example 2 ("Write a signal handler to catch
 * overflow signals"), completed as its text says: the page's handler
 * and its globals, then its setup code "positioned after the code that
 * opens the CPC library and creates a set" (Example 1's), with the
 * page's lines as printed and what it leaves to the user marked
 * "user:": Example 1's includes and error(), the missing "if" before
 * cpc_request_preset(), the handler's ind1 and val1 (the request to
 * preset again and its preset: the page's request and PRESET), the
 * event (as Example 1 takes it, from EVENT0) and the computation.
 *
 * Not unchanged on Linux: gregs[PC] and gregs[SP] are Solaris's names
 * for the saved registers; testing/pkgtest builds it on x86-64 with
 * -D_GNU_SOURCE -DPC=REG_RIP -DSP=REG_RSP, the smallest change
 * (Documentation/porting-from-solaris.rst), against the installed
 * libcpc (pkg-config libcpc), -Wall -Werror and -fno-builtin-index:
 * GCC knows index() as a built-in and warns at a variable of that name
 * even where no header declares the function (<libcpc.h> does not).
 */
/* user: Example 1's includes */
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <libcpc.h>
#include <errno.h>

/* user: Example 1's error(), printf(3C) then exit(2) */
#include <stdarg.h>

static void
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) vfprintf(stderr, fmt, ap);
	va_end(ap);
	(void) fputc('\n', stderr);
	exit(1);
}

/* user: the request the handler presets again, and its preset */
int ind1;
uint64_t val1;

cpc_t *cpc;
cpc_set_t *set;
cpc_buf_t *buf;
int index;

void
emt_handler(int sig, siginfo_t *sip, void *arg)
{
	ucontext_t *uap = arg;
	uint64_t val;

	if (sig != SIGEMT || sip->si_code != EMT_CPCOVF) {
		psignal(sig, "example");
		psiginfo(sip, "example");
		return;
	}

	(void) printf("lwp%d - si_addr %p ucontext: %%pc %p %%sp %p\n",
	    _lwp_self(), (void *)sip->si_addr,
	    (void *)uap->uc_mcontext.gregs[PC],
	    (void *)uap->uc_mcontext.gregs[SP]);

	if (cpc_set_sample(cpc, set, buf) != 0)
		error("cannot sample: %s", strerror(errno));

	cpc_buf_get(cpc, buf, index, &val);

	(void) printf("0x%" PRIx64"\n", val);
	(void) fflush(stdout);

	/*
	 * Update a request's preset and restart the counters. Counters which
	 * have not been preset with cpc_request_preset() will resume counting
	 * from their current value.
	 */
	if /* user */ (cpc_request_preset(cpc, ind1, val1) != 0)
		error("cannot set preset for request %d: %s", ind1,
		    strerror(errno));
	if (cpc_set_restart(cpc, set) != 0)
		error("cannot restart lwp%d: %s", _lwp_self(), strerror(errno));
}

/* user: the computation, a little arithmetic */
static volatile double work_sum;

static void
work(void)
{
	int i;

	for (i = 0; i < 100000; i++)
		work_sum += i * 0.5;
}

int
main(int argc, char *argv[])
{
	int iter;
	char *event;	/* user: as Example 1 takes its first event */

	/* user: Example 1's code that opens the library and creates a set */
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		error("perf counters unavailable: %s", strerror(errno));

	if ((event = getenv("EVENT0")) == NULL)
		event = "EC_ref";

	if ((set = cpc_set_create(cpc)) == NULL)
		error("could not create set: %s", strerror(errno));

	/* The page's setup code. */
#define PRESET (UINT64_MAX - 999ull)

	struct sigaction act;

	act.sa_sigaction = emt_handler;
	bzero(&act.sa_mask, sizeof (act.sa_mask));
	act.sa_flags = SA_RESTART|SA_SIGINFO;
	if (sigaction(SIGEMT, &act, NULL) == -1)
		error("sigaction: %s", strerror(errno));

	if ((index = cpc_set_add_request(cpc, set, event, PRESET,
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL)) != 0)
		error("cannot add request to set: %s", strerror(errno));
	ind1 = index;		/* user */
	val1 = PRESET;		/* user */

	if ((buf = cpc_buf_create(cpc, set)) == NULL)
		error("cannot create buffer: %s", strerror(errno));

	if (cpc_bind_curlwp(cpc, set, 0) == -1)
		error("cannot bind lwp%d: %s", _lwp_self(), strerror(errno));

	for (iter = 1; iter <= 20; iter++) {
		/* ==> Computation to be measured goes here <== */
		work();		/* user */
	}

	cpc_unbind(cpc, set);		/* done */

	return (0);	/* user */
}
