// SPDX-License-Identifier: GPL-2.0
/*
 * pctr stat's output (stat.c has the subcommand): the counts as a table
 * for people, as SEP-separated fields (-x), as one JSON object
 * (--json, through json-c) or in the OpenMetrics text format
 * (--openmetrics), the lines of each -I interval as they pass, and
 * node_exporter's textfile (--textfile).  Every line goes to stderr or -o FILE, so that the command's own
 * output stays as it is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "events.h"
#include "stat_internal.h"

static const char *slot_name(unsigned int s, char *buf, size_t len)
{
	if (s < PCTR_FIXED_BASE)
		snprintf(buf, len, "pmc%u", s);
	else
		snprintf(buf, len, "fix%u", s - PCTR_FIXED_BASE);
	return buf;
}

/* Whether @e is one of the backend events of generic name @g. */
static int is_named(const struct ev *e, unsigned int g)
{
	return generic_event_is(&generic_events[g], e->name);
}

/* Raw functions that are the instructions or cycles of a backend. */
static int raw_is(const struct pctr_info *in, const struct ev *e, int cycles)
{
	uint64_t ev = e->fn & RAW_BITS;

	if (strcmp(e->name, "raw"))
		return 0;
	if (in->pi_backend_id == PCTR_BACKEND_INTEL)
		return ev == (cycles ? 0x3c : 0xc0);
	if (in->pi_backend_id == PCTR_BACKEND_AMD)
		return ev == (cycles ? 0x76 : 0xc0);
	return 0;
}

int ipc_of(const struct pctr_info *in, const struct ev *evs, unsigned int n,
	   const uint64_t *val, double *ipc)
{
	int have_inst = 0, have_cyc = 0;
	uint64_t inst = 0, cyc = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!have_inst && (is_named(&evs[i], GENERIC_INSTRUCTIONS) ||
				   raw_is(in, &evs[i], 0))) {
			inst = val[i];
			have_inst = 1;
		}
		if (!have_cyc && (is_named(&evs[i], GENERIC_CYCLES) ||
				  raw_is(in, &evs[i], 1))) {
			cyc = val[i];
			have_cyc = 1;
		}
	}
	if (!have_inst || !have_cyc || !cyc)
		return 0;
	*ipc = (double)inst / cyc;
	return 1;
}

/*
 * The JSON goes through json-c.  json-c escapes quotes, backslashes and
 * control characters but copies every byte from 0x80 up as it is, valid
 * UTF-8 or not, and a command line can hold any bytes: json_text() makes
 * strings valid first.
 */
#define JSON_FLAGS	(JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/*
 * The length of the UTF-8 sequence @s begins, or 0 if it is not one
 * (RFC 3629: no overlong forms, surrogates or code points past
 * U+10FFFF).
 */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0];
	unsigned int cp;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* the NUL stops here too */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* A JSON string of @s, each byte that is not valid UTF-8 as U+FFFD. */
static json_object *json_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i, n, o = 0;
	json_object *j;
	char *buf;

	buf = malloc(len * 3 + 1);	/* a U+FFFD is 3 bytes */
	if (!buf)
		fail(EXIT_FAIL, "out of memory for the JSON output");
	for (i = 0; i < len; i += n) {
		n = utf8_seq(p + i);
		if (n) {
			memcpy(buf + o, s + i, n);
			o += n;
		} else {
			memcpy(buf + o, "\xef\xbf\xbd", 3);
			o += 3;
			n = 1;
		}
	}
	j = json_object_new_string_len(buf, (int)o);
	free(buf);
	if (!j)
		fail(EXIT_FAIL, "out of memory for the JSON output");
	return j;
}

/* @v as a JSON number written "%.*f", as the text formats have it. */
static json_object *json_fixed(double v, int decimals)
{
	char b[64];

	snprintf(b, sizeof(b), "%.*f", decimals, v);
	return json_object_new_double_s(v, b);
}

