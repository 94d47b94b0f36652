// SPDX-License-Identifier: GPL-2.0
/*
 * pctr report: read what pctr record wrote and say where the events
 * happened (pctr-report(1)).
 *
 *   pctr report [-i FILE] [-g] [-s KEYS] [--folded | --svg]
 *
 * The flat profile has one line per symbol, sorted by samples: its
 * percentage, its samples, the symbol and its object.  --sort (-s)
 * comm,sym makes it one line per process name and symbol, as perf
 * report's (keys: comm, pid, tid, sym; a system-wide recording, pctr
 * record -a, has every process's), and starts --folded's stacks with
 * the process name.  -g adds, under
 * each, the call chains that led to it, callers indented under callees
 * with their share of all samples, as pmcstat -G does.  --folded prints
 * one line per distinct stack instead, outermost frame first, frames
 * separated by ';' and the count last ("main;work;leaf 42"): the input
 * of flame graph tools.  --svg draws that flame graph itself: one SVG
 * file, interactive in a browser (flame.c).
 *
 * Symbols (symbols.c) come from elfutils' libdwfl, from the maps pctr
 * record saved for the sample's process and exec generation (with
 * debuginfo when it is installed).  A sample in the kernel is its
 * function in "[kernel.kallsyms]" (in a module's text, "[module]") when
 * the kernel shows the reader its addresses and the file is of this
 * boot, else "[kernel]"; an address in no saved mapping, or in one
 * without a symbol, is "[unknown]".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "flame.h"
#include "pctr.h"
#include "symbols.h"

static const char *prog = "pctr report";

#define fail(...)	tool_fail(prog, 1, __VA_ARGS__)

/* The file's "event", "lost" and "throttled" lines, for the profile's head. */
static char info[3][512];

/* --- who each sample interrupted --------------------------------------- */

/*
 * The names of threads as the file's "comm PID TID NAME" lines give
 * them, in file order: a sample's is its thread's at that point (pctr
 * record writes a thread's line before the first sample under a new
 * name), else its process's, else "[pid N]".
 */
static struct table comms;
static struct { int tid; unsigned int comm; } *tcomm;
static unsigned int ntcomm;

static int comm_now(int tid)
{
	unsigned int i;

	for (i = ntcomm; i-- > 0;)
		if (tcomm[i].tid == tid)
			return tcomm[i].comm;
	return -1;
}

static void comm_line(const char *line)
{
	int pid, tid, n;
	unsigned int i;

	if (sscanf(line, "comm %d %d %n", &pid, &tid, &n) != 2)
		return;
	for (i = 0; i < ntcomm; i++)
		if (tcomm[i].tid == tid)
			break;
	if (i == ntcomm) {
		tcomm = xrealloc(tcomm, (ntcomm + 1) * sizeof(*tcomm));
		tcomm[ntcomm++].tid = tid;
	}
	tcomm[i].comm = intern(&comms, line + n);
}

/* The name of @tid of @pid now (a comms index). */
static unsigned int comm_of(int pid, int tid)
{
	char buf[32];
	int c = comm_now(tid);

	if (c < 0)
		c = comm_now(pid);
	if (c < 0) {
		snprintf(buf, sizeof(buf), "[pid %d]", pid);
		c = intern(&comms, buf);
	}
	return c;
}

/* --- the samples, as frames ------------------------------------------ */

static struct table syms;	/* "symbol\tobject" */
static unsigned int *frames;	/* every sample's frames, leaf first */
static size_t nframes, capframes;
static size_t *sample_at;	/* where each sample's frames start */
static unsigned int *sample_n;
static size_t nsamples, capsamples;
/* Each sample's process, thread and name (a comms index). */
static struct who { int pid, tid; unsigned int comm; } *sample_who;

static void add_frame(unsigned int id)
{
	if (nframes == capframes) {
		capframes = capframes ? capframes * 2 : 4096;
		frames = xrealloc(frames, capframes * sizeof(*frames));
	}
	frames[nframes++] = id;
}

/* The frame of kernel address @a: its function, or "[kernel]". */
static unsigned int kernel_frame(uint64_t a)
{
	char buf[400];

	sym_kernel(a, buf, sizeof(buf));
	return intern(&syms, buf);
}

