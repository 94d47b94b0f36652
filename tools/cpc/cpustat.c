// SPDX-License-Identifier: GPL-2.0
/*
 * cpustat: count each CPU, as Solaris's cpustat(1M) does, on libcpc's
 * CPU bindings (cpc_bind_cpu: pctr's PCTR_BIND_CPU).
 *
 *   cpustat -c spec [-c spec]... [-p period] [-T u|d] [-sntD]
 *           [interval [count]]
 *
 * A thread per CPU binds the first set to its CPU (and is pinned there),
 * and every interval prints a "tick" line with the CPU's counts since
 * the last one; with several sets, the set that ran, and the next one is
 * bound.  At the end a "total" line per set sums every CPU, its cpu
 * column the number of CPUs.  Binding a CPU needs CAP_PERFMON (or
 * CAP_SYS_ADMIN); while cpustat runs, the threads pctr counts on those
 * CPUs lose their counters there, as on Solaris.
 *
 * Exit status: 0; 1 if counting failed or is not permitted; 2 for a
 * usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>

#include "cpctool.h"

static struct {
	int		dotitle, dotick, dosoaker;
	unsigned int	msec, nsamples, nsets, rest_msec;
	char		tsfmt;		/* 0, 'u' or 'd' */
} o;

static cpc_t *cpc;
static struct cpcspec *specs;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t stop;

struct cpustate {
	int		cpu;
	pthread_t	th;
	cpc_set_t	**set;
	cpc_buf_t	**acc;		/* totals per set */
	cpc_buf_t	**prev, **scr;
	int		err;		/* errno of a failure, or 0 */
	const char	*where;
};

static struct cpustate *cpus;
static int ncpus;

/* All bound (or failed) before the first interval starts. */
static pthread_barrier_t bound;
static int bind_failed;

static void print_title(void)
{
	printf("%7s %3s %5s ", "time", "cpu", "event");
	if (o.dotick)
		printf("%9s ", "tsc");
	printf("%s\n", specs[0].hdr);
	fflush(stdout);
}

static void print_timestamp(void)
{
	char buf[64];
	time_t t = time(NULL);

	if (o.tsfmt == 'u') {
		printf("%lld\n", (long long)t);
	} else if (o.tsfmt == 'd') {
		strftime(buf, sizeof(buf), "%c", localtime(&t));
		printf("%s\n", buf);
	}
}

static void print_line(int cpu, const char *event, cpc_buf_t *buf,
		       unsigned int set)
{
	pthread_mutex_lock(&out_lock);
	if (o.tsfmt)
		print_timestamp();
	printf("%7.3f %3d %5s ", spec_seconds(cpc_buf_hrtime(cpc, buf)), cpu,
	       event);
	if (o.dotick)
		printf("%9llu ", (unsigned long long)cpc_buf_tick(cpc, buf));
	spec_print_vals(stdout, cpc, buf, &specs[set], o.nsets);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

static void add_ms(struct timespec *t, unsigned int ms)
{
	t->tv_sec += ms / 1000;
	t->tv_nsec += (long)(ms % 1000) * 1000000;
	if (t->tv_nsec >= 1000000000) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000;
	}
}

static void *cpu_thread(void *arg)
{
	struct cpustate *cs = arg;
	unsigned int cur = 0, n;
	struct timespec next;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	/* No first sample: the first tick counts from the bind. */
	if (cpc_bind_cpu(cpc, cs->cpu, cs->set[0], 0)) {
		cs->err = errno;
		cs->where = "bind";
		bind_failed = 1;
	}
	pthread_barrier_wait(&bound);
	if (bind_failed) {
		if (!cs->err)
			cpc_unbind(cpc, cs->set[0]);
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (n = 0; n < o.nsamples && !stop; n++) {
		add_ms(&next, o.msec);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		if (o.nsets == 1) {
			if (cpc_set_sample(cpc, cs->set[0], cs->scr[0]))
				goto broken;
			cpc_buf_sub(cpc, cs->acc[0], cs->scr[0], cs->prev[0]);
			print_line(cs->cpu, "tick", cs->acc[0], 0);
			cpc_buf_copy(cpc, cs->prev[0], cs->scr[0]);
			/* The total at the end is the last sample. */
			cpc_buf_copy(cpc, cs->acc[0], cs->scr[0]);
			continue;
		}
		if (cpc_set_sample(cpc, cs->set[cur], cs->scr[cur]))
			goto broken;
		cpc_buf_add(cpc, cs->acc[cur], cs->acc[cur], cs->scr[cur]);
		cpc_unbind(cpc, cs->set[cur]);
		print_line(cs->cpu, "tick", cs->scr[cur], cur);
		cur = (cur + 1) % o.nsets;
		if (cur == 0 && o.rest_msec) {
			add_ms(&next, o.rest_msec);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					       &next, NULL) == EINTR)
				;
		}
		if (cpc_bind_cpu(cpc, cs->cpu, cs->set[cur], 0))
			goto broken;
	}
	cpc_unbind(cpc, cs->set[cur]);
	return NULL;
