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

#endif
