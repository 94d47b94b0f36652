/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pctr top (pctr-top(1)): top.c runs the sampling and the display;
 * top_count.c counts the samples of a record stream by the sort key.
 */
#ifndef _PCTR_TOOLS_TOP_H
#define _PCTR_TOOLS_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "symbols.h"

/* argv[0] is the subcommand's name; returns pctr's exit status. */
int pctr_top(int argc, char **argv);

/* What a row counts: --sort sym, comm,sym or dso. */
enum top_sort {
	TOP_SYM,	/* "symbol\tobject" */
	TOP_COMM_SYM,	/* "command\tsymbol\tobject" */
	TOP_DSO,	/* "object" */
};

/* The sort key named @s, or -1. */
int top_sort_of(const char *s);

/* What the stream said of itself: its "event" line's name and period. */
struct top_head {
	char		event[64];
	uint64_t	period;
};

/*
 * Take one line of the record stream (@len bytes with its newline): a
 * sample is counted in its row, a line about symbols is kept for them
 * (sym_line()), the event line fills @h.
 */
void top_count_line(const char *line, size_t len, enum top_sort sort,
		    struct top_head *h);

/* The rows: samples since top_count_clear(), in the table's counts. */
extern struct table top_rows;
extern uint64_t top_samples;

/* A new interval: every count back to 0. */
void top_count_clear(void);

#endif /* _PCTR_TOOLS_TOP_H */
