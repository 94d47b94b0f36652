// SPDX-License-Identifier: GPL-2.0
/*
 * x86 conformance (x86_conformance.h): what the probe finds on each CPU,
 * the events it names, and hybrid parts whose core types differ.
 */
#include "x86_conformance.h"

TEST_F(x86, probe)
{
	const struct cpu_expect *v = &variant->cpu;
	const struct model_config *c = v->cfg;
	struct pctr_pmu *pmu = &self->pmu;

	EXPECT_EQ(0, self->probe_faults);
	/* The probe's own check of counter 0 gives its reservation back. */
	EXPECT_EQ(0, model_reserved_count(&self->m));

	if (!v->has_pmu) {
		EXPECT_EQ(-ENODEV, self->probe_ret);
		EXPECT_EQ(NULL, pmu->ops);
		EXPECT_EQ(PCTR_CAP_TSC, pmu->caps);
		EXPECT_EQ(0, pmu->ngeneral);
		EXPECT_EQ(0, pmu->nfixed);
		EXPECT_NE(0, strlen(pmu->why));
		if (c->drop_writes)
			EXPECT_NE(NULL, strstr(pmu->why, "does not keep"));
		return;
	}

	ASSERT_EQ(0, self->probe_ret) TH_LOG("why: %s", pmu->why);
	ASSERT_NE(NULL, pmu->ops);
	EXPECT_EQ(c->amd ? PCTR_BACKEND_AMD : PCTR_BACKEND_INTEL,
		  pmu->backend_id);
	EXPECT_STREQ(c->amd ? "amd" : "intel", pmu->name);
	EXPECT_STREQ("", pmu->why);
	EXPECT_EQ(c->amd ? (c->perfmon_v2 ? 2 : 1) : c->version,
		  pmu->version);
	EXPECT_EQ(v->ngeneral, pmu->ngeneral);
	EXPECT_EQ(v->width, pmu->width);
	EXPECT_EQ(v->nfixed, pmu->nfixed);
	EXPECT_EQ(v->fixed_width, pmu->fixed_width);
	EXPECT_EQ(PCTR_CAP_TSC | PCTR_CAP_COUNTERS | PCTR_CAP_USER_RDPMC |
		  PCTR_CAP_CPU_SHARE | (has_notify(v) ? PCTR_CAP_NOTIFY : 0) |
		  v->caps, pmu->caps);
	EXPECT_TRUE(pmu->flags & PCTR_PMU_SHARE);
	ASSERT_NE(NULL, self->x);
	EXPECT_EQ(v->fixed_mask, self->x->fixed_mask);
	EXPECT_NE(NULL, pmu->events);
	EXPECT_NE(0, pmu->nevents);

	EXPECT_NE(NULL, pmu->ops->encode);
	EXPECT_NE(NULL, pmu->ops->start);
	EXPECT_NE(NULL, pmu->ops->stop);
	EXPECT_NE(NULL, pmu->ops->read);
	EXPECT_NE(NULL, pmu->ops->rdpmc_index);
	/* Overflow ops where there is an overflow interrupt. */
	EXPECT_EQ(has_notify(v), pmu->ops->overflow_status != NULL);
	EXPECT_EQ(has_notify(v), pmu->ops->overflow_ack != NULL);
	EXPECT_EQ(has_notify(v), !!(pmu->flags & PCTR_PMU_NOTIFY));
	EXPECT_NE(NULL, pmu->ops->reserve);
	EXPECT_NE(NULL, pmu->ops->release);
}

/*
 * Who the CPU is comes from CPUID alone, before and apart from the
 * counters: identify() touches no MSR and takes no counter, and what it
 * found survives a probe that finds no counters, into the none backend.
 */
TEST_F(x86, identity_apart_from_counters)
{
	const struct model_config *c = variant->cpu.cfg;
	struct pctr_cpu_id cpu;
	struct pctr_pmu none;
	char want[64];

	model_init(&self->m, c);
	memset(&cpu, 0xa5, sizeof(cpu));
	pctr_arch.identify(&cpu);
	EXPECT_STREQ(c->amd ? "AuthenticAMD" : "GenuineIntel", cpu.vendor);
	EXPECT_EQ(c->family, cpu.family);
	EXPECT_EQ(c->model, cpu.model);
	EXPECT_EQ(2000000, cpu.tsc_khz);
	EXPECT_TRUE(cpu.tsc);
	EXPECT_EQ(0, self->m.nreads);
	EXPECT_EQ(0, self->m.ntrace);
	EXPECT_EQ(0, model_reserved_count(&self->m));
	/* The fixture's identity was taken the same way. */
	EXPECT_EQ(0, memcmp(&cpu, &self->cpu, sizeof(cpu)));

	snprintf(want, sizeof(want), "%s family %u model %u", cpu.vendor,
		 cpu.family, cpu.model);
	if (variant->cpu.has_pmu) {
		EXPECT_NE(NULL, strstr(self->pmu.desc, want))
			TH_LOG("desc \"%s\"", self->pmu.desc);
		return;
	}
	memset(&none, 0xa5, sizeof(none));
	pctr_none_probe(&none, &cpu, self->pmu.why);
	EXPECT_EQ(PCTR_BACKEND_NONE, none.backend_id);
	EXPECT_EQ(NULL, none.ops);
	EXPECT_EQ(PCTR_CAP_TSC, none.caps);
	EXPECT_EQ(0, none.ngeneral);
	EXPECT_STREQ(self->pmu.why, none.why);
	EXPECT_NE(NULL, strstr(none.desc, want)) TH_LOG("desc \"%s\"", none.desc);
	EXPECT_NE(NULL, strstr(none.desc, self->pmu.why));
}

