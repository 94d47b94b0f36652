// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/pctr ioctl ABI (uapi/linux/pctr.h): one table of the calls,
 * the checks every call of a kind needs made in one place before its
 * handler runs, and each handler's argument checks and copying.  The
 * counter work itself is done in thread.c and bind.c, or in system mode
 * (mode=system) system.c: a call's row names each mode's engine call.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/indirect_call_wrapper.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "backend.h"
#include "engine.h"
#include "file.h"
#include "page.h"
#include "sample.h"

/*
 * A call's argument, when the dispatcher copies it in and out (IOC_COPY):
 * the structures are small, and each handler then works on kernel memory.
 * PCIOCRD and PCIOCBIND, larger, copy their own.
 */
union pctr_ioc_arg {
	u32			fn32;
	u64			fn;
	struct pctr_pcr		pcr;
	struct pctr_preset	preset;
	struct pctr_opts	opts;
	struct pctr_info	info;
	struct pctr_event	event;
	struct pctr_ring_attr	ring;
	struct pctr_sample_attr	sample;
};

/* What a call needs before its handler runs (pctr_ioc.flags). */
#define IOC_WRITE	BIT(0)	/* a descriptor open for writing: EPERM */
#define IOC_COUNTERS	BIT(1)	/* a backend with counters: ENODEV */
#define IOC_BOUND	BIT(2)	/* allowed on a bound descriptor, else EBUSY */
/* The dispatcher copies the argument in and out, by the command's size. */
#define IOC_COPY	BIT(3)
/* The calls that change counters need both. */
#define IOC_PROGRAM	(IOC_WRITE | IOC_COUNTERS)
/*
 * The mode a command is for, if only one.  A command of the mode the
 * module does not run in (mode=) is EOPNOTSUPP, after the checks above.
 */
#define IOC_THREAD	BIT(4)	/* a thread's own counters, or a binding */
#define IOC_SYSTEM	BIT(5)	/* the machine's functions (system.c) */

/*
 * The engine call a row names, which its handler makes: a command of
 * both modes names the thread's (thread.c) in .op and the machine's
 * (system.c) in .sys_op, and ioc_op() picks the one for the mode the
 * module runs in.
 */
union pctr_ioc_op {
	int	(*read)(u64 *fn, u64 *val, u64 *tsc, u32 *mask);
	void	(*get_pcr)(struct pctr_pcr *pcr);
	int	(*set)(unsigned int slot, u64 fn);
	int	(*set_pcr)(const struct pctr_pcr *pcr);
	int	(*call)(void);
};

struct pctr_ioc {
	unsigned int	cmd;		/* the first command of the row */
	unsigned int	n;		/* commands cmd .. cmd + n - 1 */
	long		(*fn)(struct file *file, const struct pctr_ioc *ioc,
			      unsigned int cmd, union pctr_ioc_arg *a,
			      void __user *uarg);
	u32		flags;		/* IOC_* */
	union pctr_ioc_op op;		/* thread mode's */
	union pctr_ioc_op sys_op;	/* system mode's */
};

/* The row's engine calls for the mode the module runs in. */
static const union pctr_ioc_op *ioc_op(const struct pctr_ioc *ioc)
{
	return pctr_system ? &ioc->sys_op : &ioc->op;
}

/*
 * PCIOCRD.  Written field by field in one user-access window: building a
 * 528-byte struct on the stack and copying it out would move every byte
 * twice for the few slots a thread uses.  The window first zeroes both
 * arrays, eight stores a turn, then writes the programmed slots over
 * them: a thread uses a few of the 32 slots, and a store costs less than
 * a test of whether a slot is free.  The programmed slots are packed to
 * the front of fn[] and val[] before the window opens, their numbers in
 * idx[], and the window walks pointers: no code in it may call out
 * (objtool refuses a UBSAN bounds or shift check there).
 */
