// SPDX-License-Identifier: GPL-2.0
/*
 * The x86 counter register model; see x86_model.h.  The rules, and where
 * they come from:
 *
 * Intel (SDM vol. 3B, ch. 20; vol. 4 for the MSR numbers)
 *  - PERFEVTSELx (0x186+i): bits 63:32 are reserved and a write setting
 *    one raises #GP; so does AnyThread (bit 21) before version 3.  From
 *    version 5 AnyThread is deprecated (CPUID.0AH:EDX[15]) and ignored.
 *  - PMCx (0xC1+i): a write loads bits 31:0 and copies bit 31 into the
 *    bits above, up to the counter width (CPUID.0AH:EAX[23:16]).
 *  - A_PMCx (0x4C1+i) exist only with PERF_CAPABILITIES[13] (itself only
 *    with CPUID.1:ECX[15]) and take the full width; bits beyond it #GP.
 *  - Version 2 adds fixed counters FIXED_CTRx (0x309+i, EDX[4:0] of them,
 *    EDX[12:5] bits wide, written at full width, bits beyond the width
 *    reserved), FIXED_CTR_CTRL (0x38D, four bits per counter: enable OS,
 *    enable user, AnyThread from v3, PMI), GLOBAL_CTRL (0x38F: bit i
 *    gates PMCi, bit 32+i fixed counter i; reset value: every PMC
 *    enabled, no fixed counter), GLOBAL_STATUS (0x38E, read-only:
 *    overflow bits in the same places) and GLOBAL_OVF_CTRL (0x390: write
 *    1 to clear a status bit).  Version 4 adds GLOBAL_STATUS_SET (0x391).
 *    Version 5 adds CPUID.0AH:ECX, a mask of further fixed counters.
 *  - Any MSR of a counter that is not there raises #GP.
 *  - A counter counts when its enable is set, GLOBAL_CTRL (v2+) lets it,
 *    and the privilege level matches its USR/OS bits.  Passing the top of
 *    its width it wraps and, from v2, sets its GLOBAL_STATUS bit.
 *
 * AMD (APM vol. 2, section 13.2)
 *  - Four legacy counters: PerfEvtSel 0xC0010000+i, PerfCtr 0xC0010004+i.
 *  - PerfCtrExtCore (CPUID 0x80000001 ECX[23]): six counters at
 *    0xC0010200+2i/0xC0010201+2i; the legacy MSRs alias the first four.
 *  - PerfMonV2 (CPUID 0x80000022 EAX[0], EBX[3:0] counters): global
 *    status 0xC0000300 (read-only), control 0xC0000301, status clear
 *    0xC0000302, status set 0xC0000303.
 *  - PerfEvtSel bits 19, 21, 39:36 and 63:42 are reserved (#GP); before
 *    family 10h, so are 63:32.  Counters are 48 bits; writing above #GP.
 *  - HostOnly (41) and GuestOnly (40): with exactly one set the counter
 *    counts only in host or only in guest mode.
 *
 * Simplifications: one CPU, one SMT thread (AnyThread counts nothing
 * more); counter mask and edge detect compare the events of one
 * model_retire() call (a "cycle"); fixed counter 2 counts the reference
 * cycle event 3CH/01H rather than TSC ticks; there is no PMI delivery,
 * only a count of overflows with the interrupt bit set.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "x86_model.h"

struct x86_model *model;

#define EVTSEL_EN		(1ULL << 22)
#define EVTSEL_INT		(1ULL << 20)
#define EVTSEL_ANY		(1ULL << 21)

enum model_reg {
	REG_NONE,
	REG_EVTSEL,
	REG_PMC,		/* Intel legacy write, AMD counter */
	REG_A_PMC,
	REG_FIXED_CTR,
	REG_FIXED_CTRL,
	REG_GLOBAL_STATUS,
	REG_GLOBAL_CTRL,
	REG_GLOBAL_OVF,		/* Intel OVF_CTRL, AMD STATUS_CLR */
	REG_GLOBAL_SET,
	REG_PERF_CAP,
	REG_PERF_METRICS,
};

static u64 mask_bits(unsigned int width)
{
	return width >= 64 ? ~0ULL : (1ULL << width) - 1;
}

