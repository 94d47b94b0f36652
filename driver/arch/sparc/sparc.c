// SPDX-License-Identifier: GPL-2.0
/*
 * The SPARC backends' logic: the chips' PCR layouts, what a function or a
 * user's PCR may hold and how it is encoded, and the ops that load, stop
 * and read the PCR and PIC.  Register accesses go through the seam in
 * sparc.h (the kernel's in hw_kernel.c), so that all of this builds for
 * the host tests too, against a register model.
 *
 * The counters are 32 bits and, on UltraSPARC I/II and Niagara 2/3 as
 * pctr drives them, never interrupt: the core's fold timer (a period
 * derived from the 32-bit width, 62.5 ms, short of the 2^32 events that
 * would take more than a second at any clock these chips had) keeps the
 * 64-bit values exact.  UltraSPARC III/IV raise the level-15 interrupt
 * on every wrap, whatever the PCR says; pctr claims it (through the die
 * notifier) while it holds the counters and folds, or the kernel's NMI
 * code would rewrite the PCR.
 *
 * PRIV is clear while a thread counting its own events runs (unless the
 * admin said user_rdpmc=0), so that it can read its counters with "rd
 * %pic" as under Sun's Perfmon; never for a binding (a CPU's, or a
 * thread's, whose counts are its binder's), and in mode=system, where it
 * would be clear for every process, only with system_rdpic=1 (the core
 * decides: hw->user_read).  Every start() writes both halves of the
 * PIC, so what another context counted is never visible, and every
 * stop() sets PRIV again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "hw.h"
#include "sparc.h"

/* UltraSPARC I/II: selects 0-3 and 8-15 on both counters (4-7 reserved). */
#define US12_SELECTS	0xff0fULL

static const struct pctr_sparc_chip pctr_sparc_chips[] = {
	{
		.kind		= PCTR_SPARC_US12,
		.name		= "UltraSPARC I/II",
		.shift		= { PCTR_SPARC_PCR_S0_SHIFT, PCTR_SPARC_PCR_S1_SHIFT },
		.sel_bits	= 4,
		.sel_valid	= { US12_SELECTS, US12_SELECTS },
	},
	{
		.kind		= PCTR_SPARC_US3,
		.name		= "UltraSPARC III/IV",
		.shift		= { PCTR_SPARC_PCR_S0_SHIFT, PCTR_SPARC_PCR_S1_SHIFT },
		.sel_bits	= 6,
		.sel_valid	= { ~0ULL, ~0ULL },
		.overflow_irq	= true,
	},
	{
		.kind		= PCTR_SPARC_N2,
		.name		= "Niagara 2/3",
		.shift		= { PCTR_SPARC_N2_S0_SHIFT, PCTR_SPARC_N2_S1_SHIFT },
		.sel_bits	= 4,
		.mask_bits	= 8,
		.sel_valid	= { 0xffffULL, 0xffffULL },
	},
};

const struct pctr_sparc_chip *pctr_sparc_chip(enum pctr_sparc_kind kind)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pctr_sparc_chips); i++)
		if (pctr_sparc_chips[i].kind == kind)
			return &pctr_sparc_chips[i];
	return NULL;
}

/* Named events: Solaris cpc's names for these chips. */
#define EV(n, d, sel, m) { .name = (n), .desc = (d), .fn = (sel), .slots = (m) }

static const struct pctr_event_desc us12_events[] = {
	EV("Cycle_cnt", "Cycles (as %tick, but by PCR mode)", 0x0, 0x3),
	EV("Instr_cnt", "Instructions completed", 0x1, 0x3),
	EV("Dispatch0_IC_miss", "I-buffer empty from an I-cache miss", 0x2, 0x1),
	EV("Dispatch0_storeBuf", "Store buffer full at a store", 0x3, 0x1),
	EV("IC_ref", "I-cache references", 0x8, 0x1),
	EV("DC_rd", "D-cache read references", 0x9, 0x1),
	EV("DC_wr", "D-cache write references", 0xa, 0x1),
	EV("Load_use", "Stalls on a load result", 0xb, 0x1),
	EV("EC_ref", "E-cache references", 0xc, 0x1),
	EV("EC_write_hit_RDO", "E-cache hits doing a read for ownership", 0xd, 0x1),
	EV("EC_snoop_inv", "E-cache snoop invalidations", 0xe, 0x1),
	EV("EC_rd_hit", "E-cache read hits from D-cache misses", 0xf, 0x1),
	EV("Dispatch0_mispred", "I-buffer empty from a misprediction", 0x2, 0x2),
	EV("Dispatch0_FP_use", "Stalls on a floating-point result", 0x3, 0x2),
	EV("IC_hit", "I-cache hits", 0x8, 0x2),
	EV("DC_rd_hit", "D-cache read hits", 0x9, 0x2),
	EV("DC_wr_hit", "D-cache write hits", 0xa, 0x2),
	EV("Load_use_RAW", "Load stalls on an earlier store", 0xb, 0x2),
	EV("EC_hit", "E-cache hits", 0xc, 0x2),
	EV("EC_wb", "E-cache misses with a writeback", 0xd, 0x2),
	EV("EC_snoop_cb", "E-cache snoop copy-backs", 0xe, 0x2),
	EV("EC_ic_hit", "E-cache hits from I-cache misses", 0xf, 0x2),
};

