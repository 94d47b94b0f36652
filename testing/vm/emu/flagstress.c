// SPDX-License-Identifier: GPL-2.0
/*
 * testing/vm/emu/flagstress.c: flag-dependent code for the emulated PMU's
 * interrupt stress (testing/guest/emu-flags.sh).
 *
 *   flagstress ITERATIONS
 *
 * Runs chains of add, adc, sbb, cmp and setcc whose results depend on
 * the arithmetic flags, reads RFLAGS with pushf between them, and enters
 * the kernel (getppid) every iteration, so that overflow interrupts
 * land in flag-setting user code, at system call entry and exit, and in
 * the kernel.  QEMU keeps the flags lazily (cc_op, cc_src, cc_dst);
 * wherever it materialises them from a stale cc_op, the code gets wrong
 * flags.  Each chain runs twice and both results must agree with each
 * other and with the value computed without flags; every RFLAGS read
 * must have only the bits user code can have (no TF, none of the
 * reserved bits).  Each iteration also runs cmp then cmpxchg16b, and cmp
 * then cmpxchg8b, at the start of a block (the case QEMU 7.2 got wrong,
 * testing/vm/qemu/patches/0004), and checks the flags they leave.
 * Prints "flagstress: N iterations, M errors (...)" and exits 1 on any
 * error.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

/* CF PF AF ZF SF DF OF, IF and bit 1; AC and ID may be set by user code */
#define USER_FLAGS	0x240ed7UL

static volatile sig_atomic_t traps;

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

/*
 * A 4-limb add with carry, a 4-limb subtract with borrow, and the carry,
 * zero and sign of the results as setcc bytes, packed into one value.
 */
static uint64_t chain(uint64_t a, uint64_t b, uint64_t *fl)
{
	uint64_t s0 = a, s1 = ~a, s2 = a ^ b, s3 = b;
	uint64_t d0 = b, d1 = a, d2 = ~b, d3 = a + b;
	uint64_t f1, f2;
	uint8_t c1, z1, c2, s2b, b3;

	__asm__ volatile(
		"add %[b], %[s0]\n\t"
		"adc %[a], %[s1]\n\t"
		"adc %[b], %[s2]\n\t"
		"adc %[a], %[s3]\n\t"
		"setc %[c1]\n\t"
		"setz %[z1]\n\t"
		"pushfq\n\t"
		"popq %[f1]\n\t"
		"cmp %[a], %[b]\n\t"
		"sbb %[a], %[d0]\n\t"
		"sbb %[b], %[d1]\n\t"
		"sbb %[a], %[d2]\n\t"
		"sbb %[b], %[d3]\n\t"
		"setc %[c2]\n\t"
		"sets %[s2b]\n\t"
		"cmp %[s0], %[d0]\n\t"
		"setb %[b3]\n\t"
		"pushfq\n\t"
		"popq %[f2]\n\t"
		: [s0] "+&r" (s0), [s1] "+&r" (s1), [s2] "+&r" (s2),
		  [s3] "+&r" (s3), [d0] "+&r" (d0), [d1] "+&r" (d1),
		  [d2] "+&r" (d2), [d3] "+&r" (d3), [c1] "=m" (c1),
		  [z1] "=m" (z1), [c2] "=m" (c2), [s2b] "=m" (s2b),
		  [b3] "=m" (b3), [f1] "=m" (f1), [f2] "=m" (f2)
		: [a] "r" (a), [b] "r" (b)
		: "cc", "memory");
	fl[0] = f1;
	fl[1] = f2;
	return s0 ^ (s1 * 3) ^ (s2 * 5) ^ (s3 * 7) ^ (d0 * 11) ^
	       (d1 * 13) ^ (d2 * 17) ^ (d3 * 19) ^
	       ((uint64_t)c1 << 0) ^ ((uint64_t)z1 << 8) ^
	       ((uint64_t)c2 << 16) ^ ((uint64_t)s2b << 24) ^
	       ((uint64_t)b3 << 32);
}

/*
 * popf, cmp @src, then @insn on @mem (compare with @hi:@lo, exchange for
 * 0:7): RFLAGS right after @insn into @flags, then the flags put back
 * clean.
 */
#define CMPXCHG_AFTER_CMP(insn, mem, flags, lo, hi, src)		\
	__asm__ volatile(						\
		"pushq $0x202\n\t"					\
		"popfq\n\t"						\
		"cmp %[junk], %%rax\n\t"				\
		insn " %[m]\n\t"					\
		"pushfq\n\t"						\
		"popq %[fl]\n\t"					\
		"pushq $0x202\n\t"					\
		"popfq\n\t"						\
		: [fl] "=&r" (flags), [m] "+m" (mem), "+a" (lo), "+d" (hi) \
		: [junk] "r" (src), "b" (7UL), "c" (0UL)		\
		: "cc", "memory")

/*
 * cmpxchg16b sets ZF and leaves the other flags as the instruction
 * before it set them.  QEMU's helper for it computes those flags from
 * the lazily kept state: here a block that starts right after popf (so
 * QEMU's stored cc_op says "flags as such"), a cmp whose source
 * operand is @junk (QEMU keeps it as cc_src), then cmpxchg16b; and the
 * same with cmpxchg8b.  Returns RFLAGS right after cmpxchg16b, with what
 * differs after cmpxchg8b in the high half; the flags are put back clean
 * before anything else runs.
 */