/* One "s" line: pid tid cpu flags tsc ip nr chain... @comm: its name. */
static void add_sample(char *line, unsigned int comm)
{
	unsigned int pid, tid, cpu, flags, nr, i, id, knr;
	unsigned long long tsc, ip, a;
	char buf[1024], *p = line;
	struct image *im;
	int n;

	if (sscanf(p, "%u %u %u %x %llx %llx %u%n", &pid, &tid, &cpu, &flags,
		   &tsc, &ip, &nr, &n) != 7)
		return;
	p += n;
	im = sym_image(pid, tsc);
	if (nsamples == capsamples) {
		capsamples = capsamples ? capsamples * 2 : 4096;
		sample_at = xrealloc(sample_at, capsamples * sizeof(*sample_at));
		sample_n = xrealloc(sample_n, capsamples * sizeof(*sample_n));
		sample_who = xrealloc(sample_who,
				      capsamples * sizeof(*sample_who));
	}
	sample_who[nsamples].pid = pid;
	sample_who[nsamples].tid = tid;
	sample_who[nsamples].comm = comm;
	sample_at[nsamples] = nframes;
	if (flags & PCTR_SR_KERNEL) {
		add_frame(kernel_frame(ip));
	} else {
		sym_user(im, ip, buf, sizeof(buf));
		add_frame(intern(&syms, buf));
	}
	knr = PCTR_SR_KNR(flags);
	for (i = 0; i < nr; i++) {
		if (sscanf(p, " %llx%n", &a, &n) != 1)
			break;
		p += n;
		/*
		 * A return address is just past its call: look up the call.
		 * In the kernel, the first user entry is where user mode was
		 * left; the kernel's own frames (PCTR_SA_KCHAIN) come first.
		 */
		if (!((flags & PCTR_SR_KERNEL) && i == knr) && a)
			a--;
		if (i < knr) {
			id = kernel_frame(a);
		} else {
			sym_user(im, a, buf, sizeof(buf));
			id = intern(&syms, buf);
		}
		add_frame(id);
	}
	sample_n[nsamples] = nframes - sample_at[nsamples];
	nsamples++;
}

static void read_file(const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned long long n1, n2;
	ssize_t len;
	int saw_header = 0;
	FILE *f = fopen(path, "r");
	char **slines = NULL;
	unsigned int *scomm = NULL;
	size_t ns = 0, capl = 0, i;
	int spid, stid;

	if (!f)
		fail("%s: %s%s", path, strerror(errno),
		     errno == ENOENT ? " (make one with pctr record)" : "");
	while ((len = getline(&line, &cap, f)) > 0) {
		if (!saw_header) {
			if (strncmp(line, "pctr-record 1", 13))
				fail("%s is not a pctr record file", path);
			saw_header = 1;
			continue;
		}
		if (!strncmp(line, "s ", 2)) {
			/* Resolved once every map and exec is known. */
			if (ns == capl) {
				capl = capl ? capl * 2 : 4096;
				slines = xrealloc(slines, capl * sizeof(*slines));
				scomm = xrealloc(scomm, capl * sizeof(*scomm));
			}
			/* Its thread's name is the one given so far. */
			spid = stid = 0;
			sscanf(line + 2, "%d %d", &spid, &stid);
			scomm[ns] = comm_of(spid, stid);
			slines[ns++] = strdup(line + 2);
		} else if (sym_line(line, len)) {
			;
		} else if (!strncmp(line, "comm ", 5)) {
			line[strcspn(line, "\n")] = '\0';
			comm_line(line);
		} else if (!strncmp(line, "event ", 6)) {
			snprintf(info[0], sizeof(info[0]), "# %s", line);
		} else if (!strncmp(line, "lost ", 5)) {
			snprintf(info[1], sizeof(info[1]), "# %s", line);
		} else if (sscanf(line, "throttled %llu %llu", &n1, &n2) == 2) {
			snprintf(info[2], sizeof(info[2]),
				 "# throttled %llu samples (%llu throttles)\n",
				 n1, n2);
		}
	}
	if (!saw_header)
		fail("%s is empty: did pctr record finish?", path);
	fclose(f);
	free(line);
	for (i = 0; i < ns; i++) {
		if (slines[i])
			add_sample(slines[i], scomm[i]);
		free(slines[i]);
	}
	free(slines);
	free(scomm);
}

/* --- output ------------------------------------------------------------ */

static void print_sym(const char *s)
{
	const char *tab = strchr(s, '\t');

	printf("%.*s  [%s]", (int)(tab - s), s, tab + 1);
}

/* A caller tree: node i's children are those with parent i. */
struct node {
	unsigned int	sym;
	unsigned int	parent;
	uint64_t	count;
};

static struct node *nodes;
static unsigned int nnodes;

static unsigned int child_of(unsigned int parent, unsigned int sym)
{
	unsigned int i;

	for (i = 0; i < nnodes; i++)
		if (nodes[i].parent == parent && nodes[i].sym == sym)
			return i;
	nodes = xrealloc(nodes, (nnodes + 1) * sizeof(*nodes));
	nodes[nnodes].sym = sym;
	nodes[nnodes].parent = parent;
	nodes[nnodes].count = 0;
	return nnodes++;
}

