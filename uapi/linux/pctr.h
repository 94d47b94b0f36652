/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pctr: direct access to CPU performance counters through /dev/pctr.
 *
 * This header is the single definition of the pctr ABI.  It follows
 * OpenBSD pctr(4) (PCIOCRD, PCIOCS* with OpenBSD's unsigned int argument,
 * _PATH_PCTR, the PCTR_* function and unit mask bits) and Sun
 * perfmon (GETPCR/SETPCR), with fixed-size Linux types and no holes.
 * Documentation/abi.rst and pctr.4 describe every call.
 */
#ifndef _UAPI_LINUX_PCTR_H
#define _UAPI_LINUX_PCTR_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Bumped on any incompatible change; new fields only use reserved space. */
#define PCTR_ABI_VERSION	1

/*
 * Counter slots.  Slot i < PCTR_MAX_GENERAL is general-purpose counter i;
 * slot PCTR_FIXED_BASE + i is fixed-function counter i (Intel).  Slots a
 * backend does not have read as zero and reject PCIOCS with EINVAL.
 */
#define PCTR_MAX_GENERAL	16
#define PCTR_MAX_FIXED		16
#define PCTR_FIXED_BASE		PCTR_MAX_GENERAL
#define PCTR_NUM		(PCTR_MAX_GENERAL + PCTR_MAX_FIXED)
#define PCTR_FIXED(i)		(PCTR_FIXED_BASE + (i))

typedef __u64 pctrval;

/*
 * A counter function, as set by PCIOCS64(n) (PCIOCS(n): its low 32 bits).
 * The layout is that of an x86 event select register, so a function is
 * also what GETPCR/SETPCR carry:
 *
 *   bits  0-7   event select            bits 24-31  counter mask (cmask)
 *   bits  8-15  unit mask (umask)       bits 32-35  AMD event select 11:8
 *   bit  16     PCTR_U  count user      bits 40-41  AMD host/guest only
 *   bit  17     PCTR_K  count kernel
 *   bit  18     PCTR_E  edge detect
 *   bit  20     PCTR_INT  notify on overflow of the 64-bit virtual value
 *   bit  21     PCTR_ANY  count both SMT threads (Intel; CAP_PERFMON)
 *   bit  22     PCTR_EN  enable: the counter counts only with this set
 *   bit  23     PCTR_I   invert the counter-mask comparison
 *
 * For a fixed counter only PCTR_U, PCTR_K, PCTR_ANY, PCTR_INT and PCTR_EN
 * are meaningful and the event and unit mask must be zero: the counter's
 * event is fixed by the hardware.  A function of 0 frees the counter.
 *
 * PCTR_INT asks for overflow notification (Solaris CPC_OVF_NOTIFY_EMT):
 * when the slot's 64-bit virtual value passes 2^64 - 1 and wraps, all of
 * the thread's counters freeze and the thread is sent the overflow signal
 * (SIGIO unless PCIOCSOPTS chose another) with si_code PCTR_SI_OVERFLOW
 * and si_addr the user program counter at the overflow.  They stay frozen
 * until PCIOCRESTART.  Preset the slot to 2^64 - n (PCIOCPRESET) to be
 * told after n events.  Needs PCTR_CAP_NOTIFY: EOPNOTSUPP without.
 */
#define PCTR_EVENT_MASK		0x000000ffULL
#define PCTR_UM_SHIFT		8
#define PCTR_UM_MASK		(0xffULL << PCTR_UM_SHIFT)
#define PCTR_U			(1ULL << 16)
#define PCTR_K			(1ULL << 17)
#define PCTR_E			(1ULL << 18)
#define PCTR_INT		(1ULL << 20)
#define PCTR_ANY		(1ULL << 21)
#define PCTR_EN			(1ULL << 22)
#define PCTR_I			(1ULL << 23)
#define PCTR_CM_SHIFT		24
#define PCTR_CM_MASK		(0xffULL << PCTR_CM_SHIFT)
#define PCTR_EVENT_HI_SHIFT	32
#define PCTR_EVENT_HI_MASK	(0xfULL << PCTR_EVENT_HI_SHIFT)
#define PCTR_HG_SHIFT		40
#define PCTR_HG_MASK		(0x3ULL << PCTR_HG_SHIFT)

/* Build a function from its parts: PCTR_FN(0xc0, 0, PCTR_U | PCTR_EN). */
#define PCTR_FN(event, umask, flags)					\
	((((__u64)(event) & 0xff) |					\
	  (((__u64)(event) & 0xf00) << (PCTR_EVENT_HI_SHIFT - 8)) |	\
	  ((__u64)(umask) << PCTR_UM_SHIFT)) | (__u64)(flags))

/*
 * PCIOCRD: the calling thread's view of every counter slot.
 *
 * pctr_fn   function of each slot, as set by PCIOCS<n> or SETPCR
 * pctr_tsc  the time-stamp counter when the values were read
 * pctr_hwc  64-bit virtual value of each slot: events counted while this
 *           thread ran, never wrapping (0 for a free or absent slot)
 * pctr_idl  nanoseconds all online CPUs have spent idle since boot, the
 *           figure /proc/stat's idle column is made from
 *
 * On a descriptor bound with PCIOCBIND it reads the binding instead.
 * (A kernel older than CPU bindings that share: EAGAIN, the thread's
 * context invalidated by a CPU binding.)
 */
struct pctrst {
	__u64	pctr_fn[PCTR_NUM];
	pctrval	pctr_tsc;
	pctrval	pctr_hwc[PCTR_NUM];
	pctrval	pctr_idl;
};