/* @o on a line of @f; json-c returns NULL when out of memory. */
static void json_print(FILE *f, json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_FLAGS);

	if (!s)
		fail(EXIT_FAIL, "out of memory for the JSON output");
	fprintf(f, "%s\n", s);
	json_object_put(o);
}

static void print_target(FILE *f, const struct result *r)
{
	unsigned int i;

	if (!r->argv) {
		fprintf(f, "process %d", r->pid);
		return;
	}
	fputc('\'', f);
	for (i = 0; r->argv[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", r->argv[i]);
	fputc('\'', f);
}

void print_human(FILE *f, const struct pctr_info *in, const struct ev *evs,
		 unsigned int n, const struct result *r, int per_thread)
{
	unsigned int i, k, nr = r->nrecs;
	double ipc;

	fprintf(f, "\n Counter stats for ");
	print_target(f, r);
	fprintf(f, " (pid %d; %u thread%s in %u process%s; %s backend):\n\n",
		r->pid, r->nthreads, r->nthreads == 1 ? "" : "s", r->nprocs,
		r->nprocs == 1 ? "" : "es", in->pi_backend);
	if (per_thread) {
		for (k = 0; k < nr; k++) {
			const struct rec *c = &r->rec[k];

			for (i = 0; i < n; i++)
				fprintf(f, " %8d/%-4d %20llu      %s\n", c->pid,
					c->lwp, (unsigned long long)c->val[i],
					evs[i].label);
			if (ipc_of(in, evs, n, c->val, &ipc))
				fprintf(f, " %8d/%-4d %20.2f      insn per cycle\n",
					c->pid, c->lwp, ipc);
		}
		fputc('\n', f);
	}
	for (i = 0; i < n; i++) {
		/* Counted part of the time only: scaled and marked, as perf. */
		if (r->pct[i] <= 0)
			fprintf(f, " %20s      %s\n", "<not counted>",
				evs[i].label);
		else if (r->have_ipc &&
			 (is_named(&evs[i], GENERIC_INSTRUCTIONS) ||
			  raw_is(in, &evs[i], 0)))
			fprintf(f, " %20llu      %-32s # %8.2f  insn per cycle",
				(unsigned long long)r->val[i], evs[i].label,
				r->ipc);
		else
			fprintf(f, " %20llu      %s",
				(unsigned long long)r->val[i], evs[i].label);
		if (r->pct[i] > 0 && r->pct[i] < 100)
			fprintf(f, "  (%.2f%%)", r->pct[i]);
		if (r->pct[i] > 0)
			fputc('\n', f);
	}
	fprintf(f, "\n %20.9f seconds time elapsed\n", r->elapsed);
	fprintf(f, " %20.9f seconds on cpu (the threads' virtual TSC)\n",
		r->oncpu);
	if (r->have_rusage) {
		fprintf(f, " %20.9f seconds user\n", r->user);
		fprintf(f, " %20.9f seconds sys\n", r->sys);
	}
	if (r->attached)
		fprintf(f, "\n (counting started after the process had begun)\n");
	if (r->lost)
		fprintf(f, "\n (%u threads beyond %u not counted)\n", r->lost,
			MAX_RECS);
	if (r->code >= 128 && r->argv)
		fprintf(f, "\n (the command was killed by signal %d)\n",
			r->code - 128);
	fputc('\n', f);
}

void print_sep(FILE *f, const char *sep, const struct ev *evs,
	       unsigned int n, const struct result *r, int per_thread)
{
	unsigned int i, k, nr = r->nrecs;
	char sb[16];

	if (per_thread)
		for (k = 0; k < nr; k++)
			for (i = 0; i < n; i++)
				fprintf(f, "%d/%d%s%llu%s%s\n",
					r->rec[k].pid, r->rec[k].lwp,
					sep,
					(unsigned long long)r->rec[k].val[i],
					sep, evs[i].label);
	for (i = 0; i < n; i++)
		fprintf(f, "%llu%s%s%s%s%s%#llx\n",
			(unsigned long long)r->val[i], sep, evs[i].label, sep,
			slot_name(evs[i].slot, sb, sizeof(sb)), sep,
			(unsigned long long)evs[i].fn);
	if (r->have_ipc)
		fprintf(f, "%.4f%sipc%s%s\n", r->ipc, sep, sep, sep);
	fprintf(f, "%.9f%sseconds-elapsed%s%s\n", r->elapsed, sep, sep, sep);
	fprintf(f, "%.9f%sseconds-on-cpu%s%s\n", r->oncpu, sep, sep, sep);
	if (r->have_rusage) {
		fprintf(f, "%.9f%sseconds-user%s%s\n", r->user, sep, sep, sep);
		fprintf(f, "%.9f%sseconds-sys%s%s\n", r->sys, sep, sep, sep);
	}
	fprintf(f, "%u%sthreads%s%s\n", r->nthreads, sep, sep, sep);
	fprintf(f, "%u%sprocesses%s%s\n", r->nprocs, sep, sep, sep);
}

void print_json(FILE *f, const struct pctr_info *in, const struct ev *evs,
		unsigned int n, const struct result *r, int per_thread)
{
	json_object *o = json_object_new_object(), *a, *c, *t;
	unsigned int i, k, nr = r->nrecs;
	char sb[16], fn[24];

	if (!o)
		fail(EXIT_FAIL, "out of memory for the JSON output");
	if (r->argv) {
		a = json_object_new_array();
		for (i = 0; r->argv[i]; i++)
			json_object_array_add(a, json_text(r->argv[i]));
		json_object_object_add(o, "command", a);
		json_object_object_add(o, "exit_status",
				       json_object_new_int(r->code));
	}
	json_object_object_add(o, "pid", json_object_new_int(r->pid));
	json_object_object_add(o, "scope",
			       json_object_new_string("threads-and-children"));
	json_object_object_add(o, "backend", json_text(in->pi_backend));
	json_object_object_add(o, "late_start",
			       json_object_new_boolean(r->attached));
	json_object_object_add(o, "threads",
			       json_object_new_int64(r->nthreads));
	json_object_object_add(o, "processes",
			       json_object_new_int64(r->nprocs));
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		c = json_object_new_object();
		json_object_object_add(c, "event", json_text(evs[i].label));
		json_object_object_add(c, "slot", json_object_new_string(
			slot_name(evs[i].slot, sb, sizeof(sb))));
		snprintf(fn, sizeof(fn), "%#llx", (unsigned long long)evs[i].fn);
		json_object_object_add(c, "function",
				       json_object_new_string(fn));
		json_object_object_add(c, "count",
				       json_object_new_uint64(r->val[i]));
		json_object_array_add(a, c);
	}
	json_object_object_add(o, "counters", a);
	if (per_thread) {
		a = json_object_new_array();
		for (k = 0; k < nr; k++) {
			c = json_object_new_object();
			json_object_object_add(c, "pid",
					       json_object_new_int(r->rec[k].pid));
			json_object_object_add(c, "lwp",
					       json_object_new_int(r->rec[k].lwp));
			t = json_object_new_array();
			for (i = 0; i < n; i++)
				json_object_array_add(t,
					json_object_new_uint64(r->rec[k].val[i]));
			json_object_object_add(c, "counts", t);
			json_object_array_add(a, c);
		}
		json_object_object_add(o, "per_thread", a);
	}
	if (r->have_ipc)
		json_object_object_add(o, "ipc", json_fixed(r->ipc, 4));
	json_object_object_add(o, "seconds_elapsed", json_fixed(r->elapsed, 9));
	json_object_object_add(o, "seconds_on_cpu", json_fixed(r->oncpu, 9));
	if (r->have_rusage) {
		json_object_object_add(o, "seconds_user", json_fixed(r->user, 9));
		json_object_object_add(o, "seconds_sys", json_fixed(r->sys, 9));
	}
	json_print(f, o);
}

/*
 * An OpenMetrics label value: '\', '"' and newline escaped; a byte
 * outside printable ASCII as '?' (the text must be UTF-8).
 */
static void om_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s >= ' ' && *s < 0x7f ? *s : '?', f);
	}
}

