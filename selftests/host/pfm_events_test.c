// SPDX-License-Identifier: GPL-2.0
/*
 * The backends' named events against libpfm4: on each modelled CPU, the
 * function of every event the backend names equals libpfm4's raw
 * encoding of the same event for a matching PMU model, forced with
 * LIBPFM_FORCE_PMU (the machine running the test need not have it).
 * libpfm4 also sets the enable, interrupt and privilege bits, which a
 * named event leaves to the user; they are masked off before comparing.
 */
#include <stdlib.h>

#include <perfmon/pfmlib.h>

#include "x86_cpus.h"
#include "x86_model.h"
#include "x86.h"

#include "kselftest_harness.h"

/* The bits libpfm4 adds to an event by default. */
#define PFM_DEFAULT_BITS	(PCTR_U | PCTR_K | PCTR_INT | PCTR_EN)

/*
 * libpfm4's names for our events where they differ by PMU model, tried
 * in order; an event not listed goes by its own name.  A fixed counter's
 * entry names the event libpfm4 encodes as that counter (see fixed[]).
 */
static const struct {
	const char	*ours;
	const char	*pfm[6];
} aliases[] = {
	{ "UNHALTED_REFERENCE_CYCLES", { "CPU_CLK_THREAD_UNHALTED:REF_XCLK",
		"CPU_CLK_UNHALTED:REF_XCLK", "CPU_CLK_UNHALTED:REF_TSC_P",
		"CPU_CLK_UNHALTED:BUS" } },
	{ "LLC_REFERENCES", { "LLC_REFERENCES",
		"LONGEST_LAT_CACHE:REFERENCE",
		"LONGEST_LAT_CACHE:REFERENCES" } },
	{ "LLC_MISSES", { "LLC_MISSES", "LONGEST_LAT_CACHE:MISS" } },
	{ "BRANCH_INSTRUCTIONS_RETIRED", { "BRANCH_INSTRUCTIONS_RETIRED",
		"BR_INST_RETIRED:ALL_BRANCHES" } },
	{ "MISPREDICTED_BRANCH_RETIRED", { "MISPREDICTED_BRANCH_RETIRED",
		"BR_MISP_RETIRED:ALL_BRANCHES" } },
	{ "TOPDOWN_SLOTS", { "TOPDOWN:SLOTS_P" } },
	{ "INST_RETIRED.ANY", { "INSTRUCTION_RETIRED" } },
	{ "CPU_CLK_UNHALTED.THREAD", { "UNHALTED_CORE_CYCLES" } },
	{ "CPU_CLK_UNHALTED.REF_TSC", { "UNHALTED_REFERENCE_CYCLES" } },
	{ "TOPDOWN.SLOTS", { "TOPDOWN:SLOTS" } },
	{ "CYCLES_NOT_IN_HALT", { "CYCLES_NOT_IN_HALT", "CPU_CLK_UNHALTED" } },
	{ "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", {
		"RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED",
		"RETIRED_MISPREDICTED_BRANCH_INSTRUCTIONS" } },
};

/*
 * What fixed counter i counts, as libpfm4 (and perf) encode it: the
 * architectural event, or a pseudo-event 0x0300 + 0x100 * (i - 2).
 */
static const u64 fixed[] = { 0x00c0, 0x003c, 0x0300, 0x0400 };

FIXTURE(pfm) {
	struct x86_model	m;
	struct pctr_cpu_id	cpu;
	struct pctr_pmu		pmu;
};

FIXTURE_VARIANT(pfm) {
	const struct model_config *cfg;
	const char *pmu;		/* libpfm4's name for the PMU model */
};

FIXTURE_VARIANT_ADD(pfm, intel_v2_core) {
	.cfg = &cpu_intel_v2, .pmu = "core",
};

/*
 * Not snb: libpfm4 gives Sandy Bridge's all-branches events as umask
 * 04H, their precise (PEBS) variant, where the architectural events are
 * 00H.
 */
FIXTURE_VARIANT_ADD(pfm, intel_v3_ivb) {
	.cfg = &cpu_intel_v3, .pmu = "ivb",
};

FIXTURE_VARIANT_ADD(pfm, intel_v3_hsw) {
	.cfg = &cpu_intel_v3, .pmu = "hsw",
};

FIXTURE_VARIANT_ADD(pfm, intel_v4_skl) {
	.cfg = &cpu_intel_v4, .pmu = "skl",
};

FIXTURE_VARIANT_ADD(pfm, intel_v4_skx) {
	.cfg = &cpu_intel_v4_8, .pmu = "skx",
};

FIXTURE_VARIANT_ADD(pfm, intel_v5_icl) {
	.cfg = &cpu_intel_v5, .pmu = "icl",
};

FIXTURE_VARIANT_ADD(pfm, intel_v5_spr) {
	.cfg = &cpu_intel_v5_holes, .pmu = "spr",
};

FIXTURE_VARIANT_ADD(pfm, amd_k8) {
	.cfg = &cpu_amd_k8, .pmu = "amd64_k8_revg",
};

FIXTURE_VARIANT_ADD(pfm, amd_fam10h) {
	.cfg = &cpu_amd_fam10h, .pmu = "amd64_fam10h_barcelona",
};

FIXTURE_VARIANT_ADD(pfm, amd_fam15h) {
	.cfg = &cpu_amd_fam15h, .pmu = "amd64_fam15h_interlagos",
};

