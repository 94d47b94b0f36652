// SPDX-License-Identifier: GPL-2.0
/*
 * pctr report --svg: the profile as a flame graph, one SVG file that a
 * browser opens with nothing else.
 *
 * Each frame is a box as wide as the samples whose stacks pass through
 * it, its callers under it, the outermost frame at the bottom; boxes of
 * one caller sorted by name, so that the same profile draws the same
 * picture.  The layout is computed here and written as plain SVG (any
 * viewer shows it); a small script inside makes it interactive in a
 * browser: a click zooms into a frame (its callers stay, full width),
 * "Reset zoom" goes back, "Search" colours the frames whose name
 * matches a regular expression and says what share of the samples they
 * hold, and every frame's tooltip (its <title>) gives its samples and
 * share.  When the script has laid the frames out it marks the document
 * (data-ready on the root), which is what testing/flame-check looks for
 * in headless Chromium.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "flame.h"

#define WIDTH		1200	/* px */
#define PAD		10	/* left and right margins */
#define FRAME_H		16
#define TOP		36	/* title and controls */
#define BOTTOM		26	/* the details line */
#define CHAR_W		7.0	/* an approximate glyph of 12px monospace */

struct node {
	const char	*name;		/* not terminated: len bytes */
	size_t		len;
	uint64_t	count;
	unsigned int	first, next;	/* children, siblings (0: none) */
	unsigned int	depth;
};

static struct node *nodes;
static unsigned int nnodes, ncap, maxdepth;

static unsigned int new_node(const char *name, size_t len, unsigned int depth)
{
	if (nnodes == ncap) {
		ncap = ncap ? 2 * ncap : 256;
		nodes = realloc(nodes, ncap * sizeof(*nodes));
		if (!nodes)
			tool_fail("pctr report", 1, "out of memory");
	}
	nodes[nnodes] = (struct node){ .name = name, .len = len,
				       .depth = depth };
	if (depth > maxdepth)
		maxdepth = depth;
	return nnodes++;
}

static int name_cmp(const struct node *n, const char *name, size_t len)
{
	int c = memcmp(n->name, name, n->len < len ? n->len : len);

	return c ? c : (n->len > len) - (n->len < len);
}

/* The child @name of @parent, made where the sorted order wants it. */
static unsigned int child(unsigned int parent, const char *name, size_t len)
{
	unsigned int *link = &nodes[parent].first, k;
	int c = 1;

	while (*link && (c = name_cmp(&nodes[*link], name, len)) < 0)
		link = &nodes[*link].next;
	if (*link && !c)
		return *link;
	k = new_node(name, len, nodes[parent].depth + 1);
	nodes[k].next = *link;
	*link = k;
	return k;
}

/* The length of the well-formed UTF-8 sequence at @s, 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need, k;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 1;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 2;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 3;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;		/* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f;		/* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;		/* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f;		/* past U+10FFFF */
	if (need >= left || s[1] < lo || s[1] > hi)
		return 0;
	for (k = 2; k <= need; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	return need + 1;
}

/* Text in XML: markup escaped, control bytes and bad UTF-8 as '?'. */
static void xml_text(FILE *f, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k;

	while (i < len) {
		if (u[i] >= 0x80) {
			k = utf8_len(u + i, len - i);
			if (k)
				fwrite(u + i, 1, k, f);
			else
				fputc('?', f);
			i += k ? k : 1;
			continue;
		}
		if (u[i] == '&')
			fputs("&amp;", f);
		else if (u[i] == '<')
			fputs("&lt;", f);
		else if (u[i] == '>')
			fputs("&gt;", f);
		else if (u[i] == '"')
			fputs("&quot;", f);
		else
			fputc(u[i] < ' ' || u[i] == 0x7f ? '?' : u[i], f);
		i++;
	}
}

/* A warm colour from the name, the same for a name in every profile. */
static void colour(const struct node *n, char *buf, size_t len)
{
	unsigned int h = 2166136261u;
	size_t i;

	for (i = 0; i < n->len; i++)
		h = (h ^ (unsigned char)n->name[i]) * 16777619u;
	if (n->len && n->name[0] == '[')	/* [kernel], [unknown] */
		snprintf(buf, len, "rgb(%u,%u,%u)", 160 + h % 40,
			 160 + h % 40, 170 + h % 40);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 205 + h % 50,
			 (h >> 8) % 200 + 30, (h >> 16) % 55);
}

static void draw(FILE *f, unsigned int k, uint64_t x, uint64_t total,
		 unsigned int height)
{
	const struct node *n = &nodes[k];
	double px = PAD + (double)x * (WIDTH - 2 * PAD) / total;
	double pw = (double)n->count * (WIDTH - 2 * PAD) / total;
	unsigned int y = height - BOTTOM - (n->depth + 1) * FRAME_H;
	size_t fit = pw > 3 * CHAR_W ? (size_t)(pw / CHAR_W) - 1 : 0;
	unsigned int c;
	char fill[32];

	if (pw >= 0.1) {
		colour(n, fill, sizeof(fill));
		fprintf(f, "<g class=\"f\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64
			"\" data-d=\"%u\"><title>", x, n->count, n->depth);
		xml_text(f, n->name, n->len);
		fprintf(f, " (%" PRIu64 " samples, %.2f%%)</title>", n->count,
			100.0 * n->count / total);
		fprintf(f, "<rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"%u\" fill=\"%s\" rx=\"2\"/>",
			px, y, pw, FRAME_H - 1, fill);
		fprintf(f, "<text x=\"%.1f\" y=\"%u\">", px + 3, y + FRAME_H - 4);
		if (fit >= n->len) {
			xml_text(f, n->name, n->len);
		} else if (fit > 2) {
			xml_text(f, n->name, fit - 2);
			fputs("..", f);
		}
		fputs("</text></g>\n", f);
	}
	for (c = n->first; c; c = nodes[c].next) {
		draw(f, c, x, total, height);
		x += nodes[c].count;
	}
}

