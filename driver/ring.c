// SPDX-License-Identifier: GPL-2.0
/*
 * A descriptor's sampling ring (PCIOCRING): made once, one ring per CPU
 * (or one, for a descriptor bound to a CPU) after a control area, charged
 * to its maker, mapped read-write by its reader, polled, and freed in
 * process context once its last reference is gone.  What a record in it
 * holds, and the NMI-safe writing, are sample.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "backend.h"
#include "compat.h"
#include "policy.h"
#include "ring.h"
#include "sample.h"

#define SAMPLE_MAX_PAGES	1024		/* data pages per CPU */
#define SAMPLE_MAX_BYTES	(256UL << 20)	/* a whole ring */

/*
 * Rings are freed in process context: the last reference may go where
 * nothing may sleep (a thread's exit hook runs with preemption off), and
 * vfree() may.  Module exit drains the queue.
 */
static struct workqueue_struct *sample_wq;

static void ring_wake(struct irq_work *w)
{
	struct pctr_ring *r = container_of(w, struct pctr_ring, wake);

	wake_up_all(&r->wq);
}

/*
 * The ring's memory: charged to its maker's user (policy.c's allowance)
 * and to its memory cgroup.  Where a page's user and kernel mappings
 * must share a cache colour (SHMLBA larger than a page: UltraSPARC's
 * virtually indexed cache), vmalloc_user() aligns the kernel's; there the
 * cgroup is not charged.
 */
static int ring_alloc(struct pctr_ring *r, unsigned long size)
{
	int ret;

	r->kcpu = kcalloc(r->ncpu, sizeof(*r->kcpu), GFP_KERNEL_ACCOUNT);
	if (!r->kcpu)
		return -ENOMEM;
	r->user = get_current_user();
	ret = pctr_charge_ring(r->user, size >> PAGE_SHIFT);
	if (ret) {
		free_uid(r->user);
		r->user = NULL;
		return ret;
	}
	if (SHMLBA > PAGE_SIZE)
		r->base = vmalloc_user(size);
	else
		r->base = __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	return r->base ? 0 : -ENOMEM;
}

static void ring_release(struct pctr_ring *r)
{
	if (r->user) {
		pctr_uncharge_ring(r->user, r->size >> PAGE_SHIFT);
		free_uid(r->user);
	}
	kfree(r->kcpu);
	vfree(r->base);
	kfree(r);
}

/* Once a wake-up in flight is done. */
static void ring_free(struct work_struct *w)
{
	struct pctr_ring *r = container_of(w, struct pctr_ring, free_work);

	irq_work_sync(&r->wake);
	put_pid_ns(r->ns);
	ring_release(r);
}

/* Another reference, for a request that outlives its ioctl (bind.c). */
void sample_ring_hold(struct pctr_ring *r)
{
	ring_get(r);
}

/* Any context but NMI. */
void sample_ring_put(struct pctr_ring *r)
{
	if (r && refcount_dec_and_test(&r->ref))
		queue_work(sample_wq, &r->free_work);
}

int sample_init(void)
{
	sample_wq = alloc_workqueue("pctr_sample", 0, 0);
	return sample_wq ? 0 : -ENOMEM;
}

/* Module exit: every ring's last reference is gone; wait for the frees. */
void sample_exit(void)
{
	destroy_workqueue(sample_wq);
}

/* The ring a descriptor made (PCIOCRING), or NULL. */
struct pctr_ring *sample_ring_of(struct pctr_ring **slot)
{
	/* Pairs with the release in sample_ring_create(). */
	return smp_load_acquire(slot);
}

/*
 * PCIOCRING: the descriptor's ring, made once: for every CPU, or with
 * @cpu >= 0 (a descriptor bound to that CPU) for that CPU alone.
 */
