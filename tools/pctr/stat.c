// SPDX-License-Identifier: GPL-2.0
/*
 * pctr stat: run a command (or attach to a process) and count it, its
 * threads and its children, as perf stat does.
 *
 *   pctr stat [-e EVENT[,EVENT...]]... [-I MSEC] [-t]
 *             [-x SEP | --json | --openmetrics] [--textfile FILE]
 *             [-o FILE] [--] COMMAND [ARGS...]
 *   pctr stat [options] -p PID
 *
 * Built on libpctx and libcpc (libcpc/pctx_*.c, cpc_bind_pctx), which
 * follow a process with ptrace(2): the command is created stopped at its
 * exec, every thread gets the events bound when it appears (clone) and
 * its counts are read when it ends (exit, or exec, after which the new
 * image's thread is bound again); a forked child is followed by a new
 * controlling process (a fork of pctr stat's, libpctx's way), and so on
 * down.  Each thread's counts go into a record in memory these processes
 * share; the totals are the sum of the records.  -I samples every thread
 * each MSEC (libpctx's tick) and a thread of pctr stat prints the
 * difference of the sums; -t prints each record; -p counts the threads
 * of a running process from when pctr stat attached until it ends or
 * pctr stat is interrupted.
 *
 * Time: the wall clock around the run, the threads' run time (the
 * virtual TSC libcpc gives a pctx binding, cpc_buf_tick), and, for a
 * command, the CPU time of pctr stat's children (wait4's rusage: the
 * command, its children, and the controlling processes).
 *
 * This file: the command line, the events, the run; the counting is
 * stat_count.c's, the output stat_print.c's.
 *
 * Every line of output goes to stderr (or -o FILE), so that the
 * command's own output stays as it is.  Exit status: the command's
 * (128 + N if signal N killed it), 126/127 if it could not be run, 1 for
 * pctr's own failures, 2 for usage errors and events it cannot count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>

#include "events.h"
#include "stat.h"
#include "stat_internal.h"

const char *const stat_prog = "pctr stat";

/* What each backend counts when no -e is given. */
static const char *default_events(unsigned int backend)
{
	if (backend == PCTR_BACKEND_SIM)
		return "sim_ticks,sim_ticks_div";
	return "instructions,cycles,branches,branch-misses";
}

static int stat_usage(FILE *f, int status)
{
	fprintf(f,
		"usage: pctr stat [-e EVENT[,EVENT...]]... [-I MSEC] [-t]\n"
		"                 [-x SEP | --json | --openmetrics]\n"
		"                 [-o FILE] [--] COMMAND [ARGS...]\n"
		"       pctr stat [options] -p PID\n"
		"  -e EVENT   a backend event name (pctr stat -l lists them), a libpfm4 name,\n"
		"             a generic name (instructions, cycles, ref-cycles, branches,\n"
		"             branch-misses) or a raw function 0x...; :u (default), :k or :uk\n"
		"  -I MSEC    print the counts of each MSEC milliseconds as they pass\n"
		"  -t         the counts of each thread too\n"
		"  -p PID     count process PID's threads and children until it ends (^C stops)\n"
		"  -x SEP     one line per figure, fields separated by SEP\n"
		"  --json     one JSON object\n"
		"  --openmetrics  the OpenMetrics text format (Prometheus's), without -I\n"
		"  --textfile FILE  the counts in Prometheus's text format in FILE, for\n"
		"             node_exporter's textfile collector: rewritten (atomically)\n"
		"             each -I interval instead of its lines, and at the end\n"
		"  -o FILE    write the figures to FILE instead of stderr\n"
		"  -l         list the backend's events and exit\n"
		"Counts the command's threads and children; see pctr(1).\n");
	return status;
}

/* --- events -------------------------------------------------------------- */

static struct event_table events;

static void load_events(pctr_t *p)
{
	unsigned int i;

	if (event_table_load(&events, p->fd, p->info.pi_nevents, &i) < 0) {
		if (errno == ENOMEM)
			fail(EXIT_FAIL, "out of memory");
		fail(EXIT_FAIL, "PCIOCEVENT %u: %s", i, pctr_strerror(errno));
	}
}