static u64 general_bits(const struct x86_model *m)
{
	return mask_bits(m->ngeneral);
}

static bool intel_v(const struct x86_model *m, u32 version)
{
	return !m->cfg->amd && m->cfg->version >= version;
}

static bool amd_v2(const struct x86_model *m)
{
	return m->cfg->amd && m->cfg->perfmon_v2;
}

static unsigned int ctr_width(const struct x86_model *m)
{
	return m->cfg->amd ? 48 : m->cfg->width;
}

static enum model_reg intel_decode(const struct x86_model *m, u32 msr,
				   unsigned int *idx)
{
	const struct model_config *c = m->cfg;

	if (msr >= 0xc1 && msr < 0xc1 + m->ngeneral) {
		*idx = msr - 0xc1;
		return REG_PMC;
	}
	if (msr >= 0x186 && msr < 0x186 + m->ngeneral) {
		*idx = msr - 0x186;
		return REG_EVTSEL;
	}
	if (c->pdcm && c->full_width && msr >= 0x4c1 &&
	    msr < 0x4c1 + m->ngeneral) {
		*idx = msr - 0x4c1;
		return REG_A_PMC;
	}
	if (msr >= 0x309 && msr < 0x309 + MODEL_MAX_FIXED &&
	    (m->fixed_mask & (1U << (msr - 0x309)))) {
		*idx = msr - 0x309;
		return REG_FIXED_CTR;
	}
	if (msr == 0x345 && c->pdcm)
		return REG_PERF_CAP;
	/* PERF_METRICS comes with fixed counter 3 (TOPDOWN.SLOTS). */
	if (msr == 0x329 && (m->fixed_mask & (1U << 3)))
		return REG_PERF_METRICS;
	if (c->version < 2)
		return REG_NONE;
	switch (msr) {
	case 0x38d:
		return REG_FIXED_CTRL;
	case 0x38e:
		return REG_GLOBAL_STATUS;
	case 0x38f:
		return REG_GLOBAL_CTRL;
	case 0x390:
		return REG_GLOBAL_OVF;
	case MSR_MODEL_INTEL_GLOBAL_STATUS_SET:
		return c->version >= 4 ? REG_GLOBAL_SET : REG_NONE;
	}
	return REG_NONE;
}

static enum model_reg amd_decode(const struct x86_model *m, u32 msr,
				 unsigned int *idx)
{
	const struct model_config *c = m->cfg;

	if (msr >= 0xc0010000 && msr < 0xc0010004) {
		*idx = msr - 0xc0010000;
		return REG_EVTSEL;
	}
	if (msr >= 0xc0010004 && msr < 0xc0010008) {
		*idx = msr - 0xc0010004;
		return REG_PMC;
	}
	if ((c->ext_core || c->perfmon_v2) && msr >= 0xc0010200 &&
	    msr < 0xc0010200 + 2 * m->ngeneral) {
		*idx = (msr - 0xc0010200) / 2;
		return msr & 1 ? REG_PMC : REG_EVTSEL;
	}
	if (!c->perfmon_v2)
		return REG_NONE;
	switch (msr) {
	case 0xc0000300:
		return REG_GLOBAL_STATUS;
	case 0xc0000301:
		return REG_GLOBAL_CTRL;
	case 0xc0000302:
		return REG_GLOBAL_OVF;
	case MSR_MODEL_AMD_GLOBAL_STATUS_SET:
		return REG_GLOBAL_SET;
	}
	return REG_NONE;
}

static enum model_reg decode(const struct x86_model *m, u32 msr,
			     unsigned int *idx)
{
	*idx = 0;
	if (m->cfg->amd)
		return amd_decode(m, msr, idx);
	return intel_decode(m, msr, idx);
}

/* Bits of the global control, status and clear registers. */
static u64 global_bits(const struct x86_model *m)
{
	return general_bits(m) | ((u64)m->fixed_mask << 32);
}

