/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * <machine/pctr.h> for OpenBSD pctr(4) programs, from pctr's OpenBSD
 * overlay: cc ... $(pkg-config --cflags --libs pctr-openbsd).
 *
 * The names (_PATH_PCTR, PCIOCRD, PCIOCS0.., struct pctrst, pctrval,
 * PCTR_U/K/E/I/EN, PCTR_UM_*, ...) are the ABI's, <linux/pctr.h>; rdtsc()
 * is libpctr's (<pctr.h>).  rdpmc(ctr) differs from the instruction of
 * the same name, as the counters differ:
 *
 * - In the default mode=thread the counters are the calling thread's
 *   own 64-bit virtual counters, and user-mode rdpmc is allowed only to a
 *   thread that mapped its counter page, which OpenBSD programs never
 *   do.  So rdpmc(ctr) here returns the thread's virtual value of
 *   counter ctr, the pctr_hwc[ctr] PCIOCRD would give: the first call in
 *   a thread opens _PATH_PCTR read-only and maps the thread's page
 *   (pctr_open(3), pctr_map(3)), and every call then reads with
 *   pctr_read(3): rdpmc and a few loads, no system call, or PCIOCRD
 *   where the page does not allow that.  The descriptor stays open for
 *   the thread's life, one per thread and source file calling rdpmc().
 * - In mode=system (OpenBSD's semantics: functions belong to the
 *   machine) it is the instruction itself on x86 where the backend lets
 *   user mode read the counters (PCTR_CAP_USER_RDPMC), the CPU's raw
 *   counter, as on OpenBSD; otherwise the CPU's count, with PCIOCRD.
 *
 * If the device cannot be opened, or a read fails, rdpmc() returns
 * (pctrval)-1 with errno set.  Link with libpctr (pkg-config does).
 */
#ifndef _PCTR_OPENBSD_MACHINE_PCTR_H
#define _PCTR_OPENBSD_MACHINE_PCTR_H

#include <fcntl.h>
#include <linux/pctr.h>
#include <pctr.h>

/* The calling thread's handle, made by its first rdpmc() (above). */
static __thread pctr_t *pctr_openbsd_;
/* 1: the handle is open; 2: the raw instruction (system mode, x86). */
static __thread int pctr_openbsd_how_;

static inline __attribute__((unused)) pctrval pctr_openbsd_rdpmc_(unsigned int ctr)
{
	if (!pctr_openbsd_how_) {
		pctr_openbsd_ = pctr_open(O_RDONLY);
		if (!pctr_openbsd_)
			return (pctrval)-1;
		pctr_openbsd_how_ = 1;
#if defined(__x86_64__) || defined(__i386__)
		if ((pctr_openbsd_->info.pi_caps & PCTR_CAP_SYSTEM) &&
		    (pctr_openbsd_->info.pi_caps & PCTR_CAP_USER_RDPMC)) {
			pctr_close(pctr_openbsd_);
			pctr_openbsd_ = 0;
			pctr_openbsd_how_ = 2;
		}
#endif
		/* Without the page pctr_read() uses PCIOCRD. */
		if (pctr_openbsd_how_ == 1)
			(void)pctr_map(pctr_openbsd_);
	}
	if (pctr_openbsd_how_ == 2)
		return rdpmc(ctr);
	return pctr_read(pctr_openbsd_, ctr);
}

#define rdpmc(ctr)	pctr_openbsd_rdpmc_(ctr)

#endif /* _PCTR_OPENBSD_MACHINE_PCTR_H */
