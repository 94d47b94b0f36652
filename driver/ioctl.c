// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/pctr ioctl ABI (uapi/linux/pctr.h): argument checks and
 * copying; the counter work itself is done elsewhere.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/kernel_stat.h>
#include <linux/string.h>
#include <linux/tick.h>
#include <linux/uaccess.h>

#include "pctr.h"

/* Idle time of all online CPUs, from the same sources as /proc/stat. */
static u64 pctr_idle_ns(void)
{
	u64 sum = 0, us;
	int cpu;

	for_each_online_cpu(cpu) {
		us = get_cpu_idle_time_us(cpu, NULL);
		if (us == -1ULL)
			sum += kcpustat_cpu(cpu).cpustat[CPUTIME_IDLE];
		else
			sum += us * NSEC_PER_USEC;
	}
	return sum;
}

static int pctr_ioc_read(void __user *arg)
{
	struct pctrst st;

	memset(&st, 0, sizeof(st));
	st.pctr_tsc = pctr_arch_tsc();
	st.pctr_idl = pctr_idle_ns();
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

static int pctr_ioc_info(void __user *arg)
{
	const struct pctr_pmu *p = &pctr_pmu;
	struct pctr_info info;

	memset(&info, 0, sizeof(info));
	info.pi_abi_version = PCTR_ABI_VERSION;
	info.pi_backend_id = p->backend_id;
	strscpy(info.pi_backend, p->name, sizeof(info.pi_backend));
	strscpy(info.pi_vendor, p->vendor, sizeof(info.pi_vendor));
	info.pi_caps = p->caps;
	info.pi_version = p->version;
	info.pi_ngeneral = p->ngeneral;
	info.pi_nfixed = p->nfixed;
	info.pi_width = p->width;
	info.pi_fixed_width = p->fixed_width;
	info.pi_cpu_family = p->family;
	info.pi_cpu_model = p->model;
	info.pi_tsc_khz = p->tsc_khz;
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

/* Checks every call that changes counters makes, in pctr(4)'s order. */
static int pctr_may_program(struct file *file)
{
	if (!(file->f_mode & FMODE_WRITE))
		return -EPERM;
	if (!pctr_pmu.ops)
		return -ENODEV;
	return 0;
}

static int pctr_ioc_set(struct file *file, unsigned int slot,
			u64 __user *arg)
{
	u64 fn, ctl;
	int ret;

	ret = pctr_may_program(file);
	if (ret)
		return ret;
	if (get_user(fn, arg))
		return -EFAULT;
	if (!pctr_slot_exists(&pctr_pmu, slot))
		return -EINVAL;
	return pctr_pmu.ops->encode(&pctr_pmu, slot, fn,
				    perfmon_capable(), &ctl) ?: -EOPNOTSUPP;
}

static int pctr_ioc_getpcr(void __user *arg)
{
	struct pctr_pcr pcr;

	memset(&pcr, 0, sizeof(pcr));
	return copy_to_user(arg, &pcr, sizeof(pcr)) ? -EFAULT : 0;
}

static int pctr_ioc_setpcr(struct file *file, void __user *arg)
{
	struct pctr_pcr pcr;
	int ret;

	ret = pctr_may_program(file);
	if (ret)
		return ret;
	if (copy_from_user(&pcr, arg, sizeof(pcr)))
		return -EFAULT;
	return -EOPNOTSUPP;
}

static int pctr_ioc_preset(struct file *file, void __user *arg)
{
	struct pctr_preset ps;
	int ret;

	ret = pctr_may_program(file);
	if (ret)
		return ret;
	if (copy_from_user(&ps, arg, sizeof(ps)))
		return -EFAULT;
	if (ps.ps_flags || !pctr_slot_exists(&pctr_pmu, ps.ps_ctr))
		return -EINVAL;
	return -EOPNOTSUPP;
}

static int pctr_ioc_event(void __user *arg)
{
	struct pctr_event ev;

	if (copy_from_user(&ev, arg, sizeof(ev)))
		return -EFAULT;
	if (ev.pe_flags)
		return -EINVAL;
	return -ENOENT;
}

long pctr_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	unsigned int nr = _IOC_NR(cmd);

	switch (cmd) {
	case PCIOCRD:
		return pctr_ioc_read(uarg);
	case PCIOCINFO:
		return pctr_ioc_info(uarg);
	case PCIOCGETPCR:
		return pctr_ioc_getpcr(uarg);
	case PCIOCSETPCR:
		return pctr_ioc_setpcr(file, uarg);
	case PCIOCZERO:
		return pctr_may_program(file);
	case PCIOCPRESET:
		return pctr_ioc_preset(file, uarg);
	case PCIOCEVENT:
		return pctr_ioc_event(uarg);
	}
	if (nr >= PCTR_IOC_SET_BASE && nr < PCTR_IOC_SET_BASE + PCTR_NUM &&
	    cmd == PCIOCS(nr - PCTR_IOC_SET_BASE))
		return pctr_ioc_set(file, nr - PCTR_IOC_SET_BASE, uarg);
	return -ENOTTY;
}
