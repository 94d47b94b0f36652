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
#include <sys/mman.h>
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
	if (p->page)
		munmap((void *)p->page, PCTR_PAGE_SIZE);
	close(p->fd);
	free(p);
}

int pctr_map(pctr_t *p)
{
	void *pg;

	if (p->page)
		return 0;
	pg = mmap(NULL, PCTR_PAGE_SIZE, PROT_READ, MAP_SHARED, p->fd, 0);
	if (pg == MAP_FAILED)
		return -1;
	p->page = pg;
	return 0;
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

/* The function of the backend's event @name (flags not set). */
int pctr_event_fn(pctr_t *p, const char *name, uint64_t *fn)
{
	struct pctr_event ev;
	unsigned int i;

	for (i = 0; i < p->info.pi_nevents; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.pe_index = i;
		if (ioctl(p->fd, PCIOCEVENT, &ev) < 0)
			return -1;
		if (!strcmp(ev.pe_name, name)) {
			*fn = ev.pe_fn;
			return 0;
		}
	}
	errno = ENOENT;
	return -1;
}

int pctr_set_event(pctr_t *p, unsigned int slot, const char *name,
		   uint64_t flags)
{
	uint64_t fn;

	if (pctr_event_fn(p, name, &fn) < 0)
		return -1;
	return pctr_set(p, slot, fn | flags);
}

int pctr_zero(pctr_t *p)
{
	return ioctl(p->fd, PCIOCZERO);
}

int pctr_release(pctr_t *p)
{
	if (p->page) {
		munmap((void *)p->page, PCTR_PAGE_SIZE);
		p->page = NULL;
	}
	return ioctl(p->fd, PCIOCRELEASE);
}

int pctr_preset(pctr_t *p, unsigned int slot, uint64_t value)
{
	struct pctr_preset ps = { .ps_ctr = slot, .ps_value = value };

	return ioctl(p->fd, PCIOCPRESET, &ps);
}

const char *pctr_strerror(int err)
{
	switch (err) {
	case ENOENT:
		return "no such device or event (is the pctr module loaded?)";
	case ENODEV:
		return "this CPU has no counters pctr can drive (TSC only)";
	case EPERM:
		return "not permitted: open /dev/pctr for writing, or the function needs CAP_PERFMON";
	case EINVAL:
		return "no such counter, or a function it cannot count";
	case EBUSY:
		return "the counters are in use by perf or the NMI watchdog (try sysctl kernel.nmi_watchdog=0)";
	case EFAULT:
		return "bad address";
	case ENOTTY:
		return "not a pctr device, or a request it does not know";
	}
	return strerror(err);
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