broken:
	cs->err = errno;
	cs->where = "sample";
	return NULL;
}

static void on_signal(int sig)
{
	stop = 1;
}

/* The CPUs this process may run on, in @list (malloc'd); how many. */
static int online_cpus(int **list)
{
	cpu_set_t *m;
	size_t size;
	int n = 0, i, max = 8192;

	m = CPU_ALLOC(max);
	size = CPU_ALLOC_SIZE(max);
	if (!m || sched_getaffinity(0, size, m))
		return -1;
	*list = calloc(CPU_COUNT_S(size, m) + 1, sizeof(**list));
	if (!*list)
		cpctool_oom();
	for (i = 0; i < max; i++)
		if (CPU_ISSET_S(i, size, m))
			(*list)[n++] = i;
	CPU_FREE(m);
	return n;
}

static int print_help(FILE *f, int status)
{
	fprintf(f,
		"Usage:\n\t%s -c events [-c events]... [-p period] [-nstD] [-T d|u] [interval [count]]\n\n"
		"\t-c events specify processor events to be monitored\n"
		"\t-n\t  suppress titles\n"
		"\t-p period cycle through event list periodically\n"
		"\t-s\t  run user soaker thread for system-only events (accepted; not needed on Linux)\n"
		"\t-t\t  include tsc register\n"
		"\t-T d|u\t  Display a timestamp in date (d) or unix time_t (u)\n"
		"\t-D\t  enable debug mode\n"
		"\t-h\t  print extended usage information\n\n"
		"\tUse cputrack(1) to monitor per-process statistics.\n",
		spec_prog);
	return status;
}

static char **texts;
static unsigned int ntexts;

static int parse_args(int argc, char **argv, double *period, int *doperiod)
{
	int c, errs = 0, help = 0;
	char *end;
	double secs;
	long n;

	opterr = 0;
	while ((c = getopt(argc, argv, "Dc:hntT:sp:")) != -1) {
		switch (c) {
		case 'D':
			break;
		case 'c':
			cpctool_add_spec(&texts, &ntexts, optarg);
			break;
		case 'n':
			o.dotitle = 0;
			break;
		case 'p':
			*doperiod = 1;
			*period = strtod(optarg, &end);
			if (end == optarg || *end || *period < 0) {
				fprintf(stderr, "%s: invalid parameter \"%s\"\n",
					spec_prog, optarg);
				errs++;
			}
			break;
		case 's':
			o.dosoaker = 1;
			break;
		case 't':
			o.dotick = 1;
			break;
		case 'T':
			if (!strcmp(optarg, "u") || !strcmp(optarg, "d")) {
				o.tsfmt = optarg[0];
			} else {
				fprintf(stderr, "%s: -T takes u or d\n",
					spec_prog);
				errs++;
			}
			break;
		case 'h':
			help = 1;
			break;
		default:
			cpctool_bad_option(argv[optind - 1]);
			errs++;
			break;
		}
	}
	if (help) {
		print_help(stdout, 0);
		cpc = cpctool_open("performance counters", 1);
		if (cpc) {
			putchar('\n');
			cpctool_capabilities(cpc, stdout);
		}
		exit(0);
	}
	switch (argc - optind) {
	case 2:
		n = strtol(argv[optind + 1], &end, 10);
		if (end == argv[optind + 1] || *end || n <= 0 || n > INT_MAX) {
			fprintf(stderr, "%s: invalid argument \"%s\"\n",
				spec_prog, argv[optind + 1]);
			errs++;
		}
		o.nsamples = (unsigned int)n;
		/* fall through */
	case 1:
		secs = strtod(argv[optind], &end);
		if (end == argv[optind] || *end || secs * 1000.0 < 1 ||
		    secs * 1000.0 > UINT_MAX) {
			fprintf(stderr, "%s: invalid argument \"%s\"\n",
				spec_prog, argv[optind]);
			errs++;
		} else {
			o.msec = (unsigned int)(secs * 1000.0);
		}
		break;
	case 0:
		break;
	default:
		fprintf(stderr, "%s: too many arguments\n", spec_prog);
		errs++;
	}
	if (!errs && !ntexts) {
		fprintf(stderr, "%s: no events: give them with -c\n",
			spec_prog);
		errs++;
	}
	return errs;
}

