/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libpctr's helpers for the project's own tools (tools/), which link
 * libpctr.a: not installed, not exported from libpctr.so (the library is
 * built with -fvisibility=hidden and these are not PCTR_API), and no
 * part of the ABI.  The tools may call the library; the library never
 * calls the tools.
 */
#ifndef _PCTR_INTERNAL_H
#define _PCTR_INTERNAL_H

#include <stddef.h>

/*
 * The first line of the small file @path (sysfs, procfs) into @buf of
 * @len bytes, without its newline; "" if it cannot be read.  Returns @buf.
 */
const char *pctr_read_line(const char *path, char *buf, size_t len);

/*
 * The processes that have a file open that @match accepts, as /proc
 * lets us see them (all of them to root), at most @max: @match gets the
 * descriptor's /proc path, where its link points and @arg.  Into @buf
 * of @len bytes, "@prefix PID (comm)" each, separated by ", ", while
 * they fit; returns how many there are.
 */
int pctr_fd_users(int (*match)(const char *fd, const char *target,
				void *arg),
		  void *arg, const char *prefix, int max, char *buf,
		  size_t len);

#endif
