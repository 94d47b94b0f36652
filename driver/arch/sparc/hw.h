/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the SPARC backends take from their surroundings (the seam named in
 * sparc.h): the kernel's headers here, its registers and notifiers in
 * hw_kernel.c.  Built outside the kernel (the host tests), the build
 * supplies the same names from a register model.  Include this first.
 */
#ifndef _PCTR_SPARC_HW_H
#define _PCTR_SPARC_HW_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/string.h>
#endif /* __KERNEL__ */

#endif /* _PCTR_SPARC_HW_H */
