// SPDX-License-Identifier: GPL-2.0
/*
 * The SPARC backends (driver/arch/sparc) on the host, against the
 * register model of sparc_model.c: each chip's encodings, SETPCR/GETPCR
 * in the chip's own PCR layout and what they refuse, PRIV cleared only
 * while counting (so a user "rd %pic" works then and traps otherwise),
 * other contexts' counts scrubbed, the 32-bit fold arithmetic, and
 * UltraSPARC III's wrap interrupt claimed and folded.  The engine's part
 * (start, stop, fold with the 32-bit masked delta) is played by the
 * small helpers below, as ctx.c does it.
 */
#include "host_hw.h"
#include "sparc_model.h"

#include "kselftest_harness.h"

struct pctr_pmu pctr_pmu;
struct pctr_cpu_id pctr_cpu_id;

static const enum pctr_sparc_kind kinds[] = {
	PCTR_SPARC_US12, PCTR_SPARC_US3, PCTR_SPARC_N2,
};

/* Probe @kind on a fresh model, through the arch table as the core does. */
static int load(struct sparc_model *m, enum pctr_sparc_kind kind)
{
	smodel_init(m, kind);
	memset(&pctr_pmu, 0, sizeof(pctr_pmu));
	pctr_arch.identify(&pctr_cpu_id);
	return pctr_arch.probe(&pctr_pmu, &pctr_cpu_id);
}

static int encode(unsigned int slot, u64 fn, u64 *ctl)
{
	return pctr_pmu.ops->encode(&pctr_pmu, slot, fn, false, ctl);
}

/* The engine's view of one context: sums folded from raw values. */
struct ctx {
	struct pctr_hw hw;
	u64 fn[PCTR_NUM];
	u64 sum[PCTR_NUM], prev[PCTR_NUM];
};

static struct ctx *running;

static void fold(struct ctx *c)
{
	unsigned int s;

	for (s = 0; s < 2; s++) {
		if (!(c->hw.mask & (1U << s)))
			continue;
		c->sum[s] += pctr_delta(c->prev[s], c->hw.val[s], 32);
		c->prev[s] = c->hw.val[s];
	}
}

static void fold_running(void)
{
	pctr_pmu.ops->read(&pctr_pmu, &running->hw);
	fold(running);
}

static int program(struct ctx *c, unsigned int slot, u64 fn)
{
	int ret = encode(slot, fn, &c->hw.ctl[slot]);

	if (ret)
		return ret;
	c->fn[slot] = fn;
	c->hw.mask |= 1U << slot;
	return pctr_pmu.ops->check_set(&pctr_pmu, c->fn, c->hw.mask);
}

/*
 * The programming most tests count with, in user mode: event 0x1 on
 * slot 0 and, when @nslots is 2, event 0x0 on slot 1.
 */
static int program_user(struct ctx *c, unsigned int nslots)
{
	int ret = program(c, 0, 0x1 | PCTR_U | PCTR_EN);

	if (!ret && nslots > 1)
		ret = program(c, 1, 0x0 | PCTR_U | PCTR_EN);
	return ret;
}

/* A fresh @kind model, and @c programmed by program_user(). */
static int load_programmed(struct sparc_model *m, enum pctr_sparc_kind kind,
			   struct ctx *c, unsigned int nslots)
{
	int ret = load(m, kind);

	return ret ? ret : program_user(c, nslots);
}

static void start(struct ctx *c)
{
	unsigned int s;

	/* As ctx.c's ctx_hw_on(): from 0, or the sums' low bits. */
	for (s = 0; s < 2; s++) {
		c->prev[s] = pctr_pmu.flags & PCTR_PMU_RAW_SUM ?
			     c->sum[s] & 0xffffffffULL : 0;
		c->hw.val[s] = c->prev[s];
	}
	/* As ctx.c: every thread may read, with the cap (user_rdpmc=1). */
	c->hw.user_read = (pctr_pmu.flags & PCTR_PMU_USER_ALWAYS) &&
			  (pctr_pmu.caps & PCTR_CAP_USER_RDPMC);
	pctr_pmu.ops->start(&pctr_pmu, &c->hw);
	running = c;
}

static void stop(struct ctx *c)
{
	pctr_pmu.ops->stop(&pctr_pmu, &c->hw);
	fold(c);
	running = NULL;
}

