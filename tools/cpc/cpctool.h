/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cputrack(1) and cpustat(8) set up alike (tools/cpc/cpctool.c): the
 * program name, the -c options, libcpc opened with their messages, the
 * events -h lists, the specifications parsed, and the sets and buffers one group of sets
 * needs.  The specifications themselves: cpcspec.h.
 */
#ifndef _PCTR_TOOLS_CPCTOOL_H
#define _PCTR_TOOLS_CPCTOOL_H

#include <stdio.h>

#include <libcpc.h>

#include "cpcspec.h"

/* spec_prog from argv[0], without its directory. */
void cpctool_init(const char *argv0);

/* "prog: out of memory", exit 1. */
void __attribute__((noreturn)) cpctool_oom(void);

/* "prog: unknown option or missing argument '@arg'", for getopt's '?'. */
void cpctool_bad_option(const char *arg);

/* One more -c option's text, @text, in *@texts (*@n of them so far). */
void cpctool_add_spec(char ***texts, unsigned int *n, char *text);

/*
 * libcpc, with spec_errfn as its error handler; NULL after "prog: cannot
 * access @what - reason" (and, if the module is missing, what to do),
 * or silently if @quiet.
 */
cpc_t *cpctool_open(const char *what, int quiet);

/*
 * What -h prints after the usage: the interface, the specification
 * syntax, and the events, generic events and attributes @cpc knows.
 */
void cpctool_capabilities(cpc_t *cpc, FILE *f);

/*
 * The @n texts parsed into a new array *@specs (@n + 1 entries), *@nsets
 * of them good: 0, or -1 after the message of the first bad one.
 */
int cpctool_parse(cpc_t *cpc, char **texts, unsigned int n,
		  struct cpcspec **specs, unsigned int *nsets);

/*
 * A group of sets, one per specification, and their buffers: *@set,
 * *@acc, *@prev and *@scr get @nsets entries each.  0, or -1 after a
 * message if a set could not be made; out of memory exits.
 */
int cpctool_sets(cpc_t *cpc, const struct cpcspec *specs, unsigned int nsets,
		 cpc_set_t ***set, cpc_buf_t ***acc, cpc_buf_t ***prev,
		 cpc_buf_t ***scr);

#endif