/* The Intel architectural events, in CPUID.0AH:EBX order. */
static const struct {
	const char	*name;
	u64		fn;
} intel_arch[] = {
	{ "UNHALTED_CORE_CYCLES", PCTR_FN(0x3c, 0x00, 0) },
	{ "INSTRUCTION_RETIRED", PCTR_FN(0xc0, 0x00, 0) },
	{ "UNHALTED_REFERENCE_CYCLES", PCTR_FN(0x3c, 0x01, 0) },
	{ "LLC_REFERENCES", PCTR_FN(0x2e, 0x4f, 0) },
	{ "LLC_MISSES", PCTR_FN(0x2e, 0x41, 0) },
	{ "BRANCH_INSTRUCTIONS_RETIRED", PCTR_FN(0xc4, 0x00, 0) },
	{ "MISPREDICTED_BRANCH_RETIRED", PCTR_FN(0xc5, 0x00, 0) },
	{ "TOPDOWN_SLOTS", PCTR_FN(0xa4, 0x01, 0) },
};

static const char *const intel_fixed[] = {
	"INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD",
	"CPU_CLK_UNHALTED.REF_TSC", "TOPDOWN.SLOTS",
};

static const struct pctr_event_desc *find_event(const struct pctr_pmu *pmu,
						const char *name)
{
	unsigned int i;

	for (i = 0; i < pmu->nevents; i++)
		if (!strcmp(pmu->events[i].name, name))
			return &pmu->events[i];
	return NULL;
}

/* The named events are the ones the CPU has, and count what they say. */
/* Architectural event @i on every core type of @c (CPUID 0xA EBX). */
static bool arch_event_avail(const struct model_config *c, unsigned int i)
{
	const struct model_config *o = c->other_core;

	if (o && !(i < o->ebx_len && !(o->ebx & (1U << i))))
		return false;
	return i < c->ebx_len && !(c->ebx & (1U << i));
}

TEST_F(x86, named_events)
{
	const struct cpu_expect *v = &variant->cpu;
	const struct model_config *c = v->cfg;
	struct pctr_pmu *pmu = &self->pmu;
	const struct pctr_event_desc *e;
	unsigned int i, j, s, want = 0;
	struct pctr_hw hw;
	u32 event, umask;
	bool avail;

	if (!need_pmu(_metadata, v, self->probe_ret))
		return;
	for (i = 0; i < pmu->nevents; i++) {
		e = &pmu->events[i];
		ASSERT_NE(NULL, e->name);
		ASSERT_NE(NULL, e->desc);
		EXPECT_LT(0, strlen(e->name));
		EXPECT_GT(48, strlen(e->name));
		EXPECT_LT(0, strlen(e->desc));
		EXPECT_GT(80, strlen(e->desc)) TH_LOG("%s", e->desc);
		EXPECT_EQ(0, e->fn & ~(PCTR_EVENT_MASK | PCTR_UM_MASK |
				      PCTR_EVENT_HI_MASK));
		EXPECT_NE(0, e->slots);
		EXPECT_EQ(0, e->slots & ~(u64)all_slots(v));
		for (j = 0; j < i; j++)
			EXPECT_STRNE(e->name, pmu->events[j].name);

		for (s = 0; s < PCTR_NUM; s++) {
			if (!(e->slots & (1ULL << s)))
				continue;
			memset(&hw, 0, sizeof(hw));
			ASSERT_EQ(0, set_slot(pmu, &hw, s, e->fn | UKE, 0))
				TH_LOG("%s on slot %u", e->name, s);
			self->ops->start(pmu, &hw);
			slot_event(s, e->fn, &event, &umask);
			model_retire(&self->m, event, umask, 7);
			self->ops->stop(pmu, &hw);
			EXPECT_EQ(7, hw.val[s]) TH_LOG("%s on slot %u",
						       e->name, s);
		}
	}

	if (c->amd) {
		EXPECT_NE(NULL, find_event(pmu, "CYCLES_NOT_IN_HALT"));
		EXPECT_NE(NULL, find_event(pmu, "RETIRED_INSTRUCTIONS"));
		EXPECT_NE(NULL, find_event(pmu, "RETIRED_BRANCH_INSTRUCTIONS"));
		EXPECT_NE(NULL, find_event(pmu,
				"RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED"));
		for (i = 0; i < pmu->nevents; i++)
			EXPECT_EQ(general_slots(v),
				  pmu->events[i].slots);
		return;
	}

	/* Intel: EBX bit i set, or i past EAX[31:24], means no event i. */
	for (i = 0; i < ARRAY_SIZE(intel_arch); i++) {
		avail = arch_event_avail(c, i);
		e = find_event(pmu, intel_arch[i].name);
		if (!avail) {
			EXPECT_EQ(NULL, e) TH_LOG("%s", intel_arch[i].name);
			continue;
		}
		want++;
		ASSERT_NE(NULL, e) TH_LOG("%s", intel_arch[i].name);
		EXPECT_EQ(intel_arch[i].fn, e->fn);
		EXPECT_EQ(general_slots(v), e->slots);
	}
	for (i = 0; i < ARRAY_SIZE(intel_fixed); i++) {
		e = find_event(pmu, intel_fixed[i]);
		if (!(v->fixed_mask & (1U << i))) {
			EXPECT_EQ(NULL, e) TH_LOG("%s", intel_fixed[i]);
			continue;
		}
		want++;
		ASSERT_NE(NULL, e) TH_LOG("%s", intel_fixed[i]);
		EXPECT_EQ(0, e->fn);
		EXPECT_EQ(1ULL << PCTR_FIXED(i), e->slots);
	}
	EXPECT_EQ(want, pmu->nevents);
}

