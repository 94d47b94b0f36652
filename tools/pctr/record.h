/* SPDX-License-Identifier: GPL-2.0 */
/* pctr record and pctr report: sampling profiles (pctr-record(1)). */
#ifndef _PCTR_TOOLS_RECORD_H
#define _PCTR_TOOLS_RECORD_H

#include <stddef.h>

/* argv[0] is the subcommand's name; each returns pctr's exit status. */
int pctr_record(int argc, char **argv);
int pctr_report(int argc, char **argv);

/* The running kernel's boot ID into @id (no newline), or NULL. */
char *read_boot_id(char *id, size_t len);

#endif
