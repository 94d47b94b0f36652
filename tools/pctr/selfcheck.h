/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pctr selfcheck: confirm in one command that the backend counts what it
 * should.  See Documentation/selfcheck.rst.
 */
#ifndef _PCTR_SELFCHECK_H
#define _PCTR_SELFCHECK_H

/*
 * Run the self-check.  argv[0] is "selfcheck"; the options follow:
 *
 *   --loops N   base loop length in iterations (default: sized to ~10 ms)
 *   --no-perf   do not compare with perf even when it is in PATH
 *   -v          print every repetition and what perf said
 *   -h, --help  print the usage and return 0
 *
 * It also runs, as "<own executable> selfcheck --loop N", under perf:
 * that hidden mode runs the calibrated loop once and returns 0.
 *
 * Checks every option before it opens /dev/pctr itself (read-write).  Returns the exit status: 0 when
 * no check failed, 1 when one did or the device cannot be opened, 2 on
 * a usage error.
 */
int pctr_selfcheck(int argc, char **argv);

#endif /* _PCTR_SELFCHECK_H */
