/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pctr load, pctr unload, pctr status (tools/pctr/admin.c): the module's
 * administration through libkmod.
 */
#ifndef PCTR_TOOLS_ADMIN_H
#define PCTR_TOOLS_ADMIN_H

/* argv[0] is the subcommand; returns the exit status (2: usage). */
int pctr_admin(int argc, char **argv);

/* Whether @cmd is one of the subcommands pctr_admin() runs. */
int pctr_is_admin(const char *cmd);

#endif