int main(int argc, char **argv)
{
	int *list, i, ret = 0, denied = 0, doperiod = 0;
	unsigned int s;
	double period = 0;

	cpctool_init(argv[0]);
	o.msec = 5000;
	o.nsamples = UINT_MAX;
	o.dotitle = 1;
	if (parse_args(argc, argv, &period, &doperiod))
		return print_help(stderr, 2);
	/* The device only now: usage errors and -h need none. */
	cpc = cpctool_open("performance counters", 0);
	if (!cpc)
		return 1;
	if (cpctool_parse(cpc, texts, ntexts, &specs, &o.nsets))
		return print_help(stderr, 2);
	if (doperiod) {
		double rest = period * 1000.0 - (double)o.msec * o.nsets;

		o.rest_msec = rest > 0 ? (unsigned int)rest : 0;
		if (o.nsamples != UINT_MAX)
			o.nsamples *= o.nsets;
	}

	ncpus = online_cpus(&list);
	if (ncpus <= 0) {
		fprintf(stderr, "%s: cannot find the CPUs: %s\n", spec_prog,
			strerror(errno));
		return 1;
	}
	cpus = calloc(ncpus, sizeof(*cpus));
	if (!cpus)
		cpctool_oom();
	for (i = 0; i < ncpus; i++) {
		struct cpustate *cs = &cpus[i];

		cs->cpu = list[i];
		if (cpctool_sets(cpc, specs, o.nsets, &cs->set, &cs->acc,
				 &cs->prev, &cs->scr))
			return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (o.dotitle)
		print_title();
	spec_zerotime();
	pthread_barrier_init(&bound, NULL, ncpus);
	for (i = 0; i < ncpus; i++)
		if (pthread_create(&cpus[i].th, NULL, cpu_thread, &cpus[i])) {
			fprintf(stderr, "%s: cannot start a thread for cpu%d\n",
				spec_prog, cpus[i].cpu);
			exit(1);
		}
	for (i = 0; i < ncpus; i++)
		pthread_join(cpus[i].th, NULL);

	for (i = 0; i < ncpus; i++) {
		if (!cpus[i].err)
			continue;
		ret = 1;
		if (cpus[i].err == EACCES || cpus[i].err == EPERM) {
			denied = 1;
			continue;
		}
		fprintf(stderr, "%s: cpu%d - %s\n", spec_prog, cpus[i].cpu,
			strerror(cpus[i].err));
	}
	if (denied) {
		fprintf(stderr,
			"%s: counting a CPU needs CAP_PERFMON (or CAP_SYS_ADMIN): run it as root (sudo %s ...), or give it the capability: sudo setcap cap_perfmon+ep %s\n",
			spec_prog, spec_prog, argv[0]);
		return 1;
	}
	if (bind_failed)
		return 1;
	/* The totals: every CPU's, per set, at the latest sample. */
	for (s = 0; s < o.nsets; s++) {
		cpc_buf_t *tot = cpc_buf_create(cpc, cpus[0].set[s]);

		if (!tot)
			cpctool_oom();
		for (i = 0; i < ncpus; i++)
			cpc_buf_add(cpc, tot, tot, cpus[i].acc[s]);
		if (!cpc_buf_hrtime(cpc, tot))
			continue;
		printf("%7.3f %3d %5s ", spec_seconds(cpc_buf_hrtime(cpc, tot)),
		       ncpus, "total");
		if (o.dotick)
			printf("%9llu ",
			       (unsigned long long)cpc_buf_tick(cpc, tot));
		spec_print_vals(stdout, cpc, tot, &specs[s], o.nsets);
	}
	fflush(stdout);
	cpc_close(cpc);
	return ret;
}
