/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What names the addresses of a pctr record stream, for pctr report and
 * pctr top (symbols.c): the maps saved for each process and exec
 * generation, symbolised with elfutils' libdwfl, and the functions of
 * the kernel and its modules from /proc/kallsyms; and the table of
 * interned strings, with a count each, that both count symbols in.
 */
#ifndef _PCTR_TOOLS_SYMBOLS_H
#define _PCTR_TOOLS_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* The command named in messages ("pctr report" unless set). */
extern const char *sym_prog;

/* Where the kernel's symbols are read (/proc/kallsyms; tests set it). */
extern const char *sym_kallsyms;

void *xrealloc(void *p, size_t n);

/* Interned strings, with a count each. */
struct table {
	char		**str;
	uint64_t	*count;
	unsigned int	n, cap;
	unsigned int	*hash;		/* index + 1, 0 empty */
	unsigned int	hcap;
};

/* @s's index in @t, added with a count of 0 if new. */
unsigned int intern(struct table *t, const char *s);

/* @t's indexes by count, highest first (then by string): free() it. */
unsigned int *sorted(struct table *t);

/*
 * A record stream's line about symbols ("maps", "m", "exec" or "boot",
 * of @len bytes with its newline): taken in, 1; another line, 0.  A
 * later "maps" of a process and exec generation replaces the earlier.
 */
int sym_line(const char *line, size_t len);

/* Process @pid's image at time @tsc (its exec generation then), or NULL. */
struct image *sym_image(int pid, uint64_t tsc);

/* "symbol\tobject" for user address @addr in @im (NULL: unknown). */
void sym_user(struct image *im, uint64_t addr, char *buf, size_t len);

/*
 * "symbol\tobject" for kernel address @addr: "function\t[kernel.kallsyms]"
 * or, in a module's text, "function\t[module]", when the kernel shows the
 * reader its addresses and the stream was recorded on this boot; else
 * "[kernel]\t[kernel]".
 */
void sym_kernel(uint64_t addr, char *buf, size_t len);

/*
 * The kernel's symbols read now, for a stream of the running boot (pctr
 * top's, read as it is written): not while a live view waits.
 */
void sym_kernel_now(void);

#endif /* _PCTR_TOOLS_SYMBOLS_H */