/*
 * PCIOCRDX: PCIOCRD's snapshot (528 bytes), then each slot's times, as
 * perf's time_enabled and time_running (1040 bytes in all), in TSC
 * cycles:
 *
 * pctr_enabled  the thread's run time since the slot's function was set
 *               (or the values zeroed)
 * pctr_running  of which the slot's counter was counting for it: less
 *               the time the thread ran on a CPU whose counters a CPU
 *               binding held.  Scale a count by enabled / running.
 *
 * Zero for a free slot, and for the counters a CPU owns (a CPU binding's,
 * system mode's), which count all along.  A kernel older than this
 * header fails it with ENOTTY.  The counter page carries them too, for
 * a slot read inline (struct pctr_page_times, PCTR_PG_TIMES).
 */
struct pctrstx {
	struct pctrst	pctr_st;
	__u64	pctr_enabled[PCTR_NUM];
	__u64	pctr_running[PCTR_NUM];
};

/*
 * GETPCR/SETPCR: the raw control state of the calling thread's counters,
 * in the hardware's own register layout: one event select per general
 * counter, and the fixed-counter control register (four bits per fixed
 * counter: bit 0 kernel, bit 1 user, bit 2 any-thread, bit 3 interrupt).
 * SETPCR validates every field exactly as PCIOCS<n> does; it never
 * writes a register outside the thread's own counter controls.
 */
struct pctr_pcr {
	__u64	pcr_evtsel[PCTR_MAX_GENERAL];
	__u64	pcr_fixed_ctrl;
	__u64	pcr_reserved[3];	/* must be zero */
};

/*
 * SPARC (pi_backend_id PCTR_BACKEND_SPARC) has one control register, the
 * PCR, for its two 32-bit counters PIC0 and PIC1 (slots 0 and 1; pctr
 * folds them into 64-bit values).  GETPCR/SETPCR carry that PCR, in the
 * chip's own layout, in pcr_evtsel[0]; every other field is zero (SETPCR:
 * EINVAL otherwise).  PCIOCGETPCR64/PCIOCSETPCR64 carry it alone, as a
 * __u64 (Perfmon's PERFMON_GETPCR/PERFMON_SETPCR; EOPNOTSUPP on a backend
 * without one PCR).  SETPCR takes PRIV, ST, UT and the two event selects
 * and rejects anything else with EINVAL: PRIV set (pctr clears it itself
 * while the thread runs, so that rd %pic works in user mode), reserved
 * bits, the Niagara hypervisor-trace, trap-on-overflow and overflow bits,
 * and a select the chip has not (on UltraSPARC I/II: 4 to 7).  ST or UT
 * clear in both means no counter counts: both slots are freed.  GETPCR
 * gives back the PCR as set, PRIV clear.
 *
 * The same counters by function (PCIOCS<n>): bits 0-7 are the slot's
 * select (S0 for slot 0, S1 for slot 1; Niagara 2/3: SL), bits 8-15 zero
 * (Niagara 2/3: the 8-bit MASK), PCTR_U for UT, PCTR_K for ST, PCTR_EN.
 * The mode is one for both counters: two enabled slots with different
 * PCTR_U/PCTR_K are EINVAL.
 */
#define PCTR_SPARC_PCR_PRIV	(1ULL << 0)	/* PIC reads privileged */
#define PCTR_SPARC_PCR_ST	(1ULL << 1)	/* count in supervisor mode */
#define PCTR_SPARC_PCR_UT	(1ULL << 2)	/* count in user mode */
/* UltraSPARC I/II: 4-bit selects; III/IIIi/IV/IV+: 6-bit. */
#define PCTR_SPARC_PCR_S0_SHIFT	4
#define PCTR_SPARC_PCR_S1_SHIFT	11
/* Niagara 2/3 (T2, T2+, T3): each select is MASK (8 bits) then SL (4). */
#define PCTR_SPARC_N2_HT	(1ULL << 3)	/* hypervisor trace */
#define PCTR_SPARC_N2_TOE0	(1ULL << 4)	/* trap on PIC0 overflow */
#define PCTR_SPARC_N2_TOE1	(1ULL << 5)	/* trap on PIC1 overflow */
#define PCTR_SPARC_N2_S0_SHIFT	6
#define PCTR_SPARC_N2_OV0	(1ULL << 18)
#define PCTR_SPARC_N2_S1_SHIFT	19
#define PCTR_SPARC_N2_OV1	(1ULL << 31)

/*
 * PCIOCPRESET: set a slot's 64-bit virtual value, and its preset: the
 * value PCIOCRESTART and inheritance start it from.
 */
struct pctr_preset {
	__u32	ps_ctr;			/* slot number */
	__u32	ps_flags;		/* must be zero */
	__u64	ps_value;
};

/* Backend kinds in pctr_info.pi_backend_id. */
#define PCTR_BACKEND_NONE	0	/* no counters: TSC only */
#define PCTR_BACKEND_INTEL	1	/* Intel architectural perfmon */
#define PCTR_BACKEND_AMD	2	/* AMD core counters */
#define PCTR_BACKEND_SIM	3	/* simulated PMU (tests only) */
#define PCTR_BACKEND_SPARC	4	/* UltraSPARC PCR/PIC */

