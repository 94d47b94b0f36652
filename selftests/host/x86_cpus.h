/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _PCTR_X86_CPUS_H
#define _PCTR_X86_CPUS_H

#include "x86_model.h"

extern const struct model_config cpu_intel_v1;
extern const struct model_config cpu_intel_v2;
extern const struct model_config cpu_intel_v3;
extern const struct model_config cpu_intel_v4;
extern const struct model_config cpu_intel_v4_8;
extern const struct model_config cpu_intel_v4_8_fw;
extern const struct model_config cpu_intel_v5;
extern const struct model_config cpu_intel_v5_holes;
extern const struct model_config cpu_amd_k8;
extern const struct model_config cpu_amd_fam10h;
extern const struct model_config cpu_amd_fam15h;
extern const struct model_config cpu_amd_extcore;
extern const struct model_config cpu_amd_v2;
extern const struct model_config cpu_tcg_intel;
extern const struct model_config cpu_tcg_amd;
extern const struct model_config cpu_intel_none;
extern const struct model_config cpu_intel_hybrid_p;
extern const struct model_config cpu_intel_hybrid_e;

#endif /* _PCTR_X86_CPUS_H */
