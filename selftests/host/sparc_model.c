// SPDX-License-Identifier: GPL-2.0
/*
 * The SPARC register model (sparc_model.h) and the seam it stands in
 * for.  Written from the chips' documented behaviour: PIC0 counts the
 * event S0 selects and PIC1 the one S1 does, in the modes UT and ST
 * allow, each wrapping at 32 bits; PRIV makes a user-mode PIC read trap.
 */
#include <stdarg.h>

#include "host_hw.h"
#include "sparc_model.h"

struct sparc_model *smodel;
void (*smodel_fold)(void);

static char log_buf[4096];
static size_t log_len;

void host_log(int level, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (log_len >= sizeof(log_buf) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(log_buf + log_len, sizeof(log_buf) - log_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		log_len += (size_t)n < sizeof(log_buf) - log_len ?
			   (size_t)n : sizeof(log_buf) - 1 - log_len;
}

const char *smodel_log(void)
{
	return log_buf;
}

void smodel_log_clear(void)
{
	log_len = 0;
	log_buf[0] = '\0';
}

void smodel_init(struct sparc_model *m, enum pctr_sparc_kind kind)
{
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->sun4v = kind == PCTR_SPARC_N2;
	m->impl = kind == PCTR_SPARC_US12 ? 0x12 : kind == PCTR_SPARC_US3 ? 0x14 : 2;
	/* As Linux leaves it: not counting, PIC reads privileged. */
	m->pcr = PCTR_SPARC_PCR_PRIV;
	m->tick = 1000000;
	smodel = m;
	smodel_fold = NULL;
	smodel_log_clear();
}

static const struct pctr_sparc_chip *chip(const struct sparc_model *m)
{
	return pctr_sparc_chip(m->kind);
}

/* The kernel's level-15 handling: notifiers first, else stop the PCR. */
static void level15(struct sparc_model *m)
{
	m->level15++;
	if (m->die_hooked && pctr_sparc_overflow(NULL, false))
		return;
	m->unclaimed++;
	m->pcr = PCTR_SPARC_PCR_PRIV;
}

void smodel_event(struct sparc_model *m, u64 field0, u64 field1, u64 n)
{
	const struct pctr_sparc_chip *c = chip(m);
	u64 bit = m->user ? PCTR_SPARC_PCR_UT : PCTR_SPARC_PCR_ST;
	u64 want[2] = { field0, field1 }, field, half, sum;
	bool wrapped = false;
	unsigned int i;

	if (!c || !(m->pcr & bit))
		return;
	for (i = 0; i < 2; i++) {
		field = (m->pcr >> c->shift[i]) &
			pctr_width_mask(pctr_sparc_field_bits(c));
		if (field != want[i])
			continue;
		half = pctr_sparc_pic_get(m->pic, i);
		sum = half + n;
		if (sum > 0xffffffffULL)
			wrapped = true;
		m->pic &= ~(0xffffffffULL << (32 * i));
		m->pic |= (sum & 0xffffffffULL) << (32 * i);
	}
	if (wrapped && c->overflow_irq)
		level15(m);
}

int smodel_user_rd_pic(struct sparc_model *m, u64 *val)
{
	if (m->pcr & PCTR_SPARC_PCR_PRIV) {
		m->traps++;
		return -1;
	}
	*val = m->pic;
	return 0;
}

int smodel_user_wr_pic(struct sparc_model *m, u64 val)
{
	if (m->pcr & PCTR_SPARC_PCR_PRIV) {
		m->traps++;
		return -1;
	}
	m->pic = val;
	return 0;
}

/* --- the seam ----------------------------------------------------------- */

u64 pctr_sparc_rd_pcr(void)
{
	return smodel->pcr;
}

void pctr_sparc_wr_pcr(u64 val)
{
	smodel->pcr_writes++;
	smodel->pcr = val;
}

u64 pctr_sparc_rd_pic(void)
{
	return smodel->pic;
}

void pctr_sparc_wr_pic(u64 val)
{
	smodel->pic_writes++;
	smodel->pic = val;
}

u64 pctr_sparc_tick(void)
{
	return smodel->tick;
}

u64 pctr_sparc_tick_khz(void)
{
	return 440000;
}

unsigned long pctr_sparc_cache_bytes(void)
{
	return 0;
}

void pctr_sparc_identify_cpu(struct pctr_sparc_id *id)
{
	id->kind = smodel->kind;
	id->sun4v = smodel->sun4v;
	id->impl = smodel->impl;
	if (smodel->kind == PCTR_SPARC_NONE)
		id->why = "no counter support for this sun4v chip (Niagara 2/3 only)";
}

bool pctr_sparc_watchdog_on(void)
{
	return smodel->watchdog;
}

int pctr_sparc_die_register(void)
{
	smodel->die_hooked = true;
	return 0;
}

void pctr_sparc_die_unregister(void)
{
	smodel->die_hooked = false;
}

/* The core's side of an overflow interrupt: counted; the test folds. */
void pctr_pmu_interrupt(struct pt_regs *regs)
{
	smodel->interrupts++;
	if (smodel_fold)
		smodel_fold();
}
