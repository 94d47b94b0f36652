/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A library's message (libcpc's or libpctx's error handler) as the
 * commands print it, for tools/pctr and tools/cpc alike: "PROG: message"
 * on stderr, one newline at the end whether the message brought its own
 * or not.
 */
#ifndef PCTR_TOOLS_LIBMSG_H
#define PCTR_TOOLS_LIBMSG_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static inline void tool_libmsg(const char *prog, const char *fmt, va_list ap)
{
	char msg[1024];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	fprintf(stderr, "%s: %s%s", prog, msg,
		n && msg[n - 1] == '\n' ? "" : "\n");
}

#endif /* PCTR_TOOLS_LIBMSG_H */