TEST(every_chip_probes_two_32bit_counters)
{
	struct sparc_model m;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		ASSERT_EQ(0, load(&m, kinds[i]));
		EXPECT_EQ(PCTR_BACKEND_SPARC, pctr_pmu.backend_id);
		EXPECT_STREQ("sparc", pctr_pmu.name);
		EXPECT_EQ(2, pctr_pmu.ngeneral);
		EXPECT_EQ(0, pctr_pmu.nfixed);
		EXPECT_EQ(32, pctr_pmu.width);
		EXPECT_TRUE(pctr_pmu.caps & PCTR_CAP_COUNTERS);
		EXPECT_TRUE(pctr_pmu.caps & PCTR_CAP_USER_RDPMC);
		EXPECT_TRUE(pctr_pmu.caps & PCTR_CAP_TSC);
		EXPECT_GT(pctr_pmu.nevents, 0);
		EXPECT_EQ(0, pctr_pmu.ops->rdpmc_index(&pctr_pmu, 0));
		EXPECT_EQ(1, pctr_pmu.ops->rdpmc_index(&pctr_pmu, 1));
		EXPECT_EQ(-1, pctr_pmu.ops->rdpmc_index(&pctr_pmu, 2));
		/* The UltraSPARC III wrap interrupt needs the die notifier. */
		EXPECT_EQ(kinds[i] == PCTR_SPARC_US3, m.die_hooked);
		EXPECT_STREQ(m.sun4v ? "sun4v" : "sun4u", pctr_cpu_id.vendor);
		TH_LOG("%s", pctr_pmu.desc);
		pctr_pmu.ops->exit(&pctr_pmu);
		EXPECT_FALSE(m.die_hooked);
	}
	/* A chip pctr does not know: no backend, and why. */
	EXPECT_EQ(-ENODEV, load(&m, PCTR_SPARC_NONE));
	EXPECT_NE(0, pctr_pmu.why[0]);
}

TEST(us12_encodings)
{
	struct sparc_model m;
	u64 ctl, sel;

	ASSERT_EQ(0, load(&m, PCTR_SPARC_US12));
	EXPECT_EQ(0, encode(0, 0x0 | PCTR_U | PCTR_EN, &ctl));
	EXPECT_EQ(PCTR_SPARC_PCR_UT, ctl);
	EXPECT_EQ(0, encode(1, 0x1 | PCTR_U | PCTR_K | PCTR_EN, &ctl));
	EXPECT_EQ((1ULL << 11) | PCTR_SPARC_PCR_UT | PCTR_SPARC_PCR_ST, ctl);
	EXPECT_EQ(0, encode(0, 0xf | PCTR_K | PCTR_EN, &ctl));
	EXPECT_EQ((0xfULL << 4) | PCTR_SPARC_PCR_ST, ctl);
	/* Not enabled: the select, but no mode. */
	EXPECT_EQ(0, encode(1, 0x9 | PCTR_U, &ctl));
	EXPECT_EQ(0x9ULL << 11, ctl);
	/* Selects 4-7 are reserved, 16 and up do not fit. */
	for (sel = 4; sel < 8; sel++) {
		EXPECT_EQ(-EINVAL, encode(0, sel | PCTR_U | PCTR_EN, &ctl));
		EXPECT_EQ(-EINVAL, encode(1, sel | PCTR_U | PCTR_EN, &ctl));
	}
	EXPECT_EQ(-EINVAL, encode(0, 0x10 | PCTR_U | PCTR_EN, &ctl));
	/* No unit mask, edge, invert, cmask, any-thread, AMD bits; no slot 2. */
	EXPECT_EQ(-EINVAL, encode(0, 0x1 | (1ULL << PCTR_UM_SHIFT) | PCTR_U | PCTR_EN, &ctl));
	EXPECT_EQ(-EINVAL, encode(0, 0x1 | PCTR_E | PCTR_U | PCTR_EN, &ctl));
	EXPECT_EQ(-EINVAL, encode(0, 0x1 | PCTR_I | PCTR_U | PCTR_EN, &ctl));
	EXPECT_EQ(-EINVAL, encode(0, 0x1 | (1ULL << PCTR_CM_SHIFT) | PCTR_U | PCTR_EN, &ctl));
	EXPECT_EQ(-EINVAL, encode(0, 0x1 | PCTR_ANY | PCTR_U | PCTR_EN, &ctl));
	EXPECT_EQ(-EINVAL, encode(0, 0x1 | PCTR_EVENT_HI_MASK | PCTR_U | PCTR_EN, &ctl));
	EXPECT_EQ(-EINVAL, encode(2, 0x1 | PCTR_U | PCTR_EN, &ctl));
}

