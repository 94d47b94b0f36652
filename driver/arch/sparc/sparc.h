/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SPARC backends: UltraSPARC I/II (spitfire), III/IIIi/IV/IV+
 * (cheetah, cheetah+) and Niagara 2/3 (sun4v T2, T2+, T3).  Each has one
 * control register, the PCR, and two 32-bit counters in one register,
 * the PIC (PIC0 in bits 31:0, PIC1 in 63:32).  What differs between the
 * chips is where the event selects sit in the PCR and how wide they are,
 * which the chip table (sparc.c) describes; everything else is shared.
 *
 * The layers, each calling only those below it:
 *   probe.c   the arch table: who the CPU is, which chip
 *   sparc.c   encodings, PCR translation and checks, the ops (start,
 *             stop, read), reservation, the overflow interrupt's claim
 *   hw.h      the registers, the NMI watchdog, the die notifier: the
 *             kernel's (hw_kernel.c) or, for the host tests, a model's
 */
#ifndef _PCTR_SPARC_H
#define _PCTR_SPARC_H

#include "../../backend.h"

#define SPARC_NPIC		2	/* counters: slots 0 and 1 */
#define SPARC_PIC_BITS		32
#define SPARC_MAX_EVENTS	32

/* The chips pctr knows, by their PCR layout. */
enum pctr_sparc_kind {
	PCTR_SPARC_NONE = 0,
	PCTR_SPARC_US12,	/* UltraSPARC I, II, IIi, IIe: sun4u spitfire */
	PCTR_SPARC_US3,		/* UltraSPARC III, IIIi, IV, IV+: cheetah(+) */
	PCTR_SPARC_N2,		/* Niagara 2, 2+, 3: sun4v T2, T2+, T3 */
};

/* What the hw.h seam says the CPU is. */
struct pctr_sparc_id {
	enum pctr_sparc_kind kind;
	const char	*why;		/* kind NONE: the reason */
	u32		manuf;		/* %ver.manuf (sun4u), else 0 */
	u32		impl;		/* %ver.impl (sun4u), else the sun4v chip */
	u32		mask;		/* %ver.mask (sun4u) */
	bool		sun4v;
};

/* One chip's PCR layout. */
struct pctr_sparc_chip {
	enum pctr_sparc_kind kind;
	const char	*name;
	u32		shift[SPARC_NPIC];	/* of each counter's select field */
	u32		sel_bits;	/* bits of a select (the SL on Niagara) */
	u32		mask_bits;	/* Niagara: bits of MASK, below SL; else 0 */
	u64		sel_valid[SPARC_NPIC];	/* bit v: select v exists */
	bool		overflow_irq;	/* a PIC wrap raises the level-15 interrupt */
};

/* The backend's state (pmu->priv). */
struct pctr_sparc {
	const struct pctr_sparc_chip *chip;
	bool		reserved;	/* the counters are ours */
	struct pctr_event_desc events[SPARC_MAX_EVENTS];
};

/* A select field's width in the PCR (MASK and SL together on Niagara). */
static inline u32 pctr_sparc_field_bits(const struct pctr_sparc_chip *c)
{
	return c->sel_bits + c->mask_bits;
}

static inline u64 pctr_sparc_field_mask(const struct pctr_sparc_chip *c,
					unsigned int pic)
{
	return pctr_width_mask(pctr_sparc_field_bits(c)) << c->shift[pic];
}

/* The PCR bits a user may set: the mode and the two selects. */
static inline u64 pctr_sparc_pcr_user_bits(const struct pctr_sparc_chip *c)
{
	return PCTR_SPARC_PCR_ST | PCTR_SPARC_PCR_UT |
	       pctr_sparc_field_mask(c, 0) | pctr_sparc_field_mask(c, 1);
}

/* A PCR's mode as a function's PCTR_U/PCTR_K, and back. */
static inline u64 pctr_sparc_mode_fn(u64 pcr)
{
	return (pcr & PCTR_SPARC_PCR_UT ? PCTR_U : 0) |
	       (pcr & PCTR_SPARC_PCR_ST ? PCTR_K : 0);
}

static inline u64 pctr_sparc_fn_mode(u64 fn)
{
	if (!(fn & PCTR_EN))
		return 0;
	return (fn & PCTR_U ? PCTR_SPARC_PCR_UT : 0) |
	       (fn & PCTR_K ? PCTR_SPARC_PCR_ST : 0);
}

/* The 64-bit PIC from its two 32-bit counters, and each counter from it. */
static inline u64 pctr_sparc_pic_pack(u64 pic0, u64 pic1)
{
	return (pic0 & 0xffffffffULL) | (pic1 << 32);
}

static inline u64 pctr_sparc_pic_get(u64 pic, unsigned int n)
{
	return (pic >> (32 * n)) & 0xffffffffULL;
}

/* sparc.c */
const struct pctr_sparc_chip *pctr_sparc_chip(enum pctr_sparc_kind kind);
int pctr_sparc_probe(struct pctr_pmu *pmu, const struct pctr_sparc_id *id);
int pctr_sparc_encode_fn(const struct pctr_sparc_chip *c, unsigned int slot,
			 u64 fn, u64 *ctl);
int pctr_sparc_pcr_to_fns(const struct pctr_sparc_chip *c, u64 pcr, u64 *fn);
u64 pctr_sparc_fns_to_pcr(const struct pctr_sparc_chip *c, const u64 *fn);
int pctr_sparc_check_modes(const u64 *fn, u32 mask);
u64 pctr_sparc_pcr_of(const struct pctr_pmu *pmu, const struct pctr_hw *hw);
bool pctr_sparc_overflow(struct pt_regs *regs, bool irqs_were_off);

/*
 * The seam (hw.h): the registers, the CPU, the rest of the kernel.
 * Registers are read and written on the calling CPU, interrupts off.
 */
u64 pctr_sparc_rd_pcr(void);
void pctr_sparc_wr_pcr(u64 val);
u64 pctr_sparc_rd_pic(void);
void pctr_sparc_wr_pic(u64 val);
u64 pctr_sparc_tick(void);
u64 pctr_sparc_tick_khz(void);
/* The calling CPU's E-cache, in bytes (0: unknown).  Migration off. */
unsigned long pctr_sparc_cache_bytes(void);
void pctr_sparc_identify_cpu(struct pctr_sparc_id *id);
/* The NMI watchdog counts with the PIC on this machine now. */
bool pctr_sparc_watchdog_on(void);
/* The level-15 interrupt's die notifier: pctr_sparc_overflow() claims. */
int pctr_sparc_die_register(void);
void pctr_sparc_die_unregister(void);

#endif /* _PCTR_SPARC_H */