int sample_ring_create(struct pctr_ring **slot, struct pctr_ring_attr *ra,
		       int cpu)
{
	static DEFINE_MUTEX(ring_lock);
	struct pctr_ring_ctl *ctl;
	struct pctr_ring *r;
	u64 size;
	int ret;

	if (!(pctr_pmu.caps & PCTR_CAP_NOTIFY))
		return -EOPNOTSUPP;
	if (ra->ra_reserved[0] || ra->ra_reserved[1])
		return -EINVAL;
	if (!ra->ra_pages || ra->ra_pages > SAMPLE_MAX_PAGES ||
	    !is_power_of_2(ra->ra_pages))
		return -EINVAL;
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	r->ncpu = cpu < 0 ? nr_cpu_ids : 1;
	r->first = cpu < 0 ? 0 : cpu;
	r->data_size = (u64)ra->ra_pages << PAGE_SHIFT;
	if (ra->ra_watermark > r->data_size)
		goto inval;
	r->watermark = ra->ra_watermark ?: r->data_size / 2;
	r->ctl_size = PAGE_ALIGN(sizeof(*ctl) +
				 r->ncpu * sizeof(struct pctr_ring_cpu));
	size = r->ctl_size + r->ncpu * r->data_size;
	ret = -ENOMEM;
	if (size > SAMPLE_MAX_BYTES)
		goto free;
	r->size = size;
	ret = ring_alloc(r, size);
	if (ret)
		goto free;
	ctl = r->base;
	ctl->rg_version = PCTR_RING_VERSION;
	ctl->rg_ncpu = r->ncpu;
	ctl->rg_data_size = r->data_size;
	ctl->rg_ctl_size = r->ctl_size;
	ctl->rg_watermark = r->watermark;
	r->ucpu = (struct pctr_ring_cpu *)(ctl + 1);
	r->ns = get_pid_ns(task_active_pid_ns(current));
	refcount_set(&r->ref, 1);
	init_waitqueue_head(&r->wq);
	init_irq_work(&r->wake, ring_wake);
	INIT_WORK(&r->free_work, ring_free);

	mutex_lock(&ring_lock);
	ret = *slot ? -EBUSY : 0;
	if (!ret) {
		/* Made whole before it is seen: pairs with sample_ring_of(). */
		smp_store_release(slot, r);
	}
	mutex_unlock(&ring_lock);
	if (ret) {
		sample_ring_put(r);
		return ret;
	}
	ra->ra_ncpu = r->ncpu;
	ra->ra_ctl_size = r->ctl_size;
	ra->ra_data_size = r->data_size;
	ra->ra_mmap_size = r->size;
	return 0;
inval:
	ret = -EINVAL;
free:
	ring_release(r);
	return ret;
}

/*
 * mmap() at PCTR_RING_OFFSET: the whole ring, read-write (the reader
 * stores its tails), never executable, not copied by fork() (VM_IO, so
 * MADV_DOFORK cannot undo it), not in core dumps.
 */
int sample_mmap(struct pctr_ring *r, struct vm_area_struct *vma)
{
	unsigned long off;
	int ret;

	if (!r)
		return -ENXIO;
	if (vma->vm_end - vma->vm_start != r->size)
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	vm_flags_clear(vma, VM_MAYEXEC);
	vm_flags_set(vma, VM_IO | VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	/* Page by page: __vmalloc() memory is not VM_USERMAP. */
	for (off = 0; off < r->size; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(r->base + off));
		if (ret)
			return ret;
	}
	return 0;
}

/* POLLIN when a CPU's ring holds its watermark. */
__poll_t sample_poll(struct pctr_ring *r, struct file *file, poll_table *wait)
{
	unsigned int c;

	if (!r)
		return EPOLLERR;
	poll_wait(file, &r->wq, wait);
	for (c = 0; c < r->ncpu; c++)
		if (READ_ONCE(r->ucpu[c].rc_head) -
		    READ_ONCE(r->ucpu[c].rc_tail) >= r->watermark)
			return EPOLLIN | EPOLLRDNORM;
	return 0;
}
