// SPDX-License-Identifier: GPL-2.0
/*
 * pctr stat: run a command and count it, as perf stat does.
 *
 *   pctr stat [-e EVENT[,EVENT...]]... [-x SEP | --json] [-o FILE]
 *             [--] COMMAND [ARGS...]
 *
 * A thread's own counters end at execve(), so the command cannot set up
 * its counters itself: pctr stat forks, has the child stop at its exec
 * (PTRACE_SEIZE with PTRACE_O_TRACEEXEC), and binds a descriptor to it
 * there (PCIOCBIND, PCTR_BIND_THREAD, which wants the caller to be the
 * thread's tracer).  The binding's setup runs in the child on its way
 * back to user space, so the new program is counted from its first
 * instruction; then pctr stat detaches and waits.  The bind ioctl waits
 * for the child, which must be running for it: it runs in a helper
 * thread, and the child is let go once that thread sleeps in the ioctl.
 * After the child exits, the binding's sums are final.
 *
 * A binding counts the one thread, and does not follow its children
 * (the driver's inheritance, PCTR_O_INHERIT, is for a thread's own
 * counters, which exec ends): pctr stat counts the command's main
 * thread, and says so.  Time is the wall clock around the run and the
 * command's CPU time (wait4(2)'s rusage, its children included): the
 * bound thread's virtual TSC is not readable through a binding.
 *
 * Every line of output goes to stderr (or -o FILE), so that the
 * command's own output stays as it is.  Exit status: the command's
 * (128 + N if signal N killed it), 126/127 if it could not be run, 1 for
 * pctr's own failures, 2 for usage errors and events it cannot count.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pctr.h"
#include "stat.h"

#define EXIT_FAIL	1
#define EXIT_USAGE	2

/* One counted event. */
struct ev {
	char		label[80];	/* as printed: name:mode */
	char		name[64];	/* the backend's name, or "raw" */
	uint64_t	fn;		/* with mode and PCTR_EN */
	unsigned int	slot;
	uint64_t	count;
};

/*
 * Generic names, each with the backend names that count it, best first
 * (an Intel fixed counter before a general one).
 */
static const char *const generic[][5] = {
	{ "instructions", "INST_RETIRED.ANY", "INSTRUCTION_RETIRED",
	  "RETIRED_INSTRUCTIONS", NULL },
	{ "cycles", "CPU_CLK_UNHALTED.THREAD", "UNHALTED_CORE_CYCLES",
	  "CYCLES_NOT_IN_HALT", NULL },
	{ "ref-cycles", "CPU_CLK_UNHALTED.REF_TSC",
	  "UNHALTED_REFERENCE_CYCLES", NULL },
	{ "branches", "BRANCH_INSTRUCTIONS_RETIRED",
	  "RETIRED_BRANCH_INSTRUCTIONS", NULL },
	{ "branch-misses", "MISPREDICTED_BRANCH_RETIRED",
	  "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", NULL },
};
#define NGENERIC	(sizeof(generic) / sizeof(generic[0]))

/* What each backend counts when no -e is given. */
static const char *default_events(unsigned int backend)
{
	if (backend == PCTR_BACKEND_SIM)
		return "sim_ticks,sim_ticks_div";
	return "instructions,cycles,branches,branch-misses";
}

static const char *prog = "pctr stat";

