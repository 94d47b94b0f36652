// SPDX-License-Identifier: GPL-2.0
/*
 * pctr top: the hottest functions of running processes, or of every CPU,
 * live (pctr-top(1)), as perf top and pmcstat -T show them.
 *
 *   pctr top {-p PID[,PID...] | -a} [-e EVENT] [-c PERIOD] [-d SECS]
 *            [-n COUNT] [--sort sym|comm,sym|dso] [--rows N] [--stdio]
 *
 * The sampling is pctr record's own, run in a child: pctr record -p (or
 * -a) with its output, the record stream pctr report reads, as text
 * (--text), into a pseudo-terminal in raw mode (stdio writes a line at a
 * time to a terminal, where into a pipe it would hold some 80 samples
 * back: many seconds of a quiet process).  pctr top reads that stream as
 * it comes, counts each sample in the row of its sort key (top_count.c,
 * with pctr report's symbols) and every -d seconds shows the rows of
 * that interval, sorted by samples, then starts the next.  On a terminal
 * the view takes the whole screen (plain ANSI escapes, the terminal's
 * alternate screen) and q quits; with --stdio, or when the output is not
 * a terminal, each refresh is a block of lines.  ^C, SIGTERM or q ends
 * the recorder (the targets run on, as after pctr record -p) and gives
 * the terminal back as it was.
 *
 * Exit status: 0, 1 if sampling could not start or failed, 2 for usage
 * errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "fail.h"
#include "record.h"
#include "top.h"

#define EXIT_FAIL	1
#define EXIT_USAGE	2

static const char *prog = "pctr top";

#define fail(status, ...)	tool_fail(prog, status, __VA_ARGS__)

static int usage(FILE *f, int status)
{
	fprintf(f,
		"usage: pctr top {-p PID[,PID...] | -a} [-e EVENT] [-c PERIOD] [-d SECS] [-n COUNT]\n"
		"                [--sort sym|comm,sym|dso] [--rows N] [--stdio]\n"
		"  -p PIDS    sample these running processes, their threads and children\n"
		"  -a         sample every CPU (pctr record -a)\n"
		"  -e EVENT   the event to sample (pctr record -e; default as pctr record's)\n"
		"  -c PERIOD  events per sample (pctr record -c)\n"
		"  -d SECS    refresh every SECS seconds (default 1)\n"
		"  -n COUNT   stop after COUNT refreshes\n"
		"  --sort KEY a row per symbol (sym, the default), per process and symbol\n"
		"             (comm,sym) or per object (dso)\n"
		"  --rows N   show N rows (default: what the screen holds; 20 with --stdio)\n"
		"  --stdio    no full screen: a block of lines each refresh\n"
		"On a terminal, q quits.  See pctr-top(1).\n");
	return status;
}

struct top_opts {
	char		*rec[16];	/* pctr record's command line */
	int		nrec;
	char		*pids;		/* -p */
	int		system;		/* -a */
	double		delay;		/* -d */
	long		count;		/* -n, or 0 */
	long		rows;		/* --rows, or 0 */
	enum top_sort	sort;
	int		stdio;
};

/* Option @name's whole number, at least 1, or a usage error. */
static long whole(const char *name, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || v <= 0)
		fail(EXIT_USAGE, "%s %s: give a whole number", name, arg);
	return v;
}

