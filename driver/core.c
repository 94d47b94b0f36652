// SPDX-License-Identifier: GPL-2.0
/*
 * pctr core: module parameters, backend choice and the /dev/pctr misc
 * device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "backend.h"
#include "engine.h"
#include "file.h"
#include "pmu_owner.h"
#include "sample.h"

struct pctr_pmu pctr_pmu;
struct pctr_cpu_id pctr_cpu_id;

static char *pmu = "auto";
module_param(pmu, charp, 0444);
MODULE_PARM_DESC(pmu, "Counter backend: auto (the CPU's PMU, else TSC only), none, or sim (simulated, for tests)");

static bool user_rdpmc = true;
module_param(user_rdpmc, bool, 0444);
MODULE_PARM_DESC(user_rdpmc, "Let threads read their counters with user-mode rdpmc (CR4.PCE); 0: never, reads then go through the ioctl (default 1)");

static char *mode = "thread";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "thread: per-thread virtual counters (default); system: OpenBSD's semantics, functions set by CAP_PERFMON count on every CPU until changed, PCIOCRD reads the current CPU");

static ushort dev_mode = 0666;
module_param(dev_mode, ushort, 0444);
MODULE_PARM_DESC(dev_mode, "Permission bits of /dev/pctr (default 0666)");

/*
 * Sun's Perfmon device name: by default where its programs come from,
 * as the arch says (pctr_arch.perfmon); perfmon= decides otherwise.
 */
static bool perfmon;
static bool perfmon_given;

static int perfmon_set(const char *val, const struct kernel_param *kp)
{
	perfmon_given = true;
	return param_set_bool(val, kp);
}

static const struct kernel_param_ops perfmon_ops = {
	.flags	= KERNEL_PARAM_OPS_FL_NOARG,
	.set	= perfmon_set,
	.get	= param_get_bool,
};
module_param_cb(perfmon, &perfmon_ops, &perfmon, 0444);
__MODULE_PARM_TYPE(perfmon, "bool");
MODULE_PARM_DESC(perfmon, "Also register /dev/perfmon, the device under Sun Perfmon's name (default: on SPARC)");

/*
 * Who the CPU is first, then what counts: the arch's own counters, or
 * one of the backends every arch has (none, sim).
 */
static int pctr_select_backend(void)
{
	int ret = 0;

	if (!strcmp(mode, "system")) {
		pctr_system = true;
	} else if (strcmp(mode, "thread")) {
		pr_err("unknown mode=%s; use thread or system\n", mode);
		return -EINVAL;
	}
	pctr_arch.identify(&pctr_cpu_id);
	memset(&pctr_pmu, 0, sizeof(pctr_pmu));
	if (!strcmp(pmu, "none")) {
		pctr_none_probe(&pctr_pmu, &pctr_cpu_id, "pmu=none");
	} else if (!strcmp(pmu, "sim")) {
		ret = pctr_sim_probe(&pctr_pmu, &pctr_cpu_id);
	} else if (!strcmp(pmu, "auto")) {
		if (pctr_arch.probe(&pctr_pmu, &pctr_cpu_id))
			pctr_none_probe(&pctr_pmu, &pctr_cpu_id, pctr_pmu.why);
	} else {
		pr_err("unknown pmu=%s; use auto, none or sim\n", pmu);
		return -EINVAL;
	}
	if (ret)
		return ret;
	if (pctr_system)
		pctr_pmu.caps |= PCTR_CAP_SYSTEM;
	/* The arch never allows user-mode counter reads without the cap. */
	if (!user_rdpmc) {
		pctr_pmu.caps &= ~PCTR_CAP_USER_RDPMC;
		pctr_pmu.caps |= PCTR_CAP_RDPMC_OFF;
	}
	return 0;
}

static int pctr_open(struct inode *inode, struct file *file)
{
	int ret = nonseekable_open(inode, file);

	if (!ret)
		ret = pctr_file_open(file);
	if (!ret) {
		ret = pctr_sys_open(file);
		if (ret)
			pctr_file_close(file);
	}
	return ret;
}

static int pctr_release(struct inode *inode, struct file *file)
{
	pctr_sys_close(file);
	pctr_bind_close(file);
	pctr_file_close(file);
	pctr_pmu_settle();
	return 0;
}

static int pctr_mmap(struct file *file, struct vm_area_struct *vma)
{
	/* The sampling ring, at its own offset; the counter page at 0. */
	if (vma->vm_pgoff == PCTR_RING_OFFSET >> PAGE_SHIFT)
		return sample_mmap(sample_ring_of(&pctr_file(file)->ring), vma);
	if (pctr_file_bound(file))
		return -EBUSY;
	/* The counter page is a thread's: none in system mode. */
	if (pctr_system)
		return -EOPNOTSUPP;
	return pctr_thread_mmap(vma);
}

static __poll_t pctr_poll(struct file *file, poll_table *wait)
{
	return sample_poll(sample_ring_of(&pctr_file(file)->ring), file, wait);
}

/* Both devices' calls but the ioctl, which decides who may program. */
#define PCTR_FOPS(ioctl)				\
	.owner		= THIS_MODULE,			\
	.open		= pctr_open,			\
	.release	= pctr_release,			\
	.mmap		= pctr_mmap,			\
	.unlocked_ioctl	= ioctl,			\
	.compat_ioctl	= compat_ptr_ioctl

static const struct file_operations pctr_fops = {
	PCTR_FOPS(pctr_ioctl),
	.poll		= pctr_poll,
};