TEST(us3_encodings)
{
	struct sparc_model m;
	u64 ctl;

	ASSERT_EQ(0, load(&m, PCTR_SPARC_US3));
	EXPECT_EQ(0, encode(0, 0x3f | PCTR_U | PCTR_EN, &ctl));
	EXPECT_EQ((0x3fULL << 4) | PCTR_SPARC_PCR_UT, ctl);
	EXPECT_EQ(0, encode(1, 0x3f | PCTR_K | PCTR_EN, &ctl));
	EXPECT_EQ((0x3fULL << 11) | PCTR_SPARC_PCR_ST, ctl);
	EXPECT_EQ(0, encode(0, 0x5 | PCTR_U | PCTR_EN, &ctl));
	EXPECT_EQ(-EINVAL, encode(0, 0x40 | PCTR_U | PCTR_EN, &ctl));
	EXPECT_EQ(-EINVAL, encode(1, 0x1 | (1ULL << PCTR_UM_SHIFT) | PCTR_U | PCTR_EN, &ctl));
}

TEST(n2_encodings)
{
	struct sparc_model m;
	u64 ctl, instr = 0x2 | (0xffULL << PCTR_UM_SHIFT);

	ASSERT_EQ(0, load(&m, PCTR_SPARC_N2));
	/* MASK in the low 8 bits of the field, SL above it. */
	EXPECT_EQ(0, encode(0, instr | PCTR_U | PCTR_EN, &ctl));
	EXPECT_EQ((0x2ffULL << 6) | PCTR_SPARC_PCR_UT, ctl);
	EXPECT_EQ(0, encode(1, instr | PCTR_U | PCTR_EN, &ctl));
	EXPECT_EQ((0x2ffULL << 19) | PCTR_SPARC_PCR_UT, ctl);
	EXPECT_EQ(0, ctl & (PCTR_SPARC_N2_OV0 | PCTR_SPARC_N2_OV1 |
			    PCTR_SPARC_N2_HT | PCTR_SPARC_N2_TOE0 |
			    PCTR_SPARC_N2_TOE1));
	EXPECT_EQ(-EINVAL, encode(0, 0x10 | PCTR_U | PCTR_EN, &ctl));
}

/* Sun Perfmon's own example: cycles in PIC1, instructions in PIC0, user. */
TEST(perfmon_pcr_round_trip)
{
	struct sparc_model m;
	u64 pcr = (0x0ULL << 11) | (0x1ULL << 4) | PCTR_SPARC_PCR_UT;
	u64 fn[PCTR_NUM] = {};

	ASSERT_EQ(0, load(&m, PCTR_SPARC_US12));
	ASSERT_EQ(0, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, pcr, fn));
	EXPECT_EQ(0x1 | PCTR_U | PCTR_EN, fn[0]);
	EXPECT_EQ(0x0 | PCTR_U | PCTR_EN, fn[1]);
	EXPECT_EQ(pcr, pctr_pmu.ops->fns_to_pcr(&pctr_pmu, fn));
}

/* Every PCR a user may set comes back from GETPCR as it was set. */
TEST(every_valid_pcr_round_trips)
{
	struct sparc_model m;
	u64 fn[PCTR_NUM], ctl, pcr, s0, s1, mode, modes[] = {
		PCTR_SPARC_PCR_UT, PCTR_SPARC_PCR_ST,
		PCTR_SPARC_PCR_UT | PCTR_SPARC_PCR_ST };
	unsigned int i, k, tried = 0;
	const struct pctr_sparc_chip *c;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		ASSERT_EQ(0, load(&m, kinds[i]));
		c = pctr_sparc_chip(kinds[i]);
		for (s0 = 0; s0 < (1ULL << pctr_sparc_field_bits(c)); s0 += 7) {
			for (s1 = 0; s1 < (1ULL << pctr_sparc_field_bits(c)); s1 += 5) {
				for (k = 0; k < 3; k++) {
					mode = modes[k];
					pcr = (s0 << c->shift[0]) |
					      (s1 << c->shift[1]) | mode;
					memset(fn, 0, sizeof(fn));
					ASSERT_EQ(0, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, pcr, fn));
					/* The selects are encode()'s to check. */
					if (encode(0, fn[0], &ctl) || encode(1, fn[1], &ctl))
						continue;
					EXPECT_EQ(0, pctr_pmu.ops->check_set(&pctr_pmu, fn, 3));
					EXPECT_EQ(pcr, pctr_pmu.ops->fns_to_pcr(&pctr_pmu, fn));
					tried++;
				}
			}
		}
	}
	EXPECT_GT(tried, 1000);
}