/* Capability bits in pctr_info.pi_caps. */
#define PCTR_CAP_TSC		(1U << 0)  /* pctr_tsc is a real TSC */
#define PCTR_CAP_COUNTERS	(1U << 1)  /* PCIOCS* can program counters */
#define PCTR_CAP_GLOBAL_CTRL	(1U << 2)  /* a global enable register */
#define PCTR_CAP_FULL_WIDTH	(1U << 3)  /* full-width counter writes */
#define PCTR_CAP_ANYTHREAD	(1U << 4)  /* PCTR_ANY is supported */
#define PCTR_CAP_USER_RDPMC	(1U << 5)  /* counters readable by rdpmc */
#define PCTR_CAP_OVERFLOW	(1U << 6)  /* counters flag their overflows */
#define PCTR_CAP_NOTIFY		(1U << 7)  /* PCTR_INT: overflow signals */
#define PCTR_CAP_RDPMC_OFF	(1U << 8)  /* admin: user_rdpmc=0 */
/*
 * The module runs in system mode (mode=system): functions apply on every
 * CPU to everything that runs, PCIOCRD reads the current CPU's counts.
 */
#define PCTR_CAP_SYSTEM		(1U << 9)
/*
 * A thread counts in its slots on a CPU whose binding holds others, as
 * on any CPU; without it, it counts nothing while it runs there, and its
 * slots' running time (PCIOCRDX) falls short of their enabled time.
 */
#define PCTR_CAP_CPU_SHARE	(1U << 10)

/* PCIOCINFO: what the loaded backend offers. */
struct pctr_info {
	__u32	pi_abi_version;		/* PCTR_ABI_VERSION */
	__u32	pi_backend_id;		/* PCTR_BACKEND_* */
	char	pi_backend[16];		/* "intel", "amd", "sim", "none" */
	char	pi_vendor[16];		/* CPUID vendor string, or "" */
	__u32	pi_caps;		/* PCTR_CAP_* */
	__u32	pi_version;		/* perfmon version, 0 if none */
	__u32	pi_ngeneral;		/* general counters */
	__u32	pi_nfixed;		/* fixed counters */
	__u32	pi_width;		/* bits in a general counter */
	__u32	pi_fixed_width;		/* bits in a fixed counter */
	__u32	pi_nevents;		/* named events, see PCIOCEVENT */
	__u32	pi_cpu_family;		/* CPUID display family */
	__u32	pi_cpu_model;		/* CPUID display model */
	__u32	pi_reserved0;
	__u64	pi_tsc_khz;		/* TSC frequency, 0 if unknown */
	__u64	pi_reserved[8];
};

/*
 * PCIOCEVENT: the events the backend knows by name.  Set pe_index, get
 * the rest; ENOENT past the last one.  pe_fn is a function for PCIOCS
 * (flags PCTR_U|PCTR_K|PCTR_EN still to be added).  pe_slots is a bit
 * mask of the slots that can count it.
 */
struct pctr_event {
	__u32	pe_index;
	__u32	pe_flags;		/* must be zero on input */
	__u64	pe_fn;
	__u64	pe_slots;
	char	pe_name[48];
	char	pe_desc[80];
};

/*
 * The counter page: mmap(NULL, PCTR_PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0)
 * maps the calling thread's page, read-only.  It belongs to that thread:
 * read it only from that thread (another thread's rdpmc reads its own
 * CPU).  The kernel rewrites it whenever the thread is switched in and
 * whenever it folds counts, on the thread's own CPU, bumping pg_seq
 * around each update.  The thread reading its own page is running, so
 * the page always describes running counters:
 *
 *	do {
 *		seq = pg_seq;	(odd: not readable inline, see below)
 *		value = ps_sum + ((raw - ps_prev) & ps_mask), with
 *		raw   = rdpmc(ps_rdpmc - 1)                 if ps_rdpmc != 0
 *		raw   = ps_sim_val + t / ps_sim_period - ps_sim_t0 / ps_sim_period,
 *			t = min(rdtsc(), pg_sim_limit)  if ps_sim_period != 0
 *		        (a free slot, ps_mask 0, is just ps_sum)
 *		vtsc  = pg_vtsc_off + rdtsc()
 *	} while (pg_seq != seq);
 *
 * vtsc, the virtual TSC, is the TSC cycles the thread has run since its
 * context was made.  A slot with neither recipe is read with PCIOCRD.
 * pg_seq stays odd once the context has ended (PCTR_PG_DEAD): read with
 * PCIOCRD then.  This is page version 1; version 2, below, is quicker to
 * read.  <pctr.h> from libpctr implements both (pctr_read(),
 * pctr_read_n(), pctr_vtsc()).
 */
#define PCTR_PAGE_VERSION	1
#define PCTR_PAGE_SIZE		4096

#define PCTR_PG_RUNNING		(1U << 0)	/* counting on a CPU now */
#define PCTR_PG_DEAD		(1U << 1)	/* the context ended */
#define PCTR_PG_RDPMC		(1U << 2)	/* rdpmc allowed while running */
#define PCTR_PG_FROZEN		(1U << 3)	/* stopped by an overflow */
#define PCTR_PG_INVALID		(1U << 4)	/* invalidated: use PCIOCRD */
#define PCTR_PG_DISABLED	(1U << 5)	/* stopped by PCIOCDISABLE */
#define PCTR_PG_TIMES		(1U << 6)	/* the times block is kept */

struct pctr_page_slot {
	__u64	ps_sum;			/* 64-bit value at the last fold */
	__u64	ps_prev;		/* raw counter value at the last fold */
	__u64	ps_mask;		/* counter width mask; 0: free slot */
	__u32	ps_rdpmc;		/* rdpmc index + 1; 0: no rdpmc */
	__u32	ps_pad;
	__u64	ps_sim_period;		/* sim: TSC ticks per event, or 0 */
	__u64	ps_sim_t0;		/* sim: TSC at which it held ps_sim_val */
	__u64	ps_sim_val;		/* sim: raw value at ps_sim_t0 */
};

