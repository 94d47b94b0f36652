// SPDX-License-Identifier: GPL-2.0
/*
 * PCIOCFLUSH, Sun Perfmon's PERFMON_FLUSH_CACHE: the calling CPU's data
 * caches emptied of what the caller had in them, so that the next
 * measurement starts cold.
 *
 * Perfmon flushed the caches of the CPU the thread ran on, for anyone
 * who could open its device.  The instruction that does it at once
 * (x86's wbinvd) writes back and drops every line of a cache the CPU
 * shares with others and keeps the CPU from taking interrupts until it
 * is done, which no unprivileged caller may impose on the machine.
 * Here the caller's own CPU displaces its caches instead: it reads a
 * buffer twice the size of its largest cache (the arch's cache_bytes,
 * else PCTR_FLUSH_DEFAULT), one cache line at a time, with migration
 * off (the same CPU throughout) but preemption on, so the flush costs
 * the caller's own time and the memory traffic any program's loop
 * could make.  Dirty lines leave the caches written back, as any
 * eviction writes them; the caches end up holding the buffer's clean
 * lines.  Instruction caches are not displaced.
 *
 * One flush runs at a time (a mutex), so at most one buffer exists; it
 * is allocated for the call, charged to the caller's memory cgroup
 * (ENOMEM beyond its limit, never the kernel's warning), and freed
 * after it.  A fatal signal ends a
 * flush early (EINTR).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cache.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>

#include "backend.h"
#include "engine.h"

/* Where the arch cannot say how large its caches are. */
#define PCTR_FLUSH_DEFAULT	SZ_32M
/* The largest buffer a flush allocates: twice a 128 MiB cache. */
#define PCTR_FLUSH_MAX		SZ_256M

static DEFINE_MUTEX(pctr_flush_lock);

/* Bytes to read: twice the CPU's largest cache, rounded to pages. */
static unsigned long pctr_flush_size(void)
{
	unsigned long size = 0;

	if (pctr_arch.cache_bytes)
		size = pctr_arch.cache_bytes();
	if (!size)
		size = PCTR_FLUSH_DEFAULT;
	size = min_t(unsigned long, 2 * size, PCTR_FLUSH_MAX);
	return PAGE_ALIGN(size);
}

/* Read a line of every cache line of @buf, a page between checks. */
static long pctr_flush_read(const u8 *buf, unsigned long size)
{
	unsigned long off, line;
	u8 sum = 0;

	for (off = 0; off < size; off += PAGE_SIZE) {
		for (line = 0; line < PAGE_SIZE; line += L1_CACHE_BYTES)
			sum += READ_ONCE(buf[off + line]);
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	/* Keep the loads: their sum goes nowhere the compiler can see. */
	OPTIMIZER_HIDE_VAR(sum);
	return 0;
}

int pctr_flush_cache(void)
{
	unsigned long size;
	long ret;
	u8 *buf;

	if (mutex_lock_killable(&pctr_flush_lock))
		return -EINTR;
	migrate_disable();
	size = pctr_flush_size();
	migrate_enable();
	/* The caller's memory for the call: memcg counts it; no warning. */
	buf = __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	migrate_disable();
	ret = pctr_flush_read(buf, size);
	migrate_enable();
	vfree(buf);
out:
	mutex_unlock(&pctr_flush_lock);
	return ret;
}