static const struct pctr_event_desc us3_events[] = {
	EV("Cycle_cnt", "Cycles", 0x0, 0x3),
	EV("Instr_cnt", "Instructions completed", 0x1, 0x3),
	EV("DC_rd", "D-cache read references", 0x9, 0x1),
	EV("DC_rd_miss", "D-cache read misses", 0x9, 0x2),
};

static const struct pctr_event_desc n2_events[] = {
	/* SL 2 (instructions) with every MASK bit: all of them. */
	EV("Instr_cnt", "Instructions completed", 0x2 | (0xffULL << PCTR_UM_SHIFT), 0x3),
};

/*
 * Check a function for a slot and encode it: the select field shifted
 * into place, and the mode bits (UT, ST) when it is enabled.
 */
int pctr_sparc_encode_fn(const struct pctr_sparc_chip *c, unsigned int slot,
			 u64 fn, u64 *ctl)
{
	u64 ok = PCTR_EVENT_MASK | PCTR_U | PCTR_K | PCTR_EN, sel, field;

	if (slot >= SPARC_NPIC)
		return -EINVAL;
	if (c->mask_bits)
		ok |= PCTR_UM_MASK;
	if (fn & ~ok)
		return -EINVAL;
	sel = fn & PCTR_EVENT_MASK;
	if (sel >= 64 || !(c->sel_valid[slot] & (1ULL << sel)))
		return -EINVAL;
	field = (sel << c->mask_bits) |
		((fn & PCTR_UM_MASK) >> PCTR_UM_SHIFT);
	*ctl = (field << c->shift[slot]) | pctr_sparc_fn_mode(fn);
	return 0;
}

/*
 * Both counters count in one mode, the PCR's: enabled slots must agree
 * on PCTR_U and PCTR_K.
 */
int pctr_sparc_check_modes(const u64 *fn, u32 mask)
{
	u64 mode = 0;
	bool any = false;
	unsigned int s;

	for (s = 0; s < SPARC_NPIC; s++) {
		if (!(mask & BIT(s)) || !(fn[s] & PCTR_EN))
			continue;
		if (any && (fn[s] & (PCTR_U | PCTR_K)) != mode)
			return -EINVAL;
		mode = fn[s] & (PCTR_U | PCTR_K);
		any = true;
	}
	return 0;
}

/*
 * A PCR from user space (SETPCR), in the chip's layout, as the functions
 * of slots 0 and 1.  PRIV, and every bit but the mode and the selects,
 * is refused; the selects are checked by encode() like any function.  A
 * PCR that counts in no mode frees both slots.
 */
int pctr_sparc_pcr_to_fns(const struct pctr_sparc_chip *c, u64 pcr, u64 *fn)
{
	u64 mode = pctr_sparc_mode_fn(pcr), field;
	unsigned int s;

	if (pcr & ~pctr_sparc_pcr_user_bits(c))
		return -EINVAL;
	for (s = 0; s < SPARC_NPIC; s++) {
		fn[s] = 0;
		if (!mode)
			continue;
		field = (pcr >> c->shift[s]) &
			pctr_width_mask(pctr_sparc_field_bits(c));
		fn[s] = (field >> c->mask_bits) | mode | PCTR_EN |
			((field & pctr_width_mask(c->mask_bits)) << PCTR_UM_SHIFT);
	}
	return 0;
}

