// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libpctr: open the device, keep its info, wrap the ioctls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pctr.h"

pctr_t *pctr_open(int flags)
{
	const char *dev = getenv("PCTR_DEVICE");
	pctr_t *p;
	int err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->fd = open(dev && *dev ? dev : PCTR_DEVICE, flags | O_CLOEXEC);
	if (p->fd < 0)
		goto fail;
	if (ioctl(p->fd, PCIOCINFO, &p->info) < 0)
		goto fail;
	return p;
fail:
	err = errno;
	if (p->fd >= 0)
		close(p->fd);
	free(p);
	errno = err;
	return NULL;
}

void pctr_close(pctr_t *p)
{
	if (!p)
		return;
	close(p->fd);
	free(p);
}

int pctr_read_all(pctr_t *p, struct pctrst *st)
{
	return ioctl(p->fd, PCIOCRD, st);
}

int pctr_set(pctr_t *p, unsigned int slot, uint64_t fn)
{
	if (slot >= PCTR_NUM) {
		errno = EINVAL;
		return -1;
	}
	return ioctl(p->fd, PCIOCS(slot), &fn);
}

/* Why the backend has no counters, as the driver told sysfs. */
const char *pctr_backend_reason(char *buf, unsigned int len)
{
	FILE *f = fopen("/sys/class/misc/pctr/reason", "r");

	buf[0] = '\0';
	if (!f)
		return buf;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return buf;
}