TEST(setpcr_refuses)
{
	struct sparc_model m;
	u64 fn[PCTR_NUM] = {}, ok = (0x1ULL << 4) | PCTR_SPARC_PCR_UT, bit;
	int reserved = 0;

	ASSERT_EQ(0, load(&m, PCTR_SPARC_US12));
	ASSERT_EQ(0, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, ok, fn));
	/* PRIV is pctr's to clear, never the user's to set. */
	EXPECT_EQ(-EINVAL, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, ok | PCTR_SPARC_PCR_PRIV, fn));
	/* Bit 3, 8-10 and 15 and up are reserved on UltraSPARC I/II. */
	for (bit = 3; bit < 64; bit++) {
		if (bit == 3 || (bit >= 8 && bit <= 10) || bit >= 15) {
			EXPECT_EQ(-EINVAL, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, ok | (1ULL << bit), fn));
			reserved++;
		}
	}
	EXPECT_EQ(53, reserved);
	/* Reserved select 5 in S1: SETPCR's functions fail encode(). */
	ASSERT_EQ(0, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, ok | (5ULL << 11), fn));
	EXPECT_EQ(-EINVAL, encode(1, fn[1], &bit));
	/* No mode: both slots free. */
	ASSERT_EQ(0, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, 1ULL << 4, fn));
	EXPECT_EQ(0, fn[0]);
	EXPECT_EQ(0, fn[1]);

	/* Niagara: hypervisor trace, trap on overflow, the overflow bits. */
	ASSERT_EQ(0, load(&m, PCTR_SPARC_N2));
	ok = (0x2ffULL << 6) | PCTR_SPARC_PCR_UT;
	ASSERT_EQ(0, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, ok, fn));
	EXPECT_EQ(-EINVAL, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, ok | PCTR_SPARC_N2_HT, fn));
	EXPECT_EQ(-EINVAL, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, ok | PCTR_SPARC_N2_TOE0, fn));
	EXPECT_EQ(-EINVAL, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, ok | PCTR_SPARC_N2_TOE1, fn));
	EXPECT_EQ(-EINVAL, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, ok | PCTR_SPARC_N2_OV0, fn));
	EXPECT_EQ(-EINVAL, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, ok | PCTR_SPARC_N2_OV1, fn));
	EXPECT_EQ(-EINVAL, pctr_pmu.ops->pcr_to_fns(&pctr_pmu, ok | (1ULL << 32), fn));
}

/* One PCR, one mode: two enabled slots must agree on it. */
TEST(one_mode_for_both_counters)
{
	struct sparc_model m;
	u64 fn[PCTR_NUM] = {};

	ASSERT_EQ(0, load(&m, PCTR_SPARC_US12));
	fn[0] = 0x1 | PCTR_U | PCTR_EN;
	fn[1] = 0x0 | PCTR_U | PCTR_K | PCTR_EN;
	EXPECT_EQ(-EINVAL, pctr_pmu.ops->check_set(&pctr_pmu, fn, 3));
	EXPECT_EQ(0, pctr_pmu.ops->check_set(&pctr_pmu, fn, 1));
	EXPECT_EQ(0, pctr_pmu.ops->check_set(&pctr_pmu, fn, 2));
	fn[1] = 0x0 | PCTR_U | PCTR_EN;
	EXPECT_EQ(0, pctr_pmu.ops->check_set(&pctr_pmu, fn, 3));
	fn[1] = 0x0 | PCTR_K;	/* not enabled: no mode to disagree with */
	EXPECT_EQ(0, pctr_pmu.ops->check_set(&pctr_pmu, fn, 3));
}

/*
 * PRIV is clear exactly while a context counts: a user "rd %pic" works
 * then and traps (privileged_action) before and after.
 */
