/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pctr subcommands' fatal error: "PROG: message" on stderr, then
 * exit with @status (1 a failure, 2 a usage error).
 */
#ifndef PCTR_TOOLS_FAIL_H
#define PCTR_TOOLS_FAIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static inline void __attribute__((format(printf, 3, 4), noreturn))
tool_fail(const char *prog, int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

#endif /* PCTR_TOOLS_FAIL_H */
