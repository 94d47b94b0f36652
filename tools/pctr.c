// SPDX-License-Identifier: GPL-2.0
/*
 * pctr(1): show what /dev/pctr offers and read the counters.
 *
 *   pctr [info]     the backend, the CPU, the counters, and a short
 *                   sampled readout of the TSC and idle time
 *   pctr read       one PCIOCRD snapshot, every slot in use
 *   pctr selfcheck  calibrated loops checked against expected counts:
 *                   confirms a backend on real hardware
 *   pctr stat       run a command and count it (tools/stat.c)
 *   pctr load, unload, status
 *                   the module's administration (tools/admin.c)
 *   pctr record     run a command and sample it (tools/record.c)
 *   pctr report     the profile pctr record wrote (tools/report.c)
 *   pctr help       this usage (also -h, --help)
 *
 * The command line is checked before the device is opened: help works
 * without the module, and a usage error exits 2 (Documentation/man/pctr.1).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"
#include "pctr.h"
#include "record.h"
#include "selfcheck.h"
#include "stat.h"

static const char *prog = "pctr";

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
		"user-rdpmc", "overflow",
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

static int usage(FILE *f, int status)
{
	fprintf(f,
		"usage: %s [info | read | selfcheck [--loops N] [--no-perf] [-v] | help]\n"
		"       %s stat [-e EVENT[,EVENT...]] [-I MSEC] [-t] [-x SEP | --json] [-o FILE] {[--] COMMAND [ARGS...] | -p PID}\n"
		"       %s record [-e EVENT] [-c PERIOD] [-g] [-m PAGES] [-o FILE] [--] COMMAND [ARGS...]\n"
		"       %s report [-i FILE] [-g] [--folded]\n"
		"  info       the backend, the CPU, its counters, the TSC and idle time (default)\n"
		"  read       one snapshot of the calling thread's counters (PCIOCRD)\n"
		"  selfcheck  calibrated loops checked against expected counts\n"
		"  stat       count COMMAND (or PID), its threads and children (pctr stat --help)\n"
		"  record     run COMMAND and sample it (pctr record --help)\n"
		"  report     the profile pctr record wrote (pctr report --help)\n"
		"  load [FILE.ko] [PARAM=VALUE...], unload, status\n"
		"             load, unload and show the module (pctr load --help)\n"
		"  help       this text (also -h, --help)\n"
		"See pctr(1).\n", prog, prog, prog, prog);
	return status;
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
	ret = run(p);
	pctr_close(p);
	return ret;
}