TEST(priv_clear_only_while_counting)
{
	struct sparc_model m;
	struct ctx c = {};
	u64 v;

	ASSERT_EQ(0, load(&m, PCTR_SPARC_US12));
	ASSERT_EQ(0, pctr_pmu.ops->reserve(&pctr_pmu));
	m.user = true;
	EXPECT_EQ(-1, smodel_user_rd_pic(&m, &v));
	ASSERT_EQ(0, program_user(&c, 1));
	start(&c);
	EXPECT_EQ(0, m.pcr & PCTR_SPARC_PCR_PRIV);
	smodel_event(&m, 1, 1, 1234);
	ASSERT_EQ(0, smodel_user_rd_pic(&m, &v));
	EXPECT_EQ(1234, pctr_sparc_pic_get(v, 0));
	stop(&c);
	EXPECT_EQ(PCTR_SPARC_PCR_PRIV, m.pcr);
	EXPECT_EQ(-1, smodel_user_rd_pic(&m, &v));
	EXPECT_EQ(1234, c.sum[0]);
	EXPECT_EQ(2, m.traps);
}

/* user_rdpmc=0: the core clears the cap, and PRIV stays set. */
TEST(priv_kept_without_user_reads)
{
	struct sparc_model m;
	struct ctx c = {};
	u64 v;

	ASSERT_EQ(0, load(&m, PCTR_SPARC_US3));
	pctr_pmu.caps &= ~PCTR_CAP_USER_RDPMC;
	ASSERT_EQ(0, program(&c, 1, 0x0 | PCTR_U | PCTR_EN));
	start(&c);
	EXPECT_TRUE(m.pcr & PCTR_SPARC_PCR_PRIV);
	EXPECT_TRUE(m.pcr & PCTR_SPARC_PCR_UT);
	m.user = true;
	EXPECT_EQ(-1, smodel_user_rd_pic(&m, &v));
	smodel_event(&m, 0, 0, 77);
	stop(&c);
	EXPECT_EQ(77, c.sum[1]);
}

/* A CPU binding (no user_read from the core) never clears PRIV. */
TEST(cpu_binding_keeps_priv)
{
	struct sparc_model m;
	struct pctr_hw hw = {};
	u64 v;

	ASSERT_EQ(0, load(&m, PCTR_SPARC_US12));
	ASSERT_EQ(0, encode(0, 0x1 | PCTR_U | PCTR_K | PCTR_EN, &hw.ctl[0]));
	hw.mask = 1;
	pctr_pmu.ops->start(&pctr_pmu, &hw);
	EXPECT_TRUE(m.pcr & PCTR_SPARC_PCR_UT);
	EXPECT_TRUE(m.pcr & PCTR_SPARC_PCR_PRIV);
	m.user = true;
	EXPECT_EQ(-1, smodel_user_rd_pic(&m, &v));
	pctr_pmu.ops->stop(&pctr_pmu, &hw);
}

/* What another context left in the PIC is gone before a thread can read. */
TEST(other_contexts_scrubbed)
{
	struct sparc_model m;
	struct ctx a = {}, b = {};
	u64 v;

	ASSERT_EQ(0, load_programmed(&m, PCTR_SPARC_US12, &a, 2));
	start(&a);
	m.user = true;
	smodel_event(&m, 1, 1, 0x1234567);
	smodel_event(&m, 0, 0, 0x7654321);
	stop(&a);
	EXPECT_NE(0, m.pic);
	/* b counts in slot 0 only: PIC1 must not show a's cycles. */
	ASSERT_EQ(0, program_user(&b, 1));
	start(&b);
	ASSERT_EQ(0, smodel_user_rd_pic(&m, &v));
	EXPECT_EQ(0, v);
	smodel_event(&m, 1, 1, 10);
	stop(&b);
	EXPECT_EQ(10, b.sum[0]);
	EXPECT_EQ(0x1234567 + 0, a.sum[0]);
	EXPECT_EQ(0x7654321, a.sum[1]);
}

/* The counters count only in the PCR's mode. */
TEST(modes_are_honoured)
{
	struct sparc_model m;
	struct ctx c = {};

	ASSERT_EQ(0, load_programmed(&m, PCTR_SPARC_US12, &c, 1));
	start(&c);
	m.user = false;
	smodel_event(&m, 1, 1, 500);
	m.user = true;
	smodel_event(&m, 1, 1, 7);
	stop(&c);
	EXPECT_EQ(7, c.sum[0]);
}