#define IOC_ZERO8(p)							\
	do {								\
		unsafe_put_user(0ULL, (p) + 0, efault);			\
		unsafe_put_user(0ULL, (p) + 1, efault);			\
		unsafe_put_user(0ULL, (p) + 2, efault);			\
		unsafe_put_user(0ULL, (p) + 3, efault);			\
		unsafe_put_user(0ULL, (p) + 4, efault);			\
		unsafe_put_user(0ULL, (p) + 5, efault);			\
		unsafe_put_user(0ULL, (p) + 6, efault);			\
		unsafe_put_user(0ULL, (p) + 7, efault);			\
	} while (0)

static_assert(PCTR_NUM % 8 == 0);

/* PCIOCRD's copy out: @mask's slots of @fn and @val, the TSC, idle time. */
static long ioc_read_out(struct pctrst __user *u, u64 *fn, u64 *val, u64 tsc,
			 u32 mask)
{
	u64 idl, *f, *v;
	u8 idx[PCTR_NUM] __uninitialized;	/* only the first n are read */
	u8 *i, *end;
	u64 __user *ufn, *uval;
	unsigned long m;
	unsigned int s, n;

	idl = page_idle_ns();
	/* Packed in place: the n-th programmed slot is slot n or above. */
	for (m = mask, n = 0; m; m &= m - 1, n++) {
		s = __ffs(m);
		fn[n] = fn[s];
		val[n] = val[s];
		idx[n] = s;
	}
	end = idx + n;
	if (!user_access_begin(u, sizeof(*u)))
		return -EFAULT;
	for (ufn = u->pctr_fn, uval = u->pctr_hwc; ufn < u->pctr_fn + PCTR_NUM;
	     ufn += 8, uval += 8) {
		IOC_ZERO8(ufn);
		IOC_ZERO8(uval);
	}
	for (i = idx, f = fn, v = val; i < end; i++, f++, v++) {
		unsafe_put_user(*f, u->pctr_fn + *i, efault);
		unsafe_put_user(*v, u->pctr_hwc + *i, efault);
	}
	unsafe_put_user(tsc, &u->pctr_tsc, efault);
	unsafe_put_user(idl, &u->pctr_idl, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

/*
 * The calling thread's counters, or the binding's on a bound descriptor;
 * in system mode the current CPU's.  With @en and @run (PCIOCRDX), each
 * slot's enabled and running times too: a thread's, its own or a thread
 * binding's; zero for the counters a CPU owns, which count all along,
 * and for a free slot.
 */
static __always_inline int ioc_read_any(struct file *file,
					const struct pctr_ioc *ioc, u64 *fn,
					u64 *val, u64 *tsc, u32 *mask,
					u64 *en, u64 *run)
{
	int ret;

	if (pctr_file_bound(file)) {
		ret = pctr_bind_read(file, fn, val, mask, en, run);
		*tsc = pctr_arch_tsc();
		return ret;
	}
	if (en && !pctr_system)
		return pctr_thread_read_times(fn, val, tsc, mask, en, run);
	return INDIRECT_CALL_1(ioc_op(ioc)->read, pctr_thread_read, fn, val,
			       tsc, mask);
}

static long ioc_read(struct file *file, const struct pctr_ioc *ioc,
		     unsigned int cmd, union pctr_ioc_arg *a,
		     void __user *uarg)
{
	/* Only the slots in mask are written, and only they are read. */
	u64 fn[PCTR_NUM] __uninitialized;
	u64 val[PCTR_NUM] __uninitialized;
	u64 tsc;
	u32 mask;
	int ret;

	ret = ioc_read_any(file, ioc, fn, val, &tsc, &mask, NULL, NULL);
	return ret ?: ioc_read_out(uarg, fn, val, tsc, mask);
}

/* PCIOCRDX: PCIOCRD's, then each slot's enabled and running times. */
static long ioc_readx(struct file *file, const struct pctr_ioc *ioc,
		      unsigned int cmd, union pctr_ioc_arg *a,
		      void __user *uarg)
{
	struct pctrstx __user *u = uarg;
	u64 fn[PCTR_NUM] __uninitialized;
	u64 val[PCTR_NUM] __uninitialized;
	u64 en[PCTR_NUM] = {}, run[PCTR_NUM] = {};
	u64 tsc;
	u32 mask;
	int ret;

	ret = ioc_read_any(file, ioc, fn, val, &tsc, &mask, en, run);
	if (ret)
		return ret;
	if (copy_to_user(u->pctr_enabled, en, sizeof(en)) ||
	    copy_to_user(u->pctr_running, run, sizeof(run)))
		return -EFAULT;
	return ioc_read_out(&u->pctr_st, fn, val, tsc, mask);
}

static long ioc_info(struct file *file, const struct pctr_ioc *ioc,
		     unsigned int cmd, union pctr_ioc_arg *a,
		     void __user *uarg)
{
	const struct pctr_pmu *p = &pctr_pmu;
	const struct pctr_cpu_id *id = &pctr_cpu_id;
	struct pctr_info *info = &a->info;

	info->pi_abi_version = PCTR_ABI_VERSION;
	info->pi_backend_id = p->backend_id;
	strscpy(info->pi_backend, p->name, sizeof(info->pi_backend));
	strscpy(info->pi_vendor, id->vendor, sizeof(info->pi_vendor));
	info->pi_caps = p->caps;
	info->pi_version = p->version;
	info->pi_ngeneral = p->ngeneral;
	info->pi_nfixed = p->nfixed;
	info->pi_width = p->width;
	info->pi_fixed_width = p->fixed_width;
	info->pi_cpu_family = id->family;
	info->pi_cpu_model = id->model;
	info->pi_nevents = p->nevents;
	info->pi_tsc_khz = id->tsc_khz;
	return 0;
}

static long ioc_event(struct file *file, const struct pctr_ioc *ioc,
		      unsigned int cmd, union pctr_ioc_arg *a,
		      void __user *uarg)
{
	struct pctr_event *ev = &a->event;
	const struct pctr_event_desc *d;
	u32 index = ev->pe_index;

	if (ev->pe_flags)
		return -EINVAL;
	if (index >= pctr_pmu.nevents)
		return -ENOENT;
	d = &pctr_pmu.events[index];
	memset(ev, 0, sizeof(*ev));
	ev->pe_index = index;
	ev->pe_fn = d->fn;
	ev->pe_slots = d->slots;
	strscpy(ev->pe_name, d->name, sizeof(ev->pe_name));
	if (d->desc)
		strscpy(ev->pe_desc, d->desc, sizeof(ev->pe_desc));
	return 0;
}

/* GETPCR: the calling thread's functions; in system mode the machine's. */
static long ioc_getpcr(struct file *file, const struct pctr_ioc *ioc,
		       unsigned int cmd, union pctr_ioc_arg *a,
		       void __user *uarg)
{
	if (pctr_pmu.ops)
		ioc_op(ioc)->get_pcr(&a->pcr);
	return 0;
}

/* The one PCR of a SPARC chip alone, as Perfmon's GETPCR/SETPCR had it. */
static long ioc_getpcr64(struct file *file, const struct pctr_ioc *ioc,
			 unsigned int cmd, union pctr_ioc_arg *a,
			 void __user *uarg)
{
	if (!pctr_pmu.ops || !pctr_pmu.ops->fns_to_pcr)
		return -EOPNOTSUPP;
	ioc_op(ioc)->get_pcr(&a->pcr);
	a->fn = a->pcr.pcr_evtsel[0];
	return 0;
}

static long ioc_getopts(struct file *file, const struct pctr_ioc *ioc,
			unsigned int cmd, union pctr_ioc_arg *a,
			void __user *uarg)
{
	pctr_thread_get_opts(&a->opts);
	return 0;
}

/*
 * PCIOCS(n) and PCIOCS64(n): the slot is in the command, and the size of
 * the argument (the dispatcher copied exactly that) in its row.
 * OpenBSD's unsigned int form is the low 32 bits of a function.  In
 * system mode they set the machine's functions.
 */
static long ioc_set32(struct file *file, const struct pctr_ioc *ioc,
		      unsigned int cmd, union pctr_ioc_arg *a,
		      void __user *uarg)
{
	return ioc_op(ioc)->set(cmd - PCIOCS(0), a->fn32);
}

static long ioc_set64(struct file *file, const struct pctr_ioc *ioc,
		      unsigned int cmd, union pctr_ioc_arg *a,
		      void __user *uarg)
{
	return ioc_op(ioc)->set(cmd - PCIOCS64(0), a->fn);
}

static long ioc_setpcr(struct file *file, const struct pctr_ioc *ioc,
		       unsigned int cmd, union pctr_ioc_arg *a,
		       void __user *uarg)
{
	return ioc_op(ioc)->set_pcr(&a->pcr);
}

static long ioc_setpcr64(struct file *file, const struct pctr_ioc *ioc,
			 unsigned int cmd, union pctr_ioc_arg *a,
			 void __user *uarg)
{
	u64 v = a->fn;

	if (!pctr_pmu.ops->pcr_to_fns)
		return -EOPNOTSUPP;
	memset(&a->pcr, 0, sizeof(a->pcr));
	a->pcr.pcr_evtsel[0] = v;
	return ioc_op(ioc)->set_pcr(&a->pcr);
}

static long ioc_preset(struct file *file, const struct pctr_ioc *ioc,
		       unsigned int cmd, union pctr_ioc_arg *a,
		       void __user *uarg)
{
	if (a->preset.ps_flags || a->preset.ps_ctr >= PCTR_NUM)
		return -EINVAL;
	return pctr_thread_preset(a->preset.ps_ctr, a->preset.ps_value);
}

static long ioc_setopts(struct file *file, const struct pctr_ioc *ioc,
			unsigned int cmd, union pctr_ioc_arg *a,
			void __user *uarg)
{
	return pctr_thread_set_opts(&a->opts);
}

/* PCIOCZERO (in system mode the machine's counters) and PCIOCRESTART. */
static long ioc_call(struct file *file, const struct pctr_ioc *ioc,
		     unsigned int cmd, union pctr_ioc_arg *a,
		     void __user *uarg)
{
	return ioc_op(ioc)->call();
}

/* On a descriptor bound to a thread, that thread's counting (bind.c). */
static long ioc_enable(struct file *file, const struct pctr_ioc *ioc,
		       unsigned int cmd, union pctr_ioc_arg *a,
		       void __user *uarg)
{
	if (pctr_file_bound(file))
		return pctr_bind_enable(file, cmd == PCIOCENABLE);
	return pctr_thread_enable(cmd == PCIOCENABLE);
}

static long ioc_bind(struct file *file, const struct pctr_ioc *ioc,
		     unsigned int cmd, union pctr_ioc_arg *a,
		     void __user *uarg)
{
	return pctr_bind(file, uarg);
}

/* On a bound descriptor it ends the binding, else the thread's context. */
static long ioc_release(struct file *file, const struct pctr_ioc *ioc,
			unsigned int cmd, union pctr_ioc_arg *a,
			void __user *uarg)
{
	if (!pctr_file_bound(file))
		return pctr_thread_release();
	pctr_bind_end(file);
	return 0;
}

/*
 * PCIOCFLUSH (Perfmon's PERFMON_FLUSH_CACHE): the calling CPU's caches
 * displaced (flush.c).  It takes no argument, and Perfmon programs pass
 * none, so whatever the third register holds is ignored.
 */
static long ioc_flush(struct file *file, const struct pctr_ioc *ioc,
		      unsigned int cmd, union pctr_ioc_arg *a,
		      void __user *uarg)
{
	return pctr_flush_cache();
}

/*
 * Sampling (sample.c): the descriptor's ring (on one bound to a CPU,
 * that CPU's alone: bind.c), a slot of the caller's.
 */
static long ioc_ring(struct file *file, const struct pctr_ioc *ioc,
		     unsigned int cmd, union pctr_ioc_arg *a,
		     void __user *uarg)
{
	if (pctr_file_bound(file))
		return pctr_bind_ring(file, &a->ring);
	return sample_ring_create(&pctr_file(file)->ring, &a->ring, -1);
}

/* On a descriptor bound to a thread, that thread's slot (bind.c). */
static long ioc_sample(struct file *file, const struct pctr_ioc *ioc,
		       unsigned int cmd, union pctr_ioc_arg *a,
		       void __user *uarg)
{
	struct pctr_ring *r = sample_ring_of(&pctr_file(file)->ring);

	if (pctr_file_bound(file))
		return pctr_bind_sample(file, r, &a->sample);
	return pctr_thread_sample(r, &a->sample);
}

#define IOCN(c, nr, f, fl, ...) \
	{ .cmd = (c), .n = (nr), .fn = (f), .flags = (fl), __VA_ARGS__ }
#define IOC(c, f, fl, ...)	IOCN(c, 1, f, fl, __VA_ARGS__)

/*
 * One row a command; one of both modes names each mode's engine call
 * (.op, .sys_op).
 */
static const struct pctr_ioc pctr_iocs[] = {
	/* Calls that only look, whatever the descriptor is bound to. */
	IOC(PCIOCRD,		ioc_read,	IOC_BOUND,
	    .op.read = pctr_thread_read, .sys_op.read = pctr_sys_read),
	IOC(PCIOCRDX,		ioc_readx,	IOC_BOUND,
	    .sys_op.read = pctr_sys_read),
	IOC(PCIOCINFO,		ioc_info,	IOC_BOUND | IOC_COPY),
	IOC(PCIOCGETPCR,	ioc_getpcr,	IOC_BOUND | IOC_COPY,
	    .op.get_pcr = pctr_thread_get_pcr, .sys_op.get_pcr = pctr_sys_get_pcr),
	IOC(PCIOCGETPCR64,	ioc_getpcr64,	IOC_BOUND | IOC_COPY,
	    .op.get_pcr = pctr_thread_get_pcr, .sys_op.get_pcr = pctr_sys_get_pcr),
	IOC(PCIOCEVENT,		ioc_event,	IOC_BOUND | IOC_COPY),
	IOC(PCIOCGOPTS,		ioc_getopts,	IOC_BOUND | IOC_COPY),
	IOC(PCIOCRELEASE,	ioc_release,	IOC_BOUND),
	/* The caller's own CPU and time: any descriptor, any backend. */
	IOC(PCIOCFLUSH,		ioc_flush,	IOC_BOUND),
	/* A bound descriptor is for its binding: it programs nothing else. */
	IOCN(PCIOCS(0), PCTR_NUM, ioc_set32,	IOC_PROGRAM | IOC_COPY,
	     .op.set = pctr_thread_set, .sys_op.set = pctr_sys_set),
	IOCN(PCIOCS64(0), PCTR_NUM, ioc_set64,	IOC_PROGRAM | IOC_COPY,
	     .op.set = pctr_thread_set, .sys_op.set = pctr_sys_set),
	IOC(PCIOCSETPCR,	ioc_setpcr,	IOC_PROGRAM | IOC_COPY,
	    .op.set_pcr = pctr_thread_set_pcr, .sys_op.set_pcr = pctr_sys_set_pcr),
	IOC(PCIOCSETPCR64,	ioc_setpcr64,	IOC_PROGRAM | IOC_COPY,
	    .op.set_pcr = pctr_thread_set_pcr, .sys_op.set_pcr = pctr_sys_set_pcr),
	IOC(PCIOCZERO,		ioc_call,	IOC_PROGRAM,
	    .op.call = pctr_thread_zero, .sys_op.call = pctr_sys_zero),
	IOC(PCIOCPRESET,	ioc_preset,	IOC_PROGRAM | IOC_THREAD | IOC_COPY),
	IOC(PCIOCRESTART,	ioc_call,	IOC_PROGRAM | IOC_THREAD,
	    .op.call = pctr_thread_restart),
	IOC(PCIOCENABLE,	ioc_enable,	IOC_PROGRAM | IOC_THREAD | IOC_BOUND),
	IOC(PCIOCDISABLE,	ioc_enable,	IOC_PROGRAM | IOC_THREAD | IOC_BOUND),
	IOC(PCIOCSOPTS,		ioc_setopts,	IOC_PROGRAM | IOC_THREAD | IOC_COPY),
	IOC(PCIOCBIND,		ioc_bind,	IOC_PROGRAM | IOC_THREAD),
	IOC(PCIOCRING,		ioc_ring,	IOC_PROGRAM | IOC_THREAD | IOC_COPY |
	    IOC_BOUND),
	IOC(PCIOCSAMPLE,	ioc_sample,	IOC_PROGRAM | IOC_THREAD | IOC_COPY |
	    IOC_BOUND),
};

/* Is the command for the mode the module runs in? */
static bool ioc_mode_fits(const struct pctr_ioc *ioc)
{
	if (ioc->flags & IOC_THREAD)
		return !pctr_system;
	if (ioc->flags & IOC_SYSTEM)
		return pctr_system;
	return true;
}

/*
 * Every call goes through here: the row of its command (an unknown
 * command, or a known number with the wrong size or direction, is
 * ENOTTY), then its row's checks in pctr(4)'s order and the mode's, then
 * the copy in, its handler, and the copy out.
 * @may_write: the descriptor may change counters (opened for writing, or
 * a /dev/perfmon one).
 */
static long pctr_dispatch(struct file *file, unsigned int cmd,
			  unsigned long arg, bool may_write)
{
	void __user *uarg = (void __user *)arg;
	unsigned int i, size = _IOC_SIZE(cmd);
	const struct pctr_ioc *ioc;
	union pctr_ioc_arg a;
	long ret;

	for (i = 0; i < ARRAY_SIZE(pctr_iocs); i++)
		if (cmd - pctr_iocs[i].cmd < pctr_iocs[i].n)
			break;
	if (i == ARRAY_SIZE(pctr_iocs))
		return -ENOTTY;
	ioc = &pctr_iocs[i];
	if (!(ioc->flags & IOC_BOUND) && pctr_file_bound(file))
		return -EBUSY;
	if ((ioc->flags & IOC_WRITE) && !may_write)
		return -EPERM;
	if ((ioc->flags & IOC_COUNTERS) && !pctr_pmu.ops)
		return -ENODEV;
	if (!ioc_mode_fits(ioc))
		return -EOPNOTSUPP;
	/* PCIOCRD, the one call made in loops, without a retpoline. */
	if (!(ioc->flags & IOC_COPY))
		return INDIRECT_CALL_1(ioc->fn, ioc_read, file, ioc, cmd, NULL,
				       uarg);
	if (WARN_ON_ONCE(size > sizeof(a)))
		return -ENOTTY;
	memset(&a, 0, size);
	if ((_IOC_DIR(cmd) & _IOC_WRITE) && copy_from_user(&a, uarg, size))
		return -EFAULT;
	ret = ioc->fn(file, ioc, cmd, &a, uarg);
	if (!ret && (_IOC_DIR(cmd) & _IOC_READ) && copy_to_user(uarg, &a, size))
		return -EFAULT;
	return ret;
}

long pctr_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return pctr_dispatch(file, cmd, arg, file->f_mode & FMODE_WRITE);
}

/*
 * /dev/perfmon: Perfmon programs open it read-only and then set the PCR,
 * so its descriptors may change counters whichever way they were opened.
 */
long pctr_perfmon_ioctl(struct file *file, unsigned int cmd,
			unsigned long arg)
{
	return pctr_dispatch(file, cmd, arg, true);
}
