// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libpctr: open the device, keep its info, wrap the ioctls.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pctr.h"

__thread unsigned long pctr_thread_id_;

/* The next thread id pctr_map() gives out (0 means "none yet"). */
static unsigned long pctr_next_id;
static pthread_once_t pctr_fork_once = PTHREAD_ONCE_INIT;

/*
 * A forked child has none of its parent's pages (the mapping is not
 * inherited): it starts with no id, so its reads through the parent's
 * handles fail with EINVAL instead of faulting.
 */
static void pctr_fork_child(void)
{
	pctr_thread_id_ = 0;
}

static void pctr_fork_setup(void)
{
	pthread_atfork(NULL, NULL, pctr_fork_child);
}

/* The calling thread's id, given out on first use. */
static unsigned long pctr_self_id(void)
{
	if (!pctr_thread_id_) {
		pthread_once(&pctr_fork_once, pctr_fork_setup);
		pctr_thread_id_ = __atomic_add_fetch(&pctr_next_id, 1,
						     __ATOMIC_RELAXED);
	}
	return pctr_thread_id_;
}

/* Calls that need counters fail with ENODEV where there are none. */
static int pctr_need_counters(const pctr_t *p)
{
	if (p->info.pi_caps & PCTR_CAP_COUNTERS)
		return 0;
	errno = ENODEV;
	return -1;
}

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

/*
 * The page is the calling thread's: mapping a handle another thread
 * mapped is EINVAL, as reading it would be.
 */
int pctr_map(pctr_t *p)
{
	unsigned long me = pctr_self_id();
	void *pg;

	if (p->page) {
		if (p->owner == me)
			return 0;
		errno = EINVAL;
		return -1;
	}
	pg = mmap(NULL, PCTR_PAGE_SIZE, PROT_READ, MAP_SHARED, p->fd, 0);
	if (pg == MAP_FAILED)
		return -1;
	p->owner = me;
	p->page = pg;
	return 0;
}

int pctr_read_all(pctr_t *p, struct pctrst *st)
{
	return ioctl(p->fd, PCIOCRD, st);
}

int pctr_set(pctr_t *p, unsigned int slot, uint64_t fn)
{
	if (pctr_need_counters(p))
		return -1;
	if (slot >= PCTR_NUM) {
		errno = EINVAL;
		return -1;
	}
	return ioctl(p->fd, PCIOCS64(slot), &fn);
}

/* The function of the backend's event @name (flags not set). */
int pctr_event_fn(pctr_t *p, const char *name, uint64_t *fn)
{
	struct pctr_event ev;
	unsigned int i;

	if (pctr_need_counters(p))
		return -1;
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
	if (pctr_need_counters(p))
		return -1;
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

	if (pctr_need_counters(p))
		return -1;
	return ioctl(p->fd, PCIOCPRESET, &ps);
}

/*
 * ENODEV names the backend's reason (pctr_backend_reason()), so the
 * message is made per call, in a buffer of the calling thread's.
 */
const char *pctr_strerror(int err)
{
	static __thread char msg[192];
	char why[128];

	switch (err) {
	case ENOENT:
		return "no /dev/pctr (is the pctr module loaded?), or no event of that name";
	case ENODEV:
		pctr_backend_reason(why, sizeof(why));
		snprintf(msg, sizeof(msg),
			 "no performance counters here (%s): pctr offers the TSC only",
			 why[0] ? why : "this CPU has none pctr can drive");
		return msg;
	case EPERM:
		return "not permitted: open /dev/pctr for writing, or the function needs CAP_PERFMON";
	case EINVAL:
		return "no such counter, a function it cannot count, or a handle another thread mapped (one handle per thread)";
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
