// SPDX-License-Identifier: GPL-2.0
/*
 * Solaris event specifications, shared by cputrack(1) and cpustat(8).
 *
 * A specification is a comma-separated list of tokens:
 *
 *   picN=EVENT     count EVENT on counter N
 *   EVENT          count EVENT on the next counter that can, after the
 *                  highest one taken so far (so columns keep the order
 *                  they were written in)
 *   nouser[N]      do not count user mode (on counter N, or on all)
 *   sys[N]         count kernel mode too
 *   ATTR[N][=VAL]  one of libcpc's attributes (cpc_walk_attrs: umask,
 *                  cmask, edge, inv, anythr), VAL by strtoll base 0,
 *                  1 if left out
 *
 * Counters are numbered as libcpc numbers them (cpc_npic: the general
 * counters, then the fixed ones).  The requests are added in counter
 * order, each with its "picnum", so that the columns are pic0, pic1, ...
 * as named.  An event that libcpc does not list for any counter (a
 * libpfm4 name, a raw code) may go on any general counter, and
 * cpc_set_add_request() has the last word on it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pctr.h"
#include "cpcspec.h"
#include "../libmsg.h"

const char *spec_prog = "cpc";

static void __attribute__((format(printf, 1, 2))) spec_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", spec_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void spec_errfn(const char *fn, int subcode, const char *fmt, va_list ap)
{
	tool_libmsg(spec_prog, fmt, ap);
}

/* --- which counter can count what ------------------------------------ */

struct walk {
	const char	*name;
	int		found;
};

static void walk_pic(void *arg, uint_t picno, const char *event)
{
	struct walk *w = arg;

	if (!strcasecmp(w->name, event))
		w->found = 1;
}

/* Does libcpc list @event for counter @pic? */
static int listed(cpc_t *cpc, uint_t pic, const char *event)
{
	struct walk w = { event, 0 };

	cpc_walk_events_pic(cpc, pic, &w, walk_pic);
	if (!w.found)
		cpc_walk_generic_events_pic(cpc, pic, &w, walk_pic);
	return w.found;
}

static int listed_anywhere(cpc_t *cpc, const char *event)
{
	uint_t i, n = cpc_npic(cpc);

	for (i = 0; i < n; i++)
		if (listed(cpc, i, event))
			return 1;
	return 0;
}

/* Counters pctr calls general: the first ones (see libcpc.h). */
static uint_t ngeneral(cpc_t *cpc)
{
	static uint_t n = ~0U;

	if (n == ~0U) {
		pctr_t *p = pctr_open(O_RDONLY);

		n = p ? p->info.pi_ngeneral : cpc_npic(cpc);
		if (p)
			pctr_close(p);
	}
	return n;
}

/* Can counter @pic count @event, as far as can be told before a bind? */
static int can_count(cpc_t *cpc, uint_t pic, const char *event)
{
	if (listed(cpc, pic, event))
		return 1;
	if (listed_anywhere(cpc, event))
		return 0;
	return pic < ngeneral(cpc);
}

/* --- parsing ------------------------------------------------------------ */

struct attr {
	char		name[CPC_MAX_ATTR_LEN];
	uint64_t	val;
};

struct req {
	char		event[CPC_MAX_EVENT_LEN];
	uint_t		flags;
	unsigned int	nattrs;
	struct attr	attrs[8];
};

struct attr_names {
	char		names[16][CPC_MAX_ATTR_LEN];
	unsigned int	n;
};

static void walk_attr(void *arg, const char *attr)
{
	struct attr_names *a = arg;

	if (strcmp(attr, "picnum") && a->n < 16)
		snprintf(a->names[a->n++], CPC_MAX_ATTR_LEN, "%s", attr);
}

/*
 * Is @key (up to @len) @base, optionally followed by a counter number?
 * 1 with *pic = -1 or the number, else 0.
 */
static int keyword(const char *key, size_t len, const char *base, int *pic)
{
	size_t bl = strlen(base), i;

	if (len < bl || strncmp(key, base, bl))
		return 0;
	if (len == bl) {
		*pic = -1;
		return 1;
	}
	for (i = bl; i < len; i++)
		if (!isdigit((unsigned char)key[i]))
			return 0;
	if (len - bl > 3)
		return 0;
	*pic = atoi(key + bl);
	return 1;
}