/* The PCR (GETPCR) the slots' functions make, PRIV clear. */
u64 pctr_sparc_fns_to_pcr(const struct pctr_sparc_chip *c, const u64 *fn)
{
	u64 pcr = 0, ctl;
	unsigned int s;

	for (s = 0; s < SPARC_NPIC; s++)
		if ((fn[s] & PCTR_EN) &&
		    !pctr_sparc_encode_fn(c, s, fn[s], &ctl))
			pcr |= ctl;
	return pcr;
}

/*
 * The PCR that runs @hw's slots: their selects and mode, PRIV clear only
 * when the core allows user-mode reads (a thread counting its own
 * events, with user_rdpmc on; system mode's CPUs only with
 * system_rdpic=1; never a binding).
 */
u64 pctr_sparc_pcr_of(const struct pctr_pmu *pmu, const struct pctr_hw *hw)
{
	u64 pcr = hw->user_read ? 0 : PCTR_SPARC_PCR_PRIV;
	unsigned int s;

	for (s = 0; s < SPARC_NPIC; s++)
		if (hw->mask & BIT(s))
			pcr |= hw->ctl[s];
	return pcr;
}

/* --- the ops ------------------------------------------------------------ */

static struct pctr_sparc pctr_sparc;

static int sparc_encode(const struct pctr_pmu *pmu, unsigned int slot,
			u64 fn, bool privileged, u64 *ctl)
{
	const struct pctr_sparc *sp = pmu->priv;

	return pctr_sparc_encode_fn(sp->chip, slot, fn, ctl);
}

static int sparc_check_set(const struct pctr_pmu *pmu, const u64 *fn,
			   u32 mask)
{
	return pctr_sparc_check_modes(fn, mask);
}

static int sparc_pcr_to_fns(const struct pctr_pmu *pmu, u64 pcr, u64 *fn)
{
	const struct pctr_sparc *sp = pmu->priv;

	return pctr_sparc_pcr_to_fns(sp->chip, pcr, fn);
}

static u64 sparc_fns_to_pcr(const struct pctr_pmu *pmu, const u64 *fn)
{
	const struct pctr_sparc *sp = pmu->priv;

	return pctr_sparc_fns_to_pcr(sp->chip, fn);
}

/*
 * Both halves of the PIC are written: a slot not in use starts at 0, so
 * nothing another context counted shows in a user "rd %pic".  The PCR
 * last: counting starts with it.
 */
static void sparc_start(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	u64 pic0 = hw->mask & BIT(0) ? hw->val[0] : 0;
	u64 pic1 = hw->mask & BIT(1) ? hw->val[1] : 0;

	pctr_sparc_wr_pic(pctr_sparc_pic_pack(pic0, pic1));
	pctr_sparc_wr_pcr(pctr_sparc_pcr_of(pmu, hw));
}

/*
 * The raw values of the slots in use.  A slot whose function is not
 * enabled counts nothing, though its half of the PIC runs in the other
 * slot's mode: it keeps the value start() gave it.
 */
static void sparc_values(struct pctr_hw *hw, u64 pic)
{
	unsigned int s;

	for (s = 0; s < SPARC_NPIC; s++)
		if ((hw->mask & BIT(s)) &&
		    (hw->ctl[s] & (PCTR_SPARC_PCR_UT | PCTR_SPARC_PCR_ST)))
			hw->val[s] = pctr_sparc_pic_get(pic, s);
}

/* Stop counting (no mode), PIC reads privileged again; then read. */
static void sparc_stop(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	pctr_sparc_wr_pcr(PCTR_SPARC_PCR_PRIV);
	sparc_values(hw, pctr_sparc_rd_pic());
}

static void sparc_read(const struct pctr_pmu *pmu, struct pctr_hw *hw)
{
	sparc_values(hw, pctr_sparc_rd_pic());
}

/* The "rd %pic" half of a slot: libpctr shifts by 32 times it. */
static int sparc_rdpmc_index(const struct pctr_pmu *pmu, unsigned int slot)
{
	return slot < SPARC_NPIC ? (int)slot : -1;
}

/*
 * The kernel has no reservation API for the PIC on SPARC: the NMI
 * watchdog (which counts with it on UltraSPARC III and later) is checked;
 * perf's use of the counters cannot be seen from a module.
 */