/* The interactive part: zoom, reset, search; no outside resources. */
static const char script[] =
"var svg = document.documentElement, W = +svg.getAttribute('width');\n"
"var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
"var total = +svg.getAttribute('data-total'), CW = 7, PAD = 10;\n"
"function label(g, w) {\n"
"  var name = g.querySelector('title').textContent.replace(/ \\([0-9]+ samples.*$/, '');\n"
"  var fit = w > 3 * CW ? Math.floor(w / CW) - 1 : 0;\n"
"  g.querySelector('text').textContent = fit >= name.length ? name :\n"
"    fit > 2 ? name.slice(0, fit - 2) + '..' : '';\n"
"}\n"
"function zoom(zx, zw, zd) {\n"
"  frames.forEach(function (g) {\n"
"    var x = +g.dataset.x, w = +g.dataset.w, d = +g.dataset.d;\n"
"    var r = g.querySelector('rect'), t = g.querySelector('text'), px, pw;\n"
"    if (d < zd && x <= zx && x + w >= zx + zw) {\n"
"      px = PAD; pw = W - 2 * PAD;\n"
"    } else if (d >= zd && x >= zx && x + w <= zx + zw) {\n"
"      px = PAD + (x - zx) * (W - 2 * PAD) / zw; pw = w * (W - 2 * PAD) / zw;\n"
"    } else {\n"
"      g.style.display = 'none'; return;\n"
"    }\n"
"    g.style.display = pw < 0.1 ? 'none' : '';\n"
"    r.setAttribute('x', px.toFixed(1)); r.setAttribute('width', pw.toFixed(1));\n"
"    t.setAttribute('x', (px + 3).toFixed(1));\n"
"    label(g, pw);\n"
"  });\n"
"}\n"
"frames.forEach(function (g) {\n"
"  g.addEventListener('click', function () {\n"
"    zoom(+g.dataset.x, +g.dataset.w, +g.dataset.d);\n"
"  });\n"
"  g.addEventListener('mouseover', function () {\n"
"    document.getElementById('details').textContent =\n"
"      g.querySelector('title').textContent;\n"
"  });\n"
"});\n"
"document.getElementById('reset').addEventListener('click', function () {\n"
"  zoom(0, total, 0);\n"
"});\n"
"document.getElementById('search').addEventListener('click', function () {\n"
"  var re = prompt('Search (a regular expression)'), m = 0, seen = [];\n"
"  if (re === null) return;\n"
"  try { re = new RegExp(re); } catch (e) { alert(e); return; }\n"
"  frames.forEach(function (g) {\n"
"    var r = g.querySelector('rect'), x = +g.dataset.x, w = +g.dataset.w;\n"
"    var name = g.querySelector('title').textContent.replace(/ \\([0-9]+ samples.*$/, '');\n"
"    if (!r.dataset.fill) r.dataset.fill = r.getAttribute('fill');\n"
"    if (re.source && re.test(name)) {\n"
"      r.setAttribute('fill', 'rgb(230,0,230)');\n"
"      if (!seen.some(function (s) { return x >= s[0] && x + w <= s[0] + s[1]; })) {\n"
"        seen.push([x, w]); m += w;\n"
"      }\n"
"    } else {\n"
"      r.setAttribute('fill', r.dataset.fill);\n"
"    }\n"
"  });\n"
"  document.getElementById('matched').textContent =\n"
"    re.source ? 'Matched: ' + (100 * m / total).toFixed(2) + '%' : '';\n"
"});\n"
"zoom(0, total, 0);\n"
"svg.setAttribute('data-ready', frames.length);\n";

void flame_svg(FILE *f, char *const *stacks, const uint64_t *counts,
	       unsigned int n, const char *title)
{
	unsigned int i, at, height;
	const char *s, *semi;
	uint64_t total = 0;

	nnodes = 0;
	maxdepth = 0;
	new_node("all", 3, 0);
	for (i = 0; i < n; i++) {
		at = 0;
		for (s = stacks[i]; *s; s = *semi ? semi + 1 : semi) {
			semi = strchrnul(s, ';');
			at = child(at, s, semi - s);
			nodes[at].count += counts[i];
		}
		nodes[0].count += counts[i];
		total += counts[i];
	}
	if (!total)
		total = 1;
	height = TOP + (maxdepth + 1) * FRAME_H + BOTTOM;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" data-total=\"%" PRIu64 "\">\n",
		WIDTH, height, WIDTH, height, total);
	fputs("<style>\n"
	      "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
	      "g.f { cursor: pointer; }\n"
	      "g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	      ".ctl { cursor: pointer; fill: #338; }\n"
	      "</style>\n", f);
	fprintf(f, "<rect width=\"%u\" height=\"%u\" fill=\"#f8f8f0\"/>\n",
		WIDTH, height);
	fprintf(f, "<text x=\"%u\" y=\"20\" text-anchor=\"middle\" style=\"font-size: 16px\">",
		WIDTH / 2);
	xml_text(f, title, strlen(title));
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"reset\" class=\"ctl\" x=\"%u\" y=\"20\">Reset zoom</text>\n",
		PAD);
	fprintf(f, "<text id=\"search\" class=\"ctl\" x=\"%u\" y=\"20\" text-anchor=\"end\">Search</text>\n",
		WIDTH - PAD);
	fprintf(f, "<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"></text>\n",
		WIDTH - PAD, height - 8);
	fprintf(f, "<text id=\"details\" x=\"%u\" y=\"%u\"> </text>\n",
		PAD, height - 8);
	draw(f, 0, 0, total, height);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
		script);
}
