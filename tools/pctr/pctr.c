// SPDX-License-Identifier: GPL-2.0
/*
 * pctr(1): show what /dev/pctr offers and read the counters.
 *
 *   pctr [info]     the backend, the CPU, the counters, and a short
 *                   sampled readout of the TSC and idle time
 *   pctr read       one PCIOCRD snapshot, every slot in use
 *   pctr selfcheck  calibrated loops checked against expected counts:
 *                   confirms a backend on real hardware
 *   pctr stat       run a command and count it (tools/pctr/stat.c)
 *   pctr load, unload, status
 *                   the module's administration (tools/pctr/admin.c)
 *   pctr record     sample a command, running processes or every CPU
 *                   (tools/pctr/record.c)
 *   pctr report     the profile pctr record wrote (tools/pctr/report.c)
 *   pctr top        the hottest functions, live (tools/pctr/top.c)
 *   pctr help       this usage (also -h, --help)
 *   pctr -s ctr [-f fn] [-k] [-u] [-e] [-i] [-t thr] [-m umask], pctr -l
 *                   OpenBSD pctr(1)'s options: set a counter (mode=system),
 *                   list the events; bare "pctr" in system mode prints
 *                   the counters in OpenBSD's format
 *
 * The command line is checked before the device is opened: help works
 * without the module, and a usage error exits 2 (Documentation/man/pctr.1).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"
#include "events.h"
#include "pctr.h"
#include "record.h"
#include "selfcheck.h"
#include "stat.h"
#include "top.h"

static const char *prog = "pctr";

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void die(const char *what)
{
	/* pctr_strerror() says what to do: load the module, join a group... */
	fprintf(stderr, "%s: %s: %s\n", prog, what, pctr_strerror(errno));
	exit(1);
}

