// SPDX-License-Identifier: GPL-2.0
/*
 * pctr selfcheck: does the backend count what it should?
 *
 * Every check runs a user-mode loop whose instruction and branch counts
 * are known exactly, at two lengths, several times, and compares the
 * difference of what the counters saw with the difference the loop
 * makes: whatever reading the counters costs is the same at both lengths
 * and cancels.  Each check takes the median of several repetitions; a
 * pair of loops during which the thread was switched out is run again.
 *
 *   intel, amd  instructions and branches retired against the loop's
 *               own counts, core cycles against the TSC (plausible
 *               ratio), Intel reference cycles against the TSC, a
 *               sleeping thread that must count nothing, and perf's
 *               counts of the same loop when perf is in PATH
 *   sim         the simulated PMU counts TSC ticks: it checks pctr's
 *               plumbing (programming, context switches, 64-bit sums,
 *               fixed and general slots), not a CPU
 *   none        nothing to check: every check is skipped, with the reason
 *
 * This file: the command line, the setup, the calibrated loop, the
 * verdicts; the measurements are selfcheck_measure.c's, perf's counts
 * selfcheck_perf.c's, each backend's checks selfcheck_backends.c's.
 *
 * Documentation/selfcheck.rst says what each check means and how to read
 * a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "selfcheck.h"
#include "selfcheck_internal.h"

/* --- the calibrated loop ----------------------------------------------- */

/*
 * n iterations of "dec; jnz": 2n instructions and n branches (n - 1 of
 * them taken) retired, all in user mode, whoever calls it: it is never
 * inlined, so every caller runs these very instructions.  n must not be
 * 0.  Elsewhere than x86 a plain loop keeps the CPU busy, with no
 * promise about its counts.
 */