static u64 evtsel_reserved(const struct x86_model *m)
{
	u64 r;

	if (m->cfg->amd) {
		r = (1ULL << 19) | (1ULL << 21) | (0xfULL << 36) |
		    ~mask_bits(42);
		if (m->cfg->family < 0x10)
			r |= ~mask_bits(32);
		return r;
	}
	r = ~mask_bits(32);
	if (m->cfg->version < 3)
		r |= EVTSEL_ANY;
	return r;
}

static u64 fixed_ctrl_valid(const struct x86_model *m)
{
	u64 v = 0, field = m->cfg->version >= 3 ? 0xf : 0xb;
	unsigned int i;

	for (i = 0; i < MODEL_MAX_FIXED; i++)
		if (m->fixed_mask & (1U << i))
			v |= field << (4 * i);
	return v;
}

static int fault(struct x86_model *m, u32 msr)
{
	m->faults++;
	m->fault_msr = msr;
	return -EIO;
}

/*
 * rdpmc of counter @idx (bit 30: Intel's fixed counter): counted as a
 * read.  A counter that is not there faults (a #GP on hardware), and so
 * does one whose MSR (either alias) the test fails.
 */
int model_rdpmc(struct x86_model *m, u32 idx, u64 *val)
{
	bool fixed = idx & (1U << 30);
	unsigned int i = idx & ~(1U << 30), fi;
	enum model_reg fr;

	m->nreads++;
	*val = 0;
	if (fixed ? m->cfg->amd || i >= MODEL_MAX_FIXED ||
		    !(m->fixed_mask & (1U << i)) : i >= m->ngeneral)
		return fault(m, idx);
	if (m->fail_msr) {
		fr = decode(m, m->fail_msr, &fi);
		if (fi == i && (fixed ? fr == REG_FIXED_CTR :
				fr == REG_PMC || fr == REG_A_PMC))
			return fault(m, m->fail_msr);
	}
	if (m->cfg->drop_writes)
		return 0;
	*val = fixed ? m->fixed_ctr[i] : m->ctr[i];
	return 0;
}

int model_rdmsr(struct x86_model *m, u32 msr, u64 *val)
{
	unsigned int i;
	enum model_reg reg = decode(m, msr, &i);

	m->nreads++;
	*val = 0;
	if (reg == REG_NONE || (m->fail_msr && msr == m->fail_msr))
		return fault(m, msr);
	if (m->cfg->drop_writes)
		return 0;
	switch (reg) {
	case REG_EVTSEL:
		*val = m->evtsel[i];
		break;
	case REG_PMC:
	case REG_A_PMC:
		*val = m->ctr[i];
		break;
	case REG_FIXED_CTR:
		*val = m->fixed_ctr[i];
		break;
	case REG_FIXED_CTRL:
		*val = m->fixed_ctrl;
		break;
	case REG_GLOBAL_STATUS:
		*val = m->global_status;
		break;
	case REG_GLOBAL_CTRL:
		*val = m->global_ctrl;
		break;
	case REG_PERF_CAP:
		*val = m->perf_cap;
		break;
	case REG_PERF_METRICS:
		*val = m->perf_metrics;
		break;
	default:	/* the clear and set registers read as 0 */
		break;
	}
	return 0;
}