struct pctr_page {
	__u32	pg_version;		/* PCTR_PAGE_VERSION */
	__u32	pg_seq;			/* changes with every update */
	__u32	pg_flags;		/* PCTR_PG_* */
	__u32	pg_cpu;			/* CPU it runs on, when running */
	__u64	pg_vtsc_off;		/* virtual TSC minus the TSC */
	__u64	pg_tsc_in;		/* TSC at the last switch-in */
	__u64	pg_sim_limit;		/* sim: TSC at which counters freeze */
	__u64	pg_reserved[3];
	struct pctr_page_slot pg_slot[PCTR_NUM];
};

/*
 * Page version 2: mmap(NULL, PCTR_PAGE_SIZE, PROT_READ, MAP_SHARED, fd,
 * PCTR_PAGE2_OFFSET) maps the same page, and the kernel then keeps a
 * struct pctr_page2 up to date at byte PCTR_PAGE2_START of it (and the
 * version 1 layout at byte 0 only if that was mapped too: which offset a
 * program maps says which layout it reads).  A slot's value is one
 * offset plus the counter, which the kernel keeps from wrapping between
 * two updates:
 *
 *	do {
 *		seq   = p2_seq;
 *		value = p2s_off + rdpmc(p2s_index)   if p2s_index >= 0
 *		        (read with PCIOCRD otherwise: a free, stopped,
 *		        simulated or PCTR_INT slot, an invalid or dead page)
 *		vtsc  = p2_vtsc_off + rdtsc()
 *	} while (p2_seq_end != seq);
 *
 * The kernel writes the page only on the thread's CPU while the thread
 * is not running user code, setting p2_seq before an update and
 * p2_seq_end after it: a read that straddled one sees them differ.  Once
 * the context has ended they differ for good (PCTR_PG_DEAD): read with
 * PCIOCRD then, and p2_vtsc_off is the final virtual TSC.  p2_live has a
 * bit for each slot with a function, p2_fn the functions (as PCIOCRD's
 * pctr_fn), p2_idl the idle time PCIOCRD last saw.
 */
#define PCTR_PAGE2_VERSION	2
#define PCTR_PAGE2_OFFSET	0x20000000ULL
#define PCTR_PAGE2_START	3072

struct pctr_page2_slot {
	__u64	p2s_off;		/* value minus the raw counter */
	__s32	p2s_index;		/* rdpmc index; < 0: use PCIOCRD */
	__u32	p2s_pad;
};

struct pctr_page2 {
	__u32	p2_version;		/* PCTR_PAGE2_VERSION */
	__u32	p2_seq;			/* set before an update */
	__u64	p2_vtsc_off;		/* virtual TSC minus the TSC */
	__u32	p2_seq_end;		/* set after it */
	__u32	p2_flags;		/* PCTR_PG_* */
	__u32	p2_cpu;			/* CPU it runs on, when running */
	__u32	p2_live;		/* slots with a function */
	__u64	p2_idl;			/* pctr_idl as PCIOCRD last read it */
	__u64	p2_reserved[3];
	struct pctr_page2_slot p2_slot[PCTR_NUM];
	__u64	p2_fn[PCTR_NUM];
};

/*
 * The times block: each slot's enabled and running times (as PCIOCRDX's
 * pctr_enabled and pctr_running, TSC cycles), at byte
 * PCTR_PAGE_TIMES_START of the same page, between the two layouts.  The
 * kernel keeps it with whichever layout was mapped, in the same update
 * and under that layout's sequence (pg_seq for version 1, p2_seq and
 * p2_seq_end for version 2), and says so with PCTR_PG_TIMES in
 * pg_flags / p2_flags (a kernel older than this header never sets it).
 * Like perf's time_enabled and time_running, each is the virtual TSC
 * plus an offset:
 *
 *	enabled = vtsc + pt_enabled_off[i]
 *	running = vtsc + pt_running_off[i]
 *
 * read in the same pass as the slot's value and vtsc, and right only for
 * a slot read inline (p2s_index >= 0; version 1: ps_mask != 0 with
 * ps_rdpmc or ps_sim_period): it counts now, so both times grow with the
 * thread's run time.  For any other slot (a starving one among them:
 * its running time stands still) read the times with PCIOCRDX.
 * <pctr.h>'s pctr_read_times() does both.
 */
#define PCTR_PAGE_TIMES_START	2048

struct pctr_page_times {
	__u64	pt_enabled_off[PCTR_NUM];	/* enabled time minus vtsc */
	__u64	pt_running_off[PCTR_NUM];	/* running time minus vtsc */
};

/*
 * PCIOCSOPTS/PCIOCGOPTS: options of the calling thread's counter context.
 *
 * PCTR_O_INHERIT  threads and processes the thread creates from now on
 *                 start with a copy of its functions, their presets as
 *                 values, and these options.  A slot with PCTR_INT starts
 *                 at 2^64 - 1, frozen, and the new thread is sent the
 *                 overflow signal at once so that it can preset and
 *                 restart (Solaris CPC_BIND_LWP_INHERIT).
 * po_signo        the overflow signal; 0 for the default, SIGIO.
 */
struct pctr_opts {
	__u32	po_flags;		/* PCTR_O_* */
	__u32	po_signo;
	__u64	po_reserved[3];		/* must be zero */
};