__noinline void sc_loop(unsigned long n)
{
#if SC_HAVE_LOOP
	__asm__ __volatile__("1:\n\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#else
	/* The empty asm keeps the compiler from dropping the loop. */
	for (; n; n--)
		__asm__ __volatile__("" : "+r"(n));
#endif
}

uint64_t sc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Whether libpctr's rdtsc() reads a time-stamp counter here. */
bool sc_have_rdtsc(void)
{
	return SC_HAVE_LOOP;
}

/* How long a loop of @n takes, in ns, and in TSC ticks in @ticks. */
static uint64_t sc_time_loop(unsigned long n, uint64_t *ticks)
{
	uint64_t t0, c0, c1, t1;

	t0 = sc_now_ns();
	c0 = rdtsc();
	sc_loop(n);
	c1 = rdtsc();
	t1 = sc_now_ns();
	*ticks = c1 - c0;
	return t1 - t0;
}

/*
 * The short loop's length: about SC_TARGET_NS on this CPU, from the
 * fastest of three timings (a preempted one is slow).  Also measures
 * the TSC rate, for when the kernel does not know it.
 */
static unsigned long sc_size_loop(struct sc *sc)
{
	unsigned long n = 100000;
	uint64_t ns, best, ticks, best_ticks;
	unsigned int i;

	while (sc_time_loop(n, &ticks) < SC_TARGET_NS / 10 && n < SC_MAX_LOOP)
		n *= 4;
	best = sc_time_loop(n, &best_ticks);
	for (i = 0; i < 2; i++) {
		ns = sc_time_loop(n, &ticks);
		if (ns < best) {
			best = ns;
			best_ticks = ticks;
		}
	}
	if (!sc->tsc_mhz && sc_have_rdtsc() && best)
		sc->tsc_mhz = (double)best_ticks * 1e3 / best;
	if (sc->verbose)
		printf("  sizing: %lu iterations took %.2f ms\n", n, best / 1e6);
	if (best)
		n = (unsigned long)((double)n * SC_TARGET_NS / best);
	if (n < SC_MIN_LOOP)
		n = SC_MIN_LOOP;
	if (n > SC_MAX_LOOP)
		n = SC_MAX_LOOP;
	return n / 1000 * 1000;
}

/* --- results ------------------------------------------------------------ */

static void sc_line(const char *verdict, const char *name, const char *fmt,
		    va_list ap)
{
	printf("%s %s: ", verdict, name);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

void __printf(4, 5)
sc_result(struct sc *sc, bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sc_line(ok ? "PASS" : "FAIL", name, fmt, ap);
	va_end(ap);
	if (ok)
		sc->passed++;
	else
		sc->failed++;
}

void __printf(3, 4)
sc_skip(struct sc *sc, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sc_line("SKIP", name, fmt, ap);
	va_end(ap);
	sc->skipped++;
}

double sc_abs(double x)
{
	return x < 0 ? -x : x;
}

/* (got - want) / want, and a large error when want is 0 and got is not. */
double sc_rel(double got, double want)
{
	if (want == 0)
		return got == 0 ? 0 : 1e9;
	return (got - want) / want;
}

/* A count against the one it must be, within a relative tolerance. */
void sc_check_count(struct sc *sc, const char *name, int64_t got,
			   int64_t want, double tol)
{
	double off = sc_rel(got, want);

	sc_result(sc, sc_abs(off) <= tol, name,
		  "%lld vs %lld (tolerance %g%%, off by %+.4f%%)",
		  (long long)got, (long long)want, tol * 100, off * 100);
}

/* --- the device ---------------------------------------------------------- */

int sc_set(struct sc *sc, unsigned int slot, uint64_t fn)
{
	if (pctr_set(sc->p, slot, fn) < 0)
		return -1;
	if (fn)
		sc->programmed |= 1U << slot;
	else
		sc->programmed &= ~(1U << slot);
	return 0;
}

/* Free every slot this thread has set. */
static void sc_free_all(struct sc *sc)
{
	unsigned int slot;

	for (slot = 0; slot < PCTR_NUM; slot++) {
		if (!(sc->programmed & (1U << slot)))
			continue;
		if (sc_set(sc, slot, 0) < 0)
			fprintf(stderr, "selfcheck: freeing slot %u: %s\n", slot,
				strerror(errno));
	}
}

/* The backend's event called @name, if it lists one. */
const struct pctr_event *sc_find_event(struct sc *sc, const char *name)
{
	unsigned int failed;

	/* Once; a refusal of PCIOCEVENT ends the list. */
	if (!sc->events.ev)
		event_table_load(&sc->events, sc->p->fd, sc->p->info.pi_nevents,
				 &failed);
	return event_find(&sc->events, name);
}

uint64_t sc_general_slots(const struct sc *sc)
{
	unsigned int n = sc->p->info.pi_ngeneral;

	if (n > PCTR_MAX_GENERAL)
		n = PCTR_MAX_GENERAL;
	return (1ULL << n) - 1;
}

const char *sc_slot_name(unsigned int slot, char *buf, size_t len)
{
	if (slot < PCTR_FIXED_BASE)
		snprintf(buf, len, "pmc%u", slot);
	else
		snprintf(buf, len, "fixed%u", slot - PCTR_FIXED_BASE);
	return buf;
}

/* What to do about @err, said once per run; NULL: nothing to add. */
const char *sc_errhint(struct sc *sc, int err)
{
	const char *hint;

	switch (err) {
	case EBUSY:
		hint = "the counters are in use by perf or the NMI watchdog; "
		       "free them (sysctl kernel.nmi_watchdog=0, end perf sessions) and run again";
		break;
	case EPERM:
	case EACCES:
		hint = "not permitted";
		break;
	default:
		return NULL;
	}
	if (sc->hinted)
		return NULL;
	sc->hinted = true;
	return hint;
}

/* Setting a counter up failed for a reason that is not the backend's. */
bool sc_err_is_environment(int err)
{
	return err == EBUSY || err == EPERM || err == EACCES;
}


/* --- setup ------------------------------------------------------------------ */

/* Stay on the CPU we are on; threads created later inherit it. */
static void sc_pin(struct sc *sc)
{
	cpu_set_t set;
	int cpu;

	sc->cpu = -1;
	sc->have_saved = !sched_getaffinity(0, sizeof(sc->saved), &sc->saved);
	cpu = sched_getcpu();
	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		printf("warning: cannot pin to cpu %d: %s\n", cpu,
		       strerror(errno));
		return;
	}
	sc->cpu = cpu;
}

static void sc_unpin(struct sc *sc)
{
	if (sc->cpu >= 0 && sc->have_saved)
		sched_setaffinity(0, sizeof(sc->saved), &sc->saved);
}

static void sc_header(struct sc *sc, const char *reason)
{
	const struct pctr_info *in = &sc->p->info;

	printf("pctr selfcheck\n");
	printf("backend   %s", in->pi_backend);
	if (in->pi_backend_id == PCTR_BACKEND_SIM)
		printf(" (simulated PMU)");
	if (reason)
		printf(" (no counters: %s)", reason);
	printf("\ncpu       %s family %u model %u\n",
	       in->pi_vendor[0] ? in->pi_vendor : "unknown",
	       in->pi_cpu_family, in->pi_cpu_model);
	if (in->pi_version)
		printf("perfmon   version %u\n", in->pi_version);
	printf("counters  %u general (%u bits), %u fixed (%u bits)\n",
	       in->pi_ngeneral, in->pi_width, in->pi_nfixed,
	       in->pi_fixed_width);
	if (in->pi_abi_version != PCTR_ABI_VERSION)
		printf("warning   the module speaks ABI %u, this tool %u\n",
		       in->pi_abi_version, PCTR_ABI_VERSION);
	if (in->pi_backend_id == PCTR_BACKEND_SIM)
		printf("note      the sim backend counts TSC ticks: these checks validate pctr's\n"
		       "          plumbing (programming, context switches, 64-bit sums, fixed\n"
		       "          and general slots), not a CPU\n");
	fflush(stdout);
}

static void sc_print_setup(struct sc *sc)
{
	if (sc->tsc_mhz)
		printf("tsc       %.1f MHz (%s)\n", sc->tsc_mhz,
		       sc->p->info.pi_tsc_khz ? "kernel" : "measured");
	if (sc->cpu >= 0)
		printf("pinned    cpu %d\n", sc->cpu);
	else
		printf("pinned    no (counts may move between CPUs)\n");
	printf("loops     %lu and %lu iterations, %u repetitions, medians\n",
	       sc->n1, sc->n2, SC_REPS);
	fflush(stdout);
}

/* A loop length: 1 to @max. */
static bool sc_parse_loop(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 0);
	return !errno && !*end && *v >= 1 && *v <= max;
}

