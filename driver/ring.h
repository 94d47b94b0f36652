/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sampling ring's insides, shared by the file that makes, maps and
 * frees it (ring.c) and the one that writes records to it (sample.c).
 * The rest of the engine sees struct pctr_ring as a name only, through
 * sample.h.
 */
#ifndef _PCTR_RING_H
#define _PCTR_RING_H

#include <linux/irq_work.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <linux/pctr.h>

struct pid_namespace;
struct user_struct;

/* The kernel's own view of one CPU's ring: never read back from user. */
struct ring_kcpu {
	u64	head;
	u64	lost;
	u64	throttles;
	bool	busy;		/* a record is being written on this CPU */
};

struct pctr_ring {
	refcount_t		ref;
	void			*base;		/* vmalloc: mapped */
	unsigned long		size;		/* bytes mapped */
	struct user_struct	*user;		/* its size is charged to */
	u32			ncpu;
	u32			first;		/* the CPU of its ring 0 */
	u32			ctl_size;
	u64			data_size;	/* per CPU, a power of two */
	u32			watermark;
	struct pctr_ring_cpu	*ucpu;		/* in the mapped control area */
	struct ring_kcpu	*kcpu;
	struct pid_namespace	*ns;		/* the maker's, for pid/tid */
	wait_queue_head_t	wq;
	struct irq_work		wake;
	struct work_struct	free_work;
};

/* Another reference: the ring's maker holds the first. */
static inline void ring_get(struct pctr_ring *r)
{
	refcount_inc(&r->ref);
}

#endif /* _PCTR_RING_H */