static void __attribute__((noreturn)) unknown_event(const char *name)
{
	const char *best = event_nearest(&events, name);

	if (best)
		fail(EXIT_USAGE, "unknown event '%s': did you mean '%s'? (pctr stat -l lists them)",
		     name, best);
	fail(EXIT_USAGE, "unknown event '%s' (pctr stat -l lists them)", name);
}

/* libcpc: pfm_event() asks it, the counting uses it. */
static cpc_t *cpc;

static void quiet_errfn(const char *fn, int subcode, const char *fmt,
			va_list ap)
{
}

/*
 * Does libcpc (with libpfm4) know @name?  1 and its function without
 * mode bits in *@fn, if that is one a raw event can give.
 */
static int pfm_event(const char *name, uint64_t *fn)
{
	cpc_set_t *set;
	int ok = 0;

	if (!cpc)
		return 0;
	set = cpc_set_create(cpc);
	if (!set)
		return 0;
	cpc_seterrhndlr(cpc, quiet_errfn);
	if (!cpc_set_add_request(cpc, set, name, 0, CPC_COUNT_USER, 0,
				 NULL) &&
	    !cpc_request_fn(cpc, set, 0, fn, NULL)) {
		*fn &= ~(PCTR_U | PCTR_K | PCTR_EN | PCTR_INT);
		ok = *fn && !(*fn & ~RAW_BITS);
	}
	cpc_seterrhndlr(cpc, count_cpc_errfn);
	cpc_set_destroy(cpc, set);
	return ok;
}

/*
 * One -e item into @e, on a free slot.  @quiet: a default event the
 * backend lacks is left out (0) instead of an error.
 */
static int parse_event(const struct pctr_info *in, char *item,
		       struct ev *e, uint64_t *used, int quiet)
{
	const struct pctr_event *pe = NULL;
	uint64_t mode = PCTR_U, fn = 0;
	const char *mstr = "u";
	char *colon, *end;
	const struct generic_event *gen;
	int slot = -1;

	/*
	 * The mode is after the last ':'.  A name with more colons is a
	 * libpfm4 name with its modifiers ("ix86arch::INSTRUCTION_RETIRED",
	 * "INST_RETIRED:ANY_P:c=1"), whose last part need not be a mode.
	 */
	colon = strrchr(item, ':');
	if (colon) {
		mstr = colon + 1;
		if (event_mode(mstr, &mode)) {
			/* Not a mode: an error, but after libpfm4's colons. */
			if (strchr(item, ':') == colon)
				fail(EXIT_USAGE, "event '%.*s': unknown mode ':%s' (u, k or uk)",
				     (int)(colon - item), item, mstr);
			colon = NULL;
		}
		if (colon)
			*colon = '\0';
		else
			mstr = "u";
	}
	if (!*item)
		fail(EXIT_USAGE, "an empty event name");
	memset(e, 0, sizeof(*e));
	if (!strncasecmp(item, "0x", 2)) {
		errno = 0;
		fn = strtoull(item, &end, 16);
		if (errno || *end || end == item + 2)
			fail(EXIT_USAGE, "raw event '%s' is not a hex number", item);
		if (!fn || (fn & ~RAW_BITS))
			fail(EXIT_USAGE,
			     "raw event '%s': give the event, unit mask, counter mask, edge and invert bits only (%#llx); the mode comes from :u or :k",
			     item, (unsigned long long)RAW_BITS);
		snprintf(e->name, sizeof(e->name), "raw");
		slot = take_slot(general_slots(in), used);
	} else {
		gen = generic_event_find(item);
		slot = event_place(&events, in, item, used, &pe);
		if (!pe && !gen && pfm_event(item, &fn)) {
			/* A libpfm4 name: its encoding, as raw. */
			snprintf(e->name, sizeof(e->name), "raw");
			slot = take_slot(general_slots(in), used);
			if (slot < 0)
				fail(EXIT_USAGE, "no free counter for '%s' (%u general, %u fixed counters)",
				     item, in->pi_ngeneral, in->pi_nfixed);
			goto done;
		}
		if (!pe) {
			if (quiet)
				return 0;
			if (gen)
				fail(EXIT_USAGE, "event '%s': the %s backend does not count it",
				     item, in->pi_backend);
			unknown_event(item);
		}
		if (slot >= 0) {
			fn = pe->pe_fn;
			snprintf(e->name, sizeof(e->name), "%s", pe->pe_name);
		}
	}
	if (slot < 0) {
		if (quiet)
			return 0;
		fail(EXIT_USAGE, "no free counter for '%s' (%u general, %u fixed counters)",
		     item, in->pi_ngeneral, in->pi_nfixed);
	}
done:
	e->slot = slot;
	e->fn = fn | mode | PCTR_EN;
	snprintf(e->label, sizeof(e->label), "%s:%s", item, mstr);
	return 1;
}

