// SPDX-License-Identifier: GPL-2.0
/*
 * The symbols of a pctr record stream (symbols.h), for pctr report and
 * pctr top.
 *
 * User addresses come from elfutils' libdwfl, from the maps pctr record
 * saved for the sample's process and exec generation (with debuginfo
 * when it is installed).  Kernel addresses come from /proc/kallsyms,
 * read when a sample in the kernel has an address (root's, or a user's
 * allowed to count the kernel) and the stream was recorded on this
 * boot: the kernel shows its addresses only to whom kptr_restrict
 * allows, zeros to the others, and a zero names nothing.  Its lines
 * with a module ("addr t name\t[module]") name the modules' functions,
 * "[module]" their object, as perf does.
 */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "record.h"
#include "symbols.h"

const char *sym_prog = "pctr report";
const char *sym_kallsyms = "/proc/kallsyms";

#define fail(...)	tool_fail(sym_prog, 1, __VA_ARGS__)

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		fail("out of memory");
	return p;
}

/* --- interned strings, with a count each ------------------------------- */

static unsigned int str_hash(const char *s)
{
	unsigned int h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void table_grow(struct table *t)
{
	unsigned int i, h;

	t->hcap = t->hcap ? t->hcap * 2 : 1024;
	free(t->hash);
	t->hash = calloc(t->hcap, sizeof(*t->hash));
	if (!t->hash)
		fail("out of memory");
	for (i = 0; i < t->n; i++) {
		for (h = str_hash(t->str[i]) & (t->hcap - 1); t->hash[h];
		     h = (h + 1) & (t->hcap - 1))
			;
		t->hash[h] = i + 1;
	}
}

unsigned int intern(struct table *t, const char *s)
{
	unsigned int h;

	if (2 * (t->n + 1) > t->hcap)
		table_grow(t);
	for (h = str_hash(s) & (t->hcap - 1); t->hash[h];
	     h = (h + 1) & (t->hcap - 1))
		if (!strcmp(t->str[t->hash[h] - 1], s))
			return t->hash[h] - 1;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->str = xrealloc(t->str, t->cap * sizeof(*t->str));
		t->count = xrealloc(t->count, t->cap * sizeof(*t->count));
	}
	t->str[t->n] = strdup(s);
	if (!t->str[t->n])
		fail("out of memory");
	t->count[t->n] = 0;
	t->hash[h] = t->n + 1;
	return t->n++;
}

static struct table *sort_table;

static int by_count(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
	uint64_t cx = sort_table->count[x], cy = sort_table->count[y];

	if (cx != cy)
		return cx < cy ? 1 : -1;
	return strcmp(sort_table->str[x], sort_table->str[y]);
}

unsigned int *sorted(struct table *t)
{
	unsigned int *o = xrealloc(NULL, t->n * sizeof(*o)), i;

	for (i = 0; i < t->n; i++)
		o[i] = i;
	sort_table = t;
	qsort(o, t->n, sizeof(*o), by_count);
	return o;
}

/* --- what the stream says --------------------------------------------- */

/* The saved maps of one process in one exec generation: the last kept. */
struct image {
	int		pid;
	unsigned int	gen;
	char		*maps;		/* /proc/PID/maps lines */
	size_t		len;
	Dwfl		*dwfl;
	int		tried;
};

struct exec_ev {
	int		pid;
	uint64_t	tsc;
};

static struct image *images;
static unsigned int nimages;
static struct exec_ev *execs;
static unsigned int nexecs;
static struct image *cur;	/* the last "maps" line's */
static char boot_id[64];	/* the stream's "boot" line */

static struct image *image_of(int pid, unsigned int gen)
{
	unsigned int i;

	for (i = 0; i < nimages; i++)
		if (images[i].pid == pid && images[i].gen == gen)
			return &images[i];
	return NULL;
}

static unsigned int gen_at(int pid, uint64_t tsc)
{
	unsigned int i, gen = 0;

	for (i = 0; i < nexecs; i++)
		if (execs[i].pid == pid && execs[i].tsc <= tsc)
			gen++;
	return gen;
}

struct image *sym_image(int pid, uint64_t tsc)
{
	return image_of(pid, gen_at(pid, tsc));
}

int sym_line(const char *line, size_t len)
{
	unsigned long long tsc;
	unsigned int gen;
	int pid;

	if (!strncmp(line, "m ", 2)) {
		if (cur) {
			cur->maps = xrealloc(cur->maps, cur->len + len);
			memcpy(cur->maps + cur->len, line + 2, len - 2);
			cur->len += len - 2;
		}
	} else if (sscanf(line, "maps %d %u %llx", &pid, &gen, &tsc) == 3) {
		cur = image_of(pid, gen);
		if (!cur) {
			images = xrealloc(images,
					  (nimages + 1) * sizeof(*images));
			cur = &images[nimages++];
			memset(cur, 0, sizeof(*cur));
			cur->pid = pid;
			cur->gen = gen;
		}
		/* A later snapshot replaces an earlier one. */
		cur->len = 0;
		if (cur->dwfl)
			dwfl_end(cur->dwfl);
		cur->dwfl = NULL;
		cur->tried = 0;
	} else if (sscanf(line, "exec %d %u %llx", &pid, &gen, &tsc) == 3) {
		execs = xrealloc(execs, (nexecs + 1) * sizeof(*execs));
		execs[nexecs].pid = pid;
		execs[nexecs++].tsc = tsc;
	} else if (sscanf(line, "boot %63s", boot_id) != 1) {
		return 0;
	}
	return 1;
}

