// SPDX-License-Identifier: GPL-2.0
/*
 * pmdapctr's configuration: the events to count on every CPU, one a
 * line, as perfevent.conf names perfevent's.  A name is a generic one
 * (instructions, cycles, ref-cycles, branches, branch-misses: the
 * backend's event for it, as pctr stat takes them) or one of the
 * backend's own (pctr stat -l lists them), with an optional mode after
 * a colon: u, k or uk (the default: a CPU counts for everything that
 * runs there).  Every error names the file and the line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../pctr/events.h"
#include "counting.h"

/* The backend's defaults: instructions and cycles (IPC from them). */
static const char *const default_events[] = { "instructions", "cycles", NULL };
static const char *const sim_events[] = { "sim_ticks", "sim_ticks_div", NULL };

static int cfg_err(char *err, size_t len, const char *path,
		   unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int cfg_err(char *err, size_t len, const char *path,
		   unsigned int line, const char *fmt, ...)
{
	va_list ap;
	int o;

	o = line ? snprintf(err, len, "%s:%u: ", path, line) :
		   snprintf(err, len, "the %s default: ", path);
	if (o < 0 || (size_t)o >= len)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + o, len - o, fmt, ap);
	va_end(ap);
	return -1;
}

/* @spec's PMNS leaf: lower case, anything but [a-z0-9] as '_'. */
static void metric_name(char *out, size_t len, const char *spec)
{
	size_t i;

	for (i = 0; spec[i] && i + 1 < len; i++)
		out[i] = isalnum((unsigned char)spec[i]) ?
			 tolower((unsigned char)spec[i]) : '_';
	out[i] = '\0';
	if (!isalpha((unsigned char)out[0]) && i + 1 < len) {
		memmove(out + 1, out, i + 1);
		out[0] = 'e';
	}
}

/*
 * @spec (modifiable) as the next event of @a.  @quiet: a default the
 * backend lacks is left out.  0 added or left out, -1 with @err set.
 */
static int add_event(struct pc_agent *a, const struct event_table *t,
		     char *spec, const char *path, unsigned int line,
		     uint64_t *used, int quiet, char *err, size_t len)
{
	const struct pctr_info *in = &a->info;
	const struct pctr_event *pe = NULL;
	const struct generic_event *gen;
	struct pc_event *e = &a->ev[a->nev];
	uint64_t mode = PCTR_U | PCTR_K;
	char *colon = strrchr(spec, ':');
	const char *best;
	int slot;
	unsigned int k;

	if (colon) {
		if (event_mode(colon + 1, &mode))
			return cfg_err(err, len, path, line,
				       "event '%s': unknown mode ':%s' (u, k or uk)",
				       spec, colon + 1);
		*colon = '\0';
	}
	if (!*spec)
		return cfg_err(err, len, path, line, "an empty event name");
	for (k = 0; k < a->nev; k++)
		if (!strcasecmp(a->ev[k].spec, spec))
			return cfg_err(err, len, path, line,
				       "event '%s' twice (line %u)", spec,
				       a->ev[k].line);
	if (a->nev == PCTR_NUM)
		return cfg_err(err, len, path, line, "more than %d events",
			       PCTR_NUM);
	memset(e, 0, sizeof(*e));
	e->generic = -1;
	gen = generic_event_find(spec);
	slot = event_place(t, in, spec, used, &pe);
	if (!pe) {
		if (quiet)
			return 0;
		if (gen)
			return cfg_err(err, len, path, line,
				       "event '%s': the %s backend does not count it",
				       spec, in->pi_backend);
		best = event_nearest(t, spec);
		if (best)
			return cfg_err(err, len, path, line,
				       "unknown event '%s' (did you mean '%s'?)",
				       spec, best);
		return cfg_err(err, len, path, line,
			       "unknown event '%s' (pctr stat -l lists the %s backend's)",
			       spec, in->pi_backend);
	}
	if (gen)
		e->generic = (int)(gen - generic_events);
	else
		for (k = 0; k < ngeneric_events; k++)
			if (generic_event_is(&generic_events[k], pe->pe_name))
				e->generic = (int)k;
	if (slot < 0) {
		if (quiet)
			return 0;
		return cfg_err(err, len, path, line,
			       "no free counter for '%s' (%u general, %u fixed counters)",
			       spec, in->pi_ngeneral, in->pi_nfixed);
	}
	snprintf(e->spec, sizeof(e->spec), "%s", spec);
	metric_name(e->metric, sizeof(e->metric), spec);
	if (colon && mode != (PCTR_U | PCTR_K)) {
		k = strlen(e->metric);
		snprintf(e->metric + k, sizeof(e->metric) - k, "_%s",
			 mode == PCTR_U ? "u" : "k");
	}
	for (k = 0; k < a->nev; k++)
		if (!strcmp(a->ev[k].metric, e->metric))
			return cfg_err(err, len, path, line,
				       "event '%s' has the metric name of line %u's",
				       spec, a->ev[k].line);
	snprintf(e->backend, sizeof(e->backend), "%s", pe->pe_name);
	snprintf(e->desc, sizeof(e->desc), "%s", pe->pe_desc);
	e->line = line;
	e->slot = (unsigned int)slot;
	e->fn = pe->pe_fn | mode | PCTR_EN;
	a->nev++;
	return 0;
}

int pc_config_load(struct pc_agent *a, const char *path, char *err,
		   size_t len)
{
	const char *const *defs;
	struct event_table t = { 0 };
	unsigned int line = 0, failed;
	uint64_t used = 0;
	char buf[256], *s, *end, *hash;
	FILE *f = NULL;
	int ret = -1;

	a->nev = 0;
	if (event_table_load(&t, a->fd, a->info.pi_nevents, &failed)) {
		snprintf(err, len, "cannot read the backend's events (event %u): %s",
			 failed, strerror(errno));
		return -1;
	}
	if (path) {
		f = fopen(path, "r");
		if (!f && errno != ENOENT) {
			snprintf(err, len, "%s: %s", path, strerror(errno));
			goto out;
		}
	}
	while (f && fgets(buf, sizeof(buf), f)) {
		line++;
		if (!strchr(buf, '\n') && !feof(f)) {
			cfg_err(err, len, path, line, "line too long");
			goto out;
		}
		hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		for (s = buf; isspace((unsigned char)*s); s++)
			;
		for (end = s + strlen(s); end > s &&
		     isspace((unsigned char)end[-1]); end--)
			;
		*end = '\0';
		if (!*s)
			continue;
		if (strpbrk(s, " \t")) {
			cfg_err(err, len, path, line,
				"'%s': one event a line", s);
			goto out;
		}
		if (strlen(s) >= sizeof(a->ev[0].spec)) {
			cfg_err(err, len, path, line, "event name too long");
			goto out;
		}
		if (add_event(a, &t, s, path, line, &used, 0, err, len))
			goto out;
	}
	if (f && ferror(f)) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!a->nev) {
		defs = a->info.pi_backend_id == PCTR_BACKEND_SIM ? sim_events :
								   default_events;
		for (; *defs; defs++) {
			snprintf(buf, sizeof(buf), "%s", *defs);
			if (add_event(a, &t, buf, a->info.pi_backend, 0, &used,
				      1, err, len))
				goto out;
		}
		if (!a->nev) {
			snprintf(err, len,
				 "the %s backend has none of the default events: name some in %s",
				 a->info.pi_backend, path ? path : "a configuration");
			goto out;
		}
	}
	ret = 0;
out:
	if (f)
		fclose(f);
	event_table_free(&t);
	return ret;
}