/* A metric family's TYPE, UNIT (if any) and HELP lines. */
static void om_family(FILE *f, const char *name, const char *type,
		      const char *unit, const char *help)
{
	fprintf(f, "# TYPE %s %s\n", name, type);
	if (unit)
		fprintf(f, "# UNIT %s %s\n", name, unit);
	fprintf(f, "# HELP %s %s\n", name, help);
}

/* The pctr_events_total samples, one per event (both text formats). */
static void om_events(FILE *f, const struct pctr_info *in,
		      const struct ev *evs, unsigned int n, const uint64_t *val)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		fputs("pctr_events_total{event=\"", f);
		om_label(f, evs[i].label);
		fputs("\",backend=\"", f);
		om_label(f, in->pi_backend);
		fprintf(f, "\"} %llu\n", (unsigned long long)val[i]);
	}
}

/*
 * --openmetrics: the OpenMetrics text format (and Prometheus's), names
 * as Prometheus's conventions have them: a counter family's samples
 * end in _total, a unit is the name's last word, one family's samples
 * together, "# EOF" last.
 */
void print_openmetrics(FILE *f, const struct pctr_info *in,
		       const struct ev *evs, unsigned int n,
		       const struct result *r, int per_thread)
{
	unsigned int i, k;

	om_family(f, "pctr_events", "counter", NULL,
		  "Events counted for the command's threads and children.");
	om_events(f, in, evs, n, r->val);
	if (per_thread) {
		om_family(f, "pctr_thread_events", "counter", NULL,
			  "Events counted for each thread.");
		for (k = 0; k < r->nrecs; k++)
			for (i = 0; i < n; i++) {
				fprintf(f, "pctr_thread_events_total{pid=\"%d\",lwp=\"%d\",event=\"",
					r->rec[k].pid, r->rec[k].lwp);
				om_label(f, evs[i].label);
				fprintf(f, "\"} %llu\n",
					(unsigned long long)r->rec[k].val[i]);
			}
	}
	if (r->have_ipc) {
		om_family(f, "pctr_instructions_per_cycle", "gauge", NULL,
			  "Instructions retired per core cycle.");
		fprintf(f, "pctr_instructions_per_cycle %.4f\n", r->ipc);
	}
	om_family(f, "pctr_threads", "gauge", NULL, "Threads counted.");
	fprintf(f, "pctr_threads %u\n", r->nthreads);
	om_family(f, "pctr_processes", "gauge", NULL, "Processes counted.");
	fprintf(f, "pctr_processes %u\n", r->nprocs);
	if (r->argv) {
		om_family(f, "pctr_exit_status", "gauge", NULL,
			  "The command's exit status.");
		fprintf(f, "pctr_exit_status %d\n", r->code);
	}
	om_family(f, "pctr_elapsed_seconds", "gauge", "seconds",
		  "Wall-clock time counted.");
	fprintf(f, "pctr_elapsed_seconds %.9f\n", r->elapsed);
	om_family(f, "pctr_on_cpu_seconds", "counter", "seconds",
		  "Time the counted threads ran, from their counters' TSC.");
	fprintf(f, "pctr_on_cpu_seconds_total %.9f\n", r->oncpu);
	if (r->have_rusage) {
		om_family(f, "pctr_cpu_seconds", "counter", "seconds",
			  "CPU time of the command and its children, by mode.");
		fprintf(f, "pctr_cpu_seconds_total{mode=\"user\"} %.9f\n",
			r->user);
		fprintf(f, "pctr_cpu_seconds_total{mode=\"system\"} %.9f\n",
			r->sys);
	}
	fputs("# EOF\n", f);
}