int model_wrmsr(struct x86_model *m, u32 msr, u64 val)
{
	unsigned int i;
	enum model_reg reg = decode(m, msr, &i);
	u64 width = mask_bits(ctr_width(m));

	if (reg == REG_NONE || (m->fail_msr && msr == m->fail_msr))
		return fault(m, msr);
	switch (reg) {
	case REG_EVTSEL:
		if (val & evtsel_reserved(m))
			return fault(m, msr);
		break;
	case REG_PMC:
		if (m->cfg->amd && (val & ~width))
			return fault(m, msr);
		break;
	case REG_A_PMC:
		if (val & ~width)
			return fault(m, msr);
		break;
	case REG_FIXED_CTR:
		if (val & ~mask_bits(m->cfg->fixed_width))
			return fault(m, msr);
		break;
	case REG_FIXED_CTRL:
		if (val & ~fixed_ctrl_valid(m))
			return fault(m, msr);
		break;
	case REG_GLOBAL_CTRL:
	case REG_GLOBAL_SET:
		if (val & ~global_bits(m))
			return fault(m, msr);
		break;
	case REG_GLOBAL_OVF:
		/* Intel also clears OvfBuf (62) and CondChgd (63). */
		if (val & ~(global_bits(m) | (m->cfg->amd ? 0 : 3ULL << 62)))
			return fault(m, msr);
		break;
	case REG_GLOBAL_STATUS:
	case REG_PERF_CAP:
		return fault(m, msr);
	default:
		break;
	}
	if (m->ntrace < MODEL_TRACE) {
		m->trace[m->ntrace].msr = msr;
		m->trace[m->ntrace].val = val;
		m->ntrace++;
	}
	if (m->cfg->drop_writes)
		return 0;

	switch (reg) {
	case REG_EVTSEL:
		m->evtsel[i] = val;
		break;
	case REG_PMC:
		if (!m->cfg->amd)
			val = (u64)(s64)(s32)val;
		m->ctr[i] = val & width;
		break;
	case REG_A_PMC:
		m->ctr[i] = val;
		break;
	case REG_FIXED_CTR:
		m->fixed_ctr[i] = val;
		break;
	case REG_FIXED_CTRL:
		m->fixed_ctrl = val;
		break;
	case REG_GLOBAL_CTRL:
		m->global_ctrl = val;
		break;
	case REG_GLOBAL_OVF:
		m->global_status &= ~val;
		break;
	case REG_GLOBAL_SET:
		m->global_status |= val;
		break;
	case REG_PERF_METRICS:
		m->perf_metrics = val;
		break;
	default:
		break;
	}
	return 0;
}

u64 model_msr(struct x86_model *m, u32 msr)
{
	unsigned int faults = m->faults;
	u64 val;

	if (model_rdmsr(m, msr, &val)) {
		m->faults = faults;
		fprintf(stderr, "model: MSR %#x is not there\n", msr);
		abort();
	}
	return val;
}

static const struct {
	u32	event;
	u32	umask;
} fixed_events[] = {
	{ 0xc0, 0x00 },		/* instructions retired */
	{ 0x3c, 0x00 },		/* core cycles */
	{ 0x3c, 0x01 },		/* reference cycles */
	{ 0xa4, 0x01 },		/* topdown slots */
};

int model_fixed_counter(u32 event, u32 umask)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fixed_events); i++)
		if (fixed_events[i].event == event &&
		    fixed_events[i].umask == umask)
			return i;
	return -1;
}

void model_fixed_event(unsigned int i, u32 *event, u32 *umask)
{
	*event = i < ARRAY_SIZE(fixed_events) ? fixed_events[i].event : 0;
	*umask = i < ARRAY_SIZE(fixed_events) ? fixed_events[i].umask : 0;
}

/* Add @inc to a counter of @width bits; true if it wrapped. */
static bool add(u64 *ctr, u64 inc, unsigned int width)
{
	u64 mask = mask_bits(width), sum = *ctr + inc;
	bool wrapped = sum > mask || sum < *ctr;

	*ctr = sum & mask;
	return wrapped;
}

static bool mode_ok(const struct x86_model *m, u64 sel)
{
	u64 hg = (sel >> 40) & 3;

	if (!(sel & (m->user ? 1ULL << 16 : 1ULL << 17)))
		return false;
	if (!m->cfg->amd || m->cfg->family < 0x10)
		return true;
	/* bit 40 GuestOnly, bit 41 HostOnly */
	if (hg == 1 && !m->guest)
		return false;
	if (hg == 2 && m->guest)
		return false;
	return true;
}

static void retire_general(struct x86_model *m, unsigned int i, u32 event,
			   u32 umask, u64 n)
{
	u64 sel = m->evtsel[i], inc, cmask = (sel >> 24) & 0xff;
	u32 code = sel & 0xff;
	bool cond;

	if (!(sel & EVTSEL_EN))
		return;
	if ((intel_v(m, 2) || amd_v2(m)) && !(m->global_ctrl & (1ULL << i)))
		return;
	if (!mode_ok(m, sel))
		return;
	if (m->cfg->amd)
		code |= ((sel >> 32) & 0xf) << 8;
	if (code != event || ((sel >> 8) & 0xff) != umask)
		n = 0;
	if (cmask) {
		cond = (sel & (1ULL << 23)) ? n < cmask : n >= cmask;
		inc = cond;
	} else {
		cond = n > 0;
		inc = n;
	}
	if (sel & (1ULL << 18))
		inc = cond && !m->cond[i];
	m->cond[i] = cond;
	if (add(&m->ctr[i], inc, ctr_width(m))) {
		if (intel_v(m, 2) || amd_v2(m))
			m->global_status |= 1ULL << i;
		if (sel & EVTSEL_INT)
			m->pmis++;
	}
}

