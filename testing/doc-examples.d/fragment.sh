# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # globals of testing/doc-examples
#
# testing/doc-examples.d/fragment.sh: a "fragment" block made a C file to
# compile: the prologue its text takes as given (testing/doc-examples'
# header), its file-scope head, then its statements in a function.
# Sourced by testing/doc-examples.

# A fragment's file-scope head ("head") or the rest ("body"): see
# testing/doc-examples' header.
fragment_part() {
	awk -v part="$2" '
	NR == 1 { head = ($0 ~ /^(#include|static)/) }
	{ l[NR] = $0; if (head && !end && $0 ~ /^}/) end = NR }
	END {
		if (head && !end)
			end = NR
		for (i = 1; i <= NR; i++)
			if ((part == "head") == (i <= end))
				print l[i]
	}' "$1"
}

# The prologue of a fragment: what the text around it takes as given.
fragment_wrap() {
	cat <<'EOF'
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <pctr.h>
#include <libcpc.h>

static volatile unsigned long sink;

static unsigned long doc_work(int n)
{
	unsigned long i;

	for (i = 0; i < 1000 + (unsigned int)n; i++)
		sink += i;
	return sink;
}
#define work(...) doc_work(__VA_ARGS__ + 0)

static cpc_t *cpc;
static cpc_set_t *set;
static cpc_buf_t *buf, *before, *after, *diff;
static int ind0, ind1, iter;
static uint64_t val0, val1, preset;
static const char *event0 = "PAPI_tot_cyc", *event1 = "PAPI_tot_ins";
static const char *name = "PAPI_tot_ins";

static void __attribute__((noreturn, format(printf, 1, 2)))
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

EOF
	fragment_part "$1" head
	cat <<'EOF'

void example(pctr_t *handle);
void example(pctr_t *handle)
{
	pctr_t *p = handle;

	(void)p;
	(void)error;
	(void)doc_work;
	{
EOF
	fragment_part "$1" body
	printf '\n\t}\n}\n'
}