/*
 * --textfile FILE: the counts so far in Prometheus's text format (what
 * node_exporter's textfile collector reads: a counter family is named
 * with its _total, no UNIT and no EOF lines), written to a temporary
 * file beside FILE and renamed over it, so that a scrape never reads
 * half a file.  The temporary name does not end in .prom: the collector
 * skips it.  @running: 1 while the command runs, 0 in the last write.
 */
void write_textfile(const char *path, const struct pctr_info *in,
		    const struct ev *evs, unsigned int n, const uint64_t *val,
		    uint64_t tick, double elapsed, int running)
{
	char *tmp;
	FILE *f;
	int fd;

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		fail(EXIT_FAIL, "out of memory");
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0644) || !(f = fdopen(fd, "w")))
		fail(EXIT_FAIL, "--textfile %s: %s", tmp, strerror(errno));
	fprintf(f, "# HELP pctr_events_total Events counted for the command's threads and children.\n"
		"# TYPE pctr_events_total counter\n");
	om_events(f, in, evs, n, val);
	fprintf(f, "# HELP pctr_on_cpu_seconds_total Time the counted threads ran, from their counters' TSC.\n"
		"# TYPE pctr_on_cpu_seconds_total counter\n"
		"pctr_on_cpu_seconds_total %.9f\n",
		in->pi_tsc_khz ? tick / (in->pi_tsc_khz * 1e3) : 0.0);
	fprintf(f, "# HELP pctr_elapsed_seconds Wall-clock time counted.\n"
		"# TYPE pctr_elapsed_seconds gauge\n"
		"pctr_elapsed_seconds %.9f\n", elapsed);
	fprintf(f, "# HELP pctr_running Whether pctr stat is still counting (0: the figures are final).\n"
		"# TYPE pctr_running gauge\n"
		"pctr_running %d\n", running);
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		fail(EXIT_FAIL, "--textfile %s: %s", path, strerror(errno));
	}
	free(tmp);
}

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

