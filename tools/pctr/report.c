// SPDX-License-Identifier: GPL-2.0
/*
 * pctr report: read what pctr record wrote and say where the events
 * happened (pctr-report(1)).
 *
 *   pctr report [-i FILE] [-g] [-s KEYS] [--folded | --svg | --dump]
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
 *
 * The file is pctr record's binary one (record.h) or the text one
 * (pctr record --text, and older files); --dump prints either as text.
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
#include "record.h"
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

/*
 * One sample: @rec's pid, tid, flags and ip, and @chain's @nr frames
 * (the record's own, or a text line's).  @comm: its thread's name.
 */
static void add_sample(const struct pctr_sample_rec *rec,
		       const __u64 *chain, unsigned int nr,
		       unsigned int comm)
{
	unsigned int flags = rec->sr_flags, i, id, knr;
	uint64_t a;
	char buf[1024];
	struct image *im;

	im = sym_image(rec->sr_pid, rec->sr_tsc);
	if (nsamples == capsamples) {
		capsamples = capsamples ? capsamples * 2 : 4096;
		sample_at = xrealloc(sample_at, capsamples * sizeof(*sample_at));
		sample_n = xrealloc(sample_n, capsamples * sizeof(*sample_n));
		sample_who = xrealloc(sample_who,
				      capsamples * sizeof(*sample_who));
	}
	sample_who[nsamples].pid = rec->sr_pid;
	sample_who[nsamples].tid = rec->sr_tid;
	sample_who[nsamples].comm = comm;
	sample_at[nsamples] = nframes;
	if (flags & PCTR_SR_KERNEL) {
		add_frame(kernel_frame(rec->sr_ip));
	} else {
		sym_user(im, rec->sr_ip, buf, sizeof(buf));
		add_frame(intern(&syms, buf));
	}
	knr = PCTR_SR_KNR(flags);
	for (i = 0; i < nr; i++) {
		a = chain[i];
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

/* One "s" line: pid tid cpu flags tsc ip nr chain... @comm: its name. */
static void add_sample_line(char *line, unsigned int comm)
{
	static __u64 *chain;
	static unsigned int cap;
	struct pctr_sample_rec rec = { 0 };
	unsigned int pid, tid, cpu, flags, nr, i;
	unsigned long long tsc, ip, a;
	char *p = line;
	int n;

	if (sscanf(p, "%u %u %u %x %llx %llx %u%n", &pid, &tid, &cpu, &flags,
		   &tsc, &ip, &nr, &n) != 7)
		return;
	p += n;
	for (i = 0; i < nr; i++) {
		if (sscanf(p, " %llx%n", &a, &n) != 1)
			break;
		p += n;
		if (i == cap) {
			cap = cap ? cap * 2 : 64;
			chain = xrealloc(chain, cap * sizeof(*chain));
		}
		chain[i] = a;
	}
	rec.sr_pid = pid;
	rec.sr_tid = tid;
	rec.sr_flags = flags;
	rec.sr_tsc = tsc;
	rec.sr_ip = ip;
	add_sample(&rec, chain, i, comm);
}

/*
 * The samples, resolved once every map and exec is known: each a text
 * line or a binary record, and its thread's name where it was in the
 * file.
 */
static struct pending {
	char				*line;
	const struct pctr_sample_rec	*rec;
	unsigned int			comm;
} *pend;
static size_t npend, cappend;

static struct pending *new_pending(int pid, int tid)
{
	if (npend == cappend) {
		cappend = cappend ? cappend * 2 : 4096;
		pend = xrealloc(pend, cappend * sizeof(*pend));
	}
	pend[npend].line = NULL;
	pend[npend].rec = NULL;
	pend[npend].comm = comm_of(pid, tid);
	return &pend[npend++];
}

/* --dump: print the file as text rather than read it. */
static int dump;

/* A line of the text format other than "s" (with its newline). */
static void text_line(char *line, size_t len)
{
	unsigned long long n1, n2;
	int pid, tid;

	if (dump) {
		fwrite(line, 1, len, stdout);
		return;
	}
	if (!strncmp(line, "s ", 2)) {
		/* Its thread's name is the one given so far. */
		pid = tid = 0;
		sscanf(line + 2, "%d %d", &pid, &tid);
		new_pending(pid, tid)->line = strdup(line + 2);
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

static void read_text(FILE *f, const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	if ((len = getline(&line, &cap, f)) <= 0)
		fail("%s is empty: did pctr record finish?", path);
	if (strncmp(line, "pctr-record 1", 13))
		fail("%s is not a pctr record file", path);
	if (dump)
		fwrite(line, 1, len, stdout);
	while ((len = getline(&line, &cap, f)) > 0)
		text_line(line, len);
	free(line);
}

/* The text of PCTR_FREC_TEXT records, up to its last full line. */
static char *text;
static size_t ntext, captext;

static void binary_text(const char *s, size_t len)
{
	size_t at = 0, nl;
	char *e, c;

	if (ntext + len + 1 > captext) {
		captext = (ntext + len + 1) * 2;
		text = xrealloc(text, captext);
	}
	memcpy(text + ntext, s, len);
	ntext += len;
	/* Each line with its newline, ended by a NUL (there is room). */
	while (at < ntext && (e = memchr(text + at, '\n', ntext - at))) {
		nl = e - text + 1;
		c = text[nl];
		text[nl] = '\0';
		text_line(text + at, nl - at);
		text[nl] = c;
		at = nl;
	}
	memmove(text, text + at, ntext - at);
	ntext -= at;
}

/* The binary file, @data of @size bytes (kept: the samples point into it). */
static void read_binary(const char *data, size_t size, const char *path)
{
	const struct pctr_file_hdr *h = (const void *)data;
	const struct pctr_sample_rec *rec;
	const struct pctr_file_text *t;
	size_t at;

	if (h->fh_version != PCTR_FILE_VERSION)
		fail("%s: file version %u (this pctr reads %u and text)%s", path,
		     h->fh_version, PCTR_FILE_VERSION,
		     __builtin_bswap32(h->fh_version) == PCTR_FILE_VERSION ?
		     ": written on a machine of the other byte order" : "");
	if (h->fh_size < sizeof(*h) || h->fh_size % 8 || h->fh_size > size)
		fail("%s: a bad header", path);
	if (dump)
		printf("pctr-record 1\n");
	for (at = h->fh_size; at < size; at += rec->sr_size) {
		rec = (const void *)(data + at);
		if (size - at < 8 || rec->sr_size < 8 || rec->sr_size % 8 ||
		    rec->sr_size > size - at) {
			fprintf(stderr, "%s: %s is cut short or corrupt at byte %zu: the rest is left out\n",
				prog, path, at);
			break;
		}
		switch (rec->sr_type) {
		case PCTR_FREC_TEXT:
			t = (const void *)rec;
			if (t->ft_len <= rec->sr_size - sizeof(*t))
				binary_text((const char *)(t + 1), t->ft_len);
			break;
		case PCTR_REC_SAMPLE:
			if (rec->sr_size < sizeof(*rec))
				break;
			if (dump)
				write_sample(stdout, rec);
			else
				new_pending(rec->sr_pid, rec->sr_tid)->rec = rec;
			break;
		case PCTR_REC_THROTTLE:
			if (dump && rec->sr_size >= sizeof(struct pctr_throttle_rec))
				write_throttle(stdout, (const void *)rec);
			break;
		}
		/* Any other type is skipped whole, as the ABI says. */
	}
	if (ntext)
		binary_text("\n", 1);
}

static void read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *data = NULL;
	size_t size = 0, cap = 0, n, i, nr;
	const struct pctr_sample_rec *rec;

	if (!f)
		fail("%s: %s%s", path, strerror(errno),
		     errno == ENOENT ? " (make one with pctr record)" : "");
	/* Text, or binary: the first bytes say. */
	data = xrealloc(NULL, cap = 1 << 16);
	size = fread(data, 1, sizeof(struct pctr_file_hdr), f);
	if (size < sizeof(struct pctr_file_hdr) ||
	    memcmp(data, PCTR_FILE_MAGIC, 8)) {
		rewind(f);
		free(data);
		data = NULL;
		read_text(f, path);
	} else {
		while ((n = fread(data + size, 1, cap - size, f)) > 0) {
			size += n;
			if (size == cap)
				data = xrealloc(data, cap *= 2);
		}
		if (ferror(f))
			fail("%s: %s", path, strerror(errno));
		read_binary(data, size, path);
	}
	fclose(f);
	for (i = 0; i < npend; i++) {
		rec = pend[i].rec;
		if (pend[i].line) {
			add_sample_line(pend[i].line, pend[i].comm);
			free(pend[i].line);
		} else if (rec) {
			nr = (rec->sr_size - sizeof(*rec)) / sizeof(uint64_t);
			if (nr > rec->sr_nr)
				nr = rec->sr_nr;
			add_sample(rec, rec->sr_chain, nr, pend[i].comm);
		}
	}
	free(pend);
	free(data);
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
		"usage: pctr report [-i FILE] [-g] [-s KEYS] [--folded | --svg | --dump]\n"
		"  -i FILE    what pctr record wrote (default pctr.data)\n"
		"  -g         call graphs: each symbol's callers, as pmcstat -G\n"
		"  -s, --sort KEYS  a row per value of these, as comm,sym (keys: comm,\n"
		"             pid, tid, sym; default sym); comm starts --folded's stacks\n"
		"  --folded   one line per stack, 'outer;...;leaf count', for flame graphs\n"
		"  --svg      the flame graph itself: an SVG file a browser opens\n"
		"  --dump     the file as text, one item a line, as pctr record --text\n"
		"             writes it (pctr-record(1))\n"
		"See pctr-report(1).\n");
	return status;
}

int pctr_report(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "folded", no_argument, NULL, 'F' },
		{ "svg", no_argument, NULL, 'S' },
		{ "dump", no_argument, NULL, 'D' },
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
		case 'D':
			dump = 1;
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
	if (optind != argc || folded + svg + dump > 1)
		return usage(stderr, 2);
	read_file(path);
	if (dump)
		return fflush(stdout) ? 1 : 0;
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
