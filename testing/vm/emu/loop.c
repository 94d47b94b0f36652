// SPDX-License-Identifier: GPL-2.0
/*
 * testing/vm/emu/loop: a calibrated loop for the emulated PMU's tests.
 *
 *   loop N          run N iterations of a two-instruction loop (one
 *                   branch each): 2N instructions, N branches in user
 *                   mode, plus the fixed cost of starting and exiting
 *   loop --pctr N   the same loop counted by pctr: instructions:u on
 *                   slot 0 (and branches:u on slot 1 when the backend
 *                   has them) read inline (rdpmc) around the loop;
 *                   prints "pctr insns X branches Y"
 *   loop --hold S   count instructions with pctr for S seconds, asleep
 *                   (the hand-over tests: perf must be refused meanwhile)
 *
 * Built static by testing/check so perf stat counts the same process on
 * every kernel.  Differences between two lengths cancel the fixed cost:
 * perf(N2) - perf(N1) = pctr(N2) - pctr(N1) = 2 (N2 - N1).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pctr.h"

static void loop(unsigned long n)
{
	/* dec; jnz: two instructions and one branch per iteration */
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

static int by_pctr(unsigned long n, unsigned int hold)
{
	static const char *const insn[] = { "INSTRUCTION_RETIRED",
					    "RETIRED_INSTRUCTIONS" };
	static const char *const br[] = { "BRANCH_INSTRUCTIONS_RETIRED",
					  "RETIRED_BRANCH_INSTRUCTIONS" };
	pctr_t *p = pctr_open(O_RDWR);
	uint64_t i0, i1, b0 = 0, b1 = 0;
	int have_br = 0;
	unsigned int v;

	if (!p) {
		perror("loop: pctr_open");
		return 1;
	}
	for (v = 0; v < 2; v++)
		if (!pctr_set_event(p, 0, insn[v], PCTR_U | PCTR_EN))
			break;
	if (v == 2) {
		perror("loop: pctr_set_event instructions");
		return 1;
	}
	for (v = 0; v < 2 && !have_br; v++)
		have_br = !pctr_set_event(p, 1, br[v], PCTR_U | PCTR_EN);
	if (pctr_map(p) < 0) {
		perror("loop: pctr_map");
		return 1;
	}
	if (hold) {
		printf("pctr holding for %us\n", hold);
		fflush(stdout);
		sleep(hold);
		pctr_close(p);
		return 0;
	}
	i0 = pctr_read(p, 0);
	if (have_br)
		b0 = pctr_read(p, 1);
	loop(n);
	i1 = pctr_read(p, 0);
	if (have_br)
		b1 = pctr_read(p, 1);
	printf("pctr insns %llu branches %llu\n", (unsigned long long)(i1 - i0),
	       (unsigned long long)(b1 - b0));
	pctr_close(p);
	return 0;
}

int main(int argc, char **argv)
{
	int pctr = argc > 2 && !strcmp(argv[1], "--pctr");
	int hold = argc > 2 && !strcmp(argv[1], "--hold");
	unsigned long n = argc > 1 ? strtoul(argv[argc - 1], NULL, 0) : 0;

	if (!n) {
		fprintf(stderr, "usage: loop [--pctr] N (N > 0)\n");
		return 2;
	}
	if (pctr || hold)
		return by_pctr(hold ? 1 : n, hold ? n : 0);
	loop(n);
	return 0;
}