static const Dwfl_Callbacks dwfl_cb = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static Dwfl *image_dwfl(struct image *im)
{
	FILE *f;

	if (im->tried)
		return im->dwfl;
	im->tried = 1;
	im->dwfl = dwfl_begin(&dwfl_cb);
	if (!im->dwfl)
		return NULL;
	f = fmemopen(im->maps, im->len, "r");
	dwfl_report_begin(im->dwfl);
	if (f) {
		if (dwfl_linux_proc_maps_report(im->dwfl, f))
			fprintf(stderr, "%s: the maps of process %d are unreadable: %s\n",
				sym_prog, im->pid, dwfl_errmsg(-1));
		fclose(f);
	}
	dwfl_report_end(im->dwfl, NULL, NULL);
	return im->dwfl;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

void sym_user(struct image *im, uint64_t addr, char *buf, size_t len)
{
	Dwfl *d = im ? image_dwfl(im) : NULL;
	Dwfl_Module *m = d ? dwfl_addrmodule(d, addr) : NULL;
	const char *sym = NULL, *obj = "[unknown]";

	if (m) {
		obj = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL,
				       NULL);
		obj = obj ? base_name(obj) : "[unknown]";
		sym = dwfl_module_addrname(m, addr);
	}
	snprintf(buf, len, "%s\t%s", sym ? sym : "[unknown]", obj);
}

/* --- kernel symbols ----------------------------------------------------- */

/* A text symbol, and its module's name (NULL: the kernel's own). */
struct ksym {
	uint64_t	addr;
	const char	*name, *mod;
};

static struct ksym *ksyms;
static size_t nksyms;
static int ksyms_tried;
static char *kbuf;		/* the file, its names cut out in place */

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* All of @f, NUL-terminated, in *@len bytes. */
static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 1 << 20, n = 0, got;
	char *b = xrealloc(NULL, cap);

	while ((got = fread(b + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 < 4096) {
			cap *= 2;
			b = xrealloc(b, cap);
		}
	}
	b[n] = '\0';
	*len = n;
	return b;
}

/*
 * Read in one go and cut in place, not line by line with a copy of each
 * name: a kernel has some 200,000 lines, and pctr top reads them while
 * its view waits (in a TCG guest this took seconds).
 */
static void load_kallsyms(void)
{
	char now[64] = "", *p, *end, *eol, *name, *mod;
	unsigned long long a;
	size_t cap = 0, len;
	FILE *f;

	ksyms_tried = 1;
	if (!boot_id[0] || !read_boot_id(now, sizeof(now)) ||
	    strcmp(now, boot_id))
		return;
	f = fopen(sym_kallsyms, "re");
	if (!f)
		return;
	kbuf = read_all(f, &len);
	fclose(f);
	/* "address type name", then "\t[module]" for a module's. */
	for (p = kbuf, end = kbuf + len; p < end; p = eol + 1) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		*eol = '\0';
		a = strtoull(p, &p, 16);
		if (!a || p[0] != ' ' || (p[1] != 't' && p[1] != 'T') ||
		    p[2] != ' ')
			continue;
		name = p + 3;
		p = name + strcspn(name, "\t");
		mod = NULL;
		if (p[0] == '\t' && p[1] == '[') {
			mod = p + 2;
			mod[strcspn(mod, "]")] = '\0';
		}
		*p = '\0';
		if (nksyms == cap) {
			cap = cap ? 2 * cap : 65536;
			ksyms = xrealloc(ksyms, cap * sizeof(*ksyms));
		}
		ksyms[nksyms].addr = a;
		ksyms[nksyms].name = name;
		ksyms[nksyms].mod = mod;
		nksyms++;
	}
	qsort(ksyms, nksyms, sizeof(*ksyms), by_addr);
}

/* The kernel function at @addr, or NULL. */
static const struct ksym *ksym_of(uint64_t addr)
{
	size_t lo = 0, hi, mid;

	if (!ksyms_tried)
		load_kallsyms();
	hi = nksyms;
	if (!addr || !hi || addr < ksyms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (ksyms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return &ksyms[lo];
}

void sym_kernel_now(void)
{
	if (read_boot_id(boot_id, sizeof(boot_id)))
		load_kallsyms();
}

void sym_kernel(uint64_t addr, char *buf, size_t len)
{
	const struct ksym *k = ksym_of(addr);

	if (k)
		snprintf(buf, len, "%s\t[%s]", k->name,
			 k->mod ? k->mod : "kernel.kallsyms");
	else
		snprintf(buf, len, "[kernel]\t[kernel]");
}
