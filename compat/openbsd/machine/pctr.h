/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Where an OpenBSD program looks for pctr(4): <machine/pctr.h>.  On
 * Linux the same names are in <linux/pctr.h>; this is the only thing an
 * OpenBSD pctr(4) program needs supplied to build unchanged.
 */
#include <linux/pctr.h>