static int parse_options(int argc, char **argv, struct top_opts *o)
{
	static const struct option longs[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "sort", required_argument, NULL, 's' },
		{ "rows", required_argument, NULL, 'r' },
		{ "stdio", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int opt;

	memset(o, 0, sizeof(*o));
	o->delay = 1;
	o->rec[o->nrec++] = "record";
	/* Lines to read as they come, not the binary file. */
	o->rec[o->nrec++] = "--text";
	o->rec[o->nrec++] = "-o";
	/* Not /dev/stdout: a system without udev's links has none. */
	o->rec[o->nrec++] = "/proc/self/fd/1";
	while ((opt = getopt_long(argc, argv, "p:ae:c:d:n:h", longs,
				  NULL)) != -1) {
		switch (opt) {
		case 'p':
		case 'a':
		case 'e':
		case 'c':
			/* pctr record's own, passed on. */
			if (o->nrec + 3 > (int)(sizeof(o->rec) / sizeof(o->rec[0])))
				fail(EXIT_USAGE, "-%c: too many options", opt);
			if (asprintf(&o->rec[o->nrec++], "-%c", opt) < 0)
				fail(EXIT_FAIL, "out of memory");
			if (optarg)
				o->rec[o->nrec++] = optarg;
			o->pids = opt == 'p' ? optarg : o->pids;
			o->system |= opt == 'a';
			break;
		case 'd':
			o->delay = strtod(optarg, &end);
			if (*end || !(o->delay >= 0.1) || o->delay > 3600)
				fail(EXIT_USAGE, "-d %s: give seconds, from 0.1 to 3600", optarg);
			break;
		case 'n':
			o->count = whole("-n", optarg);
			break;
		case 'r':
			o->rows = whole("--rows", optarg);
			break;
		case 's':
			if (top_sort_of(optarg) < 0)
				fail(EXIT_USAGE, "--sort %s: give sym, comm,sym or dso", optarg);
			o->sort = top_sort_of(optarg);
			break;
		case 'S':
			o->stdio = 1;
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, EXIT_USAGE);
		}
	}
	if (optind != argc)
		return usage(stderr, EXIT_USAGE);
	if (!o->pids == !o->system) {
		fprintf(stderr, "%s: give -p PID or -a (and not both)\n", prog);
		return usage(stderr, EXIT_USAGE);
	}
	return -1;
}

/* --- the recorder ------------------------------------------------------ */

/*
 * A pseudo-terminal for the stream, raw (no echo, no translation): its
 * master into *@master, its other end returned.
 */
static int stream_pty(int *master)
{
	struct termios t;
	int fd;

	*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*master < 0 || grantpt(*master) || unlockpt(*master))
		fail(EXIT_FAIL, "a pseudo-terminal for pctr record: %s",
		     strerror(errno));
	fd = open(ptsname(*master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || tcgetattr(fd, &t))
		fail(EXIT_FAIL, "a pseudo-terminal for pctr record: %s",
		     strerror(errno));
	cfmakeraw(&t);
	if (tcsetattr(fd, TCSANOW, &t))
		fail(EXIT_FAIL, "a pseudo-terminal for pctr record: %s",
		     strerror(errno));
	return fd;
}

/*
 * pctr record with @o's sampling, its stream on @out (a terminal's end)
 * and its messages on the pipe @err: the child's process ID.
 */
static pid_t start_recorder(struct top_opts *o, int out, int err[2])
{
	pid_t pid;

	pid = fork();
	if (pid < 0)
		fail(EXIT_FAIL, "fork: %s", strerror(errno));
	if (pid)
		return pid;
	if (dup2(out, 1) < 0 || dup2(err[1], 2) < 0)
		_exit(EXIT_FAIL);
	close(out);
	close(err[0]);
	close(err[1]);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	optind = 0;	/* getopt starts again, for pctr record's options */
	_exit(pctr_record(o->nrec, o->rec));
}

/* A pipe's lines as they come, each given whole to @line. */
struct lines {
	int	fd;
	char	*buf;
	size_t	len, cap;
	int	eof;
};

static void read_lines(struct lines *l, void (*line)(char *s, size_t len))
{
	ssize_t n;
	size_t at, nl;
	char *p, c;

	if (l->len + 65536 > l->cap) {
		l->cap = l->len + 65536;
		l->buf = xrealloc(l->buf, l->cap);
	}
	n = read(l->fd, l->buf + l->len, l->cap - l->len - 1);
	if (n <= 0) {
		/* A terminal's master reads EIO once the other end is shut. */
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			l->eof = 1;
		return;
	}
	l->len += n;
	/* Each line with its newline, ended by a NUL (there is room). */
	for (at = 0; (p = memchr(l->buf + at, '\n', l->len - at)); at = nl) {
		nl = p - l->buf + 1;
		c = l->buf[nl];
		l->buf[nl] = '\0';
		line(l->buf + at, nl - at);
		l->buf[nl] = c;
	}
	memmove(l->buf, l->buf + at, l->len - at);
	l->len -= at;
}

static struct top_opts opts;
static struct top_head head;

static void stream_line(char *s, size_t len)
{
	top_count_line(s, len, opts.sort, &head);
}

