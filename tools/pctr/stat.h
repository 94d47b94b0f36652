/* SPDX-License-Identifier: GPL-2.0 */
/* pctr stat: run a command and count it (tools/pctr/stat.c, pctr(1)). */
#ifndef _PCTR_TOOLS_STAT_H
#define _PCTR_TOOLS_STAT_H

/* argv[0] is "stat"; returns pctr's exit status. */
int pctr_stat(int argc, char **argv);

#endif
