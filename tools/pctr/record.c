// SPDX-License-Identifier: GPL-2.0
/*
 * pctr record: run a command with sampling on and write what it sampled
 * to a file for pctr report (pctr-record(1)).
 *
 *   pctr record [-e EVENT] [-c PERIOD] [-g] [-m PAGES] [-o FILE]
 *               [--] COMMAND [ARGS...]
 *   pctr record [options] -p PID[,PID...] [-i] [-d SECONDS]
 *               [-- COMMAND [ARGS...]]
 *   pctr record [options] -a [-C CPUS] [-d SECONDS] [-- COMMAND [ARGS...]]
 *
 * The samples: pctr record makes a ring (PCIOCRING) and maps it; the
 * child it forks puts a slot of its own in sampling mode into that ring
 * (PCIOCSAMPLE with PCTR_SA_EXEC, so the sampling goes on into the
 * command) with inheritance (PCTR_O_INHERIT: every thread and process
 * the command creates samples into the same ring), then execs the
 * command.  pctr record drains the per-CPU rings as poll() says they
 * fill, and once more at the end.
 *
 * The symbols: what is mapped is read from /proc/PID/maps, which does
 * not stay: pctr record traces the command with ptrace (PTRACE_SEIZE,
 * following forks, clones and vforks) only to read each process's maps
 * at the moments that matter -- its fork (the parent's image), its exec
 * (the new image), and every thread's exit (PTRACE_EVENT_EXIT, when all
 * libraries it loaded meanwhile are still mapped).  pctr report resolves
 * a sample against the last maps of its process and exec generation.  A
 * library loaded and unloaded (dlclose) between two of those moments is
 * not seen: its samples are reported as unknown, by object address.
 *
 * -p attaches to running processes instead (see record_attach()): each
 * thread gets a descriptor of its own, with its own ring, bound to it
 * (PCIOCBIND, PCTR_BIND_THREAD) and sampling into that ring (PCIOCSAMPLE
 * on the bound descriptor).  The right to do so is ptrace's: pctr record
 * traces every thread (PTRACE_SEIZE, which does not stop it), and that
 * is what the driver checks.  Threads and processes the targets create
 * later are attached as they appear (PTRACE_O_TRACECLONE and FORK), a
 * thread again after its exec, unless -i.  Recording ends at ^C,
 * SIGTERM, after -d SECONDS, when COMMAND (not sampled) ends, or when
 * every target has ended; the bindings end with it (the targets run on,
 * counting nothing) and pctr record's exit detaches its tracing.
 *
 * -a samples every thread on some CPUs instead: record_system.c.
 *
 * The file (record.h, pctr-record(1)) is binary: a header, then each
 * ring's records copied as they are, with no work a sample, and the
 * maps, names and totals between them as text records; --text writes
 * the text format instead, one item a line, each sample formatted.
 * Exit status: the command's (128 + N for signal N), 126/127 if it could
 * not be run, 1 for pctr's own failures, 2 for usage errors.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "pctr.h"
#include "record.h"
#include "record_internal.h"
#include "fail.h"

const char *rec_prog = "pctr record";


static int usage(FILE *f, int status)
{
	fprintf(f,
		"usage: pctr record [-e EVENT] [-c PERIOD] [-g] [-m PAGES] [-w BYTES] [-o FILE] [--text] [--] COMMAND [ARGS...]\n"
		"       pctr record [options] -p PID[,PID...] [-i] [-d SECONDS] [-- COMMAND [ARGS...]]\n"
		"       pctr record [options] -a [-C CPUS] [-d SECONDS] [-- COMMAND [ARGS...]]\n"
		"  -e EVENT   event to sample, by name (pctr stat -l), a generic name\n"
		"             (instructions, cycles) or raw 0xUUEE; :u (default; -a: :uk), :k or :uk\n"
		"  -c PERIOD  events per sample (default: 100000; sim: 10000)\n"
		"  -g         record user call chains (frame pointers)\n"
		"  -m PAGES   ring pages per CPU, a power of two (default 64)\n"
		"  -w BYTES   read a CPU's ring when it holds this much (default: half);\n"
		"             it is read every 100 ms anyway\n"
		"  -o FILE    output (default pctr.data)\n"
		"  --text     write the file as text, one item a line (pctr-record(1)),\n"
		"             not binary (pctr report --dump prints a binary one so)\n"
		"  -p PIDS    sample these running processes (all their threads) until ^C,\n"
		"             -d, COMMAND's end (COMMAND is not sampled) or theirs\n"
		"  -i         with -p: not the threads and processes they create later\n"
		"  -a         sample every thread on every CPU (CAP_PERFMON) until ^C, -d or\n"
		"             COMMAND's end; pctr report --sort comm,sym shows each process\n"
		"  -C CPUS    with -a: only these CPUs, as 0,2-3\n"
		"  -d SECONDS with -p or -a: stop after this long\n"
		"See pctr-record(1); read the file with pctr report.\n");
	return status;
}

uint64_t tsc_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
#endif
}

uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/*
 * One backend event by name, from @t: its function and a slot that
 * counts it.
 */