/*
 * The slots CPU bindings hold (sysfs "held_slots", anyone's to read): a
 * thread asking for one gets EBUSY, so events go elsewhere.
 */
static uint64_t held_slots(void)
{
	FILE *f = fopen("/sys/class/misc/pctr/held_slots", "r");
	unsigned int mask = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%x", &mask) != 1)
		mask = 0;
	fclose(f);
	return mask;
}

/* Every -e list into @evs; returns how many. */
static unsigned int parse_events(const struct pctr_info *in, char **lists,
				 unsigned int nlists, struct ev *evs)
{
	const char *deflist = default_events(in->pi_backend_id);
	unsigned int i, n = 0;
	uint64_t used = held_slots();
	char *copy, *item, *save;
	int quiet = !nlists;

	for (i = 0; i < (nlists ? nlists : 1); i++) {
		copy = strdup(nlists ? lists[i] : deflist);
		if (!copy)
			fail(EXIT_FAIL, "out of memory");
		for (item = strtok_r(copy, ",", &save); item;
		     item = strtok_r(NULL, ",", &save)) {
			if (n == PCTR_NUM)
				fail(EXIT_USAGE, "more than %d events", PCTR_NUM);
			n += parse_event(in, item, &evs[n], &used, quiet);
		}
		free(copy);
	}
	if (!n)
		fail(EXIT_USAGE, "no event to count");
	return n;
}

/*
 * Try every function on the calling thread's own counters first: a
 * function the backend or the caller's rights refuse is reported by
 * name, before the command runs.
 */
static void check_events(pctr_t *p, const struct ev *evs, unsigned int n)
{
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		if (!pctr_set(p, evs[i].slot, evs[i].fn))
			continue;
		err = errno;
		ioctl(p->fd, PCIOCRELEASE);
		if (err == EINVAL || err == EOPNOTSUPP)
			fail(EXIT_USAGE, "event '%s' (function %#llx): the %s backend does not accept it",
			     evs[i].label, (unsigned long long)evs[i].fn,
			     p->info.pi_backend);
		if (err == EACCES)
			fail(EXIT_FAIL, "event '%s': counting kernel mode needs CAP_PERFMON (or the module's allow_kernel=1); use :u",
			     evs[i].label);
		fail(EXIT_FAIL, "event '%s': %s", evs[i].label,
		     pctr_strerror(err));
	}
	if (ioctl(p->fd, PCIOCRELEASE) < 0)
		fail(EXIT_FAIL, "PCIOCRELEASE: %s", pctr_strerror(errno));
}

static void list_events(pctr_t *p)
{
	const struct generic_event *gen;
	unsigned int i, k;

	printf("backend %s: %u general, %u fixed counters\n",
	       p->info.pi_backend, p->info.pi_ngeneral, p->info.pi_nfixed);
	for (i = 0; i < events.n; i++)
		printf("  %-40s %s\n", events.ev[i].pe_name,
		       events.ev[i].pe_desc);
	for (gen = generic_events; gen < generic_events + ngeneric_events;
	     gen++)
		for (k = 0; gen->backend[k]; k++)
			if (event_find(&events, gen->backend[k])) {
				printf("  %-40s = %s\n", gen->name,
				       gen->backend[k]);
				break;
			}
	printf("default: %s\n", default_events(p->info.pi_backend_id));
}

