/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmarks (ctxsw_bench, read_bench) share: the lines they
 * leave for tools/bench at the end of a run, and the verdict on one
 * target, printed the same way by each.
 */
#ifndef PCTR_TOOLS_BENCH_H
#define PCTR_TOOLS_BENCH_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Lines for tools/bench ("@target", "@status", ...), printed at the end. */
static char bench_at_buf[8192];

static __attribute__((format(printf, 1, 2))) void bench_at(const char *fmt,
							     ...)
{
	size_t len = strlen(bench_at_buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(bench_at_buf + len, sizeof(bench_at_buf) - len, fmt, ap);
	va_end(ap);
}

static void bench_at_flush(void)
{
	printf("\n%s", bench_at_buf);
}

/*
 * "verdict: WHAT = A / B = R (target <= T): met", or by how much it is
 * not, and the "@target KEY R T WHAT" line for tools/bench.  @why says
 * why the target cannot be judged here (n/a), or is NULL.  @added: A and
 * B are costs added to a baseline, printed with their sign.  @per: what
 * one unit is counted per ("a read"), for the miss.
 */
static void bench_verdict(const char *key, const char *what, double a,
			  double b, double target, const char *why,
			  bool added, const char *unit, const char *per)
{
	double r;

	if (why) {
		printf("verdict: %s: n/a (%s)\n", what, why);
		bench_at("@target %s n/a %.1f %s\n", key, target, what);
		return;
	}
	r = a / b;
	if (added)
		printf("verdict: %s = %+.1f / %+.1f = %.2f (target <= %.1f): ",
		       what, a, b, r, target);
	else
		printf("verdict: %s = %.1f / %.1f = %.2f (target <= %.1f): ",
		       what, a, b, r, target);
	if (r <= target)
		printf("met\n");
	else
		printf("NOT met, by %.2f (%.0f%% over the target; %.1f %s %s too many)\n",
		       r - target, (r / target - 1) * 100, a - target * b,
		       unit, per);
	bench_at("@target %s %.4f %.1f %s\n", key, r, target, what);
}

#endif /* PCTR_TOOLS_BENCH_H */