static int find_event(const struct event_table *t, const char *name,
		      uint64_t *fn, unsigned int *slot)
{
	const struct pctr_event *ev = event_find(t, name);
	uint64_t can;

	if (!ev)
		return -1;
	*fn = ev->pe_fn;
	can = ev->pe_slots ? ev->pe_slots : 1;
	/* A general counter where it can: fixed ones may not interrupt. */
	if (can & ((1ULL << PCTR_FIXED_BASE) - 1))
		can &= (1ULL << PCTR_FIXED_BASE) - 1;
	*slot = __builtin_ctzll(can);
	return 0;
}

static void parse_event(int fd, const struct pctr_info *in, char *spec,
			uint64_t mode, uint64_t *fn, unsigned int *slot)
{
	char *colon = strchr(spec, ':'), *end;
	const struct generic_event *gen;
	struct event_table t;
	unsigned int k;

	if (colon) {
		*colon++ = '\0';
		if (event_mode(colon, &mode))
			fail(EXIT_USAGE, "event '%s': unknown mode ':%s' (u, k or uk)",
			     spec, colon);
	}
	if (!strncasecmp(spec, "0x", 2)) {
		*fn = strtoull(spec, &end, 16);
		if (*end || !*fn)
			fail(EXIT_USAGE, "raw event '%s' is not a hex number", spec);
		*slot = 0;
	} else {
		/* The events PCIOCEVENT gives; a refusal ends the list. */
		event_table_load(&t, fd, in->pi_nevents, &k);
		gen = generic_event_find(spec);
		if (gen) {
			for (k = 0; gen->backend[k]; k++)
				if (!find_event(&t, gen->backend[k], fn, slot))
					break;
			if (!gen->backend[k])
				fail(EXIT_USAGE, "event '%s': the %s backend does not count it (pctr stat -l lists its events)",
				     spec, in->pi_backend);
		} else if (find_event(&t, spec, fn, slot)) {
			fail(EXIT_USAGE, "unknown event '%s' (pctr stat -l lists them)",
			     spec);
		}
		event_table_free(&t);
	}
	*fn |= mode | PCTR_EN;
}

/*
 * PCIOCSAMPLE; a module older than PCTR_SA_KCHAIN refuses the flag with
 * EINVAL: then again without it (no kernel frames, as before).
 */
int sample_start(int fd, struct pctr_sample_attr *sa)
{
	if (!ioctl(fd, PCIOCSAMPLE, sa))
		return 0;
	if (errno != EINVAL || !(sa->sa_flags & PCTR_SA_KCHAIN))
		return -1;
	sa->sa_flags &= ~PCTR_SA_KCHAIN;
	return ioctl(fd, PCIOCSAMPLE, sa);
}

/* --- the child ---------------------------------------------------------- */

