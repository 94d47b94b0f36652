// SPDX-License-Identifier: GPL-2.0
/*
 * planted.ko: bugs planted on purpose, so the bench can show that the
 * debug kernel's detectors, and the checks that read their reports,
 * work before it trusts their silence about pctr.
 *
 *   leak=1 (default)  leak PLANTED_LEAKS small allocations at load, for
 *                     kmemleak (testing/vm/kernel/leakcheck's calibration);
 *   bugs=1            at load, one report each from KASAN, UBSAN,
 *                     DEBUG_OBJECTS, lockdep and DEBUG_ATOMIC_SLEEP; none
 *                     of them corrupts anything, all are reports only.
 *
 * Only for the debug guest kernel (testing/vm/kernel/build-debug).
 */
#include <linux/compiler.h>
#include <linux/kfence.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>

#define PLANTED_LEAKS 8
#define PLANTED_SIZE 96

static bool leak = true;
module_param(leak, bool, 0444);
MODULE_PARM_DESC(leak, "leak allocations at load (default on)");
static bool bugs;
module_param(bugs, bool, 0444);
MODULE_PARM_DESC(bugs, "plant one report of each debug detector at load");

/* Each leaked pointer passes through here and is then forgotten. */
static void *planted_last;
static unsigned int planted_shift = 40;
static spinlock_t planted_lock[2];

static noinline int planted_leak(void)
{
	void *p = kmalloc(PLANTED_SIZE, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	memset(p, 0x5a, PLANTED_SIZE);
	WRITE_ONCE(planted_last, p);
	WRITE_ONCE(planted_last, NULL);
	return 0;
}

/*
 * KASAN: a read one byte past a 16-byte allocation.  KFENCE checks the
 * allocations it samples instead of KASAN (the first one after a quiet
 * boot often is): take another, which it cannot sample as well.
 */
static noinline void planted_kasan(void)
{
	char *p = kmalloc(16, GFP_KERNEL), *sampled = NULL;
	char c;

	if (p && is_kfence_address(p)) {
		sampled = p;
		p = kmalloc(16, GFP_KERNEL);
	}
	if (p) {
		OPTIMIZER_HIDE_VAR(p);
		c = READ_ONCE(p[16]);
		pr_info("planted: read %d past the end\n", c);
	}
	kfree(p);
	kfree(sampled);
}

/* UBSAN: a shift wider than the type. */
static noinline void planted_ubsan(void)
{
	unsigned int v = 1U << READ_ONCE(planted_shift);

	pr_info("planted: shifted %u\n", v);
}

static void planted_timer_fn(struct timer_list *t)
{
}

/* DEBUG_OBJECTS: a timer on the stack set up as if it were static. */
static noinline void planted_odebug(void)
{
	struct timer_list t;

	timer_setup(&t, planted_timer_fn, 0);
	destroy_timer_on_stack(&t);
}

/* lockdep: two locks of one class nested without a subclass. */
static noinline void planted_lockdep(void)
{
	int i;

	for (i = 0; i < 2; i++)
		spin_lock_init(&planted_lock[i]);
	spin_lock(&planted_lock[0]);
	spin_lock(&planted_lock[1]);
	spin_unlock(&planted_lock[1]);
	spin_unlock(&planted_lock[0]);
}

/* DEBUG_ATOMIC_SLEEP: a might-sleep point with preemption disabled. */
static noinline void planted_atomic_sleep(void)
{
	preempt_disable();
	might_sleep();
	preempt_enable();
}

static int __init planted_init(void)
{
	int i, ret;

	/*
	 * lockdep turns itself off after its first report, and on any taint
	 * that makes it unreliable (a KASAN report's): KASAN goes last.
	 */
	if (bugs) {
		planted_odebug();
		planted_ubsan();
		planted_atomic_sleep();
		planted_lockdep();
		planted_kasan();
	}
	/*
	 * Several objects: a stale copy of a pointer left in a register or
	 * on a stack can hide one of them from a scan, not all.
	 */
	for (i = 0; leak && i < PLANTED_LEAKS; i++) {
		ret = planted_leak();
		if (ret)
			return ret;
	}
	return 0;
}

static void __exit planted_exit(void)
{
}

module_init(planted_init);
module_exit(planted_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pctr test bench: planted bugs for the debug kernel's detectors");