/*
 * Hybrid parts: the probe offers only what every core type has, and
 * says so; a counter only the bigger cores have is refused, so no
 * thread can program (or rdpmc) a counter its next CPU lacks.
 */
TEST_F(x86, hybrid_offers_common_counters)
{
	const struct model_config *c = variant->cpu.cfg;
	struct pctr_pmu *pmu = &self->pmu;
	u64 ctl;

	if (!c->other_core)
		SKIP(return, "%s is not hybrid", c->name);
	ASSERT_EQ(0, self->probe_ret);
	EXPECT_NE(NULL, strstr(pmu->desc, "hybrid")) TH_LOG("%s", pmu->desc);
	EXPECT_EQ(-EINVAL, self->ops->encode(pmu, 6, PCTR_FN(0xc0, 0, UKE),
					     false, &ctl));
	EXPECT_EQ(-EINVAL, self->ops->encode(pmu, PCTR_FIXED(3), UKE, false,
					     &ctl));
	EXPECT_EQ(-1, self->ops->rdpmc_index(pmu, 6));
	EXPECT_EQ(-1, self->ops->rdpmc_index(pmu, PCTR_FIXED(3)));
	EXPECT_EQ(NULL, find_event(pmu, "TOPDOWN_SLOTS"));
	EXPECT_EQ(NULL, find_event(pmu, "TOPDOWN.SLOTS"));
}

/*
 * A hybrid part whose other core type comes online only after load (the
 * probe saw one kind): that CPU is kept offline, saying why, unless it
 * has every counter offered.  A CPU of a kind the probe saw is welcome.
 */
TEST(hybrid_cpu_online_after_load)
{
	static const struct {
		const struct model_config *cfg;
		int	online;	/* cpu_check() of the other core type */
	} cases[] = {
		{ &cpu_intel_hybrid_p, -EOPNOTSUPP },	/* 8+4 offered, 6+3 */
		{ &cpu_intel_hybrid_e, 0 },		/* 6+3 offered, 8+4 */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct x86_model m;
		struct pctr_cpu_id cpu;
		struct pctr_pmu pmu = {};
		const struct pctr_pmu_ops *ops;

		model_init(&m, cases[i].cfg);
		m.ncpus = 1;			/* only the loading CPU's kind */
		pctr_arch.identify(&cpu);
		ASSERT_EQ(0, pctr_arch.probe(&pmu, &cpu));
		EXPECT_EQ(NULL, strstr(pmu.desc, "hybrid")) TH_LOG("%s", pmu.desc);
		ops = pmu.ops;
		ASSERT_NE(NULL, ops->cpu_check);
		m.ncpus = 2;			/* the other kind comes online */
		m.nwarn = 0;
		m.log[0] = '\0';
		EXPECT_EQ(0, ops->cpu_check(&pmu, 0));
		EXPECT_EQ(cases[i].online, ops->cpu_check(&pmu, 1))
			TH_LOG("%s", cases[i].cfg->name);
		if (cases[i].online) {
			EXPECT_EQ(1, m.nwarn);
			EXPECT_NE(NULL, strstr(m.log, "CPU 1 has fewer counters (6 general"))
				TH_LOG("%s", m.log);
			EXPECT_NE(NULL, strstr(m.log, "stays offline"));
		} else {
			EXPECT_EQ(0, m.nwarn) TH_LOG("%s", m.log);
		}
		if (ops->exit)
			ops->exit(&pmu);
	}
}

/* AMD's cores are all alike: nothing to check when one comes online. */
TEST(amd_cpu_online_needs_no_check)
{
	struct x86_model m;
	struct pctr_cpu_id cpu;
	struct pctr_pmu pmu = {};

	model_init(&m, &cpu_amd_v2);
	pctr_arch.identify(&cpu);
	ASSERT_EQ(0, pctr_arch.probe(&pmu, &cpu));
	EXPECT_EQ(NULL, pmu.ops->cpu_check);
}

TEST_HARNESS_MAIN