static void __attribute__((noreturn))
child(int fd, int go, int report, struct pctr_sample_attr *sa,
      char **argv)
{
	struct pctr_opts o = { .po_flags = PCTR_O_INHERIT };
	int err = 0;
	char c;

	/* Until the parent traces us. */
	if (read(go, &c, 1) != 1)
		_exit(EXIT_FAIL);
	if (sample_start(fd, sa) || ioctl(fd, PCIOCSOPTS, &o)) {
		err = errno;
		c = 's';
	} else {
		close(fd);
		execvp(argv[0], argv);
		err = errno;
		c = 'e';
	}
	/* Tell the parent what failed: a tag, then the errno. */
	if (write(report, &c, 1) != 1 ||
	    write(report, &err, sizeof(err)) != sizeof(err))
		_exit(EXIT_FAIL);
	_exit(c == 'e' && err == ENOENT ? 127 : c == 'e' ? 126 : EXIT_FAIL);
}

static void explain_sample_error(int err, const struct pctr_info *in)
{
	switch (err) {
	case EOPNOTSUPP:
		fail(EXIT_FAIL, "no sampling on the %s backend: it has no overflow interrupts (pctr info shows its caps; the simulator has them: modprobe pctr pmu=sim)",
		     in->pi_backend);
	case EACCES:
		fail(EXIT_FAIL, "permission denied: counting kernel events (:k) needs CAP_PERFMON or perf_event_paranoid <= 1 (Documentation/security.rst); sample :u instead");
	case EBUSY:
		fail(EXIT_FAIL, "the counters are taken (perf, or the NMI watchdog: sysctl kernel.nmi_watchdog=0)");
	case EAGAIN:
		fail(EXIT_FAIL, "a CPU binding holds the counters: no thread may count now");
	}
	fail(EXIT_FAIL, "cannot start sampling: PCIOCSAMPLE: %s", pctr_strerror(err));
}

/* --- the command line -------------------------------------------------- */

struct record_opts {
	const char		*path;		/* -o */
	const char		*event;		/* -e, or NULL: the default */
	unsigned long long	period;		/* -c, or 0: the default */
	unsigned long long	pages;		/* -m, or 0: the default */
	unsigned long long	watermark;	/* -w, or 0: half the ring */
	int			callchain;	/* -g */
	int			text;		/* --text */
	pid_t			*pids;		/* -p */
	unsigned int		npids;
	int			inherit;	/* not -i */
	double			secs;		/* -d, or 0 */
	int			system;		/* -a (or -C) */
	unsigned int		*cpus;		/* -C, or every online CPU */
	unsigned int		ncpus;
};

/*
 * The options that take a whole number (C's notation): each from 1 to
 * @max and a power of two if @pow2, else a usage error that asks to
 * @want.
 */
struct number_opt {
	int			opt;
	unsigned long long	*to;
	unsigned long long	max;
	int			pow2;
	const char		*want;
};

static void number_opt(const struct number_opt *n, const char *arg)
{
	unsigned long long v;
	char *end;

	v = strtoull(arg, &end, 0);
	if (*end || !v || v > n->max || (n->pow2 && (v & (v - 1))))
		fail(EXIT_USAGE, "-%c %s: %s", n->opt, arg, n->want);
	*n->to = v;
}

/* -p's comma-separated process IDs, added to @o's. */
static void add_pids(struct record_opts *o, char *list)
{
	char *tok, *save, *end;
	long v;

	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		v = strtol(tok, &end, 10);
		if (*end || v <= 0 || v > INT32_MAX)
			fail(EXIT_USAGE, "-p %s: not a process id", tok);
		if (v == getpid())
			fail(EXIT_USAGE, "-p %ld: pctr record itself", v);
		o->pids = realloc(o->pids, (o->npids + 1) * sizeof(*o->pids));
		if (!o->pids)
			fail(EXIT_FAIL, "out of memory");
		o->pids[o->npids++] = (pid_t)v;
	}
}