/* A slot programmed but not enabled counts nothing, though its PIC runs. */
TEST(disabled_slot_counts_nothing)
{
	struct sparc_model m;
	struct ctx c = {};

	ASSERT_EQ(0, load_programmed(&m, PCTR_SPARC_US12, &c, 1));
	ASSERT_EQ(0, program(&c, 1, 0x1 | PCTR_U));
	start(&c);
	m.user = true;
	smodel_event(&m, 1, 1, 99);
	EXPECT_EQ(99, pctr_sparc_pic_get(m.pic, 1));
	stop(&c);
	EXPECT_EQ(99, c.sum[0]);
	EXPECT_EQ(0, c.sum[1]);
}

/* The 32-bit masked delta across one wrap, and a long run of folds. */
TEST(fold_32bit_arithmetic)
{
	u64 truth = 0, raw = 0, prev = 0, sum = 0, step;
	unsigned int i;

	EXPECT_EQ(25, pctr_delta(0xfffffff6ULL, 0xfULL, 32));
	EXPECT_EQ(0xffffffffULL, pctr_delta(1, 0, 32));
	EXPECT_EQ(0, pctr_delta(0x80000000ULL, 0x80000000ULL, 32));
	/* Only the counter's 32 bits: PIC1 above PIC0 does not leak in. */
	EXPECT_EQ(5, pctr_delta(0xabcd00000000ULL | 10, 15, 32));
	for (i = 0; i < 100000; i++) {
		step = ((u64)i * 2654435761u) & 0xffffffffULL;	/* < one wrap */
		truth += step;
		raw = (raw + step) & 0xffffffffULL;
		sum += pctr_delta(prev, raw, 32);
		prev = raw;
	}
	EXPECT_EQ(truth, sum);
	EXPECT_GT(truth, 1ULL << 40);
}

/* Through the backend: 64-bit values past many 32-bit wraps. */
TEST(fold_through_the_registers)
{
	struct sparc_model m;
	struct ctx c = {};
	u64 truth = 0, n;
	unsigned int i;

	ASSERT_EQ(0, load_programmed(&m, PCTR_SPARC_US12, &c, 2));
	m.user = true;
	start(&c);
	for (i = 0; i < 64; i++) {
		n = 0xf0000000ULL + i;		/* under one wrap per fold */
		smodel_event(&m, 1, 0, n);
		truth += n;
		fold_running();
		if (i % 8 == 7) {		/* a switch now and then */
			stop(&c);
			start(&c);
		}
	}
	stop(&c);
	EXPECT_EQ(truth, c.sum[0]);
	EXPECT_EQ(truth, c.sum[1]);
	EXPECT_GT(truth, 1ULL << 32);
}

static struct ctx *ovf_ctx;

static void ovf_fold(void)
{
	fold_running();
}

/*
 * UltraSPARC III: a wrap raises the level-15 interrupt.  pctr claims it
 * while it holds the counters and folds; unclaimed, the kernel's NMI
 * code stops the PCR, and the counts after it would be lost.
 */
TEST(us3_wrap_interrupt_claimed_and_folded)
{
	struct sparc_model m;
	struct ctx c = {};
	u64 pcr;

	ASSERT_EQ(0, load(&m, PCTR_SPARC_US3));
	ASSERT_EQ(0, pctr_pmu.ops->reserve(&pctr_pmu));
	smodel_fold = ovf_fold;
	ovf_ctx = &c;
	ASSERT_EQ(0, program_user(&c, 1));
	c.sum[0] = 0xfffffff0ULL;	/* 16 events from the wrap */
	m.user = true;
	start(&c);
	pcr = m.pcr;
	smodel_event(&m, 1, 1, 20);
	EXPECT_EQ(1, m.level15);
	EXPECT_EQ(0, m.unclaimed);
	EXPECT_EQ(1, m.interrupts);
	EXPECT_EQ(pcr, m.pcr);		/* still counting */
	EXPECT_EQ(0xfffffff0ULL + 20, c.sum[0]);	/* folded at the interrupt */
	smodel_event(&m, 1, 1, 5);
	stop(&c);
	EXPECT_EQ(0xfffffff0ULL + 25, c.sum[0]);

	/* Given back: the interrupt is not pctr's. */
	pctr_pmu.ops->release(&pctr_pmu);
	m.pcr = pcr;
	m.pic = 0xffffffffULL;
	smodel_event(&m, 1, 1, 1);
	EXPECT_EQ(2, m.level15);
	EXPECT_EQ(1, m.unclaimed);
	EXPECT_EQ(1, m.interrupts);
	EXPECT_EQ(PCTR_SPARC_PCR_PRIV, m.pcr);
}