static void print_caps(unsigned int caps)
{
	static const char *const names[] = {
		"tsc", "counters", "global-ctrl", "full-width", "any-thread",
		"user-rdpmc", "overflow", "notify", "rdpmc-off", "system",
		"cpu-share",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (caps & (1U << i))
			printf(" %s", names[i]);
	printf("\n");
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmd_info(pctr_t *p)
{
	const struct pctr_info *in = &p->info;
	struct pctrst a, b;
	char reason[128];
	double t0, t1, secs;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	printf("device    %s (ABI %u)\n", PCTR_DEVICE, in->pi_abi_version);
	printf("backend   %s", in->pi_backend);
	if (in->pi_backend_id == PCTR_BACKEND_NONE)
		printf(" (no PMU: %s)", pctr_backend_reason(reason,
							   sizeof(reason)));
	printf("\ncpu       %s family %u model %u\n",
	       in->pi_vendor[0] ? in->pi_vendor : "unknown", in->pi_cpu_family,
	       in->pi_cpu_model);
	if (in->pi_version)
		printf("perfmon   version %u\n", in->pi_version);
	printf("counters  %u general (%u bits), %u fixed (%u bits)\n",
	       in->pi_ngeneral, in->pi_width, in->pi_nfixed,
	       in->pi_fixed_width);
	printf("caps     ");
	print_caps(in->pi_caps);

	/* A short sample: how fast the TSC runs and how idle the CPUs are. */
	t0 = now_sec();
	if (pctr_read_all(p, &a) < 0)
		die("PCIOCRD");
	usleep(200000);
	if (pctr_read_all(p, &b) < 0)
		die("PCIOCRD");
	t1 = now_sec();
	secs = t1 - t0;
	printf("tsc       %llu (%.1f MHz measured", (unsigned long long)b.pctr_tsc,
	       (b.pctr_tsc - a.pctr_tsc) / secs / 1e6);
	if (in->pi_tsc_khz)
		printf(", kernel says %.1f MHz", in->pi_tsc_khz / 1e3);
	printf(")\n");
	printf("idle      %.3f s since boot; %.0f%% of %ld CPUs over %.0f ms\n",
	       b.pctr_idl / 1e9,
	       100.0 * (b.pctr_idl - a.pctr_idl) / 1e9 / secs / ncpu, ncpu,
	       secs * 1e3);
	return 0;
}

static int cmd_read(pctr_t *p)
{
	struct pctrst st;
	unsigned int i;

	if (pctr_read_all(p, &st) < 0)
		die("PCIOCRD");
	printf("tsc   %20llu\n", (unsigned long long)st.pctr_tsc);
	printf("idle  %20llu ns\n", (unsigned long long)st.pctr_idl);
	for (i = 0; i < PCTR_NUM; i++) {
		if (!st.pctr_fn[i])
			continue;
		printf("%s%-3u %20llu  fn %#llx\n",
		       i < PCTR_FIXED_BASE ? "pmc" : "fix",
		       i < PCTR_FIXED_BASE ? i : i - PCTR_FIXED_BASE,
		       (unsigned long long)st.pctr_hwc[i],
		       (unsigned long long)st.pctr_fn[i]);
	}
	return 0;
}

/* --- OpenBSD pctr(1)'s options and output ------------------------------ */

/*
 * OpenBSD's options that take a number: its letter, the base it is read
 * in (0: hex with 0x), its largest value.
 */
enum { OBSD_CTR, OBSD_FN, OBSD_UMASK, OBSD_THR, OBSD_NNUMS };

static const struct {
	char		opt;
	int		base;
	unsigned long	max;
} obsd_nums[OBSD_NNUMS] = {
	[OBSD_CTR]	= { 's', 10, PCTR_NUM - 1 },
	[OBSD_FN]	= { 'f', 16, 0xfff },	/* an event: 8 bits, 12 on AMD */
	[OBSD_UMASK]	= { 'm', 16, 0xff },
	[OBSD_THR]	= { 't', 0, 0xff },
};

/* Its flags: each sets a bit of the function. */
static const struct {
	char		opt;
	uint64_t	bit;
} obsd_flags[] = {
	{ 'k', PCTR_K }, { 'u', PCTR_U }, { 'e', PCTR_E }, { 'i', PCTR_I },
};

/* What OpenBSD's options asked for: -s with its modifiers, or -l. */
struct obsd_req {
	int		list;		/* -l */
	long		num[OBSD_NNUMS]; /* -s (-1: none), -f, -m, -t */
	uint64_t	bits;		/* -k, -u, -e, -i */
};

/* @t's name for a function's event and unit mask, or "-". */
static const char *obsd_name(const struct event_table *t, unsigned int slot,
			     uint64_t fn, char *buf, size_t len)
{
	const uint64_t ev_sel = PCTR_EVENT_HI_MASK | 0xff, um_sel = 0xff00;
	const struct pctr_event *ev;
	unsigned int i;

	snprintf(buf, len, "-");
	if (!fn)
		return buf;
	for (i = 0; i < t->n; i++) {
		ev = &t->ev[i];
		/* An event's unit mask, where it names one, must match. */
		if ((ev->pe_fn & ev_sel) == (fn & ev_sel) &&
		    (!(ev->pe_fn & um_sel) ||
		     (ev->pe_fn & um_sel) == (fn & um_sel)) &&
		    (!ev->pe_slots || (ev->pe_slots & (1ULL << slot)))) {
			snprintf(buf, len, "%s", ev->pe_name);
			break;
		}
	}
	return buf;
}

/* A function's event select, AMD's high event bits included. */
static unsigned int obsd_event(uint64_t fn)
{
	return (fn & 0xff) | ((fn & PCTR_EVENT_HI_MASK) >> 24);
}

/*
 * OpenBSD's output: every general counter, and each fixed one that has
 * a function, as " ctrN = value  [iekU event umask +threshold name]",
 * then the TSC.  The flags are i (invert), e (edge), k (kernel), u
 * (user), '-' for each not set.
 */
static int obsd_print(pctr_t *p)
{
	struct event_table t;
	struct pctrst st;
	char name[64];
	unsigned int s;
	uint64_t fn;

	if (pctr_read_all(p, &st) < 0)
		die("PCIOCRD");
	/* The names PCIOCEVENT gives; a refusal ends the list. */
	event_table_load(&t, p->fd, p->info.pi_nevents, &s);
	for (s = 0; s < PCTR_NUM; s++) {
		fn = st.pctr_fn[s];
		if (s < PCTR_FIXED_BASE ? s >= p->info.pi_ngeneral : !fn)
			continue;
		printf(" ctr%u = %16llu  [%c%c%c%c %02x %02x +%u %s]\n", s,
		       (unsigned long long)st.pctr_hwc[s],
		       fn & PCTR_I ? 'i' : '-', fn & PCTR_E ? 'e' : '-',
		       fn & PCTR_K ? 'k' : '-', fn & PCTR_U ? 'u' : '-',
		       obsd_event(fn), (unsigned int)(fn >> PCTR_UM_SHIFT) & 0xff,
		       (unsigned int)(fn >> PCTR_CM_SHIFT) & 0xff,
		       obsd_name(&t, s, fn, name, sizeof(name)));
	}
	printf("  tsc = %16llu\n", (unsigned long long)st.pctr_tsc);
	event_table_free(&t);
	return 0;
}

/* -l: the backend's named events, "event umask  name  description". */
static int obsd_list(pctr_t *p)
{
	const struct pctr_event *ev;
	struct event_table t;
	unsigned int i;
	int err;

	err = event_table_load(&t, p->fd, p->info.pi_nevents, &i) ? errno : 0;
	for (i = 0; i < t.n; i++) {
		ev = &t.ev[i];
		printf("%02x %02x  %-32s %s\n", obsd_event(ev->pe_fn),
		       (unsigned int)(ev->pe_fn >> PCTR_UM_SHIFT) & 0xff,
		       ev->pe_name, ev->pe_desc);
	}
	if (err) {
		errno = err;
		die("PCIOCEVENT");
	}
	event_table_free(&t);
	return 0;
}

/*
 * -s: the function composed as OpenBSD's pctr(1) composes it (kernel
 * and user when neither -k nor -u), set for the whole machine.  Only in
 * system mode: in thread mode the setting would end with this process.
 */
static int obsd_set(pctr_t *p, const struct obsd_req *r)
{
	uint64_t fn = 0;

	if (!(p->info.pi_caps & PCTR_CAP_SYSTEM)) {
		fprintf(stderr,
			"%s: -s: the module is in thread mode, where counters belong to the thread that sets them and a setting ends with this process; load it with mode=system (sudo pctr load mode=system) to set counters for the whole machine\n",
			prog);
		return 1;
	}
	if (r->num[OBSD_FN] || r->num[OBSD_UMASK] || r->num[OBSD_THR] ||
	    r->bits) {
		fn = PCTR_FN(r->num[OBSD_FN], r->num[OBSD_UMASK], PCTR_EN) |
		     (uint64_t)r->num[OBSD_THR] << PCTR_CM_SHIFT | r->bits;
		if (!(r->bits & (PCTR_K | PCTR_U)))
			fn |= PCTR_K | PCTR_U;
	}
	if (ioctl(p->fd, PCIOCS64(r->num[OBSD_CTR]), &fn) < 0) {
		if (errno == EPERM)
			fprintf(stderr,
				"%s: PCIOCS%d: setting counters in system mode needs CAP_PERFMON (or root)\n",
				prog, (int)r->num[OBSD_CTR]);
		else
			fprintf(stderr, "%s: PCIOCS%d: %s\n", prog,
				(int)r->num[OBSD_CTR],
				pctr_strerror(errno));
		return 1;
	}
	return 0;
}

/* A number in [0, @max] (hex with 0x, or as @base says), else -1. */
static long obsd_num(const char *s, int base, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, base);
	if (errno || !*s || *end || *s == '-' || v > max)
		return -1;
	return v;
}

static int usage(FILE *f, int status)
{
	fprintf(f,
		"usage: %s [info | read | selfcheck [--loops N] [--no-perf] [-v] | help]\n"
		"       %s stat [-e EVENT[,EVENT...]] [-I MSEC] [-t] [-x SEP | --json] [-o FILE] {[--] COMMAND [ARGS...] | -p PID}\n"
		"       %s record [-e EVENT] [-c PERIOD] [-g] [-m PAGES] [-o FILE] [--] COMMAND [ARGS...]\n"
		"       %s record -p PID[,PID...] [-i] [-d SECONDS] [OPTIONS] [-- COMMAND [ARGS...]]\n"
		"       %s record -a [-C CPUS] [-d SECONDS] [OPTIONS] [-- COMMAND [ARGS...]]\n"
		"       %s report [-i FILE] [-g] [-s KEYS] [--folded | --svg | --dump]\n"
		"       %s top {-p PID[,PID...] | -a} [-d SECS] [--sort KEY] [--stdio] [OPTIONS]\n"
		"       %s -s CTR [-f FN] [-k] [-u] [-e] [-i] [-t THR] [-m UMASK] | -l\n"
		"  info       the backend, the CPU, its counters, the TSC and idle time (default)\n"
		"  read       one snapshot of the calling thread's counters (PCIOCRD)\n"
		"  selfcheck  calibrated loops checked against expected counts\n"
		"  stat       count COMMAND (or PID), its threads and children (pctr stat --help)\n"
		"  record     sample COMMAND, running processes with -p, or every CPU with -a\n"
		"             (pctr record --help)\n"
		"  report     the profile pctr record wrote (pctr report --help)\n"
		"  top        the hottest functions of processes or CPUs, live (pctr top --help)\n"
		"  load [FILE.ko] [PARAM=VALUE...], unload, status\n"
		"             load, unload and show the module (pctr load --help)\n"
		"  help       this text (also -h, --help)\n"
		"  -s CTR     set counter CTR for the whole machine (mode=system), OpenBSD's pctr(1)\n"
		"  -l         list the events; with no argument in mode=system, pctr prints the\n"
		"             counters of the current CPU as OpenBSD's pctr(1) does\n"
		"See pctr(1).\n", prog, prog, prog, prog, prog, prog, prog, prog);
	return status;
}

/* Parse OpenBSD's options; 0, or a usage error (exit 2). */
static int obsd_parse(int argc, char **argv, struct obsd_req *r)
{
	unsigned int n, f;
	int ch, mods = 0;

	memset(r, 0, sizeof(*r));
	r->num[OBSD_CTR] = -1;
	opterr = 0;
	while ((ch = getopt(argc, argv, "+ef:ikls:t:m:u")) != -1) {
		if (ch == 'l') {
			r->list = 1;
			continue;
		}
		for (n = 0; n < OBSD_NNUMS && obsd_nums[n].opt != ch; n++)
			;
		for (f = 0; f < ARRAY_SIZE(obsd_flags) &&
			    obsd_flags[f].opt != ch; f++)
			;
		if (n < OBSD_NNUMS) {
			r->num[n] = obsd_num(optarg, obsd_nums[n].base,
					     obsd_nums[n].max);
			if (r->num[n] < 0) {
				fprintf(stderr, "%s: -%c %s: not a valid value\n",
					prog, ch, optarg);
				return 2;
			}
		} else if (f < ARRAY_SIZE(obsd_flags)) {
			r->bits |= obsd_flags[f].bit;
		} else {
			return 2;
		}
		if (ch != 's')
			mods = 1;
	}
	if (optind != argc ||
	    (r->list && (r->num[OBSD_CTR] >= 0 || mods)) ||
	    (!r->list && r->num[OBSD_CTR] < 0))
		return 2;
	return 0;
}

static int obsd_main(int argc, char **argv)
{
	struct obsd_req r;
	pctr_t *p;
	int ret;

	if (obsd_parse(argc, argv, &r))
		return usage(stderr, 2);
	p = pctr_open(r.num[OBSD_CTR] >= 0 ? O_RDWR : O_RDONLY);
	if (!p)
		die("open " PCTR_DEVICE);
	ret = r.list ? obsd_list(p) : obsd_set(p, &r);
	pctr_close(p);
	return ret;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "info";
	int (*run)(pctr_t *p);
	pctr_t *p;
	int ret;

	/* The whole command line is checked before the device is opened. */
	if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "--help"))
		return argc > 2 ? usage(stderr, 2) : usage(stdout, 0);
	if (!strcmp(cmd, "selfcheck"))
		return pctr_selfcheck(argc - 1, argv + 1);
	if (!strcmp(cmd, "stat"))
		return pctr_stat(argc - 1, argv + 1);
	if (pctr_is_admin(cmd))
		return pctr_admin(argc - 1, argv + 1);
	if (!strcmp(cmd, "record"))
		return pctr_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return pctr_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "top"))
		return pctr_top(argc - 1, argv + 1);
	/* OpenBSD pctr(1)'s options: they start with '-', subcommands do not. */
	if (cmd[0] == '-')
		return obsd_main(argc, argv);
	if (!strcmp(cmd, "info"))
		run = cmd_info;
	else if (!strcmp(cmd, "read"))
		run = cmd_read;
	else
		return usage(stderr, 2);
	if (argc > 2)
		return usage(stderr, 2);
	p = pctr_open(O_RDONLY);
	if (!p)
		die("open " PCTR_DEVICE);
	/* Bare "pctr" in system mode: OpenBSD's output, as there. */
	if (argc == 1 && (p->info.pi_caps & PCTR_CAP_SYSTEM))
		run = obsd_print;
	ret = run(p);
	pctr_close(p);
	return ret;
}