#define PCTR_O_INHERIT		(1U << 0)

/* siginfo si_code of an overflow signal: "counter overflow". */
#define PCTR_SI_OVERFLOW	0x43

/*
 * PCIOCBIND: bind this descriptor to counters other than the calling
 * thread's.  From then on PCIOCRD on it reads that binding, PCIOCRELEASE
 * or close() ends it, and the calls that program the calling thread's
 * own counters fail on it with EBUSY.
 *
 * PCTR_BIND_CPU     count on CPU pb_id whatever runs there.  Needs
 *                   CAP_PERFMON or CAP_SYS_ADMIN (EACCES without); one
 *                   binding per CPU (EAGAIN); ENXIO for a CPU that is
 *                   not online.  While any CPU binding exists, per-thread
 *                   counting is unavailable: programming fails with
 *                   EAGAIN, and every thread context that existed when
 *                   the first one was made is invalidated for good (its
 *                   PCIOCRD fails with EAGAIN until it is released).
 * PCTR_BIND_THREAD  count for thread pb_id (a thread ID) of another
 *                   process, which the caller must be tracing with
 *                   ptrace(2) at the time of the call (EPERM if not;
 *                   ESRCH if there is no such thread).  The counters are
 *                   set up in the thread's own context, as if it had
 *                   programmed them itself; the call waits for that, and
 *                   fails with EAGAIN if the thread is or becomes stopped
 *                   (job control, or a ptrace stop) before it could --
 *                   unless pb_flags has PCTR_BF_DEFER: then the binding
 *                   is made at once and the thread sets the counters up
 *                   when it next runs, before any instruction of its
 *                   own; until then PCIOCRD reads pb_fn and pb_preset,
 *                   and an error of that setup is PCIOCRD's.
 *                   EBUSY if the thread counts for itself already.
 *
 * pb_fn and pb_preset give each slot's function and starting value, as
 * PCIOCS<n> and PCIOCPRESET would; PCTR_INT is not allowed (EINVAL).
 */
struct pctr_bind {
	__u32	pb_kind;		/* PCTR_BIND_* */
	__u32	pb_id;			/* CPU number or thread ID */
	__u32	pb_flags;		/* PCTR_BF_*, thread bindings only */
	__u32	pb_reserved;		/* must be zero */
	__u64	pb_fn[PCTR_NUM];
	__u64	pb_preset[PCTR_NUM];
};

#define PCTR_BIND_CPU		1
#define PCTR_BIND_THREAD	2

#define PCTR_BF_DEFER		(1U << 0)	/* a stopped thread: set up later */

#define PCTR_IOC_MAGIC		'c'

#define PCIOCRD		_IOR(PCTR_IOC_MAGIC, 0xc0, struct pctrst)
#define PCIOCINFO	_IOR(PCTR_IOC_MAGIC, 0xc1, struct pctr_info)
#define PCIOCGETPCR	_IOR(PCTR_IOC_MAGIC, 0xc2, struct pctr_pcr)
#define PCIOCSETPCR	_IOW(PCTR_IOC_MAGIC, 0xc3, struct pctr_pcr)
#define PCIOCZERO	_IO(PCTR_IOC_MAGIC, 0xc4)
#define PCIOCPRESET	_IOW(PCTR_IOC_MAGIC, 0xc5, struct pctr_preset)
#define PCIOCEVENT	_IOWR(PCTR_IOC_MAGIC, 0xc6, struct pctr_event)
/* End the calling thread's counter context: free every slot, page dead. */
#define PCIOCRELEASE	_IO(PCTR_IOC_MAGIC, 0xc7)
#define PCIOCBIND	_IOW(PCTR_IOC_MAGIC, 0xc8, struct pctr_bind)
#define PCIOCSOPTS	_IOW(PCTR_IOC_MAGIC, 0xc9, struct pctr_opts)
#define PCIOCGOPTS	_IOR(PCTR_IOC_MAGIC, 0xca, struct pctr_opts)
/* Thaw counters frozen by an overflow, each slot from its preset. */
#define PCIOCRESTART	_IO(PCTR_IOC_MAGIC, 0xcb)
/*
 * Stop and resume counting for the calling thread, values and functions
 * kept (Solaris cpc_disable/cpc_enable).  They act on a context a thread
 * binding set up too: that is how a measured program marks the code of
 * interest.  EINVAL without counters; EAGAIN once invalidated.
 */
#define PCIOCENABLE	_IO(PCTR_IOC_MAGIC, 0xcc)
#define PCIOCDISABLE	_IO(PCTR_IOC_MAGIC, 0xcd)
/* The one PCR of a SPARC chip, in its own layout (see above). */
#define PCIOCGETPCR64	_IOR(PCTR_IOC_MAGIC, 0xce, __u64)
#define PCIOCSETPCR64	_IOW(PCTR_IOC_MAGIC, 0xcf, __u64)

/*
 * PCIOCFLUSH, Perfmon's PERFMON_FLUSH_CACHE: the calling CPU's data
 * caches emptied of the caller's data, so that the next measurement
 * starts cold: the CPU reads a buffer twice the size of its largest
 * cache (Documentation/abi.rst).  Any descriptor, read-only ones too; no
 * argument.  EINTR if a fatal signal ends it, ENOMEM.  A kernel older
 * than this header fails it with ENOTTY.
 */
#define PCIOCFLUSH	_IO(PCTR_IOC_MAGIC, 0xbf)

