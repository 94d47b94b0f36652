/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cpc_bind_curlwp(3CPC)'s examples leave to the user
 * (solaris-cpc_bind_curlwp.3cpc.txt, Example 1): "The error() routine
 * is assumed to be a user-provided routine analogous to the familiar
 * printf(3C) function from the C library that also performs an exit(2)
 * after printing the message."  The message and a newline on stderr,
 * then exit(1).  Given to Example 1's text with cc -include, included
 * by cpc_example2.c (testing/examples/extract).  Static: glibc has an
 * error() of its own, which a program without this one would call.
 */
#ifndef CPC_ERROR_H
#define CPC_ERROR_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void __attribute__((format(printf, 1, 2), noreturn))
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vfprintf(stderr, fmt, ap);
	va_end(ap);
	(void)fputc('\n', stderr);
	exit(1);
}

#endif