static uint64_t cx16(uint64_t junk, int equal)
{
	static unsigned __int128 m __attribute__((aligned(16)));
	static uint64_t m8;
	uint64_t lo = 5, hi = equal ? 0 : 1, fl, fl8;

	m = 5;
	m8 = 5;
	CMPXCHG_AFTER_CMP("cmpxchg8b", m8, fl8, lo, hi, junk);
	lo = 5;
	hi = equal ? 0 : 1;
	CMPXCHG_AFTER_CMP("cmpxchg16b", m, fl, lo, hi, junk);
	/* the same flags from both, or the difference */
	return fl | (fl ^ fl8) << 32;
}

/* The same without the flags: carries from unsigned comparisons. */
static uint64_t chain_ref(uint64_t a, uint64_t b)
{
	uint64_t s0 = a, s1 = ~a, s2 = a ^ b, s3 = b;
	uint64_t d0 = b, d1 = a, d2 = ~b, d3 = a + b;
	unsigned __int128 t;
	uint64_t c = 0, c1, z1, c2, s2b, b3, bor;

	t = (unsigned __int128)s0 + b;
	s0 = (uint64_t)t; c = (uint64_t)(t >> 64);
	t = (unsigned __int128)s1 + a + c;
	s1 = (uint64_t)t; c = (uint64_t)(t >> 64);
	t = (unsigned __int128)s2 + b + c;
	s2 = (uint64_t)t; c = (uint64_t)(t >> 64);
	t = (unsigned __int128)s3 + a + c;
	s3 = (uint64_t)t; c = (uint64_t)(t >> 64);
	c1 = c;
	z1 = s3 == 0;
	bor = b < a;
	t = (unsigned __int128)d0 - a - bor;
	d0 = (uint64_t)t; bor = (uint64_t)(t >> 64) & 1;
	t = (unsigned __int128)d1 - b - bor;
	d1 = (uint64_t)t; bor = (uint64_t)(t >> 64) & 1;
	t = (unsigned __int128)d2 - a - bor;
	d2 = (uint64_t)t; bor = (uint64_t)(t >> 64) & 1;
	t = (unsigned __int128)d3 - b - bor;
	d3 = (uint64_t)t; bor = (uint64_t)(t >> 64) & 1;
	c2 = bor;
	s2b = d3 >> 63;
	b3 = d0 < s0;
	return s0 ^ (s1 * 3) ^ (s2 * 5) ^ (s3 * 7) ^ (d0 * 11) ^
	       (d1 * 13) ^ (d2 * 17) ^ (d3 * 19) ^
	       (c1 << 0) ^ (z1 << 8) ^ (c2 << 16) ^ (s2b << 24) ^ (b3 << 32);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, i, errors = 0;
	long cx16_errors = 0;
	uint64_t x = 0x9e3779b97f4a7c15ULL, fl[4];
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	sigaction(SIGTRAP, &sa, NULL);
	for (i = 0; i < n; i++) {
		uint64_t a, b, r1, r2, want;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		a = x;
		b = (i & 3) ? x * 0x2545f4914f6cdd1dULL : ~a + (i & 1);
		r1 = chain(a, b, fl);
		syscall(SYS_getppid);
		r2 = chain(a, b, fl + 2);
		want = chain_ref(a, b);
		/* the flags of cmp 5 - junk, then ZF from cmpxchg16b */
		{
			uint64_t junk = (a & ~0x3f7fd7UL) | 0x100, f, cmp;

			f = cx16(junk, i & 1);
			__asm__ volatile("cmp %[j], %[v]\n\tpushfq\n\tpopq %[c]"
					 : [c] "=r" (cmp)
					 : [j] "r" (junk), [v] "r" (5UL) : "cc");
			cmp = (cmp & ~0x40UL) | ((i & 1) ? 0x40 : 0);
			if (f != cmp) {
				if (cx16_errors < 10)
					fprintf(stderr, "flagstress: iteration %ld: cmpxchg16b/8b after cmp left rflags %llx, want %llx\n",
						i, (unsigned long long)f,
						(unsigned long long)cmp);
				cx16_errors++;
			}
		}
		if (r1 != want || r2 != want ||
		    (fl[0] | fl[1] | fl[2] | fl[3]) & ~USER_FLAGS ||
		    fl[0] != fl[2] || fl[1] != fl[3] ||
		    !(fl[0] & fl[1] & 2)) {
			if (errors < 10)
				fprintf(stderr, "flagstress: iteration %ld: %016llx %016llx want %016llx, rflags %llx %llx %llx %llx\n",
					i, (unsigned long long)r1,
					(unsigned long long)r2,
					(unsigned long long)want,
					(unsigned long long)fl[0],
					(unsigned long long)fl[1],
					(unsigned long long)fl[2],
					(unsigned long long)fl[3]);
			errors++;
		}
	}
	errors += traps + cx16_errors;
	printf("flagstress: %ld iterations, %ld errors (%ld after cmpxchg16b or 8b, %d single-step traps)\n",
	       n, errors, cx16_errors, (int)traps);
	return errors ? 1 : 0;
}
