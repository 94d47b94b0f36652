// SPDX-License-Identifier: GPL-2.0
/*
 * The core's pure logic, on the host: width masks and the masked deltas
 * that fold raw counter values into 64-bit sums, the slot map, the
 * GETPCR/SETPCR fixed-control translation, and the simulated PMU's event
 * arithmetic (driver/backends/sim.h).
 */
#include "host_hw.h"
#include "backend.h"
#include "../../driver/backends/sim.h"

#include "kselftest_harness.h"

TEST(width_masks)
{
	EXPECT_EQ(0xffffULL, pctr_width_mask(16));
	EXPECT_EQ(0xffffffffffffULL, pctr_width_mask(48));
	EXPECT_EQ(~0ULL, pctr_width_mask(64));
	EXPECT_EQ(0, pctr_width_mask(0));
}

TEST(delta_across_one_wrap)
{
	/* Plain progress, a wrap, a full width less one, nothing. */
	EXPECT_EQ(0x10, pctr_delta(0x100, 0x110, 16));
	EXPECT_EQ(0x20, pctr_delta(0xfff0, 0x10, 16));
	EXPECT_EQ(0xffff, pctr_delta(0x1, 0x0, 16));
	EXPECT_EQ(0, pctr_delta(0x1234, 0x1234, 16));
	EXPECT_EQ(5, pctr_delta(0xfffffffffffdULL, 2, 48));
	EXPECT_EQ(3, pctr_delta(~0ULL - 1, 1, 64));
	/* Bits above the width (a sign-extended legacy read) do not count. */
	EXPECT_EQ(0x20, pctr_delta(0xffffffff0000fff0ULL, 0x10, 16));
}

/* Folding many raw samples of a narrow counter gives the true total. */
TEST(fold_sum_of_samples)
{
	uint64_t truth = 0, raw = 0, prev = 0, sum = 0, step;
	unsigned int i;

	for (i = 0; i < 100000; i++) {
		step = (i * 2654435761u) % 0xffff;	/* < one wrap */
		truth += step;
		raw = (raw + step) & pctr_width_mask(16);
		sum += pctr_delta(prev, raw, 16);
		prev = raw;
	}
	EXPECT_EQ(truth, sum);
}

TEST(slot_map)
{
	struct pctr_pmu pmu = { .ngeneral = 4, .nfixed = 3, .width = 48,
				.fixed_width = 40 };

	EXPECT_TRUE(pctr_slot_exists(&pmu, 0));
	EXPECT_TRUE(pctr_slot_exists(&pmu, 3));
	EXPECT_FALSE(pctr_slot_exists(&pmu, 4));
	EXPECT_FALSE(pctr_slot_exists(&pmu, PCTR_FIXED_BASE - 1));
	EXPECT_TRUE(pctr_slot_exists(&pmu, PCTR_FIXED(0)));
	EXPECT_TRUE(pctr_slot_exists(&pmu, PCTR_FIXED(2)));
	EXPECT_FALSE(pctr_slot_exists(&pmu, PCTR_FIXED(3)));
	EXPECT_FALSE(pctr_slot_exists(&pmu, PCTR_NUM));
	EXPECT_EQ(48, pctr_slot_width(&pmu, 1));
	EXPECT_EQ(40, pctr_slot_width(&pmu, PCTR_FIXED(1)));
}

/* Every field survives field -> function -> field. */
TEST(fixed_field_round_trip)
{
	uint64_t field, fn;

	for (field = 0; field < 16; field++) {
		fn = pctr_fixed_field_to_fn(field);
		EXPECT_EQ(field, pctr_fn_to_fixed_field(fn));
		EXPECT_EQ(field != 0, !!(fn & PCTR_EN));
	}
	EXPECT_EQ(PCTR_U | PCTR_K | PCTR_EN, pctr_fixed_field_to_fn(0x3));
	EXPECT_EQ(0x2, pctr_fn_to_fixed_field(PCTR_U | PCTR_EN));
	/* Not enabled: the field is 0, as the hardware has it. */
	EXPECT_EQ(0, pctr_fn_to_fixed_field(PCTR_U | PCTR_K));
}

/* The sim: events between TSC samples add up whatever the split. */
TEST(sim_events_are_additive)
{
	uint64_t t[] = { 0, 999, 1000, 1001, 123456789, 123457000, 9999999999ULL };
	unsigned int i;

	for (i = 0; i + 2 < ARRAY_SIZE(t); i++)
		EXPECT_EQ(sim_events(t[i], t[i + 2], 1000),
			  sim_events(t[i], t[i + 1], 1000) +
			  sim_events(t[i + 1], t[i + 2], 1000));
	EXPECT_EQ(1, sim_events(999, 1000, 1000));
	EXPECT_EQ(0, sim_events(1000, 1999, 1000));
	EXPECT_EQ(42, sim_events(100, 142, 1));
	EXPECT_EQ(0, sim_events(100, 142, 0));
}

TEST(sim_value_wraps_at_width)
{
	EXPECT_EQ(0x10, sim_value(0xfff0, 0, 0x20, 1, 0xffff));
	/* The TSC at which 0x10 more events than at 1005 have been counted. */
	EXPECT_EQ(1160, sim_wrap_tsc(1005, 10, 16));
	EXPECT_EQ(UINT64_MAX, sim_wrap_tsc(5, 1, UINT64_MAX));
}

TEST_HARNESS_MAIN
