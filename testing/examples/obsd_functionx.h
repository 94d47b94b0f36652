/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What OpenBSD pctr(4)'s time_functionx example leaves to the user
 * (openbsd-pctr.4.txt, "Time stamp counter": "to measure the execution
 * time of a hypothetical subroutine called functionx()"): functionx()
 * itself, and <stdio.h> for the page's printf.  Given to the page's
 * text with cc -include; obsd_functionx.c defines functionx() and a
 * main() that calls time_functionx() (testing/examples/extract).
 */
#ifndef OBSD_FUNCTIONX_H
#define OBSD_FUNCTIONX_H

#include <stdio.h>

void functionx(void);
void time_functionx(void);

#endif