static int by_node_count(const void *a, const void *b)
{
	const struct node *x = &nodes[*(const unsigned int *)a];
	const struct node *y = &nodes[*(const unsigned int *)b];

	return x->count != y->count ? (x->count < y->count ? 1 : -1) : 0;
}

static void print_tree(unsigned int parent, unsigned int depth)
{
	unsigned int *kids = NULL, n = 0, i;

	for (i = 0; i < nnodes; i++)
		if (nodes[i].parent == parent && i != parent) {
			kids = xrealloc(kids, (n + 1) * sizeof(*kids));
			kids[n++] = i;
		}
	qsort(kids, n, sizeof(*kids), by_node_count);
	for (i = 0; i < n; i++) {
		printf("%*s%6.2f%%  ", 8 + 2 * depth, "",
		       100.0 * nodes[kids[i]].count / nsamples);
		print_sym(syms.str[nodes[kids[i]].sym]);
		printf("\n");
		if (depth < 64)
			print_tree(kids[i], depth + 1);
	}
	free(kids);
}

/* --- the profile's rows: --sort's keys ---------------------------------- */

enum key { K_COMM, K_PID, K_TID, K_SYM };
static const char *const key_names[] = { "comm", "pid", "tid", "sym" };
static const char *const key_heads[] = { "command", "pid", "tid",
					 "symbol  [object]" };
static enum key keys[8] = { K_SYM };
static unsigned int nkeys = 1;

/* --sort's list, as perf report's: "comm,sym". */
static void parse_sort(char *list)
{
	char *tok, *save;
	unsigned int k;

	nkeys = 0;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < 4 && strcmp(tok, key_names[k]); k++)
			;
		if (k == 4 || nkeys == 8)
			tool_fail(prog, 2, "--sort %s: the keys are comm, pid, tid and sym",
				  tok);
		keys[nkeys++] = k;
	}
	if (!nkeys)
		tool_fail(prog, 2, "--sort: give keys, as comm,sym");
}

static int has_key(enum key k)
{
	unsigned int i;

	for (i = 0; i < nkeys; i++)
		if (keys[i] == k)
			return 1;
	return 0;
}

static struct table rows;	/* each key's text, joined by '\n' */
static unsigned int *sample_row;

/* Each sample's row, its keys' values. */
static void make_rows(void)
{
	char buf[1024];
	size_t s, len;
	unsigned int i;

	sample_row = xrealloc(NULL, nsamples * sizeof(*sample_row));
	for (s = 0; s < nsamples; s++) {
		len = 0;
		for (i = 0; i < nkeys && len < sizeof(buf) - 1; i++) {
			const struct who *w = &sample_who[s];

			len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
					i ? "\n" : "",
					keys[i] == K_COMM ? comms.str[w->comm] :
					keys[i] == K_SYM ?
					syms.str[frames[sample_at[s]]] : "");
			if (keys[i] == K_PID || keys[i] == K_TID)
				len += snprintf(buf + len, sizeof(buf) - len,
						"%d", keys[i] == K_PID ?
						w->pid : w->tid);
			if (len >= sizeof(buf))
				len = sizeof(buf) - 1;
		}
		sample_row[s] = intern(&rows, buf);
	}
}

/* A row's keys, as the header names them. */
static void print_row(const char *row)
{
	const char *nl;
	unsigned int i;

	for (i = 0; i < nkeys; i++) {
		nl = strchr(row, '\n');
		if (keys[i] == K_SYM) {
			char sym[1024];

			snprintf(sym, sizeof(sym), "%.*s",
				 nl ? (int)(nl - row) : (int)strlen(row), row);
			print_sym(sym);
		} else {
			printf(keys[i] == K_COMM ? "%-16.*s" : "%7.*s",
			       nl ? (int)(nl - row) : (int)strlen(row), row);
		}
		if (!nl)
			break;
		printf("  ");
		row = nl + 1;
	}
}

/* pmcstat -G: under a row's symbol, the chains of callers that led to it. */
static void print_callers(unsigned int row)
{
	size_t s;
	unsigned int k, at;

	nnodes = 0;
	nodes = xrealloc(nodes, sizeof(*nodes));
	nodes[0].sym = 0;
	nodes[0].parent = 0;
	nnodes = 1;
	for (s = 0; s < nsamples; s++) {
		if (sample_row[s] != row)
			continue;
		at = 0;
		for (k = 1; k < sample_n[s]; k++) {
			at = child_of(at, frames[sample_at[s] + k]);
			nodes[at].count++;
		}
	}
	print_tree(0, 0);
}