/* PCIOCRD with each slot's enabled and running times (struct pctrstx). */
#define PCIOCRDX	_IOR(PCTR_IOC_MAGIC, 0xbe, struct pctrstx)

/*
 * Sampling (ioctls 0xd0-0xdf).  A slot in sampling mode counts down a
 * period; each time the period has passed, the overflow interrupt writes
 * a record to the descriptor's ring buffer and the slot starts the next
 * period (hwpmc's "reload count").  Needs PCTR_CAP_NOTIFY (EOPNOTSUPP
 * without: "no sampling on this backend").
 *
 * 1. PCIOCRING makes the descriptor's ring (once: EBUSY after), of
 *    ra_pages data pages per possible CPU (a power of two, 1..1024), and
 *    says how to map it.  mmap(NULL, ra_mmap_size, PROT_READ|PROT_WRITE,
 *    MAP_SHARED, fd, PCTR_RING_OFFSET) maps it: never executable, not
 *    inherited by fork() (VM_DONTCOPY), not in core dumps.
 * 2. PCIOCSAMPLE puts a slot of the calling thread in sampling mode:
 *    sa_fn is the slot's function (PCTR_INT is implied and set), and the
 *    slot's value becomes 2^64 - sa_period (PCIOCRD shows it counting up
 *    to the next sample).  The records go to the ring of the descriptor
 *    the call is made on; a descriptor with no ring: ENXIO.  On a
 *    descriptor bound to a thread (PCTR_BIND_THREAD) it samples the
 *    bound thread instead, with the binding's rules (Documentation/
 *    abi.rst): how pctr record -p works.  On a descriptor bound to a
 *    CPU (PCTR_BIND_CPU) it samples that CPU, whatever thread runs
 *    there: sa_slot must be a slot of the binding and sa_fn its function
 *    (EINVAL otherwise), whose value becomes 2^64 - sa_period; once a
 *    binding (EBUSY after).  Each record names the thread it
 *    interrupted (sr_pid, sr_tid, and its name: PCTR_SR_COMM); sr_ip and
 *    the chain are that thread's.  PCTR_SA_EXEC does not apply there
 *    and is ignored.  This is how pctr record -a works, a descriptor a
 *    CPU.
 *
 *    PCIOCRING on a descriptor already bound to a CPU makes a ring for
 *    that CPU alone: ra_ncpu is 1, its one ring that CPU's.  A kernel
 *    older than this header fails PCIOCRING on a bound descriptor with
 *    EBUSY (a thread binding's ring was made before the binding), and
 *    PCIOCSAMPLE on a CPU binding with EOPNOTSUPP.
 *
 * PCTR_SA_CALLCHAIN  also record the user call chain: the return
 *                    addresses found by following frame pointers from
 *                    the interrupted user state, at most sa_depth of them
 *                    (0: 64; at most PCTR_SAMPLE_MAX_DEPTH), read with page
 *                    faults disabled (a frame not in memory ends it).
 *                    x86-64 only: EOPNOTSUPP elsewhere (sparc64).
 * PCTR_SA_KCHAIN     with PCTR_SA_CALLCHAIN, a sample taken in the kernel
 *                    also gets the kernel call chain, by the kernel's own
 *                    unwinder, if the caller may record kernel addresses
 *                    (below; silently none otherwise): the callers of
 *                    sr_ip, innermost first, before the user part of the
 *                    chain, their number in sr_flags (PCTR_SR_KNR).  x86-64
 *                    only (no kernel frames elsewhere).  A kernel older
 *                    than this header fails the flag with EINVAL.
 * PCTR_SA_EXEC       sampling survives execve(): the new program is
 *                    sampled into the same ring -- unless it is set-id or
 *                    not readable (not dumpable), which ends it.  This is
 *                    how a profiler samples a command from its first
 *                    instruction: the child sets it up, then execs.
 *
 * With PCTR_O_INHERIT (PCIOCSOPTS) the threads and processes the thread
 * creates are sampled too, with the same slot, period and flags, into
 * the same ring: one ring for a whole program.
 *
 * The kernel's address is recorded only if the caller of PCIOCSAMPLE
 * may count kernel events (Documentation/security.rst: as for PCTR_K);
 * otherwise a sample taken in the kernel has PCTR_SR_KERNEL, sr_ip 0,
 * and its call chain starts from the user state the thread entered the
 * kernel from, with no kernel frame (PCTR_SA_KCHAIN or not).
 */
#define PCTR_SA_CALLCHAIN	(1U << 0)
#define PCTR_SA_EXEC		(1U << 1)
#define PCTR_SA_KCHAIN		(1U << 2)
#define PCTR_SAMPLE_MAX_DEPTH	127

struct pctr_sample_attr {
	__u32	sa_slot;
	__u32	sa_flags;		/* PCTR_SA_* */
	__u64	sa_fn;			/* the slot's function */
	__u64	sa_period;		/* events per sample, >= 1 */
	__u32	sa_depth;		/* call chain entries, 0: 64 */
	__u32	sa_reserved0;		/* must be zero */
	__u64	sa_reserved[4];		/* must be zero */
};

struct pctr_ring_attr {
	__u32	ra_pages;		/* in: data pages per CPU, 2^n */
	__u32	ra_watermark;		/* in: poll() wake-up, bytes; 0: half */
	__u64	ra_reserved[2];		/* in: must be zero */
	__u32	ra_ncpu;		/* out: per-CPU rings */
	__u32	ra_ctl_size;		/* out: bytes before the first ring */
	__u64	ra_data_size;		/* out: bytes of each CPU's ring */
	__u64	ra_mmap_size;		/* out: bytes to map */
};

