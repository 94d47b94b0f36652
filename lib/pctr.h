/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libpctr: a thin C library over /dev/pctr (uapi/linux/pctr.h).
 * Errors are returned as -1 with errno set, as the ioctl gave them.
 */
#ifndef _PCTR_LIB_H
#define _PCTR_LIB_H

#include <stdint.h>
#include <linux/pctr.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCTR_DEVICE	"/dev/pctr"

typedef struct pctr {
	int			fd;
	struct pctr_info	info;
} pctr_t;

/* Open /dev/pctr (or $PCTR_DEVICE); flags is O_RDONLY or O_RDWR. */
pctr_t *pctr_open(int flags);
void pctr_close(pctr_t *p);
int pctr_read_all(pctr_t *p, struct pctrst *st);
int pctr_set(pctr_t *p, unsigned int slot, uint64_t fn);
const char *pctr_backend_reason(char *buf, unsigned int len);

/* The time-stamp counter, as pctr(4)'s rdtsc(). */
static inline uint64_t rdtsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#else
	return 0;
#endif
}

#ifdef __cplusplus
}
#endif

#endif /* _PCTR_LIB_H */