static void print_flat(int graph)
{
	unsigned int *o, i;
	size_t s;

	make_rows();
	for (s = 0; s < nsamples; s++)
		rows.count[sample_row[s]]++;
	o = sorted(&rows);
	printf("%s%s%s", info[0], info[1], info[2]);
	printf("# %zu samples\n#  %%      samples  ", nsamples);
	for (i = 0; i < nkeys; i++)
		printf(keys[i] == K_COMM ? "%-16s%s" : "%s%s", key_heads[keys[i]],
		       i + 1 < nkeys ? "  " : "\n");
	for (i = 0; i < rows.n && rows.count[o[i]]; i++) {
		printf("%6.2f%% %10" PRIu64 "  ",
		       100.0 * rows.count[o[i]] / nsamples, rows.count[o[i]]);
		print_row(rows.str[o[i]]);
		printf("\n");
		if (graph && has_key(K_SYM))
			print_callers(o[i]);
	}
	free(o);
}

/* One line per distinct stack, outermost first, or the SVG of them. */
static void print_folded(int svg, const char *path)
{
	struct table stacks = { 0 };
	char *buf = NULL;
	size_t len, cap = 0, s;
	unsigned int k, i, *o;
	const char *name, *tab;

	for (s = 0; s < nsamples; s++) {
		len = 0;
		/* With --sort comm, the process's name is the outermost frame. */
		if (has_key(K_COMM)) {
			name = comms.str[sample_who[s].comm];
			len = strlen(name);
			if (len + 2 > cap) {
				cap = (len + 2) * 2;
				buf = xrealloc(buf, cap);
			}
			memcpy(buf, name, len);
		}
		for (k = sample_n[s]; k-- > 0;) {
			name = syms.str[frames[sample_at[s] + k]];
			tab = strchr(name, '\t');
			if (len + (tab - name) + 2 > cap) {
				cap = (len + (tab - name) + 2) * 2;
				buf = xrealloc(buf, cap);
			}
			if (len)
				buf[len++] = ';';
			memcpy(buf + len, name, tab - name);
			len += tab - name;
		}
		if (!buf)
			buf = xrealloc(NULL, cap = 64);
		buf[len] = '\0';
		/* intern() may move the counts: look it up first. */
		i = intern(&stacks, buf);
		stacks.count[i]++;
	}
	if (svg) {
		len = strlen(path) + 32;
		buf = xrealloc(buf, len);
		snprintf(buf, len, "pctr report: %s, %zu samples", path,
			 nsamples);
		flame_svg(stdout, stacks.str, stacks.count, stacks.n, buf);
		free(buf);
		return;
	}
	o = sorted(&stacks);
	for (i = 0; i < stacks.n; i++)
		printf("%s %" PRIu64 "\n", stacks.str[o[i]], stacks.count[o[i]]);
	free(o);
	free(buf);
}

static int usage(FILE *f, int status)
{
	fprintf(f,
		"usage: pctr report [-i FILE] [-g] [-s KEYS] [--folded | --svg]\n"
		"  -i FILE    what pctr record wrote (default pctr.data)\n"
		"  -g         call graphs: each symbol's callers, as pmcstat -G\n"
		"  -s, --sort KEYS  a row per value of these, as comm,sym (keys: comm,\n"
		"             pid, tid, sym; default sym); comm starts --folded's stacks\n"
		"  --folded   one line per stack, 'outer;...;leaf count', for flame graphs\n"
		"  --svg      the flame graph itself: an SVG file a browser opens\n"
		"See pctr-report(1).\n");
	return status;
}

int pctr_report(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "folded", no_argument, NULL, 'F' },
		{ "svg", no_argument, NULL, 'S' },
		{ "sort", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = "pctr.data";
	int opt, graph = 0, folded = 0, svg = 0;

	while ((opt = getopt_long(argc, argv, "i:gs:h", longs, NULL)) != -1) {
		switch (opt) {
		case 'i':
			path = optarg;
			break;
		case 'g':
			graph = 1;
			break;
		case 'F':
			folded = 1;
			break;
		case 'S':
			svg = 1;
			break;
		case 's':
			parse_sort(optarg);
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, 2);
		}
	}
	if (optind != argc || folded + svg > 1)
		return usage(stderr, 2);
	read_file(path);
	if (!nsamples) {
		fprintf(stderr, "%s: no samples in %s\n", prog, path);
		return 1;
	}
	if (folded || svg)
		print_folded(svg, path);
	else
		print_flat(graph);
	return 0;
}