/* mmap() offset of the ring (the counter page is at 0 and PCTR_PAGE2_OFFSET). */
#define PCTR_RING_OFFSET	0x40000000ULL

/*
 * The mapped ring: a control area (struct pctr_ring_ctl, then one
 * struct pctr_ring_cpu per CPU), then ra_ncpu rings of ra_data_size
 * bytes each; CPU c's ring starts at ra_ctl_size + c * ra_data_size.
 * A CPU's records go to its own ring, so writers never contend.
 *
 * Protocol of one CPU's ring: rc_head and rc_tail are byte counts that
 * only grow; a record is at offset (pos % ra_data_size).  The kernel
 * writes records and then rc_head (release); the reader loads rc_head
 * (acquire), reads the records from rc_tail up to it, then stores
 * rc_tail (release) to give the space back.  A record never wraps round
 * the end: the kernel pads to the end (PCTR_REC_PAD) instead.  The
 * kernel writes a record only if the largest record the slot can make
 * fits in the free space (ra_data_size - (rc_head - rc_tail)); else it
 * adds one to rc_lost.  A full ring thus loses records and counts them,
 * and never overwrites what was not read.  The kernel keeps its own copy
 * of the head, and a tail out of range counts as a full ring.
 *
 * poll() on the descriptor says POLLIN when some CPU's ring holds at
 * least the watermark's bytes (the wake-up is sent from irq_work after
 * the record is written).
 */
#define PCTR_RING_VERSION	1

struct pctr_ring_ctl {
	__u32	rg_version;		/* PCTR_RING_VERSION */
	__u32	rg_ncpu;
	__u64	rg_data_size;
	__u32	rg_ctl_size;
	__u32	rg_watermark;
	__u64	rg_reserved[5];
};

struct pctr_ring_cpu {
	__u64	rc_head;		/* kernel: bytes written */
	__u64	rc_tail;		/* reader: bytes consumed */
	__u64	rc_lost;		/* kernel: records that did not fit */
	__u64	rc_throttles;		/* kernel: throttles on this CPU */
	__u64	rc_reserved[4];
};

/*
 * Record types (sr_type).  Every record starts with sr_type and sr_size:
 * a reader skips sr_size bytes of a type it does not know, as new types
 * may come.
 */
#define PCTR_REC_SAMPLE		1
#define PCTR_REC_PAD		2	/* skip sr_size bytes */
#define PCTR_REC_THROTTLE	3	/* struct pctr_throttle_rec */

/* sr_flags */
#define PCTR_SR_USER		(1U << 0)	/* interrupted in user mode */
#define PCTR_SR_KERNEL		(1U << 1)	/* in the kernel */
#define PCTR_SR_KADDR		(1U << 2)	/* sr_ip is a kernel address */
#define PCTR_SR_COMM		(1U << 3)	/* ends with the thread's name */
/* Bits 8-15: how many kernel frames open sr_chain (PCTR_SA_KCHAIN). */
#define PCTR_SR_KNR_SHIFT	8
#define PCTR_SR_KNR(flags)	(((flags) >> PCTR_SR_KNR_SHIFT) & 0xff)

/*
 * One record; sr_size (a multiple of 8) covers the header and the
 * chain.  A PCTR_REC_PAD record has only sr_type and sr_size.  sr_ip is
 * the interrupted user IP, the kernel IP with PCTR_SR_KADDR, or 0;
 * sr_chain[0..sr_nr-1] are, first, PCTR_SR_KNR(sr_flags) kernel return
 * addresses (PCTR_SA_KCHAIN, the callers of the kernel sr_ip, innermost
 * first), then the user return addresses, innermost first, after the
 * user IP (sr_ip, or the user IP at kernel entry when in the kernel,
 * which is then the first user entry).  sr_pid and sr_tid are in the pid
 * namespace of whoever made the ring (0 for a thread outside it, and for
 * one its parent already reaped that runs its last instructions in exit,
 * unless the ring's namespace is the initial one); sr_tsc is the TSC.  With PCTR_SR_COMM (a CPU binding's samples) the
 * record's last PCTR_SR_COMM_LEN bytes, after the chain, are the
 * interrupted thread's name (its comm, NUL-padded); a reader that reads
 * sr_nr chain entries and skips by sr_size need not know the flag.
 */
#define PCTR_SR_COMM_LEN	16

struct pctr_sample_rec {
	__u16	sr_type;		/* PCTR_REC_* */
	__u16	sr_size;
	__u16	sr_flags;		/* PCTR_SR_* */
	__u16	sr_nr;			/* call chain entries */
	__u32	sr_pid;
	__u32	sr_tid;
	__u32	sr_cpu;
	__u32	sr_slot;
	__u64	sr_tsc;
	__u64	sr_ip;
	__u64	sr_chain[];
};

/*
 * Throttling.  Each CPU takes at most max_sample_rate samples a second
 * (the module parameter; counted per tick) and spends at most
 * cpu_time_max_percent of each tick in the overflow interrupts that
 * take them.  The slot whose sample passes either limit is throttled:
 * its counter counts on but interrupts no more, and it takes no sample,
 * until its first fold or switch-in on a later tick.  A record says so
 * when it starts (PCTR_TR_RATE or PCTR_TR_TIME) and when it ends
 * (PCTR_TR_END, with the samples its periods would have taken meanwhile
 * in tr_skipped); the end's record comes also when the slot's sampling
 * ends while throttled.  rc_throttles counts the starts, records lost
 * or not.
 */
