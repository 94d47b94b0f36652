/*
 * pmdapctr's performance metrics domain.  452: not taken in PCP 6.0.3's
 * stdpmid.pcp (its free slots are 31, 36-55, 58, 64, 159-240, 252, 254
 * and 256-510), and outside the ranges PCP hands out next (up from 159,
 * down from 240), so a later PCP is unlikely to give it to an agent of
 * its own.  pmcd.conf can give the agent another with -d.
 */
#define PCTR 452
