// SPDX-License-Identifier: GPL-2.0
/*
 * The call chains of a sample: the user's (pctr_arch.user_chain), x86-64
 * user stacks walked by their frame pointers, from any context (the
 * overflow interrupt is an NMI here), user memory read with page faults
 * off; and the kernel's (pctr_arch.kernel_chain), by the kernel's own
 * unwinder.  Kernel only: the host tests' model has none.
 */
#include <linux/ptrace.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>

#include "hw.h"
#include "x86.h"

/*
 * The user return addresses above @uregs, innermost first, by the frame
 * pointers: at most @max into @out.  A frame that is not in memory, out
 * of order or misaligned ends the walk.
 */
unsigned int pctr_x86_user_chain(u64 *out, unsigned int max,
				 struct pt_regs *uregs)
{
	unsigned int n = 0;
	unsigned long fp = uregs->bp;
	struct { u64 next, ret; } fr;

	if (!user_64bit_mode(uregs))
		return 0;
	while (n < max) {
		if (!fp || (fp & 7) || fp < uregs->sp ||
		    fp > TASK_SIZE_MAX - sizeof(fr))
			break;
		/*
		 * What a frame holds is the user's: a "return address" that
		 * is no user address (code built without frame pointers)
		 * ends the walk, and never looks like a kernel address.
		 */
		if (copy_from_user_nmi(&fr, (const void __user *)fp,
				       sizeof(fr)) || !fr.ret ||
		    fr.ret >= TASK_SIZE_MAX)
			break;
		out[n++] = fr.ret;
		if (fr.next <= fp)
			break;
		fp = fr.next;
	}
	return n;
}

/*
 * The kernel return addresses above @regs, the kernel state the sample
 * interrupted, innermost first: at most @max into @out, which has room
 * for @max + PCTR_KCHAIN_SLACK.  The kernel's unwinder (ORC in Debian's
 * kernels, as perf uses it) walks from here, through this handler and
 * the interrupt's entry, into the interrupted stack, where it reports
 * @regs' IP; what precedes that is ours and dropped, and a walk that
 * never reaches it gives nothing.
 */
unsigned int pctr_x86_kernel_chain(u64 *out, unsigned int max,
				   struct pt_regs *regs)
{
	unsigned long *buf = (unsigned long *)out;
	unsigned int n, i;

	BUILD_BUG_ON(sizeof(*buf) != sizeof(*out));
	n = stack_trace_save(buf, max + PCTR_KCHAIN_SLACK, 0);
	for (i = 0; i < n; i++)
		if (buf[i] == regs->ip)
			break;
	if (i >= n)
		return 0;
	n -= i + 1;		/* @regs' IP itself is sr_ip */
	if (n > max)
		n = max;
	memmove(out, out + i + 1, n * sizeof(*out));
	return n;
}
