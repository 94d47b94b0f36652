// SPDX-License-Identifier: GPL-2.0
/*
 * Owning the PMU politely: the counters are taken from the rest of the
 * kernel (perf, the NMI watchdog) when the first context needs them and
 * given back when the last one is gone.
 *
 * Taking them happens in process context, from an ioctl.  The last
 * context can go in atomic context (a thread's exit), so giving them back
 * is deferred to a work item; the mutex orders it against a new taker,
 * and the close of a descriptor waits for it.
 *
 * The scheduler's hooks are not this file's business: the engine turns
 * them on with its first context (ctx.c), counting or not.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "backend.h"
#include "pmu_owner.h"

static DEFINE_MUTEX(pctr_pmu_lock);
static bool pctr_pmu_taken;		/* under pctr_pmu_lock */
static atomic_t pctr_pmu_users = ATOMIC_INIT(0);

static void pctr_pmu_release_work(struct work_struct *work)
{
	mutex_lock(&pctr_pmu_lock);
	if (pctr_pmu_taken && !atomic_read(&pctr_pmu_users)) {
		if (pctr_pmu.ops->release)
			pctr_pmu.ops->release(&pctr_pmu);
		WRITE_ONCE(pctr_pmu_taken, false);
	}
	mutex_unlock(&pctr_pmu_lock);
}
static DECLARE_WORK(pctr_pmu_release, pctr_pmu_release_work);

/* A new context needs the counters.  Process context. */
int pctr_pmu_get(void)
{
	int ret = 0;

	mutex_lock(&pctr_pmu_lock);
	if (!pctr_pmu_taken && pctr_pmu.ops) {
		if (pctr_pmu.ops->reserve)
			ret = pctr_pmu.ops->reserve(&pctr_pmu);
		if (ret)
			goto out;
		WRITE_ONCE(pctr_pmu_taken, true);
	}
	atomic_inc(&pctr_pmu_users);
out:
	mutex_unlock(&pctr_pmu_lock);
	return ret;
}

/* A context is gone.  Any context, atomic included. */
void pctr_pmu_put(void)
{
	if (atomic_dec_and_test(&pctr_pmu_users))
		schedule_work(&pctr_pmu_release);
}

/*
 * A descriptor closes.  Process context, no lock of ours held.  Finish a
 * hand-back that the end of the last context queued: a thread's
 * context ends in its exit (atomic), before the exit closes the
 * process's descriptors, so a process that counted has given the
 * counters back by the time its parent reaps it, and perf started
 * right after it finds them free.
 */
void pctr_pmu_settle(void)
{
	flush_work(&pctr_pmu_release);
}

unsigned int pctr_pmu_users_count(void)
{
	return atomic_read(&pctr_pmu_users);
}

/* Does pctr hold the counters now (taken from perf and the watchdog)? */
bool pctr_pmu_is_taken(void)
{
	return READ_ONCE(pctr_pmu_taken);
}

/* Module exit: every context is gone; finish giving the counters back. */
void pctr_pmu_exit(void)
{
	flush_work(&pctr_pmu_release);
	pctr_pmu_release_work(NULL);
}