/* -C's CPUs ("0,2-5"), added to @o's. */
static void add_cpus(struct record_opts *o, char *list)
{
	char *tok, *save, *end;
	unsigned long lo, hi, c;

	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		lo = strtoul(tok, &end, 10);
		hi = lo;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (*end || end == tok || hi < lo || hi >= 65536)
			fail(EXIT_USAGE, "-C %s: give CPUs as 0,2-3", tok);
		for (c = lo; c <= hi; c++) {
			o->cpus = realloc(o->cpus, (o->ncpus + 1) * sizeof(*o->cpus));
			if (!o->cpus)
				fail(EXIT_FAIL, "out of memory");
			o->cpus[o->ncpus++] = c;
		}
	}
}

/* -a without -C: every online CPU, as the kernel lists them. */
static void online_cpus(struct record_opts *o)
{
	char list[4096] = "";
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");

	if (!f || !fgets(list, sizeof(list), f))
		fail(EXIT_FAIL, "cannot read /sys/devices/system/cpu/online");
	fclose(f);
	list[strcspn(list, "\n")] = '\0';
	add_cpus(o, list);
}

/*
 * The options into @o; optind is then the command's.  -1, or the status
 * to exit with (help, or a usage error).
 */
static int parse_options(int argc, char **argv, struct record_opts *o)
{
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "pid", required_argument, NULL, 'p' },
		{ "no-inherit", no_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'd' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "text", no_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	const struct number_opt numbers[] = {
		{ 'c', &o->period, ULLONG_MAX, 0,
		  "give a period of at least 1 event" },
		{ 'm', &o->pages, 1024, 1, "give a power of two from 1 to 1024" },
		{ 'w', &o->watermark, ULONG_MAX, 0, "give a number of bytes" },
	};
	const struct number_opt *n;
	char *end;
	int opt;

	memset(o, 0, sizeof(*o));
	o->path = "pctr.data";
	o->inherit = 1;
	while ((opt = getopt_long(argc, argv, "+e:c:gm:w:o:p:id:aC:h", longs,
				  NULL)) != -1) {
		switch (opt) {
		case 'e':
			o->event = optarg;
			break;
		case 'o':
			o->path = optarg;
			break;
		case 'g':
			o->callchain = 1;
			break;
		case 'T':
			o->text = 1;
			break;
		case 'i':
			o->inherit = 0;
			break;
		case 'c':
		case 'm':
		case 'w':
			for (n = numbers; n->opt != opt; n++)
				;
			number_opt(n, optarg);
			break;
		case 'p':
			add_pids(o, optarg);
			break;
		case 'a':
			o->system = 1;
			break;
		case 'C':
			o->system = 1;
			add_cpus(o, optarg);
			break;
		case 'd':
			o->secs = strtod(optarg, &end);
			if (*end || !(o->secs > 0))
				fail(EXIT_USAGE, "-d %s: give a number of seconds", optarg);
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, EXIT_USAGE);
		}
	}
	if (optind >= argc && !o->npids && !o->system)
		return usage(stderr, EXIT_USAGE);
	if (o->system && o->npids)
		fail(EXIT_USAGE, "-a samples every process: not with -p");
	if (!o->npids && !o->inherit)
		fail(EXIT_USAGE, "-i goes with -p");
	if (!o->npids && !o->system && o->secs > 0)
		fail(EXIT_USAGE, "-d goes with -p or -a");
	if (o->system && !o->ncpus)
		online_cpus(o);
	return -1;
}

/* The running kernel's boot ID into @id, or NULL (record.h). */
char *read_boot_id(char *id, size_t len)
{
	FILE *b = fopen("/proc/sys/kernel/random/boot_id", "re");
	char *ok = b ? fgets(id, len, b) : NULL;

	if (b)
		fclose(b);
	if (!ok)
		return NULL;
	id[strcspn(id, "\n")] = '\0';
	return id[0] ? id : NULL;
}

/*
 * "boot ID": the kernel's boot ID, so that pctr report names kernel
 * functions from /proc/kallsyms only on the boot that was recorded.
 */