void print_interval(struct interval *iv)
{
	uint64_t val[PCTR_NUM], tick, d;
	double t = since(&iv->t0);
	json_object *o;
	unsigned int i;

	count_sum(val, &tick, NULL);
	if (iv->textfile) {
		write_textfile(iv->textfile, iv->in, iv->evs, iv->n, val, tick,
			       t, !atomic_load(&iv->stop));
		return;
	}
	for (i = 0; i < iv->n; i++) {
		d = val[i] >= iv->last[i] ? val[i] - iv->last[i] : 0;
		iv->last[i] = val[i];
		if (iv->json) {
			o = json_object_new_object();
			if (!o)
				fail(EXIT_FAIL, "out of memory for the JSON output");
			json_object_object_add(o, "interval", json_fixed(t, 6));
			json_object_object_add(o, "event",
					       json_text(iv->evs[i].label));
			json_object_object_add(o, "count",
					       json_object_new_uint64(d));
			json_print(iv->out, o);
		} else if (iv->sep) {
			fprintf(iv->out, "%.6f%s%llu%s%s\n", t, iv->sep,
				(unsigned long long)d, iv->sep,
				iv->evs[i].label);
		} else {
			fprintf(iv->out, " %14.6f %20llu      %s\n", t,
				(unsigned long long)d, iv->evs[i].label);
		}
	}
	fflush(iv->out);
}

void *interval_thread(void *arg)
{
	struct interval *iv = arg;
	struct timespec next = iv->t0;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (!iv->json && !iv->sep && !iv->textfile)
		fprintf(iv->out, "#%14s %20s      %s\n", "time", "counts",
			"event");
	while (!atomic_load(&iv->stop)) {
		next.tv_sec += iv->msec / 1000;
		next.tv_nsec += (long)(iv->msec % 1000) * 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		if (atomic_load(&iv->stop))
			break;
		print_interval(iv);
	}
	return NULL;
}
