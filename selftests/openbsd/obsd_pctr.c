// SPDX-License-Identifier: GPL-2.0
/*
 * A pctr(4) program as one writes it for OpenBSD/amd64, built unchanged
 * against pctr's OpenBSD overlay (compat/openbsd: <machine/pctr.h>):
 * it uses OpenBSD's names -- _PATH_PCTR, PCIOCS0 + ctr with an unsigned
 * int, PCIOCRD, struct pctrst, pctrval, PCTR_U/K/E/I/EN, PCTR_UM_*,
 * PCTR_UM_SHIFT, PCTR_CM_SHIFT, PCTR_INTEL_NUM/PCTR_AMD_NUM -- and
 * OpenBSD's types and <err.h>.  The Makefile builds it with -Werror.
 *
 *   obsd_pctr [-AeikMru] [-f func] [-m umask] [-s ctr] [-t thold] [-n loops]
 *
 * Without -s it only reads.  With -s it sets counter ctr to function
 * func (hex) as OpenBSD's pctr(1) composes it, runs a loop, and reads:
 * pctr counters are per thread, so setting and reading happen in one
 * process here.  Prints " ctrN = value  [iekuEN func umask +thold]"
 * for each counter with a function, and the TSC.  With -r it first reads
 * counter ctr with rdpmc(), as OpenBSD programs read without a system
 * call, and prints " rdpmcN = value".  openbsd_test runs it.
 */
#include <sys/types.h>
#include <sys/ioctl.h>

#include <machine/pctr.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ctr = -1, loops = 1000000;
static u_int func, umask, thold;
static int rflag;

/* The flags that each set a bit of the function, and those given. */
static const struct {
	int	ch;
	u_int	bit;
} flagbits[] = {
	{ 'A', PCTR_UM_A }, { 'e', PCTR_E }, { 'i', PCTR_I },
	{ 'k', PCTR_K }, { 'M', PCTR_UM_MESI }, { 'u', PCTR_U },
};
static u_int flags;

static const char *
fn2str(u_int sel)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%c%c%c%c%s %02x %02x +%u",
	    sel & PCTR_I ? 'i' : '-', sel & PCTR_E ? 'e' : '-',
	    sel & PCTR_K ? 'k' : '-', sel & PCTR_U ? 'u' : '-',
	    sel & PCTR_EN ? "EN" : "--", sel & 0xff,
	    (sel >> PCTR_UM_SHIFT) & 0xff, sel >> PCTR_CM_SHIFT);
	return (buf);
}

static u_long
hexarg(const char *s, u_long max, const char *what)
{
	char *end;
	u_long v;

	errno = 0;
	v = strtoul(s, &end, 16);
	if (errno || *s == '\0' || *end != '\0' || v > max)
		errx(1, "invalid %s: %s", what, s);
	return (v);
}

/* Flag @ch's bit into flags; 0 if @ch is no such flag. */
static int
setflag(int ch)
{
	size_t i;

	for (i = 0; i < sizeof(flagbits) / sizeof(flagbits[0]); i++)
		if (flagbits[i].ch == ch) {
			flags |= flagbits[i].bit;
			return (1);
		}
	return (0);
}

static void
usage(void)
{
	fprintf(stderr, "usage: obsd_pctr [-AeikMru] [-f func] [-m umask] "
	    "[-s ctr] [-t thold] [-n loops]\n");
	exit(1);
}

int
main(int argc, char **argv)
{
	struct pctrst st;
	pctrval tsc;
	volatile u_int sink = 0;
	u_int val;
	int ch, fd, i, n;

	while ((ch = getopt(argc, argv, "Aef:ikMm:n:rs:t:u")) != -1)
		switch (ch) {
		case 'f':
			func = hexarg(optarg, 0xff, "function");
			break;
		case 'm':
			umask = hexarg(optarg, 0xff, "unit mask");
			break;
		case 'n':
			loops = atoi(optarg);
			break;
		case 'r':
			rflag = 1;
			break;
		case 's':
			ctr = atoi(optarg);
			if (ctr < 0 || ctr >= PCTR_NUM)
				errx(1, "invalid counter: %s", optarg);
			break;
		case 't':
			thold = hexarg(optarg, 0xff, "threshold");
			break;
		default:
			if (!setflag(ch))
				usage();
		}
	if (optind != argc)
		usage();

	/* One bound for either vendor's CPUs, as pctr(1) checks it. */
	n = PCTR_INTEL_NUM > PCTR_AMD_NUM ? PCTR_INTEL_NUM : PCTR_AMD_NUM;
	if ((fd = open(_PATH_PCTR, ctr >= 0 ? O_RDWR : O_RDONLY)) == -1)
		err(1, "%s", _PATH_PCTR);
	if (ctr >= 0) {
		if (ctr >= n)
			errx(1, "only %d counters are supported", n);
		val = func | flags;
		if (func && !(flags & (PCTR_K | PCTR_U)))
			val |= PCTR_K | PCTR_U;
		val |= umask << PCTR_UM_SHIFT;
		val |= thold << PCTR_CM_SHIFT;
		if (func)
			val |= PCTR_EN;
		if (ioctl(fd, PCIOCS0 + ctr, &val) == -1)
			err(1, "PCIOCS%d", ctr);
		for (i = 0; i < loops; i++)
			sink += i;
		if (rflag)
			printf(" rdpmc%d = %16llu\n", ctr, rdpmc(ctr));
	}
	memset(&st, 0, sizeof(st));
	if (ioctl(fd, PCIOCRD, &st) == -1)
		err(1, "PCIOCRD");
	for (i = 0; i < n; i++)
		if (st.pctr_fn[i])
			printf(" ctr%d = %16llu  [%s]\n", i, st.pctr_hwc[i],
			    fn2str(st.pctr_fn[i]));
	tsc = st.pctr_tsc;
	printf("  tsc = %16llu\n", tsc);
	close(fd);
	return (0);
}