static void retire_fixed(struct x86_model *m, unsigned int i, u32 event,
			 u32 umask, u64 n)
{
	u64 field = (m->fixed_ctrl >> (4 * i)) & 0xf;

	if (!(field & (m->user ? 2 : 1)))
		return;
	if (!(m->global_ctrl & (1ULL << (32 + i))))
		return;
	if (model_fixed_counter(event, umask) != (int)i)
		return;
	if (add(&m->fixed_ctr[i], n, m->cfg->fixed_width)) {
		m->global_status |= 1ULL << (32 + i);
		if (field & 8)
			m->pmis++;
	}
}

void model_retire(struct x86_model *m, u32 event, u32 umask, u64 n)
{
	unsigned int i;

	if (m->cfg->drop_writes)
		return;
	for (i = 0; i < m->ngeneral; i++)
		retire_general(m, i, event, umask, n);
	for (i = 0; i < MODEL_MAX_FIXED; i++)
		if (m->fixed_mask & (1U << i))
			retire_fixed(m, i, event, umask, n);
}

void model_set_user(struct x86_model *m, bool user)
{
	m->user = user;
}

void model_init(struct x86_model *m, const struct model_config *cfg)
{
	memset(m, 0, sizeof(*m));
	m->cfg = cfg;
	m->cpus[m->ncpus++] = cfg;
	if (cfg->other_core)
		m->cpus[m->ncpus++] = cfg->other_core;
	if (cfg->amd) {
		if (cfg->perfmon_v2)
			m->ngeneral = cfg->v2_counters;
		else
			m->ngeneral = cfg->ext_core ? 6 : 4;
	} else {
		m->ngeneral = cfg->version ? cfg->ngeneral : 0;
		if (cfg->version >= 2)
			m->fixed_mask = (1U << cfg->nfixed) - 1;
		if (cfg->version >= 5)
			m->fixed_mask |= cfg->fixed_ecx;
		m->fixed_mask &= (1U << MODEL_MAX_FIXED) - 1;
		if (cfg->full_width)
			m->perf_cap = 1ULL << 13;
	}
	if (m->ngeneral > MODEL_MAX_GENERAL)
		m->ngeneral = MODEL_MAX_GENERAL;
	/* Reset: the global control enables every general counter. */
	if (intel_v(m, 2) || amd_v2(m))
		m->global_ctrl = general_bits(m);
	m->tsc = 1000000;
	model = m;
}

void model_clear_trace(struct x86_model *m)
{
	m->ntrace = 0;
	m->nreads = 0;
	m->faults = 0;
}

int model_trace_find(struct x86_model *m, u32 msr, unsigned int from)
{
	unsigned int i;

	for (i = from; i < m->ntrace; i++)
		if (m->trace[i].msr == msr)
			return i;
	return -1;
}

/* CPUID */

static void vendor_regs(const struct model_config *c, u32 *b, u32 *c_,
			u32 *d)
{
	const char *v = c->amd ? "AuthenticAMD" : "GenuineIntel";

	memcpy(b, v, 4);
	memcpy(d, v + 4, 4);
	memcpy(c_, v + 8, 4);
}

static u32 signature(const struct model_config *c)
{
	u32 fam = c->family, base = fam >= 0xf ? 0xf : fam;
	u32 a = (base << 8) | ((c->model & 0xf) << 4);

	if (fam >= 0xf)
		a |= (fam - 0xf) << 20;
	if (fam == 6 || fam >= 0xf)
		a |= ((c->model >> 4) & 0xf) << 16;
	return a;
}