static void __attribute__((format(printf, 2, 3), noreturn))
fail(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static int stat_usage(FILE *f, int status)
{
	fprintf(f,
		"usage: pctr stat [-e EVENT[,EVENT...]]... [-x SEP | --json] [-o FILE]\n"
		"                 [--] COMMAND [ARGS...]\n"
		"  -e EVENT   a backend event name (pctr stat -l lists them), a generic name\n"
		"             (instructions, cycles, ref-cycles, branches, branch-misses) or\n"
		"             a raw function 0x...; :u (default), :k or :uk for the mode\n"
		"  -x SEP     one line per figure, fields separated by SEP\n"
		"  --json     one JSON object\n"
		"  -o FILE    write the figures to FILE instead of stderr\n"
		"  -l         list the backend's events and exit\n"
		"Counts the command's main thread; see pctr(1).\n");
	return status;
}

/* --- events -------------------------------------------------------------- */

static struct pctr_event *events;
static unsigned int nevents;

static void load_events(pctr_t *p)
{
	unsigned int i;

	nevents = p->info.pi_nevents;
	events = calloc(nevents ? nevents : 1, sizeof(*events));
	if (!events)
		fail(EXIT_FAIL, "out of memory");
	for (i = 0; i < nevents; i++) {
		events[i].pe_index = i;
		if (ioctl(p->fd, PCIOCEVENT, &events[i]) < 0)
			fail(EXIT_FAIL, "PCIOCEVENT %u: %s", i,
			     pctr_strerror(errno));
		events[i].pe_name[sizeof(events[i].pe_name) - 1] = '\0';
		events[i].pe_desc[sizeof(events[i].pe_desc) - 1] = '\0';
	}
}

static const struct pctr_event *find_event(const char *name)
{
	unsigned int i;

	for (i = 0; i < nevents; i++)
		if (!strcasecmp(events[i].pe_name, name))
			return &events[i];
	return NULL;
}

/* Edit distance, case-insensitive, for "did you mean". */
static unsigned int distance(const char *a, const char *b)
{
	unsigned int la = strlen(a), lb = strlen(b), i, j, d[64], prev, t;

	if (lb >= 64)
		lb = 63;
	for (j = 0; j <= lb; j++)
		d[j] = j;
	for (i = 1; i <= la; i++) {
		prev = d[0];
		d[0] = i;
		for (j = 1; j <= lb; j++) {
			t = d[j];
			d[j] = prev + (tolower((unsigned char)a[i - 1]) !=
				       tolower((unsigned char)b[j - 1]));
			if (d[j - 1] + 1 < d[j])
				d[j] = d[j - 1] + 1;
			if (t + 1 < d[j])
				d[j] = t + 1;
			prev = t;
		}
	}
	return d[lb];
}

static void __attribute__((noreturn)) unknown_event(const char *name)
{
	const char *best = NULL;
	unsigned int i, d, bd = ~0U;

	for (i = 0; i < nevents; i++) {
		d = distance(name, events[i].pe_name);
		if (d < bd) {
			bd = d;
			best = events[i].pe_name;
		}
	}
	for (i = 0; i < NGENERIC; i++) {
		d = distance(name, generic[i][0]);
		if (d < bd) {
			bd = d;
			best = generic[i][0];
		}
	}
	if (best && bd <= strlen(name) / 2 + 1)
		fail(EXIT_USAGE, "unknown event '%s': did you mean '%s'? (pctr stat -l lists them)",
		     name, best);
	fail(EXIT_USAGE, "unknown event '%s' (pctr stat -l lists them)", name);
}

/* The slots this backend has. */
static uint64_t slots_present(const struct pctr_info *in)
{
	uint64_t m = 0;
	unsigned int i;

	for (i = 0; i < in->pi_ngeneral && i < PCTR_MAX_GENERAL; i++)
		m |= 1ULL << i;
	for (i = 0; i < in->pi_nfixed && i < PCTR_MAX_FIXED; i++)
		m |= 1ULL << PCTR_FIXED(i);
	return m;
}

static uint64_t general_slots(const struct pctr_info *in)
{
	return slots_present(in) & ((1ULL << PCTR_FIXED_BASE) - 1);
}

/* The lowest free slot of @can, or -1. */
static int take_slot(uint64_t can, uint64_t *used)
{
	uint64_t free_ = can & ~*used;

	if (!free_)
		return -1;
	*used |= free_ & -free_;
	return __builtin_ctzll(free_);
}

#define RAW_BITS	(PCTR_EVENT_MASK | PCTR_UM_MASK | PCTR_CM_MASK | \
			 PCTR_E | PCTR_I | PCTR_EVENT_HI_MASK)

/*
 * One -e item into @e, on a free slot.  @quiet: a default event the
 * backend lacks is left out (0) instead of an error.
 */
static int parse_event(const struct pctr_info *in, char *item,
		       struct ev *e, uint64_t *used, int quiet)
{
	const struct pctr_event *pe = NULL;
	uint64_t mode = PCTR_U, fn = 0, can;
	const char *mstr = "u";
	char *colon, *end;
	unsigned int g, k;
	int slot = -1, found = 0;

