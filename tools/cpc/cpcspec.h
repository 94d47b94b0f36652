/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Solaris event specifications for cputrack(1) and cpustat(8)
 * (tools/cpc/cpcspec.c): "-c [picn=]event[,attr[n][=val]]..." into a libcpc
 * set, and the groups of sets several -c options make.
 */
#ifndef _PCTR_TOOLS_CPCSPEC_H
#define _PCTR_TOOLS_CPCSPEC_H

#include <stdio.h>
#include <libcpc.h>

#define SPEC_MAX_PICS	16

/* One -c option, parsed: its requests in counter (pic) order. */
struct cpcspec {
	char		*text;		/* the option as given */
	unsigned int	nreq;
	int		pic[SPEC_MAX_PICS];
	char		hdr[SPEC_MAX_PICS * 10 + 1];	/* "     pic0 ..." */
};

/* The program name the messages begin with. */
extern const char *spec_prog;

/*
 * Check @text against @cpc and fill @spec; 0, or -1 after a message
 * (Solaris's wording: "bad token", "pic%d cannot measure event ...").
 */
int cpcspec_parse(cpc_t *cpc, const char *text, struct cpcspec *spec);

/* A new set of @cpc for @spec (parsed already); NULL after a message. */
cpc_set_t *cpcspec_set(cpc_t *cpc, const struct cpcspec *spec);

/* The handler libcpc reports through: "prog: message". */
void spec_errfn(const char *fn, int subcode, const char *fmt, va_list ap);

/* An event column's width and the value line's tail (" # spec"). */
void spec_print_vals(FILE *f, cpc_t *cpc, cpc_buf_t *buf,
		     const struct cpcspec *spec, int nsets);

/* Seconds since spec_zerotime() at @ns (CLOCK_MONOTONIC), 0: now. */
void spec_zerotime(void);
double spec_seconds(int64_t ns);

#endif
