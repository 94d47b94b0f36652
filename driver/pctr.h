/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pctr internal interfaces: the backend seam between the generic core
 * and the code that knows a CPU family's registers.
 *
 * The core never asks "Intel or AMD?": a backend fills a struct pctr_pmu
 * (counts, widths, capabilities) at probe time and the core only calls
 * through its ops table.
 */
#ifndef _PCTR_H
#define _PCTR_H

#include <linux/types.h>
#include <linux/pctr.h>

struct file;
struct pctr_pmu;

/* Raw per-slot state handed between the core and a backend. */
struct pctr_hw {
	u64	ctl[PCTR_NUM];		/* backend encoding of each function */
	u64	val[PCTR_NUM];		/* raw counter values */
	u32	mask;			/* slots in use: bit s for slot s */
};

struct pctr_pmu_ops {
	/*
	 * Check a user function for @slot and translate it into the
	 * backend's control encoding.  Returns -EINVAL for reserved or
	 * unsupported bits or an absent slot, -EPERM for bits that need
	 * CAP_PERFMON when @privileged is false.
	 */
	int	(*encode)(const struct pctr_pmu *pmu, unsigned int slot,
			  u64 fn, bool privileged, u64 *ctl);
	/* Load hw->val and hw->ctl into the slots in hw->mask, start them. */
	void	(*start)(const struct pctr_pmu *pmu, const struct pctr_hw *hw);
	/* Stop the slots in hw->mask and store their raw values. */
	void	(*stop)(const struct pctr_pmu *pmu, struct pctr_hw *hw);
	/* Read the raw values of the slots in hw->mask, leaving them run. */
	void	(*read)(const struct pctr_pmu *pmu, struct pctr_hw *hw);
	/* The rdpmc instruction's index for @slot, or -1 if it has none. */
	int	(*rdpmc_index)(const struct pctr_pmu *pmu, unsigned int slot);
	/* Slots whose counters overflowed; acknowledge them. */
	u32	(*overflow_status)(const struct pctr_pmu *pmu);
	void	(*overflow_ack)(const struct pctr_pmu *pmu, u32 slots);
	/* Take the counters from the rest of the kernel, and give back. */
	int	(*reserve)(struct pctr_pmu *pmu);
	void	(*release)(struct pctr_pmu *pmu);
};

struct pctr_pmu {
	const struct pctr_pmu_ops *ops;	/* NULL when there are no counters */
	u32	backend_id;		/* PCTR_BACKEND_* */
	char	name[16];		/* backend name, as in pctr_info */
	char	vendor[16];		/* CPUID vendor string */
	u32	caps;			/* PCTR_CAP_* */
	u32	version;		/* perfmon version */
	u32	ngeneral;
	u32	nfixed;
	u32	width;			/* bits in a general counter */
	u32	fixed_width;		/* bits in a fixed counter */
	u32	family;
	u32	model;
	u64	tsc_khz;
	char	why[64];		/* with no counters: the reason */
};

/* Width mask of a slot's counter. */
static inline u64 pctr_width_mask(unsigned int bits)
{
	return bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

static inline bool pctr_slot_exists(const struct pctr_pmu *pmu,
				    unsigned int slot)
{
	if (slot < PCTR_FIXED_BASE)
		return slot < pmu->ngeneral;
	return slot - PCTR_FIXED_BASE < pmu->nfixed && slot < PCTR_NUM;
}

/* core.c */
extern struct pctr_pmu pctr_pmu;

/* ioctl.c */
long pctr_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* arch: the probes, one per backend; each returns 0 or -ENODEV. */
int pctr_arch_probe(struct pctr_pmu *pmu);
u64 pctr_arch_tsc(void);
void pctr_none_probe(struct pctr_pmu *pmu, const char *why);

#endif /* _PCTR_H */
