// SPDX-License-Identifier: GPL-2.0
/*
 * A Sun Perfmon program, as its manual has them, run against pctr's
 * /dev/perfmon on sparc64: open the device read-only, set cycles and
 * instructions with PERFMON_SETPCR, read the PCR back, clear the PIC,
 * run a calibrated loop, read the counters with inline get_pic().  Plus
 * what pctr refuses (PRIV, reserved bits), and PERFMON_FLUSH_CACHE, which
 * flushes by displacement (pctr(4)) and leaves the PCR alone.
 *
 * The loop runs 3 instructions an iteration; the difference between a
 * run of 2n and one of n iterations is exactly 3n instructions, whatever
 * the code around it counts.  --exact asks for that exactly (an emulated
 * CPU under -icount); otherwise within 1%.
 *
 * Output is TAP; exit 0 only if every check passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfmon.h"
#include "tap.h"

/* n iterations of subcc, bne and its delay slot. */
static void loop(unsigned long n)
{
	__asm__ __volatile__("1:\tsubcc %0, 1, %0\n\t"
			     "bne,pt %%xcc, 1b\n\t"
			     " nop"
			     : "+r"(n) : : "cc");
}

/* Instructions (PIC0) and cycles (PIC1) over loop(n). */
static void measure(unsigned long n, unsigned long *instr, unsigned long *cyc)
{
	unsigned long long p0, p1;

	clr_pic();
	p0 = get_pic();
	loop(n);
	p1 = get_pic();
	*instr = (extract_pic0(p1) - extract_pic0(p0)) & 0xffffffffUL;
	*cyc = (extract_pic1(p1) - extract_pic1(p0)) & 0xffffffffUL;
}

int main(int argc, char **argv)
{
	unsigned long long pcr = PCR_S1_CYCLE_CNT | PCR_S0_INSTR_CNT |
				 PCR_USER_TRACE, got = 0, bad;
	unsigned long n = 1000000, i1, c1, i2, c2, diff;
	int exact = argc > 1 && !strcmp(argv[1], "--exact");
	int fd, ret;

	printf("TAP version 13\n");
	fd = open("/dev/perfmon", O_RDONLY);
	if (fd < 0) {
		perror("open(/dev/perfmon)");
		printf("1..0 # no /dev/perfmon\n");
		return 1;
	}
	ret = ioctl(fd, PERFMON_SETPCR, &pcr);
	check(ret == 0, "PERFMON_SETPCR cycles and instructions, user mode, on a read-only descriptor");
	if (ret)
		perror("PERFMON_SETPCR");
	ret = ioctl(fd, PERFMON_GETPCR, &got);
	check(ret == 0 && got == pcr, "PERFMON_GETPCR gives the PCR back");
	printf("# PCR set 0x%llx, got 0x%llx\n", pcr, got);

	bad = pcr | PCR_PRIV_MODE;
	errno = 0;
	check(ioctl(fd, PERFMON_SETPCR, &bad) < 0 && errno == EINVAL,
	      "PCR_PRIV_MODE is EINVAL");
	bad = pcr | (1ULL << 3);
	errno = 0;
	check(ioctl(fd, PERFMON_SETPCR, &bad) < 0 && errno == EINVAL,
	      "a reserved PCR bit is EINVAL");
	bad = PERFMON_S0(0x5) | PCR_S1_CYCLE_CNT | PCR_USER_TRACE;
	errno = 0;
	check(ioctl(fd, PERFMON_SETPCR, &bad) < 0 && errno == EINVAL,
	      "a reserved select is EINVAL");
	errno = 0;
	check(ioctl(fd, PERFMON_FLUSH_CACHE) == 0,
	      "PERFMON_FLUSH_CACHE flushes on a read-only descriptor");
	ret = ioctl(fd, PERFMON_GETPCR, &got);
	check(ret == 0 && got == pcr,
	      "the refused calls and the flush left the PCR alone");

	/* Runs user rd %pic: SIGILL if PRIV were still set. */
	measure(n, &i1, &c1);
	measure(2 * n, &i2, &c2);
	diff = i2 - i1;
	printf("# loop(%lu): %lu instructions, %lu cycles; loop(%lu): %lu, %lu\n",
	       n, i1, c1, 2 * n, i2, c2);
	if (exact)
		check(diff == 3 * n, "get_pic(): exactly 3 instructions an iteration");
	else
		check(diff > 3 * n - 3 * n / 100 && diff < 3 * n + 3 * n / 100,
		      "get_pic(): 3 instructions an iteration, within 1%");
	check(c2 > c1 && c1 > 0, "cycles count up with the loop");
	check(get_tick() != 0, "get_tick() reads %tick");
	cpu_sync();

	close(fd);
	return tap_done();
}