/*
 * /dev/perfmon: the same device under Perfmon's name.  Perfmon programs
 * open it read-only and then set the PCR, so its descriptors may program
 * counters whichever way they were opened (its mode is dev_mode too).
 */
static const struct file_operations pctr_perfmon_fops = {
	PCTR_FOPS(pctr_perfmon_ioctl),
};

static struct miscdevice pctr_perfmon_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "perfmon",
	.fops	= &pctr_perfmon_fops,
};

/* /sys/class/misc/pctr/<name>: one line, for admins. */
#define PCTR_ATTR_RO(_name, _fmt, ...)					\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *a, char *buf)	\
{									\
	return sysfs_emit(buf, _fmt "\n", __VA_ARGS__);			\
}									\
static DEVICE_ATTR_RO(_name)

/* What the loaded backend is and has; why there are no counters. */
PCTR_ATTR_RO(backend, "%s", pctr_pmu.name);
PCTR_ATTR_RO(counters, "%u general (%u bits), %u fixed (%u bits)",
	     pctr_pmu.ngeneral, pctr_pmu.width, pctr_pmu.nfixed,
	     pctr_pmu.fixed_width);
PCTR_ATTR_RO(reason, "%s", pctr_pmu.why);

/* Threads with counters programmed: while non-zero, rmmod is refused. */
PCTR_ATTR_RO(contexts, "%u", pctr_pmu_users_count());

/*
 * Counter starts at switch-in since load: "kept" only re-enabled registers
 * that still held the thread's state, "loaded" rewrote them.
 */
static ssize_t starts_show(struct device *dev, struct device_attribute *a,
			   char *buf)
{
	unsigned long kept, loaded;

	pctr_ctx_starts(&kept, &loaded);
	return sysfs_emit(buf, "kept %lu loaded %lu\n", kept, loaded);
}
static DEVICE_ATTR_RO(starts);

/*
 * Contexts and CPU bindings that a failed counter register access ended
 * (their reads fail with EIO; the kernel log names the register).
 */
PCTR_ATTR_RO(failures, "%lu", pctr_ctx_failures());

/* CPU bindings (PCIOCBIND): each holds its slots from threads. */
PCTR_ATTR_RO(cpu_bindings, "%u", pctr_ctx_cpu_bindings());

/*
 * The slots CPU bindings hold from threads, a hex mask, for anyone:
 * pctr stat places its events elsewhere (a thread asking learns the
 * same from EBUSY).  Which CPUs, whose: root's "bindings" below.
 */
PCTR_ATTR_RO(held_slots, "%#x", pctr_ctx_held_slots());

/* Every binding: which slots, whose (bind.c).  Root's to read. */
static ssize_t bindings_show(struct device *dev, struct device_attribute *a,
			     char *buf)
{
	return pctr_bind_show(buf);
}
static DEVICE_ATTR_ADMIN_RO(bindings);

/* 1 while pctr holds the counters (perf and the NMI watchdog cannot). */
PCTR_ATTR_RO(taken, "%d", pctr_pmu_is_taken());

static struct attribute *pctr_attrs[] = {
	&dev_attr_contexts.attr,
	&dev_attr_cpu_bindings.attr,
	&dev_attr_bindings.attr,
	&dev_attr_held_slots.attr,
	&dev_attr_taken.attr,
	&dev_attr_starts.attr,
	&dev_attr_failures.attr,
	&dev_attr_backend.attr,
	&dev_attr_counters.attr,
	&dev_attr_reason.attr,
	NULL,
};
ATTRIBUTE_GROUPS(pctr);

static struct miscdevice pctr_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "pctr",
	.fops	= &pctr_fops,
	.groups	= pctr_groups,
};

static int __init pctr_init(void)
{
	int ret;

	ret = pctr_select_backend();
	if (ret)
		return ret;
	if (!perfmon_given)
		perfmon = pctr_arch.perfmon;
	ret = pctr_thread_init();
	if (ret)
		goto fail_backend;
	pctr_misc.mode = dev_mode & 0777;
	ret = misc_register(&pctr_misc);
	if (ret) {
		pr_err("cannot register /dev/pctr: %d\n", ret);
		goto fail_ctx;
	}
	if (perfmon) {
		pctr_perfmon_misc.mode = dev_mode & 0777;
		ret = misc_register(&pctr_perfmon_misc);
		if (ret) {
			pr_err("cannot register /dev/perfmon: %d\n", ret);
			goto fail_misc;
		}
	}
	pr_info("%s%s%s\n", pctr_pmu.desc,
		user_rdpmc ? "" : "; user-mode rdpmc off (user_rdpmc=0)",
		pctr_system ? "; system mode" : "");
	return 0;

fail_misc:
	misc_deregister(&pctr_misc);
fail_ctx:
	pctr_thread_exit();
fail_backend:
	if (pctr_pmu.ops && pctr_pmu.ops->exit)
		pctr_pmu.ops->exit(&pctr_pmu);
	return ret;
}

static void __exit pctr_exit(void)
{
	/* Functions set in system mode end with the module. */
	pctr_sys_exit();
	if (perfmon)
		misc_deregister(&pctr_perfmon_misc);
	misc_deregister(&pctr_misc);
	pctr_thread_exit();
	if (pctr_pmu.ops && pctr_pmu.ops->exit)
		pctr_pmu.ops->exit(&pctr_pmu);
}

module_init(pctr_init);
module_exit(pctr_exit);

MODULE_AUTHOR("The pctr developers");
MODULE_DESCRIPTION("Direct access to CPU performance counters through /dev/pctr");
MODULE_LICENSE("GPL");