#define PCTR_TR_RATE		(1U << 0)	/* over max_sample_rate */
#define PCTR_TR_TIME		(1U << 1)	/* over cpu_time_max_percent */
#define PCTR_TR_END		(1U << 2)	/* sampling is armed again */

struct pctr_throttle_rec {
	__u16	tr_type;		/* PCTR_REC_THROTTLE */
	__u16	tr_size;
	__u16	tr_flags;		/* PCTR_TR_* */
	__u16	tr_reserved0;
	__u32	tr_pid;
	__u32	tr_tid;
	__u32	tr_cpu;
	__u32	tr_slot;
	__u64	tr_tsc;
	__u64	tr_skipped;		/* PCTR_TR_END: samples not taken */
};

#define PCIOCRING	_IOWR(PCTR_IOC_MAGIC, 0xd0, struct pctr_ring_attr)
#define PCIOCSAMPLE	_IOW(PCTR_IOC_MAGIC, 0xd1, struct pctr_sample_attr)

/*
 * PCIOCS<n>: set the function of slot n.  Two forms share each number;
 * the argument size the command encodes tells them apart:
 *
 * PCIOCS(n), PCIOCS0 .. PCIOCS7, PCIOCSF(i)     (unsigned int, write)
 *	OpenBSD's form: bits 0-31 of the function, the kernel reads four
 *	bytes and the high bits are zero.  PCIOCS0 + n is PCIOCS(n), as
 *	OpenBSD programs count on.
 * PCIOCS64(n), PCIOCSF64(i)                     (__u64, write)
 *	The whole function, for the bits above 31 (PCTR_EVENT_HI_MASK,
 *	PCTR_HG_MASK: AMD).
 *
 * Both are checked alike, as the same 64-bit function.
 *
 * ABI note: PCIOCS(n) was the __u64 form until OpenBSD's was added.  That
 * command number is unchanged and is now called PCIOCS64(n), so programs
 * built before keep working; PCIOCS(n) is a new number.  Source that
 * passes a __u64 to PCIOCS(n) must use PCIOCS64(n): with PCIOCS(n) it
 * sets only the low 32 bits (little-endian) and any high bits are lost.
 * A kernel older than this header fails PCIOCS(n) with ENOTTY.
 */
#define PCTR_IOC_SET_BASE	0xe0
#define PCIOCS(n)	_IOW(PCTR_IOC_MAGIC, PCTR_IOC_SET_BASE + (n), unsigned int)
#define PCIOCS64(n)	_IOW(PCTR_IOC_MAGIC, PCTR_IOC_SET_BASE + (n), __u64)
#define PCIOCS0		PCIOCS(0)
#define PCIOCS1		PCIOCS(1)
#define PCIOCS2		PCIOCS(2)
#define PCIOCS3		PCIOCS(3)
#define PCIOCS4		PCIOCS(4)
#define PCIOCS5		PCIOCS(5)
#define PCIOCS6		PCIOCS(6)
#define PCIOCS7		PCIOCS(7)
#define PCIOCSF(i)	PCIOCS(PCTR_FIXED(i))
#define PCIOCSF64(i)	PCIOCS64(PCTR_FIXED(i))

/*
 * The other names an OpenBSD pctr(4) program uses (<machine/pctr.h>).
 *
 * _PATH_PCTR       the device
 * PCTR_UM_*        unit mask bits, already shifted into the function
 *                  (PCTR_UM_M | PCTR_UM_E | ...: MESI cache line states,
 *                  PCTR_UM_A any initiator), as OpenBSD/amd64 has them
 * PCTR_INTEL_NUM,  how many general counters a program may address on
 * PCTR_AMD_NUM     each vendor's CPUs: here PCTR_MAX_GENERAL, an upper
 *                  bound.  How many this CPU has is pi_ngeneral
 *                  (PCIOCINFO); PCIOCS<n> past it fails with EINVAL and
 *                  PCIOCRD reads such slots as zero.
 *
 * PCTR_U, PCTR_K, PCTR_E, PCTR_EN, PCTR_I, PCTR_UM_SHIFT, PCTR_CM_SHIFT,
 * PCIOCRD and struct pctrst (pctr_fn, pctr_tsc, pctr_hwc, pctr_idl) are
 * the ones above.  Unlike OpenBSD, pctr_fn is __u64, PCTR_NUM is 32 and
 * every counter needs its own PCTR_EN.
 */
#ifndef _PATH_PCTR
#define _PATH_PCTR		"/dev/pctr"
#endif
#define PCTR_UM_I		(0x01 << PCTR_UM_SHIFT)	/* invalid lines */
#define PCTR_UM_S		(0x02 << PCTR_UM_SHIFT)	/* shared lines */
#define PCTR_UM_E		(0x04 << PCTR_UM_SHIFT)	/* exclusive lines */
#define PCTR_UM_M		(0x08 << PCTR_UM_SHIFT)	/* modified lines */
#define PCTR_UM_MESI		(PCTR_UM_M | PCTR_UM_E | PCTR_UM_S | PCTR_UM_I)
#define PCTR_UM_A		(0x20 << PCTR_UM_SHIFT)	/* any initiator */
#define PCTR_INTEL_NUM		PCTR_MAX_GENERAL
#define PCTR_AMD_NUM		PCTR_MAX_GENERAL

/* Sun perfmon's names for the raw control register calls. */
#define PCTR_GETPCR	PCIOCGETPCR
#define PCTR_SETPCR	PCIOCSETPCR

#endif /* _UAPI_LINUX_PCTR_H */
