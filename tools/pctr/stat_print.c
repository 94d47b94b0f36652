// SPDX-License-Identifier: GPL-2.0
/*
 * pctr stat's output (stat.c has the subcommand): the counts as a table
 * for people, as SEP-separated fields (-x) or as one JSON object
 * (--json), and the lines of each -I interval as they pass.  Every line
 * goes to stderr or -o FILE, so that the command's own output stays as
 * it is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

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
		if (r->have_ipc && (is_named(&evs[i], GENERIC_INSTRUCTIONS) ||
				    raw_is(in, &evs[i], 0)))
			fprintf(f, " %20llu      %-32s # %8.2f  insn per cycle\n",
				(unsigned long long)r->val[i], evs[i].label,
				r->ipc);
		else
			fprintf(f, " %20llu      %s\n",
				(unsigned long long)r->val[i], evs[i].label);
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
	unsigned int i, k, nr = r->nrecs;
	char sb[16];

	fprintf(f, "{");
	if (r->argv) {
		fprintf(f, "\"command\": [");
		for (i = 0; r->argv[i]; i++) {
			if (i)
				fprintf(f, ", ");
			json_str(f, r->argv[i]);
		}
		fprintf(f, "], \"exit_status\": %d, ", r->code);
	}
	fprintf(f, "\"pid\": %d, ", r->pid);
	fprintf(f, "\"scope\": \"threads-and-children\", \"backend\": ");
	json_str(f, in->pi_backend);
	fprintf(f, ", \"late_start\": %s, \"threads\": %u, \"processes\": %u, \"counters\": [",
		r->attached ? "true" : "false", r->nthreads, r->nprocs);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"event\": ", i ? ", " : "");
		json_str(f, evs[i].label);
		fprintf(f, ", \"slot\": \"%s\", \"function\": \"%#llx\", \"count\": %llu}",
			slot_name(evs[i].slot, sb, sizeof(sb)),
			(unsigned long long)evs[i].fn,
			(unsigned long long)r->val[i]);
	}
	fprintf(f, "]");
	if (per_thread) {
		fprintf(f, ", \"per_thread\": [");
		for (k = 0; k < nr; k++) {
			fprintf(f, "%s{\"pid\": %d, \"lwp\": %d, \"counts\": [",
				k ? ", " : "", r->rec[k].pid,
				r->rec[k].lwp);
			for (i = 0; i < n; i++)
				fprintf(f, "%s%llu", i ? ", " : "",
					(unsigned long long)r->rec[k].val[i]);
			fprintf(f, "]}");
		}
		fprintf(f, "]");
	}
	if (r->have_ipc)
		fprintf(f, ", \"ipc\": %.4f", r->ipc);
	fprintf(f, ", \"seconds_elapsed\": %.9f, \"seconds_on_cpu\": %.9f",
		r->elapsed, r->oncpu);
	if (r->have_rusage)
		fprintf(f, ", \"seconds_user\": %.9f, \"seconds_sys\": %.9f",
			r->user, r->sys);
	fprintf(f, "}\n");
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
	unsigned int i;

	count_sum(val, &tick);
	for (i = 0; i < iv->n; i++) {
		d = val[i] >= iv->last[i] ? val[i] - iv->last[i] : 0;
		iv->last[i] = val[i];
		if (iv->json) {
			fprintf(iv->out, "{\"interval\": %.6f, \"event\": ", t);
			json_str(iv->out, iv->evs[i].label);
			fprintf(iv->out, ", \"count\": %llu}\n",
				(unsigned long long)d);
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
	if (!iv->json && !iv->sep)
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