static int add_attr(struct req *r, const char *name, uint64_t val)
{
	unsigned int i;

	for (i = 0; i < r->nattrs; i++)
		if (!strcmp(r->attrs[i].name, name)) {
			r->attrs[i].val = val;
			return 0;
		}
	if (r->nattrs >= 8)
		return -1;
	snprintf(r->attrs[r->nattrs].name, CPC_MAX_ATTR_LEN, "%s", name);
	r->attrs[r->nattrs++].val = val;
	return 0;
}

static int parse(cpc_t *cpc, const char *text, struct req *reqs,
		 unsigned int npic)
{
	struct attr_names an = { .n = 0 };
	char *copy, *tok, *save, *eq, *end;
	unsigned int i, lo, hi;
	int pic, last, ret = -1, nevents = 0;
	uint64_t val;
	size_t klen;

	cpc_walk_attrs(cpc, &an, walk_attr);
	for (i = 0; i < npic; i++)
		reqs[i].flags = CPC_COUNT_USER;
	copy = strdup(text);
	if (!copy) {
		spec_err("out of memory\n");
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		eq = strchr(tok, '=');
		klen = eq ? (size_t)(eq - tok) : strlen(tok);
		/* picN=EVENT */
		if (keyword(tok, klen, "pic", &pic) && pic >= 0) {
			if ((unsigned int)pic >= npic) {
				spec_err("'pic%d': there are %u counters (pic0-pic%u)\n",
					 pic, npic, npic - 1);
				goto out;
			}
			if (reqs[pic].event[0]) {
				spec_err("repeated 'pic%d' token\n", pic);
				goto out;
			}
			if (!eq || !eq[1]) {
				spec_err("missing 'pic%d' value\n", pic);
				goto out;
			}
			if (!can_count(cpc, pic, eq + 1)) {
				spec_err("pic%d cannot measure event '%s' on this cpu\n",
					 pic, eq + 1);
				goto out;
			}
			snprintf(reqs[pic].event, CPC_MAX_EVENT_LEN, "%s",
				 eq + 1);
			nevents++;
			continue;
		}
		/* nouser[N], sys[N]: flags, any value ignored */
		if (keyword(tok, klen, "nouser", &pic) ||
		    keyword(tok, klen, "sys", &pic)) {
			if (pic >= (int)npic) {
				spec_err("bad token '%s'\n", tok);
				goto out;
			}
			lo = pic < 0 ? 0 : pic;
			hi = pic < 0 ? npic : (unsigned int)pic + 1;
			for (i = lo; i < hi; i++) {
				if (tok[0] == 'n')
					reqs[i].flags &= ~CPC_COUNT_USER;
				else
					reqs[i].flags |= CPC_COUNT_SYSTEM;
			}
			continue;
		}
		/* ATTR[N][=VAL] */
		for (i = 0; i < an.n; i++)
			if (keyword(tok, klen, an.names[i], &pic))
				break;
		if (i < an.n) {
			if (pic >= (int)npic) {
				spec_err("bad token '%s'\n", tok);
				goto out;
			}
			val = 1;
			if (eq) {
				errno = 0;
				val = strtoull(eq + 1, &end, 0);
				if (end == eq + 1 || *end || errno) {
					spec_err("invalid value '%s' for attribute '%s'\n",
						 eq + 1, an.names[i]);
					goto out;
				}
			}
			lo = pic < 0 ? 0 : pic;
			hi = pic < 0 ? npic : (unsigned int)pic + 1;
			for (; lo < hi; lo++)
				if (add_attr(&reqs[lo], an.names[i], val)) {
					spec_err("too many attributes in '%s'\n",
						 text);
					goto out;
				}
			continue;
		}
		/*
		 * An event without a counter: '=' before any ':' means a
		 * token we do not know (a libpfm4 modifier c=2 follows a ':').
		 */
		if (eq && (!strchr(tok, ':') || strchr(tok, ':') > eq)) {
			spec_err("bad token '%s'\n", tok);
			goto out;
		}
		for (last = npic - 1; last >= 0; last--)
			if (reqs[last].event[0])
				break;
		for (i = last + 1; i < npic; i++)
			if (can_count(cpc, i, tok))
				break;
		if (i >= npic) {
			if (listed_anywhere(cpc, tok) || last == (int)npic - 1)
				spec_err("no counter left for event '%s' in '%s'\n",
					 tok, text);
			else
				spec_err("bad token '%s'\n", tok);
			goto out;
		}
		snprintf(reqs[i].event, CPC_MAX_EVENT_LEN, "%s", tok);
		nevents++;
	}
	if (!nevents) {
		spec_err("no event in '%s'\n", text);
		goto out;
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

/* Add @reqs to @set (NULL: a scratch set, to check them); 0 or -1. */
static int add_reqs(cpc_t *cpc, cpc_set_t *set, struct req *reqs,
		    unsigned int npic)
{
	cpc_attr_t attrs[9];
	unsigned int i, k;

	for (i = 0; i < npic; i++) {
		if (!reqs[i].event[0])
			continue;
		attrs[0].ca_name = "picnum";
		attrs[0].ca_val = i;
		for (k = 0; k < reqs[i].nattrs; k++) {
			attrs[k + 1].ca_name = reqs[i].attrs[k].name;
			attrs[k + 1].ca_val = reqs[i].attrs[k].val;
		}
		if (cpc_set_add_request(cpc, set, reqs[i].event, 0,
					reqs[i].flags, reqs[i].nattrs + 1,
					attrs) < 0)
			return -1;
	}
	return 0;
}

int cpcspec_parse(cpc_t *cpc, const char *text, struct cpcspec *spec)
{
	unsigned int npic = cpc_npic(cpc), i;
	struct req *reqs;
	cpc_set_t *set;
	char col[16];
	int ret = -1;

	memset(spec, 0, sizeof(*spec));
	if (npic > SPEC_MAX_PICS)
		npic = SPEC_MAX_PICS;
	reqs = calloc(npic ? npic : 1, sizeof(*reqs));
	if (!reqs)
		return -1;
	if (parse(cpc, text, reqs, npic))
		goto out;
	set = cpc_set_create(cpc);
	if (!set)
		goto out;
	if (add_reqs(cpc, set, reqs, npic)) {
		cpc_set_destroy(cpc, set);
		goto out;
	}
	cpc_set_destroy(cpc, set);
	spec->text = strdup(text);
	if (!spec->text)
		goto out;
	for (i = 0; i < npic; i++) {
		if (!reqs[i].event[0])
			continue;
		spec->pic[spec->nreq++] = i;
		/*
		 * Solaris's column head: "pic" right in 8, the number left
		 * in 2, a space, cut to the 10 characters of a value column.
		 */
		snprintf(col, sizeof(col), "%8s%-2u ", "pic", i);
		col[10] = '\0';
		strcat(spec->hdr, col);
	}
	ret = 0;
out:
	free(reqs);
	return ret;
}

cpc_set_t *cpcspec_set(cpc_t *cpc, const struct cpcspec *spec)
{
	unsigned int npic = cpc_npic(cpc);
	struct req *reqs;
	cpc_set_t *set = NULL;

	if (npic > SPEC_MAX_PICS)
		npic = SPEC_MAX_PICS;
	reqs = calloc(npic ? npic : 1, sizeof(*reqs));
	if (!reqs)
		return NULL;
	if (parse(cpc, spec->text, reqs, npic))
		goto out;
	set = cpc_set_create(cpc);
	if (set && add_reqs(cpc, set, reqs, npic)) {
		cpc_set_destroy(cpc, set);
		set = NULL;
	}
out:
	free(reqs);
	return set;
}

void spec_print_vals(FILE *f, cpc_t *cpc, cpc_buf_t *buf,
		     const struct cpcspec *spec, int nsets)
{
	unsigned int i;
	uint64_t v;

	for (i = 0; i < spec->nreq; i++) {
		v = 0;
		cpc_buf_get(cpc, buf, i, &v);
		fprintf(f, "%9" PRIu64 " ", v);
	}
	if (nsets > 1)
		fprintf(f, " # %s\n", spec->text);
	else
		fputc('\n', f);
}

static int64_t zero_ns;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void spec_zerotime(void)
{
	zero_ns = now_ns();
}

double spec_seconds(int64_t ns)
{
	if (!ns)
		ns = now_ns();
	return (ns - zero_ns) / 1e9;
}