	colon = strchr(item, ':');
	if (colon) {
		*colon = '\0';
		mstr = colon + 1;
		if (!strcmp(mstr, "u"))
			mode = PCTR_U;
		else if (!strcmp(mstr, "k"))
			mode = PCTR_K;
		else if (!strcmp(mstr, "uk") || !strcmp(mstr, "ku"))
			mode = PCTR_U | PCTR_K;
		else
			fail(EXIT_USAGE, "event '%s': unknown mode ':%s' (u, k or uk)",
			     item, mstr);
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
		for (g = 0; g < NGENERIC; g++)
			if (!strcasecmp(item, generic[g][0]))
				break;
		if (g < NGENERIC) {
			/* The first candidate the backend has with a free slot. */
			for (k = 1; generic[g][k] && slot < 0; k++) {
				pe = find_event(generic[g][k]);
				if (!pe)
					continue;
				found = 1;
				can = pe->pe_slots ? pe->pe_slots :
						     general_slots(in);
				slot = take_slot(can & slots_present(in), used);
			}
			if (!found) {
				if (quiet)
					return 0;
				fail(EXIT_USAGE, "event '%s': the %s backend does not count it",
				     item, in->pi_backend);
			}
		} else {
			pe = find_event(item);
			if (!pe) {
				if (quiet)
					return 0;
				unknown_event(item);
			}
			can = pe->pe_slots ? pe->pe_slots : general_slots(in);
			slot = take_slot(can & slots_present(in), used);
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
	e->slot = slot;
	e->fn = fn | mode | PCTR_EN;
	snprintf(e->label, sizeof(e->label), "%s:%s", item, mstr);
	return 1;
}

/* Every -e list into @evs; returns how many. */
static unsigned int parse_events(const struct pctr_info *in, char **lists,
				 unsigned int nlists, struct ev *evs)
{
	const char *deflist = default_events(in->pi_backend_id);
	unsigned int i, n = 0;
	uint64_t used = 0;
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
	unsigned int i, g, k;

	printf("backend %s: %u general, %u fixed counters\n",
	       p->info.pi_backend, p->info.pi_ngeneral, p->info.pi_nfixed);
	for (i = 0; i < nevents; i++)
		printf("  %-40s %s\n", events[i].pe_name, events[i].pe_desc);
	for (g = 0; g < NGENERIC; g++)
		for (k = 1; generic[g][k]; k++)
			if (find_event(generic[g][k])) {
				printf("  %-40s = %s\n", generic[g][0],
				       generic[g][k]);
				break;
			}
	printf("default: %s\n", default_events(p->info.pi_backend_id));
}

/* --- running the command -------------------------------------------------- */

struct binder {
	int			fd;
	struct pctr_bind	pb;
	atomic_int		tid;
	atomic_int		done;
	int			err;
};

static void *bind_thread(void *arg)
{
	struct binder *b = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	atomic_store(&b->tid, (int)syscall(SYS_gettid));
	b->err = ioctl(b->fd, PCIOCBIND, &b->pb) ? errno : 0;
	atomic_store(&b->done, 1);
	return NULL;
}

/* Is thread @tid of this process asleep in ioctl(2)? */
static int in_ioctl(int tid)
{
	char path[64], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atoi(buf) == SYS_ioctl && isdigit((unsigned char)buf[0]);
}

static void pause_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/*
 * A stop of the traced child while we wait for something else: pass a
 * signal on, leave a job-control stop a stop.  0, or 1 once it is gone
 * (its status in *status).
 */
static int service_child(pid_t pid, int *status, int *gone)
{
	int st;
	pid_t r;

	r = waitpid(pid, &st, WNOHANG | __WALL);
	if (r <= 0)
		return 0;
	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		*status = st;
		*gone = 1;
		return 1;
	}
	if (WIFSTOPPED(st)) {
		if ((st >> 16) == PTRACE_EVENT_STOP)
			ptrace(PTRACE_LISTEN, pid, 0, 0);
		else if ((st >> 8) == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
			ptrace(PTRACE_CONT, pid, 0, 0);
		else
			ptrace(PTRACE_CONT, pid, 0, (void *)(long)WSTOPSIG(st));
	}
	return 0;
}

/*
 * Bind @b to child @pid, stopped at its exec: start the ioctl, let the
 * child go once the ioctl waits for it, serve the child's stops until
 * the ioctl returns.  The ioctl gives up with EAGAIN when it finds the
 * child still stopped after about 10 ms (we were too slow to let it
 * go): while the child has not been let go, that costs nothing and the
 * bind is tried again (the kernel runs the newest request first, the
 * abandoned one then finds the counters taken).  If the child was let
 * go just as the ioctl gave up, it is bound again while it runs, and
 * *late says that its first instructions were not counted.
 */
static int bind_child(struct binder *b, pid_t pid, int *status, int *gone,
		      int *late, struct timespec *t0)
{
	int tries, waited, released = 0;
	pthread_t th;
	long tid;

	for (tries = 0; tries < 50; tries++) {
		atomic_store(&b->tid, 0);
		atomic_store(&b->done, 0);
		if (pthread_create(&th, NULL, bind_thread, b))
			return EAGAIN;
		if (!released) {
			/*
			 * Let the child go once the ioctl waits for it (or
			 * when that cannot be seen, after a moment).
			 */
			for (waited = 0; waited < 200000; waited += 20) {
				if (atomic_load(&b->done))
					break;
				tid = atomic_load(&b->tid);
				if (tid && in_ioctl(tid))
					break;
				pause_us(20);
			}
			if (!atomic_load(&b->done)) {
				clock_gettime(CLOCK_MONOTONIC, t0);
				ptrace(PTRACE_CONT, pid, 0, 0);
				released = 1;
			}
		}
		while (!atomic_load(&b->done)) {
			if (!*gone)
				service_child(pid, status, gone);
			pause_us(50);
		}
		pthread_join(th, NULL);
		if (b->err != EAGAIN || *gone)
			return b->err;
		if (released)
			*late = 1;
	}
	return EAGAIN;
}

/* Stop tracing the child (running, or gone already). */
static void detach(pid_t pid, int *status, int *gone)
{
	int st;

	if (*gone || ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0)
		return;
	for (;;) {
		if (waitpid(pid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			*status = st;
			*gone = 1;
			return;
		}
		if (!WIFSTOPPED(st))
			continue;
		if ((st >> 16) == PTRACE_EVENT_STOP ||
		    (st >> 8) == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
			ptrace(PTRACE_DETACH, pid, 0, 0);
		else
			ptrace(PTRACE_DETACH, pid, 0,
			       (void *)(long)WSTOPSIG(st));
		return;
	}
}

/* --- output --------------------------------------------------------------- */

static const char *slot_name(unsigned int s, char *buf, size_t len)
{
	if (s < PCTR_FIXED_BASE)
		snprintf(buf, len, "pmc%u", s);
	else
		snprintf(buf, len, "fix%u", s - PCTR_FIXED_BASE);
	return buf;
}

static int is_named(const struct ev *e, unsigned int g)
{
	unsigned int k;

	for (k = 1; generic[g][k]; k++)
		if (!strcmp(e->name, generic[g][k]))
			return 1;
	return 0;
}

/* Raw functions that are the instructions or cycles of a backend. */
static int raw_is(const struct pctr_info *in, const struct ev *e, int cycles)
{
	uint64_t ev = e->fn & (PCTR_EVENT_MASK | PCTR_UM_MASK | PCTR_CM_MASK |
			       PCTR_E | PCTR_I | PCTR_EVENT_HI_MASK);

	if (strcmp(e->name, "raw"))
		return 0;
	if (in->pi_backend_id == PCTR_BACKEND_INTEL)
		return ev == (cycles ? 0x3c : 0xc0);
	if (in->pi_backend_id == PCTR_BACKEND_AMD)
		return ev == (cycles ? 0x76 : 0xc0);
	return 0;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

struct result {
	char		**argv;
	pid_t		pid;
	int		code;		/* pctr stat's exit status */
	int		late;
	double		elapsed, user, sys;
	int		have_ipc;
	double		ipc;
};

static void print_human(FILE *f, const struct pctr_info *in,
			const struct ev *evs, unsigned int n,
			const struct result *r)
{
	unsigned int i;

	fprintf(f, "\n Counter stats for '");
	for (i = 0; r->argv[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", r->argv[i]);
	fprintf(f, "' (pid %d, main thread only; %s backend):\n\n", r->pid,
		in->pi_backend);
	for (i = 0; i < n; i++) {
		if (r->have_ipc && (is_named(&evs[i], 0) ||
				    raw_is(in, &evs[i], 0)))
			fprintf(f, " %20llu      %-32s # %8.2f  insn per cycle\n",
				(unsigned long long)evs[i].count, evs[i].label,
				r->ipc);
		else
			fprintf(f, " %20llu      %s\n",
				(unsigned long long)evs[i].count, evs[i].label);
	}
	fprintf(f, "\n %20.9f seconds time elapsed\n", r->elapsed);
	fprintf(f, " %20.9f seconds user\n", r->user);
	fprintf(f, " %20.9f seconds sys\n", r->sys);
	if (r->late)
		fprintf(f, "\n (counting started after the command had begun)\n");
	if (r->code >= 128)
		fprintf(f, "\n (the command was killed by signal %d)\n",
			r->code - 128);
	fputc('\n', f);
}

static void print_sep(FILE *f, const char *sep, const struct ev *evs,
		      unsigned int n, const struct result *r)
{
	char sb[16];
	unsigned int i;

	for (i = 0; i < n; i++)
		fprintf(f, "%llu%s%s%s%s%s%#llx\n",
			(unsigned long long)evs[i].count, sep, evs[i].label, sep,
			slot_name(evs[i].slot, sb, sizeof(sb)), sep,
			(unsigned long long)evs[i].fn);
	if (r->have_ipc)
		fprintf(f, "%.4f%sipc%s%s\n", r->ipc, sep, sep, sep);
	fprintf(f, "%.9f%sseconds-elapsed%s%s\n", r->elapsed, sep, sep, sep);
	fprintf(f, "%.9f%sseconds-user%s%s\n", r->user, sep, sep, sep);
	fprintf(f, "%.9f%sseconds-sys%s%s\n", r->sys, sep, sep, sep);
}

static void print_json(FILE *f, const struct pctr_info *in,
		       const struct ev *evs, unsigned int n,
		       const struct result *r)
{
	char sb[16];
	unsigned int i;

	fprintf(f, "{\"command\": [");
	for (i = 0; r->argv[i]; i++) {
		if (i)
			fprintf(f, ", ");
		json_str(f, r->argv[i]);
	}
	fprintf(f, "], \"pid\": %d, \"exit_status\": %d, ", r->pid, r->code);
	fprintf(f, "\"scope\": \"main-thread\", \"backend\": ");
	json_str(f, in->pi_backend);
	fprintf(f, ", \"late_start\": %s, \"counters\": [",
		r->late ? "true" : "false");
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"event\": ", i ? ", " : "");
		json_str(f, evs[i].label);
		fprintf(f, ", \"slot\": \"%s\", \"function\": \"%#llx\", \"count\": %llu}",
			slot_name(evs[i].slot, sb, sizeof(sb)),
			(unsigned long long)evs[i].fn,
			(unsigned long long)evs[i].count);
	}
	fprintf(f, "]");
	if (r->have_ipc)
		fprintf(f, ", \"ipc\": %.4f", r->ipc);
	fprintf(f, ", \"seconds_elapsed\": %.9f, \"seconds_user\": %.9f, \"seconds_sys\": %.9f}\n",
		r->elapsed, r->user, r->sys);
}

/* --- the subcommand -------------------------------------------------------- */

int pctr_stat(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char **lists = NULL, *sep = NULL, *outfile = NULL, **cmd;
	unsigned int nlists = 0, n, i;
	int c, json = 0, list = 0, pfd[2], st = 0, gone = 0, err, code;
	struct ev evs[PCTR_NUM];
	struct binder b = { 0 };
	struct result r = { 0 };
	struct timespec t0, t1;
	struct rusage ru;
	struct pctrst rd;
	uint64_t inst = 0, cyc = 0;
	int have_inst = 0, have_cyc = 0;
	pctr_t *p;
	FILE *out = stderr;
	pid_t pid;
	char go = 1;

	/* Options end at the first word that is not one: the command. */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:x:o:lh", longopts, NULL)) != -1) {
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
		case 'l':
			list = 1;
			break;
		case 'h':
			return stat_usage(stdout, 0);
		default:
			fprintf(stderr, "%s: unknown option or missing argument: '%s'\n",
				prog, argv[optind - 1]);
			return stat_usage(stderr, EXIT_USAGE);
		}
	}
	cmd = argv + optind;
	if (sep && json) {
		fprintf(stderr, "%s: -x and --json exclude each other\n", prog);
		return stat_usage(stderr, EXIT_USAGE);
	}
	if (!list && !*cmd) {
		fprintf(stderr, "%s: no command to run\n", prog);
		return stat_usage(stderr, EXIT_USAGE);
	}
	if (list && *cmd)
		return stat_usage(stderr, EXIT_USAGE);

	p = pctr_open(O_RDWR);
	if (!p) {
		err = errno;
		fprintf(stderr, "%s: open %s: %s\n", prog,
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
	n = parse_events(&p->info, lists, nlists, evs);
	check_events(p, evs, n);
	if (outfile) {
		out = fopen(outfile, "we");
		if (!out)
			fail(EXIT_FAIL, "%s: %s", outfile, strerror(errno));
	}

	b.fd = open(getenv("PCTR_DEVICE") && *getenv("PCTR_DEVICE") ?
		    getenv("PCTR_DEVICE") : PCTR_DEVICE, O_RDWR | O_CLOEXEC);
	if (b.fd < 0)
		fail(EXIT_FAIL, "open: %s", strerror(errno));
	b.pb.pb_kind = PCTR_BIND_THREAD;
	for (i = 0; i < n; i++)
		b.pb.pb_fn[evs[i].slot] = evs[i].fn;

	if (pipe2(pfd, O_CLOEXEC))
		fail(EXIT_FAIL, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		fail(EXIT_FAIL, "fork: %s", strerror(errno));
	if (!pid) {
		/* Wait to be traced, then become the command. */
		close(pfd[1]);
		if (read(pfd[0], &go, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		err = errno;
		fprintf(stderr, "%s: %s: %s\n", prog, cmd[0], strerror(err));
		_exit(err == ENOENT ? 127 : 126);
	}
	close(pfd[0]);
	if (ptrace(PTRACE_SEIZE, pid, 0,
		   (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)) < 0) {
		err = errno;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail(EXIT_FAIL, "cannot trace the command (%s): pctr stat needs ptrace(2) of its child (see /proc/sys/kernel/yama/ptrace_scope)",
		     strerror(err));
	}
	if (write(pfd[1], &go, 1) != 1)
		fail(EXIT_FAIL, "pipe: %s", strerror(errno));
	close(pfd[1]);

	/* Up to the exec (or the child's end, if exec failed). */
	for (;;) {
		if (waitpid(pid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			fail(EXIT_FAIL, "waitpid: %s", strerror(errno));
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return WIFEXITED(st) ? WEXITSTATUS(st) :
					       128 + WTERMSIG(st);
		if (!WIFSTOPPED(st))
			continue;
		if ((st >> 8) == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
			break;
		if ((st >> 16) == PTRACE_EVENT_STOP)
			ptrace(PTRACE_LISTEN, pid, 0, 0);
		else
			ptrace(PTRACE_CONT, pid, 0, (void *)(long)WSTOPSIG(st));
	}

	b.pb.pb_id = pid;
	err = bind_child(&b, pid, &st, &gone, &r.late, &t0);
	if (err) {
		if (!gone) {
			kill(pid, SIGKILL);
			while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
				;
		}
		if (gone)
			fail(EXIT_FAIL, "the command ended before it could be counted (%s)",
			     pctr_strerror(err));
		if (err == EAGAIN)
			fail(EXIT_FAIL, "cannot count the command: %s (a CPU binding, cpustat, holds the counters?)",
			     pctr_strerror(err));
		fail(EXIT_FAIL, "cannot count the command: PCIOCBIND: %s",
		     pctr_strerror(err));
	}
	detach(pid, &st, &gone);

	/* The command has the terminal's signals; pctr stat waits it out. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	memset(&ru, 0, sizeof(ru));
	if (!gone) {
		while (wait4(pid, &st, 0, &ru) < 0) {
			if (errno != EINTR)
				fail(EXIT_FAIL, "wait4: %s", strerror(errno));
		}
	} else {
		getrusage(RUSAGE_CHILDREN, &ru);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	memset(&rd, 0, sizeof(rd));
	if (ioctl(b.fd, PCIOCRD, &rd) < 0)
		fail(EXIT_FAIL, "PCIOCRD: %s", pctr_strerror(errno));
	for (i = 0; i < n; i++) {
		evs[i].count = rd.pctr_hwc[evs[i].slot];
		if (!have_inst && (is_named(&evs[i], 0) ||
				   raw_is(&p->info, &evs[i], 0))) {
			inst = evs[i].count;
			have_inst = 1;
		}
		if (!have_cyc && (is_named(&evs[i], 1) ||
				  raw_is(&p->info, &evs[i], 1))) {
			cyc = evs[i].count;
			have_cyc = 1;
		}
	}
	code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r.argv = cmd;
	r.pid = pid;
	r.code = code;
	r.elapsed = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	r.user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	r.sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	r.have_ipc = have_inst && have_cyc && cyc;
	r.ipc = r.have_ipc ? (double)inst / cyc : 0;
	if (json)
		print_json(out, &p->info, evs, n, &r);
	else if (sep)
		print_sep(out, sep, evs, n, &r);
	else
		print_human(out, &p->info, evs, n, &r);
	if (out != stderr && fclose(out))
		fail(EXIT_FAIL, "%s: %s", outfile, strerror(errno));
	close(b.fd);
	pctr_close(p);
	return code;
}
