// SPDX-License-Identifier: GPL-2.0
/*
 * The CPUs the host tests model: what their CPUID reports.  The figures
 * are those of real parts where a part is named.
 */
#include "x86_cpus.h"

const struct model_config cpu_intel_v1 = {
	.name = "Intel v1 (Core Duo)", .family = 6, .model = 0x0e,
	.version = 1, .ngeneral = 2, .width = 40, .ebx_len = 7,
};

const struct model_config cpu_intel_v2 = {
	.name = "Intel v2 (Core 2)", .family = 6, .model = 0x17,
	.version = 2, .ngeneral = 2, .width = 40, .ebx_len = 7,
	.nfixed = 3, .fixed_width = 40, .pdcm = true,
};

const struct model_config cpu_intel_v3 = {
	.name = "Intel v3 (Ivy Bridge)", .family = 6, .model = 0x3a,
	.version = 3, .ngeneral = 4, .width = 48, .ebx_len = 7,
	.nfixed = 3, .fixed_width = 48, .pdcm = true,
};

const struct model_config cpu_intel_v4 = {
	.name = "Intel v4 (Skylake), full-width writes", .family = 6,
	.model = 0x5e, .version = 4, .ngeneral = 4, .width = 48,
	.ebx_len = 7, .nfixed = 3, .fixed_width = 48, .pdcm = true,
	.full_width = true,
};

const struct model_config cpu_intel_v4_8 = {
	.name = "Intel v4, 8 counters, 32-bit writes, no branch-miss event",
	.family = 6, .model = 0x55, .version = 4, .ngeneral = 8,
	.width = 48, .ebx_len = 7, .ebx = 1U << 6, .nfixed = 3,
	.fixed_width = 48, .pdcm = true,
};

const struct model_config cpu_intel_v4_8_fw = {
	.name = "Intel v4, 8 counters, full-width writes", .family = 6,
	.model = 0x55, .version = 4, .ngeneral = 8, .width = 48,
	.ebx_len = 7, .nfixed = 3, .fixed_width = 48, .pdcm = true,
	.full_width = true,
};

const struct model_config cpu_intel_v5 = {
	.name = "Intel v5 (Ice Lake)", .family = 6, .model = 0x7e,
	.version = 5, .ngeneral = 8, .width = 48, .ebx_len = 8,
	.nfixed = 4, .fixed_ecx = 0xf, .fixed_width = 48, .pdcm = true,
	.full_width = true,
};

const struct model_config cpu_intel_v5_holes = {
	.name = "Intel v5, fixed counters 0 and 3 only, no topdown event",
	.family = 6, .model = 0x8f, .version = 5, .ngeneral = 8,
	.width = 48, .ebx_len = 8, .ebx = 1U << 7, .nfixed = 1,
	.fixed_ecx = 0x9, .fixed_width = 48, .pdcm = true,
};

const struct model_config cpu_amd_k8 = {
	.name = "AMD K8, legacy counters", .amd = true, .family = 0xf,
	.model = 0x41,
};

const struct model_config cpu_amd_fam10h = {
	.name = "AMD family 10h, legacy counters", .amd = true,
	.family = 0x10, .model = 0x02,
};

const struct model_config cpu_amd_fam15h = {
	.name = "AMD family 15h, PerfCtrExtCore", .amd = true,
	.family = 0x15, .model = 0x01, .ext_core = true,
};

const struct model_config cpu_amd_extcore = {
	.name = "AMD family 17h, PerfCtrExtCore", .amd = true,
	.family = 0x17, .model = 0x31, .ext_core = true,
};

const struct model_config cpu_amd_v2 = {
	.name = "AMD family 19h, PerfMonV2", .amd = true, .family = 0x19,
	.model = 0x61, .ext_core = true, .perfmon_v2 = true,
	.v2_counters = 6,
};

const struct model_config cpu_tcg_intel = {
	.name = "hypervisor stub advertising Intel v2", .family = 6,
	.model = 0x55, .version = 2, .ngeneral = 4, .width = 48,
	.ebx_len = 7, .nfixed = 3, .fixed_width = 48, .drop_writes = true,
};

const struct model_config cpu_tcg_amd = {
	.name = "hypervisor stub advertising AMD PerfCtrExtCore",
	.amd = true, .family = 0x17, .model = 0x01, .ext_core = true,
	.drop_writes = true,
};

const struct model_config cpu_intel_none = {
	.name = "Intel with CPUID 0xA all zero (QEMU TCG)", .family = 6,
	.model = 0x55,
};

/*
 * A hybrid part (Alder Lake): P-cores with 8 general and 4 fixed
 * counters, E-cores with 6 and 3 and no topdown event; the module may be
 * loaded on either kind.
 */
const struct model_config cpu_intel_hybrid_p = {
	.name = "Intel hybrid, on a P-core (8+4) beside E-cores (6+3)",
	.family = 6, .model = 0x97, .version = 5, .ngeneral = 8,
	.width = 48, .ebx_len = 8, .nfixed = 4, .fixed_ecx = 0xf,
	.fixed_width = 48, .pdcm = true, .full_width = true,
	.other_core = &cpu_intel_hybrid_e,
};

const struct model_config cpu_intel_hybrid_e = {
	.name = "Intel hybrid, on an E-core (6+3) beside P-cores (8+4)",
	.family = 6, .model = 0x97, .version = 5, .ngeneral = 6,
	.width = 48, .ebx_len = 8, .ebx = 1U << 7, .nfixed = 3,
	.fixed_ecx = 0x7, .fixed_width = 48, .pdcm = true,
	.full_width = true, .other_core = &cpu_intel_hybrid_p,
};