/* UltraSPARC I/II have no overflow interrupt: the fold timer does it all. */
TEST(us12_wrap_raises_nothing)
{
	struct sparc_model m;
	struct ctx c = {};

	ASSERT_EQ(0, load_programmed(&m, PCTR_SPARC_US12, &c, 1));
	c.sum[0] = 0xfffffff0ULL;
	m.user = true;
	start(&c);
	smodel_event(&m, 1, 1, 20);
	EXPECT_EQ(0, m.level15);
	stop(&c);
	EXPECT_EQ(0xfffffff0ULL + 20, c.sum[0]);
}

/* The NMI watchdog holds the PIC: EBUSY, with the hint. */
TEST(busy_while_the_watchdog_counts)
{
	struct sparc_model m;

	ASSERT_EQ(0, load(&m, PCTR_SPARC_US3));
	m.watchdog = true;
	EXPECT_EQ(-EBUSY, pctr_pmu.ops->reserve(&pctr_pmu));
	EXPECT_NE(NULL, strstr(smodel_log(), "kernel.nmi_watchdog=0"));
	m.watchdog = false;
	EXPECT_EQ(0, pctr_pmu.ops->reserve(&pctr_pmu));
	/* Held: the wrap interrupt is ours now. */
	EXPECT_TRUE(pctr_sparc_overflow(NULL, false));
	pctr_pmu.ops->release(&pctr_pmu);
	EXPECT_FALSE(pctr_sparc_overflow(NULL, false));
}

/*
 * Perfmon programs difference raw "rd %pic" values and clear the PIC
 * themselves (clr_pic()).  The PIC a thread reads is always the low 32
 * bits of its own 64-bit values, across switches and other threads'
 * counting, and after its own clear.
 */
TEST(raw_pic_reads_survive_switches)
{
	struct sparc_model m;
	struct ctx a = {}, b = {};
	u64 v;

	ASSERT_EQ(0, load(&m, PCTR_SPARC_US12));
	EXPECT_TRUE(pctr_pmu.flags & PCTR_PMU_RAW_SUM);
	ASSERT_EQ(0, program_user(&a, 2));
	ASSERT_EQ(0, program_user(&b, 1));
	m.user = true;
	start(&a);
	smodel_event(&m, 1, 0, 100);
	stop(&a);
	start(&b);
	smodel_event(&m, 1, 0, 12345);
	stop(&b);
	start(&a);
	ASSERT_EQ(0, smodel_user_rd_pic(&m, &v));
	EXPECT_EQ(100, pctr_sparc_pic_get(v, 0));
	EXPECT_EQ(100, pctr_sparc_pic_get(v, 1));
	/* clr_pic(), 5 more, a fold and a switch: the thread reads 5. */
	ASSERT_EQ(0, smodel_user_wr_pic(&m, 0));
	smodel_event(&m, 1, 0, 5);
	fold_running();
	stop(&a);
	start(&b);
	smodel_event(&m, 1, 0, 7);
	stop(&b);
	start(&a);
	ASSERT_EQ(0, smodel_user_rd_pic(&m, &v));
	EXPECT_EQ(5, pctr_sparc_pic_get(v, 0));
	EXPECT_EQ(5, pctr_sparc_pic_get(v, 1));
	stop(&a);
	/* The 64-bit value jumped to the next 2^32: never backwards. */
	EXPECT_EQ((1ULL << 32) + 5, a.sum[0]);
	EXPECT_EQ(12345 + 7, b.sum[0]);
}

TEST(named_events_encode)
{
	struct sparc_model m;
	unsigned int i, k, s;
	u64 ctl;

	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		ASSERT_EQ(0, load(&m, kinds[k]));
		for (i = 0; i < pctr_pmu.nevents; i++)
			for (s = 0; s < 2; s++)
				if (pctr_pmu.events[i].slots & (1U << s))
					EXPECT_EQ(0, encode(s, pctr_pmu.events[i].fn |
							    PCTR_U | PCTR_EN, &ctl));
	}
}

TEST_HARNESS_MAIN