static void cpuid_of(const struct model_config *cfg, u32 leaf, u32 sub,
		     u32 *a, u32 *b, u32 *c, u32 *d)
{
	u32 max = cfg->amd ? 0x10 : 0x16;
	u32 ext_max = 0x80000008;

	*a = *b = *c = *d = 0;
	if (cfg->amd)
		ext_max = cfg->perfmon_v2 ? 0x80000022 :
			  cfg->family >= 0x10 ? 0x8000001f : 0x80000018;

	if (leaf < 0x80000000 && leaf > max)
		return;
	if (leaf >= 0x80000000 && leaf > ext_max)
		return;
	switch (leaf) {
	case 0:
		*a = max;
		vendor_regs(cfg, b, c, d);
		break;
	case 1:
		*a = signature(cfg);
		if (!cfg->amd && cfg->pdcm)
			*c = 1U << 15;
		break;
	case 0xa:
		if (cfg->amd)
			break;
		*a = cfg->version | cfg->ngeneral << 8 | cfg->width << 16 |
		     cfg->ebx_len << 24;
		*b = cfg->ebx;
		if (cfg->version >= 5)
			*c = cfg->fixed_ecx;
		if (cfg->version >= 2)
			*d = cfg->nfixed | cfg->fixed_width << 5;
		if (cfg->version >= 5)
			*d |= 1U << 15;	/* AnyThread deprecated */
		break;
	case 0x80000000:
		*a = ext_max;
		if (cfg->amd)
			vendor_regs(cfg, b, c, d);
		break;
	case 0x80000001:
		if (cfg->amd && cfg->ext_core)
			*c = 1U << 23;
		break;
	case 0x80000022:
		if (cfg->perfmon_v2) {
			*a = 1;
			*b = cfg->v2_counters;
		}
		break;
	}
}

/* The CPU the code runs on is the first. */
void pctr_cpuid(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	cpuid_of(model->cfg, leaf, sub, a, b, c, d);
}

int pctr_cpuid_on(unsigned int cpu, u32 leaf, u32 sub, u32 *a, u32 *b,
		  u32 *c, u32 *d)
{
	if (cpu >= model->ncpus)
		return -ENXIO;
	cpuid_of(model->cpus[cpu], leaf, sub, a, b, c, d);
	return 0;
}

unsigned int host_ncpus(void)
{
	return model->ncpus;
}

int pctr_rdmsr(u32 msr, u64 *val)
{
	return model_rdmsr(model, msr, val);
}

int pctr_wrmsr(u32 msr, u64 val)
{
	return model_wrmsr(model, msr, val);
}

int pctr_rdpmc(u32 idx, u64 *val)
{
	return model_rdpmc(model, idx, val);
}

/*
 * The kernel's reservation bitmaps: an MSR becomes a bit number the way
 * the kernel computes it for the vendor; numbers past the bitmap are not
 * managed, and reserving them always succeeds.
 */
static unsigned int reserve_bit(const struct x86_model *m, u32 msr,
				u32 intel, u32 amd, u32 amd_ext)
{
	if (!m->cfg->amd)
		return msr - intel;
	if (msr >= amd_ext)
		return (msr - amd_ext) >> 1;
	return msr - amd;
}

static unsigned int perfctr_bit(const struct x86_model *m, u32 msr)
{
	return reserve_bit(m, msr, 0xc1, 0xc0010004, 0xc0010201);
}

static unsigned int evntsel_bit(const struct x86_model *m, u32 msr)
{
	return reserve_bit(m, msr, 0x186, 0xc0010000, 0xc0010200);
}

static int take(u8 *owner, unsigned int bit)
{
	if (bit >= MODEL_RESERVE_BITS)
		return 1;
	if (owner[bit])
		return 0;
	owner[bit] = 1;
	return 1;
}

static void give(u8 *owner, unsigned int bit)
{
	if (bit < MODEL_RESERVE_BITS)
		owner[bit] = 0;
}

int pctr_reserve_ctr(u32 msr)
{
	return take(model->perfctr_owner, perfctr_bit(model, msr));
}

void pctr_release_ctr(u32 msr)
{
	give(model->perfctr_owner, perfctr_bit(model, msr));
}

