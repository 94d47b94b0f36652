// SPDX-License-Identifier: GPL-2.0
/*
 * overflow: catch counter overflow signals with libcpc, as the second
 * example of Solaris' cpc_bind_curlwp(3CPC) does (our own code).
 *
 * A request for $EVENT0 (default: the generic PAPI_tot_cyc, on the
 * simulated PMU one count per TSC tick) is preset $PERIOD counts short of
 * overflowing (default 1000000; portable periods are 1 .. INT32_MAX) and
 * asks for CPC_OVF_NOTIFY_EMT.  A second request counts the same event
 * without notification, from 0.  At each overflow the counters freeze and
 * the thread gets SIGEMT (on Linux, where there is none, libcpc.h names
 * the signal it uses) with si_code EMT_CPCOVF; the handler prints where
 * the thread was, samples the set (the overflowed counter shows how far
 * past the wrap it got, the second one what was counted since the last
 * restart), presets the first request again and restarts the counters.
 *
 * The main loop does 20 iterations of the same work and unbinds the set
 * while the signals still come, as the man page's example does; the
 * program ends with a summary and exits 0 if it saw overflows and
 * nothing unexpected.
 * The handler formats its lines itself and write()s them, so that it
 * only calls async-signal-safe functions besides libcpc's.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include <libcpc.h>

#define NITER	20

static cpc_t *cpc;
static cpc_set_t *set;
static cpc_buf_t *buf;
static int ind0, ind1;
static const char *event0;
static uint64_t preset;
static volatile sig_atomic_t noverflows, nunexpected;

/* A line built in the handler, without stdio. */
struct line {
	char	s[256];
	size_t	n;
};

static void put_str(struct line *l, const char *s)
{
	while (*s && l->n < sizeof(l->s))
		l->s[l->n++] = *s++;
}

