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
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "engine.h"
#include "pmu.h"

/*
 * Idle time of all online CPUs, from the same sources as /proc/stat.
 * Summing it costs a clock read per CPU, so it is refreshed at most once
 * a millisecond: a reader in a loop pays for it once, not every call.
 */
static u64 pctr_idle_ns(void)
{
	static u64 cached, cached_at;
	u64 now = ktime_get_mono_fast_ns(), sum = 0, us;
	int cpu;

	if (now - READ_ONCE(cached_at) < NSEC_PER_MSEC)
		return READ_ONCE(cached);
	for_each_online_cpu(cpu) {
		us = get_cpu_idle_time_us(cpu, NULL);
		if (us == -1ULL)
			sum += kcpustat_cpu(cpu).cpustat[CPUTIME_IDLE];
		else
			sum += us * NSEC_PER_USEC;
	}
	/* Racing refreshers store figures of the same millisecond. */
	WRITE_ONCE(cached, sum);
	WRITE_ONCE(cached_at, now);
	return sum;
}

/*
 * PCIOCRD.  Written field by field in one user-access window: building a
 * 528-byte struct on the stack and copying it out would move every byte
 * twice for the few slots a thread uses.
 */
static int pctr_ioc_read(struct file *file, struct pctrst __user *u)
{
	u64 fn[PCTR_NUM], val[PCTR_NUM], tsc, idl;
	unsigned int s;
	u32 mask;
	int ret;

	if (pctr_bind_is_bound(file)) {
		ret = pctr_bind_read(file, fn, val, &mask);
		tsc = pctr_arch_tsc();
	} else {
		ret = pctr_thread_read(fn, val, &tsc, &mask);
	}
	if (ret)
		return ret;
	idl = pctr_idle_ns();
	if (!user_access_begin(u, sizeof(*u)))
		return -EFAULT;
	for (s = 0; s < PCTR_NUM; s++) {
		unsafe_put_user(mask & BIT(s) ? fn[s] : 0, &u->pctr_fn[s],
				efault);
		unsafe_put_user(mask & BIT(s) ? val[s] : 0, &u->pctr_hwc[s],
				efault);
	}
	unsafe_put_user(tsc, &u->pctr_tsc, efault);
	unsafe_put_user(idl, &u->pctr_idl, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
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
	info.pi_nevents = p->nevents;
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
	u64 fn;
	int ret;

	ret = pctr_may_program(file);
	if (ret)
		return ret;
	if (get_user(fn, arg))
		return -EFAULT;
	return pctr_thread_set(slot, fn);
}

static int pctr_ioc_getpcr(void __user *arg)
{
	struct pctr_pcr pcr;

	if (pctr_pmu.ops)
		pctr_thread_get_pcr(&pcr);
	else
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
	return pctr_thread_set_pcr(&pcr);
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
	if (ps.ps_flags || ps.ps_ctr >= PCTR_NUM)
		return -EINVAL;
	return pctr_thread_preset(ps.ps_ctr, ps.ps_value);
}

static int pctr_ioc_event(void __user *arg)
{
	const struct pctr_event_desc *d;
	struct pctr_event ev;
	u32 index;

	if (copy_from_user(&ev, arg, sizeof(ev)))
		return -EFAULT;
	if (ev.pe_flags)
		return -EINVAL;
	index = ev.pe_index;
	if (index >= pctr_pmu.nevents)
		return -ENOENT;
	d = &pctr_pmu.events[index];
	memset(&ev, 0, sizeof(ev));
	ev.pe_index = index;
	ev.pe_fn = d->fn;
	ev.pe_slots = d->slots;
	strscpy(ev.pe_name, d->name, sizeof(ev.pe_name));
	if (d->desc)
		strscpy(ev.pe_desc, d->desc, sizeof(ev.pe_desc));
	return copy_to_user(arg, &ev, sizeof(ev)) ? -EFAULT : 0;
}

static int pctr_ioc_setopts(struct file *file, void __user *arg)
{
	struct pctr_opts o;
	int ret;

	ret = pctr_may_program(file);
	if (ret)
		return ret;
	if (copy_from_user(&o, arg, sizeof(o)))
		return -EFAULT;
	return pctr_thread_set_opts(&o);
}

static int pctr_ioc_getopts(void __user *arg)
{
	struct pctr_opts o;

	pctr_thread_get_opts(&o);
	return copy_to_user(arg, &o, sizeof(o)) ? -EFAULT : 0;
}

static int pctr_ioc_bind(struct file *file, void __user *arg)
{
	int ret = pctr_may_program(file);

	return ret ?: pctr_bind(file, arg);
}

/* The calls that change the calling thread's counters. */
static bool pctr_ioc_programs(unsigned int cmd)
{
	unsigned int nr = _IOC_NR(cmd);

	switch (cmd) {
	case PCIOCSETPCR:
	case PCIOCZERO:
	case PCIOCPRESET:
	case PCIOCRESTART:
	case PCIOCENABLE:
	case PCIOCDISABLE:
	case PCIOCSOPTS:
	case PCIOCBIND:
		return true;
	}
	return nr >= PCTR_IOC_SET_BASE && nr < PCTR_IOC_SET_BASE + PCTR_NUM &&
	       cmd == PCIOCS(nr - PCTR_IOC_SET_BASE);
}

long pctr_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	unsigned int nr = _IOC_NR(cmd);

	/* Calls that only look, whatever the descriptor is bound to. */
	switch (cmd) {
	case PCIOCRD:
		return pctr_ioc_read(file, uarg);
	case PCIOCINFO:
		return pctr_ioc_info(uarg);
	case PCIOCGETPCR:
		return pctr_ioc_getpcr(uarg);
	case PCIOCEVENT:
		return pctr_ioc_event(uarg);
	case PCIOCGOPTS:
		return pctr_ioc_getopts(uarg);
	}
	/* A bound descriptor is for its binding: it programs nothing else. */
	if (pctr_bind_is_bound(file)) {
		if (cmd == PCIOCRELEASE) {
			pctr_bind_end(file);
			return 0;
		}
		return pctr_ioc_programs(cmd) ? -EBUSY : -ENOTTY;
	}
	switch (cmd) {
	case PCIOCSETPCR:
		return pctr_ioc_setpcr(file, uarg);
	case PCIOCZERO:
		return pctr_may_program(file) ?: pctr_thread_zero();
	case PCIOCPRESET:
		return pctr_ioc_preset(file, uarg);
	case PCIOCRELEASE:
		return pctr_thread_release();
	case PCIOCRESTART:
		return pctr_may_program(file) ?: pctr_thread_restart();
	case PCIOCENABLE:
		return pctr_may_program(file) ?: pctr_thread_enable(true);
	case PCIOCDISABLE:
		return pctr_may_program(file) ?: pctr_thread_enable(false);
	case PCIOCSOPTS:
		return pctr_ioc_setopts(file, uarg);
	case PCIOCBIND:
		return pctr_ioc_bind(file, uarg);
	}
	if (pctr_ioc_programs(cmd))
		return pctr_ioc_set(file, nr - PCTR_IOC_SET_BASE, uarg);
	return -ENOTTY;
}