static void on_stop_signal(int sig)
{
	cpc_terminate(cpc);
}

/* --- the subcommand -------------------------------------------------------- */

int pctr_stat(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "openmetrics", no_argument, NULL, 'M' },
		{ "textfile", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char **lists = NULL, *sep = NULL, *outfile = NULL, **cmd, *end;
	const char *textfile = NULL;
	unsigned int nlists = 0, msec = 0, n, i, k, nr;
	int c, json = 0, om = 0, list = 0, per_thread = 0, err, ret;
	struct ev evs[PCTR_NUM];
	struct count_end done;
	struct result r = { 0 };
	struct interval iv = { 0 };
	struct timespec t0, t1;
	pthread_t ivth;
	struct rusage ru;
	uint64_t tick;
	pid_t attach = 0;
	long v;
	pctx_t *pctx;
	pctr_t *p;
	FILE *out = stderr;

	/* Options end at the first word that is not one: the command. */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:x:o:lhtI:p:", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'e':
			lists = realloc(lists, (nlists + 1) * sizeof(*lists));
			if (!lists)
				fail(EXIT_FAIL, "out of memory");
			lists[nlists++] = optarg;
			break;
		case 'x':
			if (!*optarg)
				fail(EXIT_USAGE, "-x: an empty separator");
			sep = optarg;
			break;
		case 'o':
			outfile = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'M':
			om = 1;
			break;
		case 'T':
			textfile = optarg;
			break;
		case 'l':
			list = 1;
			break;
		case 't':
			per_thread = 1;
			break;
		case 'I':
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < 10 || v > 3600000)
				fail(EXIT_USAGE, "-I %s: an interval in milliseconds, 10 to 3600000",
				     optarg);
			msec = (unsigned int)v;
			break;
		case 'p':
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v <= 0 || v > INT_MAX)
				fail(EXIT_USAGE, "-p %s: not a process id",
				     optarg);
			attach = (pid_t)v;
			break;
		case 'h':
			return stat_usage(stdout, 0);
		default:
			fprintf(stderr, "%s: unknown option or missing argument: '%s'\n",
				stat_prog, argv[optind - 1]);
			return stat_usage(stderr, EXIT_USAGE);
		}
	}
	cmd = argv + optind;
	if ((sep != NULL) + json + om > 1) {
		fprintf(stderr, "%s: -x, --json and --openmetrics exclude each other\n",
			stat_prog);
		return stat_usage(stderr, EXIT_USAGE);
	}
	if (textfile && !*textfile)
		fail(EXIT_USAGE, "--textfile: an empty file name");
	if (om && msec) {
		fprintf(stderr, "%s: -I and --openmetrics exclude each other\n",
			stat_prog);
		return stat_usage(stderr, EXIT_USAGE);
	}
	if (attach && *cmd) {
		fprintf(stderr, "%s: -p and a command exclude each other\n",
			stat_prog);
		return stat_usage(stderr, EXIT_USAGE);
	}
	if (!list && !*cmd && !attach) {
		fprintf(stderr, "%s: no command to run\n", stat_prog);
		return stat_usage(stderr, EXIT_USAGE);
	}
	if (list && (*cmd || attach))
		return stat_usage(stderr, EXIT_USAGE);

	p = pctr_open(O_RDWR);
	if (!p) {
		err = errno;
		fprintf(stderr, "%s: open %s: %s\n", stat_prog,
			getenv("PCTR_DEVICE") && *getenv("PCTR_DEVICE") ?
			getenv("PCTR_DEVICE") : PCTR_DEVICE, pctr_strerror(err));
		return EXIT_FAIL;
	}
	load_events(p);
	if (list) {
		list_events(p);
		return 0;
	}
	if (!(p->info.pi_caps & PCTR_CAP_COUNTERS) || !p->info.pi_ngeneral) {
		char why[128];

		fail(EXIT_FAIL, "the %s backend has no counters (%s)",
		     p->info.pi_backend,
		     pctr_backend_reason(why, sizeof(why)));
	}
	cpc = cpc_open(CPC_VER_CURRENT);
	if (!cpc)
		fail(EXIT_FAIL, "libcpc: %s", strerror(errno));
	cpc_seterrhndlr(cpc, count_cpc_errfn);
	n = parse_events(&p->info, lists, nlists, evs);
	check_events(p, evs, n);
	if (count_init(cpc, &p->info, evs, n, msec))
		fail(EXIT_USAGE, "libcpc does not take these events");
	if (outfile) {
		out = fopen(outfile, "we");
		if (!out)
			fail(EXIT_FAIL, "%s: %s", outfile, strerror(errno));
	}
	count_share();

	if (attach) {
		pctx = pctx_capture(attach, NULL, 1, count_pctx_errfn);
		if (!pctx)
			fail(EXIT_FAIL, "cannot count process %d", (int)attach);
		/* Until the process ends, or ^C. */
		signal(SIGINT, on_stop_signal);
		signal(SIGTERM, on_stop_signal);
		r.attached = 1;
	} else {
		pctx = pctx_create(cmd[0], cmd, NULL, 1, count_pctx_errfn);
		if (!pctx) {
			err = errno;
			fprintf(stderr, "%s: %s: %s\n", stat_prog, cmd[0],
				strerror(err));
			return err == ENOENT ? 127 : 126;
		}
		/* The command has the terminal's signals; we wait it out. */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
	}
	if (count_follow(pctx, attach))
		fail(EXIT_FAIL, "libpctx: cannot follow the process");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (msec) {
		iv.out = out;
		iv.sep = sep;
		iv.json = json;
		iv.textfile = textfile;
		iv.in = &p->info;
		iv.evs = evs;
		iv.n = n;
		iv.msec = msec;
		iv.t0 = t0;
		if (pthread_create(&ivth, NULL, interval_thread, &iv))
			fail(EXIT_FAIL, "cannot start the interval thread");
	}
	ret = count_run(pctx);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (msec) {
		atomic_store(&iv.stop, 1);
		pthread_join(ivth, NULL);
		print_interval(&iv);	/* the rest */
	}
	count_end(&done);
	if (ret < 0 || done.failed)
		fprintf(stderr, "%s: counting failed for some threads\n",
			stat_prog);

	count_sum(r.val, &tick, r.pct);
	r.rec = count_recs(&nr);
	r.nrecs = nr;
	r.nthreads = nr;
	for (k = 0; k < nr; k++) {
		for (i = 0; i < k; i++)
			if (r.rec[i].pid == r.rec[k].pid)
				break;
		if (i == k)
			r.nprocs++;
	}
	r.lost = done.lost;
	r.argv = attach ? NULL : cmd;
	r.pid = done.pid;
	if (attach)
		r.code = 0;
	else if (done.have_status)
		r.code = done.status;
	else
		r.code = EXIT_FAIL;
	r.elapsed = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	r.oncpu = p->info.pi_tsc_khz ? tick / (p->info.pi_tsc_khz * 1e3) : 0;
	if (!attach && !getrusage(RUSAGE_CHILDREN, &ru)) {
		r.have_rusage = 1;
		r.user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		r.sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
	r.have_ipc = ipc_of(&p->info, evs, n, r.val, &r.ipc);
	if (textfile && !msec)
		write_textfile(textfile, &p->info, evs, n, r.val, tick,
			       r.elapsed, 0);
	if (json)
		print_json(out, &p->info, evs, n, &r, per_thread);
	else if (om)
		print_openmetrics(out, &p->info, evs, n, &r, per_thread);
	else if (sep)
		print_sep(out, sep, evs, n, &r, per_thread);
	else
		print_human(out, &p->info, evs, n, &r, per_thread);
	if (out != stderr && fclose(out))
		fail(EXIT_FAIL, "%s: %s", outfile, strerror(errno));
	cpc_close(cpc);
	pctr_close(p);
	if (!attach && (ret < 0 || done.failed) && !r.code)
		return EXIT_FAIL;
	return attach && (ret < 0 || done.failed) ? EXIT_FAIL : r.code;
}