/* pctr record's messages, kept to show; those not yet shown from @shown. */
static char **msgs;
static unsigned int nmsgs, shown;

static void message_line(char *s, size_t len)
{
	msgs = xrealloc(msgs, (nmsgs + 1) * sizeof(*msgs));
	msgs[nmsgs] = strdup(s);
	if (!msgs[nmsgs])
		fail(EXIT_FAIL, "out of memory");
	msgs[nmsgs][strcspn(msgs[nmsgs], "\n")] = '\0';
	nmsgs++;
}

/* --- the terminal ------------------------------------------------------ */

static int screen;		/* the full-screen view is up */
static struct termios saved;
static int saved_ok;
static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

/* The terminal as it was: the normal screen, the cursor, the line mode. */
static void screen_end(void)
{
	if (screen) {
		fputs("\033[?25h\033[?1049l", stdout);
		fflush(stdout);
		screen = 0;
	}
	if (saved_ok) {
		tcsetattr(0, TCSAFLUSH, &saved);
		saved_ok = 0;
	}
}

static void screen_start(void)
{
	struct termios t;

	if (isatty(0) && !tcgetattr(0, &saved)) {
		t = saved;
		/* Keys one at a time, unechoed; ^C still signals. */
		t.c_lflag &= ~(ICANON | ECHO);
		t.c_cc[VMIN] = 0;
		t.c_cc[VTIME] = 0;
		saved_ok = !tcsetattr(0, TCSAFLUSH, &t);
	}
	atexit(screen_end);
	fputs("\033[?1049h\033[?25l", stdout);
	screen = 1;
}

static void screen_size(unsigned int *rows, unsigned int *cols)
{
	struct winsize w;

	*rows = 24;
	*cols = 80;
	if (!ioctl(1, TIOCGWINSZ, &w) && w.ws_row && w.ws_col) {
		*rows = w.ws_row;
		*cols = w.ws_col;
	}
}

/* --- the view ------------------------------------------------------------ */

/* One line, cut to @cols on the screen. */
static void put_line(unsigned int cols, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put_line(unsigned int cols, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (screen) {
		if (strlen(buf) > cols)
			buf[cols] = '\0';
		printf("%s\033[K\n", buf);
	} else {
		printf("%s\n", buf);
	}
}

static const char *const columns[] = {
	[TOP_SYM] = "symbol  [object]",
	[TOP_COMM_SYM] = "command          symbol  [object]",
	[TOP_DSO] = "[object]",
};

/* A row's key as shown: "symbol  [object]", by --sort. */
static void row_text(const char *key, char *buf, size_t len)
{
	const char *t1 = strchr(key, '\t');
	const char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;

	if (opts.sort == TOP_DSO)
		snprintf(buf, len, "[%s]", key);
	else if (opts.sort == TOP_SYM && t1)
		snprintf(buf, len, "%.*s  [%s]", (int)(t1 - key), key, t1 + 1);
	else if (t1 && t2)
		snprintf(buf, len, "%-16.*s %.*s  [%s]", (int)(t1 - key), key,
			 (int)(t2 - t1 - 1), t1 + 1, t2 + 1);
	else
		snprintf(buf, len, "%s", key);
}

static void show(double secs, unsigned int n)
{
	unsigned int rows, cols, i, max, *o;
	char what[80], text[900];

	screen_size(&rows, &cols);
	max = opts.rows ? opts.rows : screen ? (rows > 4 ? rows - 4 : 1) : 20;
	if (screen)
		fputs("\033[H", stdout);
	if (opts.pids)
		snprintf(what, sizeof(what), "process %s", opts.pids);
	else
		snprintf(what, sizeof(what), "every CPU");
	put_line(cols, "# pctr top: %s, %s every %" PRIu64 ": %" PRIu64 " samples in %.1f s (refresh %u%s)",
		 what, head.event[0] ? head.event : "?", head.period,
		 top_samples, secs, n, screen ? ", q quits" : "");
	if (screen)
		put_line(cols, "%s", nmsgs ? msgs[nmsgs - 1] : "");
	else
		for (; shown < nmsgs; shown++)
			fprintf(stderr, "%s\n", msgs[shown]);
	put_line(cols, "#  %%      samples  %s", columns[opts.sort]);
	o = sorted(&top_rows);
	for (i = 0; i < top_rows.n && i < max && top_rows.count[o[i]]; i++) {
		row_text(top_rows.str[o[i]], text, sizeof(text));
		put_line(cols, "%6.2f%% %10" PRIu64 "  %s",
			 100.0 * top_rows.count[o[i]] / top_samples,
			 top_rows.count[o[i]], text);
	}
	free(o);
	if (screen)
		fputs("\033[J", stdout);
	else
		putchar('\n');
	fflush(stdout);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- the command --------------------------------------------------------- */

/*
 * The recorder's end: 0, or what pctr top exits with; @stopped, we sent
 * it SIGTERM (before it has its handler, that ends it).
 */
static int recorder_status(pid_t child, int stopped)
{
	unsigned int i;
	int st;

	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR)
			return EXIT_FAIL;
	if ((WIFEXITED(st) && !WEXITSTATUS(st)) ||
	    (stopped && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM))
		return 0;
	screen_end();
	if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_USAGE && nmsgs) {
		/* What pctr top passed on was refused: the first line says. */
		fprintf(stderr, "%s\n", msgs[0]);
		if (opts.system && strstr(msgs[0], "invalid option"))
			fprintf(stderr, "%s: -a: this pctr cannot sample every CPU (its pctr record has no -a)\n",
				prog);
		return EXIT_USAGE;
	}
	for (i = shown; i < nmsgs; i++)
		fprintf(stderr, "%s\n", msgs[i]);
	if (WIFSIGNALED(st))
		fprintf(stderr, "%s: pctr record ended by signal %d\n", prog,
			WTERMSIG(st));
	return EXIT_FAIL;
}

