/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel environment of the x86 backends, for building them as
 * ordinary host programs: kernel types and helpers, and the hw.h seam
 * (CPUID, MSRs, counter reservation, TSC), which the register model in
 * x86_model.c implements.  The Makefile includes it ahead of every
 * source (-include), where the kernel build has the kernel's headers.
 */
#ifndef _PCTR_HOST_HW_H
#define _PCTR_HOST_HW_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

/* Sparse annotations mean nothing here. */
#define __user

#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define noinline		__attribute__((noinline))

#ifndef KBUILD_MODNAME
#define KBUILD_MODNAME "pctr"
#endif

#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define READ_ONCE(x)		(*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))

static inline unsigned long __ffs(unsigned long x)
{
	return __builtin_ctzl(x);
}

static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

static inline ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t len;

	if (!size)
		return -E2BIG;
	len = strnlen(src, size);
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return len;
}

/* One CPU, never preempted. */
static inline int get_cpu(void)
{
	return 0;
}

static inline void put_cpu(void)
{
}

static inline int smp_processor_id(void)
{
	return 0;
}

/*
 * Wrapped, so that only this_cpu_*() and per_cpu_ptr() reach it, as in
 * the kernel; the tests run on CPU 0 of at most two.
 */
#define DEFINE_PER_CPU(type, name)	struct { type v[2]; } name
#define this_cpu_read(var)		((var).v[0])
#define this_cpu_write(var, val)	((var).v[0] = (val))
#define this_cpu_ptr(p)			(&(p)->v[0])
#define per_cpu_ptr(p, cpu)		(&(p)->v[cpu])

/*
 * The kernel log: kept by the model so tests can read it.  (The kernel
 * build checks the pr_*() formats.)  This header comes before a source
 * can define pr_fmt, so every message gets the prefix the driver's
 * pr_fmt gives it.
 */
void host_log(int level, const char *fmt, ...);

#define HOST_PR_FMT(fmt)	KBUILD_MODNAME ": " fmt
#define pr_err(fmt, ...)	host_log(3, HOST_PR_FMT(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	host_log(4, HOST_PR_FMT(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	host_log(6, HOST_PR_FMT(fmt), ##__VA_ARGS__)
#define pr_warn_once(fmt, ...)	host_log(4, HOST_PR_FMT(fmt), ##__VA_ARGS__)
#define pr_warn_ratelimited(fmt, ...) \
	host_log(4, HOST_PR_FMT(fmt), ##__VA_ARGS__)

/* The seam of hw.h. */
void pctr_cpuid(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d);
int pctr_cpuid_on(unsigned int cpu, u32 leaf, u32 sub, u32 *a, u32 *b,
		  u32 *c, u32 *d);
unsigned int host_ncpus(void);
#define pctr_for_each_cpu(cpu)	for ((cpu) = 0; (cpu) < host_ncpus(); (cpu)++)
static inline void pctr_cpus_lock(void)
{
}

static inline void pctr_cpus_unlock(void)
{
}

int pctr_rdmsr(u32 msr, u64 *val);
int pctr_wrmsr(u32 msr, u64 val);
int pctr_rdpmc(u32 idx, u64 *val);
int pctr_reserve_ctr(u32 msr);
void pctr_release_ctr(u32 msr);
int pctr_reserve_evntsel(u32 msr);
void pctr_release_evntsel(u32 msr);
u64 pctr_rdtsc(void);
u64 pctr_tsc_khz(void);
unsigned long pctr_cache_bytes(void);
void pctr_set_pce(bool on);
static inline void pctr_on_each_cpu(void (*fn)(void *), void *arg)
{
	fn(arg);
}

/* The running thread's process (x86_model.c: model_domain). */
u64 pctr_x86_domain(void);
struct mm_struct;
void pctr_mm_user_read(struct mm_struct *mm, bool on);

#endif /* _PCTR_HOST_HW_H */