static void put_num(struct line *l, uint64_t v, unsigned int base)
{
	char d[24];
	int i = 0;

	if (base == 16)
		put_str(l, "0x");
	do {
		d[i++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (i > 0 && l->n < sizeof(l->s))
		l->s[l->n++] = d[--i];
}

static void put_line(struct line *l, int fd)
{
	const char *p = l->s;
	ssize_t w;

	if (l->n == sizeof(l->s))
		l->n--;
	l->s[l->n++] = '\n';
	while (l->n > 0) {
		w = write(fd, p, l->n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		l->n -= w;
	}
}

/* Report a libcpc failure in the handler and end the program. */
static void handler_fail(const char *what)
{
	const char *name = strerrorname_np(errno);
	struct line l = { .n = 0 };

	put_str(&l, "overflow: ");
	put_str(&l, what);
	put_str(&l, " in the handler: ");
	put_str(&l, name ? name : "?");
	put_line(&l, STDERR_FILENO);
	_exit(1);
}

#if defined(__x86_64__)
#define UC_PC(uc)	((uc)->uc_mcontext.gregs[REG_RIP])
#define UC_SP(uc)	((uc)->uc_mcontext.gregs[REG_RSP])
#elif defined(__i386__)
#define UC_PC(uc)	((uc)->uc_mcontext.gregs[REG_EIP])
#define UC_SP(uc)	((uc)->uc_mcontext.gregs[REG_ESP])
#elif defined(__aarch64__)
#define UC_PC(uc)	((uc)->uc_mcontext.pc)
#define UC_SP(uc)	((uc)->uc_mcontext.sp)
#else
#define UC_PC(uc)	0
#define UC_SP(uc)	0
#endif

static void emt_handler(int sig, siginfo_t *si, void *arg)
{
	ucontext_t *uc = arg;
	struct line l = { .n = 0 };
	int saved_errno = errno;
	uint64_t val0, val1;

	if (sig != SIGEMT || si->si_code != EMT_CPCOVF) {
		nunexpected++;
		put_str(&l, "overflow: unexpected signal ");
		put_num(&l, sig, 10);
		put_str(&l, " si_code ");
		put_num(&l, (unsigned int)si->si_code, 16);
		put_line(&l, STDOUT_FILENO);
		errno = saved_errno;
		return;
	}
	/*
	 * EINVAL: the set was unbound as the signal came (cpc_unbind()
	 * had begun); there is nothing to report or restart.
	 */
	if (cpc_set_sample(cpc, set, buf) != 0) {
		if (errno != EINVAL)
			handler_fail("cpc_set_sample");
		errno = saved_errno;
		return;
	}
	noverflows++;

	put_str(&l, "overflow ");
	put_num(&l, noverflows, 10);
	put_str(&l, ": lwp ");
	put_num(&l, gettid(), 10);
	put_str(&l, " si_addr ");
	put_num(&l, (uintptr_t)si->si_addr, 16);
	put_str(&l, " pc ");
	put_num(&l, (uintptr_t)UC_PC(uc), 16);
	put_str(&l, " sp ");
	put_num(&l, (uintptr_t)UC_SP(uc), 16);

	cpc_buf_get(cpc, buf, ind0, &val0);
	cpc_buf_get(cpc, buf, ind1, &val1);
	put_str(&l, " ");
	put_str(&l, event0);
	put_str(&l, " ");
	put_num(&l, val0, 16);
	put_str(&l, " counted ");
	put_num(&l, val1, 10);
	put_line(&l, STDOUT_FILENO);

	/*
	 * Arm the request again and restart: every request counts on from
	 * its preset (the second one from 0).
	 */
	if (cpc_request_preset(cpc, ind0, preset) != 0)
		handler_fail("cpc_request_preset");
	if (cpc_set_restart(cpc, set) != 0)
		handler_fail("cpc_set_restart");
	errno = saved_errno;
}

/* The computation: the same pseudo-random walk over an array each time. */
static double work(void)
{
	static unsigned int a[4096];
	unsigned int x = 2463534242u, i;
	double sum = 0;

	for (i = 0; i < 40960; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		a[x % 4096] += i;
		sum += a[i % 4096];
	}
	return sum;
}

int main(void)
{
	const char *period_s = getenv("PERIOD");
	volatile double sink = 0;
	struct sigaction act;
	uint64_t period;
	char *end;
	int iter;

	/* The settings from the environment, if given. */
	event0 = getenv("EVENT0");
	if (!event0 || !*event0)
		event0 = "PAPI_tot_cyc";
	if (!period_s || !*period_s)
		period_s = "1000000";
	errno = 0;
	period = strtoull(period_s, &end, 0);
	if (errno || *end || period == 0)
		errx(1, "PERIOD=%s: not a count above 0", period_s);
	preset = UINT64_MAX - (period - 1);	/* wraps after period counts */

	cpc = cpc_open(CPC_VER_CURRENT);
	if (!cpc)
		errx(1, "performance counters unavailable: %s", strerror(errno));
	if (!(cpc_caps(cpc) & CPC_CAP_OVERFLOW_INTERRUPT))
		errx(1, "%s cannot signal counter overflows", cpc_cciname(cpc));
	set = cpc_set_create(cpc);
	if (!set)
		errx(1, "cannot create a set: %s", strerror(errno));

	memset(&act, 0, sizeof(act));
	act.sa_sigaction = emt_handler;
	sigemptyset(&act.sa_mask);
	act.sa_flags = SA_RESTART | SA_SIGINFO;
	if (sigaction(SIGEMT, &act, NULL) < 0)
		errx(1, "sigaction: %s", strerror(errno));

	ind0 = cpc_set_add_request(cpc, set, event0, preset,
				   CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL);
	if (ind0 < 0)
		errx(1, "cannot count %s with overflow signals: %s", event0,
		     strerror(errno));
	ind1 = cpc_set_add_request(cpc, set, event0, 0, CPC_COUNT_USER, 0,
				   NULL);
	if (ind1 < 0)
		errx(1, "cannot count %s: %s", event0, strerror(errno));
	buf = cpc_buf_create(cpc, set);
	if (!buf)
		errx(1, "cannot create a buffer: %s", strerror(errno));

	printf("overflow: %s on %s, a signal every %" PRIu64 " counts\n",
	       event0, cpc_cciname(cpc), period);
	fflush(stdout);
	if (cpc_bind_curlwp(cpc, set, 0) < 0)
		errx(1, "cannot bind lwp %d: %s", gettid(), strerror(errno));

	for (iter = 1; iter <= NITER; iter++)
		sink += work();

	/*
	 * As the man page's example ends: signals may still come, and
	 * one that comes from here on finds the set unbound.
	 */
	cpc_unbind(cpc, set);

	printf("overflow: %d overflows of %s, one per %" PRIu64
	       " counts, in %d iterations\n", (int)noverflows, event0, period,
	       NITER);
	if (nunexpected)
		errx(1, "%d unexpected signals", (int)nunexpected);
	if (!noverflows)
		errx(1, "no overflow signal");

	cpc_buf_destroy(cpc, buf);
	cpc_set_destroy(cpc, set);
	cpc_close(cpc);
	return 0;
}
