/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels pctr builds for (6.1 to 6.12), in one
 * place.  Kbuild defines PCTR_HAVE_* after looking at the kernel headers.
 */
#ifndef _PCTR_COMPAT_H
#define _PCTR_COMPAT_H

#include <linux/mm.h>

/* vm_flags became read-only with accessors in 6.3. */
#ifndef PCTR_HAVE_VM_FLAGS_SET
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma,
				  vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * The user's locked_vm (pinned pages charged to RLIMIT_MEMLOCK, shared
 * by io_uring, perf and the network stack) exists only when one of its
 * users is built: every kernel with networking or io_uring has it (the
 * conditions 6.1 and 6.12 agree on).  Without it (the bench's sparc64
 * guest kernels) policy.c counts pctr's own rings per user.
 */
#if defined(CONFIG_NET) || defined(CONFIG_IO_URING)
#define PCTR_HAVE_USER_LOCKED_VM
#endif

#endif /* _PCTR_COMPAT_H */
