// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libperfmon.a: Perfmon's library routines, out of line, for programs
 * built with PERFMON_NO_INLINE (or that name -lperfmon).  The same code
 * as the inline versions in <perfmon.h>: all of them on sparc64, those
 * with a meaning there on x86 (the TSC for %tick, mfence).
 */
#define PERFMON_NO_INLINE
#include "perfmon.h"

#ifdef PERFMON_HAVE_TICK
unsigned long extract_pic0(unsigned long long pic)
{
	return (unsigned long)(pic & 0xffffffffULL);
}

unsigned long extract_pic1(unsigned long long pic)
{
	return (unsigned long)(pic >> 32);
}
#endif

#ifdef PERFMON_HAVE_PIC
unsigned long long get_tick(void)
{
	unsigned long long t;

	__asm__ __volatile__("rd %%tick, %0" : "=r"(t));
	return t;
}

unsigned long long get_pic(void)
{
	unsigned long long p;

	__asm__ __volatile__("rd %%asr17, %0" : "=r"(p));
	return p;
}

unsigned long get_pic0(void)
{
	return extract_pic0(get_pic());
}

unsigned long get_pic1(void)
{
	return extract_pic1(get_pic());
}

void clr_pic(void)
{
	__asm__ __volatile__("wr %%g0, 0, %%asr17" : : : "memory");
}

void cpu_sync(void)
{
	__asm__ __volatile__("membar #Sync" : : : "memory");
}
#elif defined(PERFMON_HAVE_TICK)
unsigned long long get_tick(void)
{
	unsigned int lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((unsigned long long)hi << 32) | lo;
}

void cpu_sync(void)
{
	__asm__ __volatile__("mfence" : : : "memory");
}
#endif
