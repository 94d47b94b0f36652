/* SPDX-License-Identifier: GPL-2.0 */
/* pctr report --svg: a flame graph (flame.c). */
#ifndef _PCTR_TOOLS_FLAME_H
#define _PCTR_TOOLS_FLAME_H

#include <stdint.h>
#include <stdio.h>

/*
 * Write to @f an SVG flame graph of @n distinct stacks, each outermost
 * frame first with frames separated by ';' (pctr report --folded's
 * form), seen @counts[i] times; @title heads it.
 */
void flame_svg(FILE *f, char *const *stacks, const uint64_t *counts,
	       unsigned int n, const char *title);

#endif /* _PCTR_TOOLS_FLAME_H */
