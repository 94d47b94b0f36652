/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A register model of the SPARC counters, for the host tests of
 * driver/arch/sparc: one CPU's PCR and PIC as UltraSPARC I/II, III/IV or
 * Niagara 2/3 have them, user-mode "rd %pic" with its privileged_action
 * trap, the level-15 interrupt of an UltraSPARC III wrap (with what the
 * kernel's NMI code does when nobody claims it), and the seam of
 * driver/arch/sparc/sparc.h.
 */
#ifndef _PCTR_SPARC_MODEL_H
#define _PCTR_SPARC_MODEL_H

#include "../../driver/arch/sparc/sparc.h"

struct sparc_model {
	enum pctr_sparc_kind kind;
	bool	sun4v;
	u32	impl;
	u64	pcr;
	u64	pic;
	bool	user;		/* the CPU runs in user mode */
	bool	watchdog;	/* the NMI watchdog is on */
	bool	die_hooked;	/* the die notifier is registered */
	u64	tick;
	unsigned int pcr_writes, pic_writes;
	unsigned int level15;	/* level-15 interrupts raised */
	unsigned int unclaimed;	/* ... that no notifier claimed */
	unsigned int interrupts; /* pctr_pmu_interrupt() calls */
	unsigned int traps;	/* user rd %pic that trapped */
};

extern struct sparc_model *smodel;
/* Called by the model's pctr_pmu_interrupt(): the test's fold. */
extern void (*smodel_fold)(void);

void smodel_init(struct sparc_model *m, enum pctr_sparc_kind kind);
/*
 * @n events happen in the current mode, of the kind PIC0 counts when its
 * select field (MASK and SL together on Niagara) is @field0, PIC1 when
 * its is @field1.
 */
void smodel_event(struct sparc_model *m, u64 field0, u64 field1, u64 n);
/* A user-mode "rd %pic": 0 and the value, or -1 for the trap. */
int smodel_user_rd_pic(struct sparc_model *m, u64 *val);
/* A user-mode "wr %pic" (Perfmon's clr_pic()): 0, or -1 for the trap. */
int smodel_user_wr_pic(struct sparc_model *m, u64 val);
/* The kernel log the backend wrote, for tests that look for a message. */
const char *smodel_log(void);
void smodel_log_clear(void);

#endif /* _PCTR_SPARC_MODEL_H */
