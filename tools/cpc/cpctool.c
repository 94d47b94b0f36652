// SPDX-License-Identifier: GPL-2.0
/*
 * The setup cputrack(1) and cpustat(8) share (cpctool.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpctool.h"

void cpctool_init(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	spec_prog = slash ? slash + 1 : argv0;
}

void cpctool_oom(void)
{
	fprintf(stderr, "%s: out of memory\n", spec_prog);
	exit(1);
}

void cpctool_bad_option(const char *arg)
{
	fprintf(stderr, "%s: unknown option or missing argument '%s'\n",
		spec_prog, arg);
}

void cpctool_add_spec(char ***texts, unsigned int *n, char *text)
{
	*texts = realloc(*texts, (*n + 1) * sizeof(**texts));
	if (!*texts)
		cpctool_oom();
	(*texts)[(*n)++] = text;
}

cpc_t *cpctool_open(const char *what, int quiet)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);

	if (cpc) {
		cpc_seterrhndlr(cpc, spec_errfn);
		return cpc;
	}
	if (quiet)
		return NULL;
	fprintf(stderr, "%s: cannot access %s - %s\n", spec_prog, what,
		strerror(errno));
	if (errno == ENOTSUP)
		fprintf(stderr, "%s: is the pctr module loaded, with counters? (sudo modprobe pctr; pctr info)\n",
			spec_prog);
	return NULL;
}

static void list_name(void *arg, const char *name)
{
	fprintf(arg, " %s", name);
}

void cpctool_capabilities(cpc_t *cpc, FILE *f)
{
	fprintf(f, "\tCPU performance counter interface: %s\n\n",
		cpc_cciname(cpc));
	fprintf(f, "\tevent specification syntax:\n"
		"\t[picn=]<eventn>[,attr[n][=<val>]][,[picn=]<eventn>[,attr[n][=<val>]],...]\n\n"
		"\tEvents:");
	cpc_walk_events_all(cpc, f, list_name);
	fprintf(f, "\n\n\tGeneric events:");
	cpc_walk_generic_events_all(cpc, f, list_name);
	fprintf(f, "\n\n\tAttributes:");
	cpc_walk_attrs(cpc, f, list_name);
	fprintf(f, "\n\n\tSee %s\n", cpc_cpuref(cpc));
}

int cpctool_parse(cpc_t *cpc, char **texts, unsigned int n,
		  struct cpcspec **specs, unsigned int *nsets)
{
	unsigned int i;

	*specs = calloc(n + 1, sizeof(**specs));
	if (!*specs)
		cpctool_oom();
	for (i = 0; i < n; i++) {
		if (cpcspec_parse(cpc, texts[i], &(*specs)[*nsets]))
			return -1;
		(*nsets)++;
	}
	return 0;
}

int cpctool_sets(cpc_t *cpc, const struct cpcspec *specs, unsigned int nsets,
		 cpc_set_t ***set, cpc_buf_t ***acc, cpc_buf_t ***prev,
		 cpc_buf_t ***scr)
{
	unsigned int i;

	*set = calloc(nsets, sizeof(**set));
	*acc = calloc(nsets, sizeof(**acc));
	*prev = calloc(nsets, sizeof(**prev));
	*scr = calloc(nsets, sizeof(**scr));
	if (!*set || !*acc || !*prev || !*scr)
		cpctool_oom();
	for (i = 0; i < nsets; i++) {
		(*set)[i] = cpcspec_set(cpc, &specs[i]);
		if (!(*set)[i])
			return -1;
		(*acc)[i] = cpc_buf_create(cpc, (*set)[i]);
		(*prev)[i] = cpc_buf_create(cpc, (*set)[i]);
		(*scr)[i] = cpc_buf_create(cpc, (*set)[i]);
		if (!(*acc)[i] || !(*prev)[i] || !(*scr)[i])
			cpctool_oom();
	}
	return 0;
}
