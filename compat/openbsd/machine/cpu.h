/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * <machine/cpu.h> for OpenBSD pctr(4) programs, from pctr's OpenBSD
 * overlay.  pctr(4) lists it among the includes every pctr program
 * needs; nothing of OpenBSD's <machine/cpu.h> is needed for pctr here,
 * so it is empty, and a program that uses more of it does not build.
 */
#ifndef _PCTR_OPENBSD_MACHINE_CPU_H
#define _PCTR_OPENBSD_MACHINE_CPU_H
#endif
