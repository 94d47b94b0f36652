// SPDX-License-Identifier: GPL-2.0
/*
 * When the counter registers cannot be trusted: a CPU that went offline
 * and came back (firmware or a reset may have cleared its registers), and
 * a suspend or hibernation.  The engine's keep shortcut (re-enable a
 * thread's registers rather than rewrite them, when nothing else used
 * them since) would otherwise count from whatever they hold now: a huge
 * bogus delta, silently.  And a CPU that comes online without a counter
 * the module offers (hybrid parts) is kept offline.  In system mode a
 * CPU coming online is given the machine's functions, and one going
 * offline stops counting (system.c).
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/irqflags.h>
#include <linux/notifier.h>
#include <linux/smp.h>
#include <linux/suspend.h>

#include "backend.h"
#include "ctx.h"
#include "engine.h"

static void hotplug_forget_ipi(void *unused)
{
	ctx_forget_registers();
}

/* Going offline, and coming online: run by the hotplug thread on @cpu. */
static int hotplug_cpu_forget(unsigned int cpu)
{
	unsigned long flags;

	local_irq_save(flags);
	ctx_forget_registers();
	local_irq_restore(flags);
	return 0;
}

static int hotplug_cpu_down(unsigned int cpu)
{
	pctr_sys_cpu_offline();
	return hotplug_cpu_forget(cpu);
}

/*
 * A CPU that lacks a counter the module offers (a hybrid part's other
 * core type, first online now) stays offline: the backend says why.
 */
static int hotplug_cpu_up(unsigned int cpu)
{
	if (pctr_pmu.ops && pctr_pmu.ops->cpu_check) {
		int ret = pctr_pmu.ops->cpu_check(&pctr_pmu, cpu);

		if (ret)
			return ret;
	}
	hotplug_cpu_forget(cpu);
	pctr_sys_cpu_online();
	return 0;
}

static int hotplug_pm_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	switch (action) {
	case PM_HIBERNATION_PREPARE:
	case PM_SUSPEND_PREPARE:
		/* Threads run until frozen, and again before PM_POST_*. */
		ctx_trust_registers(false);
		break;
	case PM_POST_HIBERNATION:
	case PM_POST_SUSPEND:
	case PM_POST_RESTORE:
		on_each_cpu(hotplug_forget_ipi, NULL, 1);
		ctx_trust_registers(true);
		pctr_sys_resume();
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block hotplug_pm_nb = {
	.notifier_call = hotplug_pm_notify,
};

static int hotplug_state;

int hotplug_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "pctr:online",
					hotplug_cpu_up, hotplug_cpu_down);
	if (ret < 0)
		return ret;
	hotplug_state = ret;
	ret = register_pm_notifier(&hotplug_pm_nb);
	if (ret)
		cpuhp_remove_state_nocalls(hotplug_state);
	return ret;
}

void hotplug_exit(void)
{
	unregister_pm_notifier(&hotplug_pm_nb);
	cpuhp_remove_state_nocalls(hotplug_state);
}
