/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <perfmon.h>: Sun's Perfmon interface for UltraSPARC, on pctr.
 *
 * A Perfmon program opens /dev/perfmon (pctr's device under Perfmon's
 * name; see pctr(4)), sets the PCR with PERFMON_SETPCR, and reads the
 * counters in user mode with get_pic().  Under pctr the counters are the
 * calling thread's own: the PIC a thread reads holds the low 32 bits of
 * its 64-bit counts, whatever else runs on the CPU, and PCIOCRD gives the
 * 64-bit values.  The names, and the inline templates of perfmon32.il
 * and perfmon64.il as GCC inline functions:
 *
 *   PCR_* field values       pre-shifted, ORed into a PCR value
 *   PERFMON_SETPCR/GETPCR    pctr's PCIOCSETPCR64/PCIOCGETPCR64 (a __u64)
 *   PERFMON_FLUSH_CACHE      pctr's PCIOCFLUSH: the calling CPU's data
 *                            caches displaced (pctr(4))
 *   get_tick()               %tick
 *   get_pic(), get_pic0(), get_pic1(), extract_pic0(), extract_pic1()
 *   clr_pic()                both counters to 0 (the 64-bit values step
 *                            forward to the next multiple of 2^32)
 *   cpu_sync()               membar #Sync
 *
 * SETPCR refuses PCR_PRIV_MODE with EINVAL: pctr clears PRIV itself
 * while the thread counts, and sets it again when it does not.  The
 * selects are UltraSPARC I/II's (Perfmon's chips); on III/IV the same
 * values name cycles and instructions, the others differ (see the
 * chip's manual).  libperfmon.a has out-of-line copies of the routines
 * for a program that links -lperfmon; define PERFMON_NO_INLINE to use
 * them.
 *
 * On other architectures a Perfmon program builds and gets the device
 * calls: the names, PERFMON_FLUSH_CACHE (which works on every backend)
 * and GETPCR/SETPCR (which fail with EOPNOTSUPP where the PMU has no
 * single PCR: x86).  There is no PIC to read in user mode: get_pic(),
 * get_pic0(), get_pic1() and clr_pic() are not declared, so a program
 * that uses them fails to build, not to run.  On x86, get_tick() is the
 * TSC (rdtsc) and cpu_sync() a full fence (mfence), inline and in
 * libperfmon.a, as are extract_pic0() and extract_pic1(), plain
 * arithmetic.  pkg-config --cflags --libs pctr-perfmon gives the
 * include directory and -lperfmon.
 */
#ifndef _PCTR_PERFMON_H
#define _PCTR_PERFMON_H

#include <sys/ioctl.h>
#include <linux/pctr.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERFMON_DEVICE		"/dev/perfmon"

/* The ioctls. */
#define PERFMON_GETPCR		PCIOCGETPCR64
#define PERFMON_SETPCR		PCIOCSETPCR64
#define PERFMON_FLUSH_CACHE	PCIOCFLUSH

/* The PCR's mode bits. */
#define PCR_PRIV_MODE		PCTR_SPARC_PCR_PRIV
#define PCR_SYS_TRACE		PCTR_SPARC_PCR_ST
#define PCR_USER_TRACE		PCTR_SPARC_PCR_UT

#define PERFMON_S0(v)		((unsigned long long)(v) << PCTR_SPARC_PCR_S0_SHIFT)
#define PERFMON_S1(v)		((unsigned long long)(v) << PCTR_SPARC_PCR_S1_SHIFT)

/* What PIC0 counts (S0). */
#define PCR_S0_CYCLE_CNT	PERFMON_S0(0x0)
#define PCR_S0_INSTR_CNT	PERFMON_S0(0x1)
#define PCR_S0_STALL_IC_MISS	PERFMON_S0(0x2)
#define PCR_S0_STALL_STORBUF	PERFMON_S0(0x3)
#define PCR_S0_IC_REF		PERFMON_S0(0x8)
#define PCR_S0_DC_READ		PERFMON_S0(0x9)
#define PCR_S0_DC_WRITE		PERFMON_S0(0xa)
#define PCR_S0_STALL_LOAD	PERFMON_S0(0xb)
#define PCR_S0_EC_REF		PERFMON_S0(0xc)
#define PCR_S0_EC_WRITE_RO	PERFMON_S0(0xd)
#define PCR_S0_EC_SNOOP_INV	PERFMON_S0(0xe)
#define PCR_S0_EC_READ_HIT	PERFMON_S0(0xf)

/* What PIC1 counts (S1). */
#define PCR_S1_CYCLE_CNT	PERFMON_S1(0x0)
#define PCR_S1_INSTR_CNT	PERFMON_S1(0x1)
#define PCR_S1_STALL_MISPRED	PERFMON_S1(0x2)
#define PCR_S1_STALL_FPDEP	PERFMON_S1(0x3)
#define PCR_S1_IC_HIT		PERFMON_S1(0x8)
#define PCR_S1_DC_READ_HIT	PERFMON_S1(0x9)
#define PCR_S1_DC_WRITE_HIT	PERFMON_S1(0xa)
#define PCR_S1_LOAD_STALL_RAW	PERFMON_S1(0xb)
#define PCR_S1_EC_HIT		PERFMON_S1(0xc)
#define PCR_S1_EC_WRITEBACK	PERFMON_S1(0xd)
#define PCR_S1_EC_SNOOP_COPYBCK	PERFMON_S1(0xe)
#define PCR_S1_EC_IC_HIT	PERFMON_S1(0xf)

/*
 * The routines: on sparc64 all of Perfmon's; on x86 those with a
 * meaning there (above); elsewhere none.
 */
#if defined(__sparc__) && defined(__arch64__)
#define PERFMON_HAVE_PIC	1
#define PERFMON_HAVE_TICK	1
#elif defined(__x86_64__) || defined(__i386__)
#define PERFMON_HAVE_TICK	1
#endif

#ifdef PERFMON_NO_INLINE
#ifdef PERFMON_HAVE_TICK
unsigned long long get_tick(void);
unsigned long extract_pic0(unsigned long long pic);
unsigned long extract_pic1(unsigned long long pic);
void cpu_sync(void);
#endif
#ifdef PERFMON_HAVE_PIC
unsigned long long get_pic(void);
unsigned long get_pic0(void);
unsigned long get_pic1(void);
void clr_pic(void);
#endif
#else /* !PERFMON_NO_INLINE */
#define PERFMON_INLINE	static inline __attribute__((unused))

#ifdef PERFMON_HAVE_TICK
PERFMON_INLINE unsigned long extract_pic0(unsigned long long pic)
{
	return (unsigned long)(pic & 0xffffffffULL);
}

PERFMON_INLINE unsigned long extract_pic1(unsigned long long pic)
{
	return (unsigned long)(pic >> 32);
}
#endif

#if defined(__sparc__) && defined(__arch64__)
PERFMON_INLINE unsigned long long get_tick(void)
{
	unsigned long long t;

	__asm__ __volatile__("rd %%tick, %0" : "=r"(t));
	return t;
}

/*
 * Both counters at once: PIC0 in bits 31:0, PIC1 in 63:32.  The PIC is
 * written %asr17 here, which plain -mcpu=v9 assembles (the name %pic
 * needs -Av9a, Perfmon's -xarch=v8plusa).
 */
PERFMON_INLINE unsigned long long get_pic(void)
{
	unsigned long long p;

	__asm__ __volatile__("rd %%asr17, %0" : "=r"(p));
	return p;
}

PERFMON_INLINE unsigned long get_pic0(void)
{
	return extract_pic0(get_pic());
}

PERFMON_INLINE unsigned long get_pic1(void)
{
	return extract_pic1(get_pic());
}

PERFMON_INLINE void clr_pic(void)
{
	__asm__ __volatile__("wr %%g0, 0, %%asr17" : : : "memory");
}

PERFMON_INLINE void cpu_sync(void)
{
	__asm__ __volatile__("membar #Sync" : : : "memory");
}
#elif defined(PERFMON_HAVE_TICK)
/* x86: the TSC for %tick, mfence for membar #Sync. */
PERFMON_INLINE unsigned long long get_tick(void)
{
	unsigned int lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((unsigned long long)hi << 32) | lo;
}

PERFMON_INLINE void cpu_sync(void)
{
	__asm__ __volatile__("mfence" : : : "memory");
}
#endif
#endif /* PERFMON_NO_INLINE */

#ifdef __cplusplus
}
#endif

#endif /* _PCTR_PERFMON_H */
