// SPDX-License-Identifier: GPL-2.0
/*
 * pctr top's counting (top.h): the samples of a record stream, as pctr
 * record writes it, each counted in the row of its sort key as it
 * arrives.  The symbols are pctr report's (symbols.c): a sample's
 * function from the maps of its process and exec generation, or the
 * kernel's from /proc/kallsyms (a module's "[module]") when the reader
 * may see kernel addresses.  Only where a sample was taken counts (its
 * leaf), not its callers.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pctr.h"
#include "top.h"

struct table top_rows;
uint64_t top_samples;

static const char *const sort_names[] = {
	[TOP_SYM] = "sym",
	[TOP_COMM_SYM] = "comm,sym",
	[TOP_DSO] = "dso",
};

int top_sort_of(const char *s)
{
	unsigned int i;

	for (i = 0; i < sizeof(sort_names) / sizeof(sort_names[0]); i++)
		if (!strcmp(s, sort_names[i]))
			return i;
	return -1;
}

/* Process names, read once a process (again after its exec). */
static struct comm {
	int		pid;
	char		name[32];
} *comms;
static unsigned int ncomms;

/*
 * Process @pid's name: /proc/PID/comm when first seen (the stream is
 * read as it is written, while the process runs), ":PID" if it is gone.
 */
static const char *comm_of(int pid)
{
	char path[64];
	struct comm *c;
	unsigned int i;
	FILE *f;

	for (i = 0; i < ncomms; i++)
		if (comms[i].pid == pid)
			return comms[i].name;
	comms = xrealloc(comms, (ncomms + 1) * sizeof(*comms));
	c = &comms[ncomms++];
	c->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f || !fgets(c->name, sizeof(c->name), f))
		snprintf(c->name, sizeof(c->name), ":%d", pid);
	c->name[strcspn(c->name, "\n")] = '\0';
	if (f)
		fclose(f);
	return c->name;
}

/* An exec renames the process: read its name again. */
static void comm_forget(int pid)
{
	unsigned int i;

	for (i = 0; i < ncomms; i++)
		if (comms[i].pid == pid)
			comms[i] = comms[--ncomms];
}

/* One "s" line's row: pid tid cpu flags tsc ip ... */
static void count_sample(const char *line, enum top_sort sort)
{
	unsigned int pid, tid, cpu, flags;
	unsigned long long tsc, ip;
	char sym[600], key[700];
	const char *obj;
	unsigned int row;

	if (sscanf(line, "s %u %u %u %x %llx %llx", &pid, &tid, &cpu, &flags,
		   &tsc, &ip) != 6)
		return;
	if (flags & PCTR_SR_KERNEL)
		sym_kernel(ip, sym, sizeof(sym));
	else
		sym_user(sym_image(pid, tsc), ip, sym, sizeof(sym));
	obj = strchr(sym, '\t') + 1;
	if (sort == TOP_COMM_SYM)
		snprintf(key, sizeof(key), "%s\t%s", comm_of(pid), sym);
	else
		snprintf(key, sizeof(key), "%s", sort == TOP_DSO ? obj : sym);
	/* intern() may move the counts: look the row up first. */
	row = intern(&top_rows, key);
	top_rows.count[row]++;
	top_samples++;
}

void top_count_line(const char *line, size_t len, enum top_sort sort,
		    struct top_head *h)
{
	unsigned long long period;
	unsigned int gen;
	int pid;

	if (!strncmp(line, "s ", 2)) {
		count_sample(line, sort);
		return;
	}
	if (sscanf(line, "event %63s period %llu", h->event, &period) == 2)
		h->period = period;
	else if (sscanf(line, "exec %d %u", &pid, &gen) == 2)
		comm_forget(pid);
	sym_line(line, len);
}

void top_count_clear(void)
{
	unsigned int i;

	for (i = 0; i < top_rows.n; i++)
		top_rows.count[i] = 0;
	top_samples = 0;
}