int pctr_top(int argc, char **argv)
{
	struct lines out = { 0 }, err = { 0 };
	int outp, errp[2], status;
	struct pollfd p[3];
	double t0, next, left;
	unsigned int n = 0;
	int np;
	pid_t child;
	char key;

	status = parse_options(argc, argv, &opts);
	if (status >= 0)
		return status;
	sym_prog = prog;
	outp = stream_pty(&out.fd);
	if (pipe2(errp, O_CLOEXEC))
		fail(EXIT_FAIL, "pipe: %s", strerror(errno));
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	/* A write to a terminal gone, or a pipe closed: end, as on ^C. */
	signal(SIGPIPE, on_signal);
	child = start_recorder(&opts, outp, errp);
	close(outp);
	close(errp[1]);
	err.fd = errp[0];
	if (!opts.stdio && isatty(1))
		screen_start();
	/* While pctr record starts: a kernel's symbols take a while. */
	sym_kernel_now();

	t0 = now();
	next = t0 + opts.delay;
	while (!stop_sig && !out.eof) {
		left = next - now();
		if (left <= 0) {
			show(now() - t0, ++n);
			if (opts.count && n >= (unsigned long)opts.count)
				break;
			top_count_clear();
			t0 = now();
			next = t0 + opts.delay;
			continue;
		}
		p[0] = (struct pollfd){ .fd = out.fd, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = err.eof ? -1 : err.fd,
					.events = POLLIN };
		p[2] = (struct pollfd){ .fd = saved_ok ? 0 : -1,
					.events = POLLIN };
		np = poll(p, 3, (int)(left * 1000) + 1);
		if (np <= 0)
			continue;
		if (p[0].revents)
			read_lines(&out, stream_line);
		if (p[1].revents)
			read_lines(&err, message_line);
		if (p[2].revents && read(0, &key, 1) == 1 &&
		    (key == 'q' || key == 'Q'))
			break;
	}
	/* The recorder's stream ended by itself: the targets are gone. */
	if (out.eof && !stop_sig) {
		while (!err.eof)
			read_lines(&err, message_line);
		status = recorder_status(child, 0);
		if (status)
			return status;
		show(now() - t0, ++n);
		screen_end();
		fprintf(stderr, "%s: sampling ended: the processes sampled are gone\n",
			prog);
		return 0;
	}
	/* Its last lines (the file's end) are read, not counted. */
	kill(child, SIGTERM);
	top_count_clear();
	while (!out.eof)
		read_lines(&out, stream_line);
	while (!err.eof)
		read_lines(&err, message_line);
	status = recorder_status(child, 1);
	screen_end();
	return status;
}