static int sparc_reserve(struct pctr_pmu *pmu)
{
	struct pctr_sparc *sp = pmu->priv;

	if (sp->reserved)
		return 0;
	if (pctr_sparc_watchdog_on()) {
		pr_warn_ratelimited("performance counters in use by the NMI watchdog; free them with 'sysctl kernel.nmi_watchdog=0' (and end perf sessions)\n");
		return -EBUSY;
	}
	WRITE_ONCE(sp->reserved, true);
	return 0;
}

static void sparc_release(struct pctr_pmu *pmu)
{
	struct pctr_sparc *sp = pmu->priv;

	WRITE_ONCE(sp->reserved, false);
}

static void sparc_exit(struct pctr_pmu *pmu)
{
	struct pctr_sparc *sp = pmu->priv;

	if (sp->chip->overflow_irq)
		pctr_sparc_die_unregister();
}

/*
 * The level-15 interrupt of a PIC wrap (UltraSPARC III/IV), from the die
 * notifier: ours while pctr holds the counters.  It does not say which
 * counter wrapped; folding what runs on this CPU accounts for either.
 * Level 15 comes through local_irq_disable() (PIL 14), so it may land
 * inside the engine's interrupts-off sections: then it only claims the
 * interrupt, and the core's fold timer, which runs often enough for a
 * 32-bit PIC, folds.  True if claimed.
 */
bool pctr_sparc_overflow(struct pt_regs *regs, bool irqs_were_off)
{
	if (!READ_ONCE(pctr_sparc.reserved))
		return false;
	if (!irqs_were_off)
		pctr_pmu_interrupt(regs);
	return true;
}

static const struct pctr_pmu_ops pctr_sparc_ops = {
	.encode		= sparc_encode,
	.start		= sparc_start,
	.stop		= sparc_stop,
	.read		= sparc_read,
	.rdpmc_index	= sparc_rdpmc_index,
	.reserve	= sparc_reserve,
	.release	= sparc_release,
	.exit		= sparc_exit,
	.check_set	= sparc_check_set,
	.pcr_to_fns	= sparc_pcr_to_fns,
	.fns_to_pcr	= sparc_fns_to_pcr,
};

/*
 * Hand the chip @id names to the backend: 0, or -ENODEV with the reason
 * in pmu->why.
 */
int pctr_sparc_probe(struct pctr_pmu *pmu, const struct pctr_sparc_id *id)
{
	struct pctr_sparc *sp = &pctr_sparc;
	const struct pctr_sparc_chip *c = pctr_sparc_chip(id->kind);
	int ret;

	if (!c) {
		strscpy(pmu->why, id->why ? id->why : "no counter support for this SPARC",
			sizeof(pmu->why));
		return -ENODEV;
	}
	memset(sp, 0, sizeof(*sp));
	sp->chip = c;
	switch (c->kind) {
	case PCTR_SPARC_US12:
		pmu->events = us12_events;
		pmu->nevents = ARRAY_SIZE(us12_events);
		break;
	case PCTR_SPARC_US3:
		pmu->events = us3_events;
		pmu->nevents = ARRAY_SIZE(us3_events);
		break;
	default:
		pmu->events = n2_events;
		pmu->nevents = ARRAY_SIZE(n2_events);
		break;
	}
	if (c->overflow_irq) {
		ret = pctr_sparc_die_register();
		if (ret) {
			snprintf(pmu->why, sizeof(pmu->why),
				 "cannot claim the overflow interrupt (%d)", ret);
			return -ENODEV;
		}
	}
	pmu->ops = &pctr_sparc_ops;
	pmu->priv = sp;
	pmu->backend_id = PCTR_BACKEND_SPARC;
	strscpy(pmu->name, "sparc", sizeof(pmu->name));
	/*
	 * Raw "rd %pic" values stay the 64-bit values' low bits, and every
	 * thread counting its own events may read them (Perfmon programs
	 * map no page); a bound thread may not.
	 */
	pmu->flags = PCTR_PMU_RAW_SUM | PCTR_PMU_USER_ALWAYS;
	pmu->ngeneral = SPARC_NPIC;
	pmu->width = SPARC_PIC_BITS;
	/* No PCTR_CAP_OVERFLOW: a wrap interrupt does not say which. */
	pmu->caps |= PCTR_CAP_COUNTERS | PCTR_CAP_USER_RDPMC;
	pmu->why[0] = '\0';
	return 0;
}