FIXTURE_VARIANT_ADD(pfm, amd_fam17h_zen1) {
	.cfg = &cpu_amd_extcore, .pmu = "amd64_fam17h_zen1",
};

FIXTURE_VARIANT_ADD(pfm, amd_fam17h_zen2) {
	.cfg = &cpu_amd_extcore, .pmu = "amd64_fam17h_zen2",
};

FIXTURE_VARIANT_ADD(pfm, amd_fam19h_zen3) {
	.cfg = &cpu_amd_extcore, .pmu = "amd64_fam19h_zen3",
};

FIXTURE_VARIANT_ADD(pfm, amd_fam19h_zen4) {
	.cfg = &cpu_amd_v2, .pmu = "amd64_fam19h_zen4",
};

FIXTURE_SETUP(pfm)
{
	int ret;

	model_init(&self->m, variant->cfg);
	pctr_arch.identify(&self->cpu);
	ASSERT_EQ(0, pctr_arch.probe(&self->pmu, &self->cpu));
	ASSERT_NE(0, self->pmu.nevents);

	/* Each test runs in its own process: initialise libpfm4 there. */
	ASSERT_EQ(0, setenv("LIBPFM_FORCE_PMU", variant->pmu, 1));
	ret = pfm_initialize();
	ASSERT_EQ(PFM_SUCCESS, ret) TH_LOG("libpfm4: %s", pfm_strerror(ret));
}

FIXTURE_TEARDOWN(pfm)
{
	pfm_terminate();
}

/* libpfm4's raw encoding of @name on the forced PMU, or a PFM_ERR_*. */
static int pfm_raw(const char *pmu, const char *name, u64 *code)
{
	pfm_pmu_encode_arg_t arg;
	char full[160];
	int ret;

	snprintf(full, sizeof(full), "%s::%s", pmu, name);
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(full, PFM_PLM0 | PFM_PLM3,
					PFM_OS_NONE, &arg);
	if (ret != PFM_SUCCESS)
		return ret;
	ret = arg.count >= 1 ? PFM_SUCCESS : PFM_ERR_NOTFOUND;
	if (arg.count >= 1)
		*code = arg.codes[0];
	free(arg.codes);
	return ret;
}

/* libpfm4's encoding of our event @ours; the name it went by in @used. */
static int pfm_lookup(const char *pmu, const char *ours, u64 *code,
		      const char **used)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(aliases); i++) {
		if (strcmp(aliases[i].ours, ours))
			continue;
		for (j = 0; j < ARRAY_SIZE(aliases[i].pfm) &&
			    aliases[i].pfm[j]; j++) {
			*used = aliases[i].pfm[j];
			if (pfm_raw(pmu, *used, code) == PFM_SUCCESS)
				return 0;
		}
		return -1;
	}
	*used = ours;
	return pfm_raw(pmu, ours, code) == PFM_SUCCESS ? 0 : -1;
}

static int fixed_index(u64 slots)
{
	unsigned int i;

	for (i = 0; i < PCTR_MAX_FIXED; i++)
		if (slots == 1ULL << PCTR_FIXED(i))
			return i;
	return -1;
}

/* Every named event is libpfm4's event of that name, bit for bit. */
TEST_F(pfm, named_events_match_libpfm4)
{
	const struct pctr_event_desc *e;
	const char *used;
	unsigned int i;
	u64 code;
	int f;

	for (i = 0; i < self->pmu.nevents; i++) {
		e = &self->pmu.events[i];
		ASSERT_EQ(0, pfm_lookup(variant->pmu, e->name, &code, &used))
			TH_LOG("%s: libpfm4 has no %s", variant->pmu, e->name);
		f = fixed_index(e->slots);
		if (f >= 0) {
			ASSERT_GT(ARRAY_SIZE(fixed), (unsigned int)f);
			EXPECT_EQ(fixed[f], code & 0xffff)
				TH_LOG("%s (fixed %d) is %s::%s = %#llx",
				       e->name, f, variant->pmu, used,
				       (unsigned long long)code);
			continue;
		}
		EXPECT_EQ(e->fn, code & ~PFM_DEFAULT_BITS)
			TH_LOG("%s = %#llx, %s::%s = %#llx", e->name,
			       (unsigned long long)e->fn, variant->pmu, used,
			       (unsigned long long)code);
	}
}

/*
 * What libpfm4 hands a user is a valid function once its interrupt bit
 * is dropped (PCTR_INT is reserved): on every slot the event names.
 */
TEST_F(pfm, libpfm4_encodings_are_valid_functions)
{
	const struct pctr_event_desc *e;
	unsigned int i, s;
	const char *used;
	u64 code, ctl;

	for (i = 0; i < self->pmu.nevents; i++) {
		e = &self->pmu.events[i];
		if (fixed_index(e->slots) >= 0)
			continue;
		ASSERT_EQ(0, pfm_lookup(variant->pmu, e->name, &code, &used));
		EXPECT_EQ(-EINVAL, self->pmu.ops->encode(&self->pmu, 0, code,
							 false, &ctl));
		for (s = 0; s < PCTR_NUM; s++)
			if (e->slots & (1ULL << s))
				EXPECT_EQ(0, self->pmu.ops->encode(&self->pmu,
						s, code & ~PCTR_INT, false,
						&ctl))
					TH_LOG("%s::%s on slot %u",
					       variant->pmu, used, s);
	}
}

TEST_HARNESS_MAIN