static void boot_id_line(FILE *f)
{
	char id[64];

	if (read_boot_id(id, sizeof(id)))
		fprintf(f, "boot %s\n", id);
}

/* --- the command --------------------------------------------------------- */

int pctr_record(int argc, char **argv)
{
	struct pctr_sample_attr sa = { 0 };
	unsigned int slot = 0, progress_at = 0;
	int go[2], rep[2], status = 0, st, err, fd, tty;
	struct record_opts o;
	struct pctr_info in;
	struct ring r = { 0 };
	enum follow what;
	pid_t pid, w;
	char ev[128], c;
	uint64_t fn, drained = 0;
	time_t t0;

	status = parse_options(argc, argv, &o);
	if (status >= 0)
		return status;
	status = 0;

	fd = open(PCTR_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (err == ENOENT)
			fail(EXIT_FAIL, "no %s: the pctr module is not loaded (modprobe pctr)", PCTR_DEVICE);
		if (err == EACCES)
			fail(EXIT_FAIL, "permission denied opening %s (its mode is the module's dev_mode)", PCTR_DEVICE);
		fail(EXIT_FAIL, "open %s: %s", PCTR_DEVICE, pctr_strerror(err));
	}
	if (ioctl(fd, PCIOCINFO, &in))
		fail(EXIT_FAIL, "PCIOCINFO: %s", pctr_strerror(errno));
	if (!(in.pi_caps & PCTR_CAP_COUNTERS))
		fail(EXIT_FAIL, "no PMU: the %s backend has no counters (pctr info says why)",
		     in.pi_backend);
	if (!(in.pi_caps & PCTR_CAP_NOTIFY))
		explain_sample_error(EOPNOTSUPP, &in);
	if (!o.event)
		o.event = in.pi_backend_id == PCTR_BACKEND_SIM ? "sim_ticks_div" :
							       "instructions";
	if (!o.period)
		o.period = in.pi_backend_id == PCTR_BACKEND_SIM ? 10000 : 100000;
	snprintf(ev, sizeof(ev), "%s", o.event);
	/* Everything on a CPU, as perf record -a: the kernel's part too. */
	parse_event(fd, &in, ev, o.system ? PCTR_U | PCTR_K : PCTR_U, &fn,
		    &slot);

	/* Attached, each thread has a ring: smaller ones by default. */
	if (!o.pages)
		o.pages = o.npids ? 16 : 64;
	if (!o.npids && !o.system) {
		err = ring_open(&r, fd, o.pages, o.watermark);
		if (err)
			ring_error(err);
	}

	rec_out = rec_file_open(o.path, o.text);
	if (!rec_out)
		fail(EXIT_FAIL, "%s: %s", o.path, strerror(errno));
	fprintf(rec_out, "event %s period %llu slot %u fn %llx backend %s tsc_khz %llu callchain %d\n",
		o.event, o.period, slot, (unsigned long long)fn, in.pi_backend,
		(unsigned long long)in.pi_tsc_khz, o.callchain);
	boot_id_line(rec_out);

	sa.sa_slot = slot;
	sa.sa_fn = fn;
	sa.sa_period = o.period;
	/* Kernel frames too, where the module lets this user see them. */
	sa.sa_flags = PCTR_SA_EXEC |
		      (o.callchain ? PCTR_SA_CALLCHAIN | PCTR_SA_KCHAIN : 0);

	attach_setup.fn = fn;
	attach_setup.slot = slot;
	attach_setup.pages = o.pages;
	attach_setup.watermark = o.watermark;
	attach_setup.sa = sa;
	attach_setup.sa.sa_flags &= ~PCTR_SA_EXEC;
	if (o.npids) {
		record_attach(o.pids, o.npids, o.inherit, o.secs,
			      optind < argc ? argv + optind : NULL, &r);
		goto footer;
	}
	if (o.system) {
		fprintf(rec_out, "system %u\n", o.ncpus);
		record_system(o.cpus, o.ncpus, o.secs,
			      optind < argc ? argv + optind : NULL, &r,
			      &status);
		goto footer;
	}

	if (pipe2(go, O_CLOEXEC) || pipe2(rep, O_CLOEXEC))
		fail(EXIT_FAIL, "pipe: %s", strerror(errno));
	rec_file_flush();
	pid = fork();
	if (pid < 0)
		fail(EXIT_FAIL, "fork: %s", strerror(errno));
	if (!pid) {
		/* The ring is the parent's alone: the child only writes it. */
		munmap(r.base, r.ra.ra_mmap_size);
		close(go[1]);
		close(rep[0]);
		child(fd, go[0], rep[1], &sa, argv + optind);
	}
	close(go[0]);
	close(rep[1]);
	/* The child runs our image until its exec: its maps are ours. */
	snapshot("self", pid, 0);
	comm_snapshot("self", pid);
	if (ptrace(PTRACE_SEIZE, pid, 0,
		   (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT |
				  PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
				  PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL)) < 0) {
		kill(pid, SIGKILL);
		fail(EXIT_FAIL, "cannot trace the command (%s): pctr record reads its maps through ptrace(2) (see /proc/sys/kernel/yama/ptrace_scope)",
		     strerror(errno));
	}
	if (write(go[1], "g", 1) != 1)
		fail(EXIT_FAIL, "cannot start the command");
	close(go[1]);

	signal(SIGINT, rec_on_signal);
	signal(SIGTERM, rec_on_signal);
	tty = isatty(2);
	t0 = time(NULL);
	for (;;) {
		what = follow_event(&w, &st, 0);
		if (what == TRACEES_GONE)
			break;
		if (what == NO_EVENT) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			/* Woken at the watermark; read every 100 ms anyway. */
			poll(&p, 1, 20);
			if ((p.revents & POLLIN) || ms_now() - drained >= 100) {
				drain(&r);
				drained = ms_now();
			}
			if (tty && time(NULL) - t0 > (time_t)progress_at) {
				progress_at = time(NULL) - t0;
				fprintf(stderr, "\rpctr record: %llu samples, %llu lost, %u s ",
					(unsigned long long)r.samples,
					(unsigned long long)r.lost, progress_at);
			}
			if (rec_interrupted)
				kill(pid, rec_interrupted);
			continue;
		}
		if (what == TRACEE_ENDED && w == pid)
			status = WIFEXITED(st) ? WEXITSTATUS(st) :
				 128 + WTERMSIG(st);
	}
	drain(&r);
	if (tty)
		fprintf(stderr, "\r");

	/* Did the child get as far as the command? */
	if (read(rep[0], &c, 1) == 1) {
		if (read(rep[0], &err, sizeof(err)) != sizeof(err))
			err = EIO;
		if (c == 'e')
			fail(status, "cannot run %s: %s", argv[optind],
			     strerror(err));
		explain_sample_error(err, &in);
	}
footer:
	fprintf(rec_out, "throttled %llu %llu\nlost %llu\nexit %d\n",
		(unsigned long long)r.throttled,
		(unsigned long long)r.throttles, (unsigned long long)r.lost,
		status);
	if (fclose(rec_out))
		fail(EXIT_FAIL, "%s: %s", o.path, strerror(errno));
	fprintf(stderr, "pctr record: %llu samples (%llu lost) of %s every %llu events in %s\n",
		(unsigned long long)r.samples, (unsigned long long)r.lost,
		o.event, o.period, o.path);
	if (r.lost)
		fprintf(stderr, "pctr record: %llu samples did not fit the ring: a larger -m or -c keeps them\n",
			(unsigned long long)r.lost);
	if (r.throttles)
		fprintf(stderr, "pctr record: %llu samples throttled (%llu times over a CPU's sample-rate limit): a larger -c keeps them, or an admin raises the module's max_sample_rate or cpu_time_max_percent\n",
			(unsigned long long)r.throttled,
			(unsigned long long)r.throttles);
	return status;
}