int pctr_reserve_evntsel(u32 msr)
{
	return take(model->evntsel_owner, evntsel_bit(model, msr));
}

void pctr_release_evntsel(u32 msr)
{
	give(model->evntsel_owner, evntsel_bit(model, msr));
}

bool model_ctr_reserved(struct x86_model *m, unsigned int bit)
{
	return bit < MODEL_RESERVE_BITS && m->perfctr_owner[bit];
}

bool model_evntsel_reserved(struct x86_model *m, unsigned int bit)
{
	return bit < MODEL_RESERVE_BITS && m->evntsel_owner[bit];
}

unsigned int model_reserved_count(struct x86_model *m)
{
	unsigned int i, n = 0;

	for (i = 0; i < MODEL_RESERVE_BITS; i++)
		n += m->perfctr_owner[i] + m->evntsel_owner[i];
	return n;
}

/*
 * perf names the counters by the MSRs it uses: the full-width aliases
 * when it has them (which the bitmap does not cover), the PerfCtrExtCore
 * ones on AMD when present.
 */
void model_perf_reserve_all(struct x86_model *m)
{
	const struct model_config *c = m->cfg;
	unsigned int i;
	u32 ctr, sel;

	for (i = 0; i < m->ngeneral; i++) {
		if (!c->amd) {
			ctr = (c->pdcm && c->full_width ? 0x4c1 : 0xc1) + i;
			sel = 0x186 + i;
		} else if (c->ext_core || c->perfmon_v2) {
			ctr = 0xc0010201 + 2 * i;
			sel = 0xc0010200 + 2 * i;
		} else {
			ctr = 0xc0010004 + i;
			sel = 0xc0010000 + i;
		}
		take(m->perfctr_owner, perfctr_bit(m, ctr));
		take(m->evntsel_owner, evntsel_bit(m, sel));
	}
}

void model_take_evntsel(struct x86_model *m, unsigned int i)
{
	take(m->evntsel_owner, i);
}

void model_give_evntsel(struct x86_model *m, unsigned int i)
{
	give(m->evntsel_owner, i);
}

u64 pctr_rdtsc(void)
{
	model->tsc += 1000;
	return model->tsc;
}

u64 pctr_tsc_khz(void)
{
	return 2000000;
}

unsigned long pctr_cache_bytes(void)
{
	return 0;
}

/* CR4.PCE has no effect on the model: it is only recorded. */
bool model_pce;
u64 model_domain;

u64 pctr_x86_domain(void)
{
	return model_domain;
}

void pctr_set_pce(bool on)
{
	model_pce = on;
}

/* No address spaces in the model: system mode's rdpmc is the guests'. */
void pctr_mm_user_read(struct mm_struct *mm, bool on)
{
}

void host_log(int level, const char *fmt, ...)
{
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	if (!model) {
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		return;
	}
	len = strlen(model->log);
	vsnprintf(model->log + len, sizeof(model->log) - len, fmt, ap);
	va_end(ap);
	model->nlog++;
	if (level == 4)
		model->nwarn++;
}

/*
 * The overflow interrupt's kernel side (driver/arch/x86/pmi.c: the NMI
 * handler, LVTPC): recorded here, so tests can see reserve() turn it on,
 * release() off, and stop() report an overflow whose PMI may come late.
 */
unsigned int model_pmi_on, model_pmi_off, model_pmi_late, model_pmi_exit;
int model_pmi_on_ret;
bool model_no_apic;

int pctr_x86_pmi_on(struct pctr_pmu *pmu)
{
	model_pmi_on++;
	return model_pmi_on_ret;
}

void pctr_x86_pmi_off(struct pctr_pmu *pmu)
{
	model_pmi_off++;
}

void pctr_x86_pmi_exit(void)
{
	model_pmi_exit++;
}

void pctr_x86_pmi_pending(void)
{
	model_pmi_late++;
}

bool pctr_x86_pmi_available(void)
{
	return !model_no_apic;
}

/* pmi.c's per-CPU record of the slots armed with their INT bit. */
static u32 model_armed;

void pctr_x86_set_armed(u32 slots)
{
	model_armed = slots;
}

u32 pctr_x86_armed(void)
{
	return model_armed;
}