/* Usage on stderr, exit status 2; with --help on stdout, status 0. */
static int sc_usage_to(FILE *f, int status)
{
	fprintf(f,
		"usage: pctr selfcheck [--loops N] [--no-perf] [-v]\n"
		"  --loops N   base loop length in iterations (default: ~10 ms)\n"
		"  --no-perf   do not compare with perf\n"
		"  -v          print every repetition\n");
	return status;
}

static int sc_usage(void)
{
	return sc_usage_to(stderr, 2);
}

/* Open the device for programming; read-only if that is all we may. */
static int sc_open(struct sc *sc)
{
	int err;

	sc->p = pctr_open(O_RDWR);
	if (sc->p)
		return 0;
	err = errno;
	if (err == EACCES || err == EPERM) {
		sc->p = pctr_open(O_RDONLY);
		if (sc->p) {
			sc->readonly = true;
			return 0;
		}
		err = errno;
	}
	/* pctr_strerror() says what to do: load the module, join a group. */
	fprintf(stderr, "selfcheck: cannot open %s: %s\n", PCTR_DEVICE,
		pctr_strerror(err));
	return -1;
}

static void sc_run(struct sc *sc)
{
	const struct pctr_info *in = &sc->p->info;
	struct sc_perf perf;
	char reason[160], why[200];

	if (in->pi_backend_id == PCTR_BACKEND_NONE ||
	    !(in->pi_caps & PCTR_CAP_COUNTERS)) {
		pctr_backend_reason(reason, sizeof(reason));
		if (!reason[0])
			snprintf(reason, sizeof(reason), "no PMU found");
		sc_header(sc, reason);
		snprintf(why, sizeof(why), "no counters: %s", reason);
		sc_skip_all(sc, why);
		return;
	}
	sc_header(sc, NULL);
	if (sc->readonly) {
		sc_skip_all(sc, "no write access to " PCTR_DEVICE);
		return;
	}
	if (in->pi_backend_id != PCTR_BACKEND_INTEL &&
	    in->pi_backend_id != PCTR_BACKEND_AMD &&
	    in->pi_backend_id != PCTR_BACKEND_SIM) {
		snprintf(why, sizeof(why), "no checks for the %s backend yet",
			 in->pi_backend);
		sc_skip_all(sc, why);
		return;
	}
	if (in->pi_backend_id != PCTR_BACKEND_SIM && !SC_HAVE_LOOP) {
		sc_skip_all(sc, "no calibrated loop for this architecture");
		return;
	}

	sc_pin(sc);
	sc->tsc_mhz = in->pi_tsc_khz / 1e3;
	if (!sc->n1)
		sc->n1 = sc_size_loop(sc);
	sc->n2 = 2 * sc->n1;
	sc_print_setup(sc);

	if (in->pi_backend_id == PCTR_BACKEND_SIM) {
		sc_check_sim(sc);
	} else {
		/* perf first: it cannot count while pctr holds counters. */
		sc_perf_measure(sc, &perf);
		sc_check_hw(sc, &perf);
	}
	sc_free_all(sc);
	sc_unpin(sc);
}

int pctr_selfcheck(int argc, char **argv)
{
	struct sc sc = { .use_perf = true, .cpu = -1 };
	unsigned long loop = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--loops") && i + 1 < argc) {
			if (!sc_parse_loop(argv[++i], SC_MAX_LOOP, &sc.n1))
				return sc_usage();
		} else if (!strncmp(argv[i], "--loops=", 8)) {
			if (!sc_parse_loop(argv[i] + 8, SC_MAX_LOOP, &sc.n1))
				return sc_usage();
		} else if (!strcmp(argv[i], "--loop") && i + 1 < argc) {
			/* Hidden: the loop alone, for perf to count. */
			if (!sc_parse_loop(argv[++i], 2 * SC_MAX_LOOP, &loop))
				return sc_usage();
		} else if (!strcmp(argv[i], "--no-perf")) {
			sc.use_perf = false;
		} else if (!strcmp(argv[i], "-v") ||
			   !strcmp(argv[i], "--verbose")) {
			sc.verbose = true;
		} else if (!strcmp(argv[i], "-h") ||
			   !strcmp(argv[i], "--help")) {
			return sc_usage_to(stdout, 0);
		} else {
			return sc_usage();
		}
	}
	if (loop) {
		sc_loop(loop);
		return 0;
	}

	if (sc_open(&sc) < 0)
		return 1;
	sc_run(&sc);
	event_table_free(&sc.events);
	pctr_close(sc.p);
	printf("selfcheck: %u passed, %u failed, %u skipped\n", sc.passed,
	       sc.failed, sc.skipped);
	return sc.failed ? 1 : 0;
}

