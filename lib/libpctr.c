// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libpctr: open the device, keep its info, wrap the ioctls.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pctr.h"
#include "pctr_internal.h"

__thread unsigned long pctr_thread_id_;

/*
 * What pctr_page2_ points to in a thread with no page: both sequences
 * differ and no slot is readable, so every inline read takes its slow
 * path, which knows this page for what it is.
 */
static const struct pctr_page2 pctr_nopage2_ = {
	.p2_version = PCTR_PAGE2_VERSION,
	.p2_seq = 1,
	.p2_slot = { [0 ... PCTR_NUM - 1] = { .p2s_index = -1 } },
};

__thread const volatile struct pctr_page2 *pctr_page2_ = &pctr_nopage2_;

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
	pctr_page2_ = &pctr_nopage2_;
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

/* The version 2 layout within the handle's mapping, if it has one. */
static const volatile struct pctr_page2 *pctr_page2_of(const pctr_t *p)
{
	if (!p->page)
		return NULL;
	return (const volatile struct pctr_page2 *)
		((const volatile char *)p->page + PCTR_PAGE2_START);
}

/* Unmap the handle's page; the calling thread's reads no longer see it. */
static void pctr_unmap(pctr_t *p)
{
	if (!p->page)
		return;
	if (pctr_page2_ == pctr_page2_of(p))
		pctr_page2_ = &pctr_nopage2_;
	munmap((void *)p->page, PCTR_PAGE_SIZE);
	p->page = NULL;
}

void pctr_close(pctr_t *p)
{
	if (!p)
		return;
	pctr_unmap(p);
	close(p->fd);
	free(p);
}

/*
 * The page is the calling thread's: mapping a handle another thread
 * mapped is EINVAL, as reading it would be.  @off says the layout.  0
 * when mapped, 1 when it was already.
 */
static int pctr_map_at(pctr_t *p, off_t off)
{
	unsigned long me = pctr_self_id();
	void *pg;

	if (p->page) {
		if (p->owner == me)
			return 1;
		errno = EINVAL;
		return -1;
	}
	pg = mmap(NULL, PCTR_PAGE_SIZE, PROT_READ, MAP_SHARED, p->fd, off);
	if (pg == MAP_FAILED)
		return -1;
	p->owner = me;
	p->page = pg;
	return 0;
}

/* The functions themselves, not <pctr.h>'s names for version 2. */
#undef pctr_map
#undef pctr_read_all

/* Programs built before page version 2 (or with PCTR_PAGE_V1). */
int pctr_map(pctr_t *p)
{
	return pctr_map_at(p, 0) < 0 ? -1 : 0;
}

int pctr_read_all(pctr_t *p, struct pctrst *st)
{
	return ioctl(p->fd, PCIOCRD, st);
}

/*
 * Version 2, the calling thread's page from now on (again, for a handle
 * it mapped before: its other handles map the same page).
 */
int pctr_map2(pctr_t *p)
{
	if (pctr_map_at(p, PCTR_PAGE2_OFFSET) < 0)
		return -1;
	pctr_page2_ = pctr_page2_of(p);
	return 0;
}

/*
 * Slots @first..@first+@n-1 from the calling thread's page: 1 when read,
 * 0 when the page cannot give them (no page, a dead one, or a slot that
 * is not read inline), -1 with EINVAL for a handle another thread mapped
 * when this one has no page.  Retries an update it straddled.
 */
static int pctr_page2_read(pctr_t *p, uint64_t *vals, unsigned int first,
			   unsigned int n)
{
	const volatile struct pctr_page2 *pg = pctr_page2_;
	uint32_t seq, live;
	unsigned int k, s;
	int32_t idx;

	if (pg == &pctr_nopage2_) {
		if (p->page && p->owner != pctr_thread_id_) {
			errno = EINVAL;
			return -1;
		}
		return 0;
	}
	for (;;) {
		seq = pg->p2_seq;
		pctr_barrier2_(pg);
		if (pg->p2_flags & PCTR_PG_DEAD)
			return 0;
		live = pg->p2_live;
		for (k = 0; k < n; k++) {
			s = first + k;
			vals[k] = 0;
			if (!(live & (1U << s)))
				continue;
			idx = pg->p2_slot[s].p2s_index;
			if (idx < 0)
				return 0;
			vals[k] = pg->p2_slot[s].p2s_off + rdpmc(idx);
		}
		pctr_barrier2_(pg);
		if (pg->p2_seq_end == seq)
			return 1;
		p->retries++;
	}
}

uint64_t pctr_read_slow2_(pctr_t *p, unsigned int i)
{
	uint64_t v;
	int r;

	if (i >= PCTR_NUM) {
		errno = EINVAL;
		return (uint64_t)-1;
	}
	r = pctr_page2_read(p, &v, i, 1);
	if (r > 0)
		return v;
	if (r < 0 || pctr_read_slow_(p, &v, i, 1))
		return (uint64_t)-1;
	return v;
}

int pctr_read_n_slow2_(pctr_t *p, uint64_t *vals, unsigned int n)
{
	int r = pctr_page2_read(p, vals, 0, n);

	if (r)
		return r > 0 ? 0 : -1;
	return pctr_read_slow_(p, vals, 0, n);
}

uint64_t pctr_vtsc_slow2_(pctr_t *p)
{
	const volatile struct pctr_page2 *pg = pctr_page2_;
	uint64_t v;
	uint32_t seq;

	if (pg == &pctr_nopage2_) {
		if (p->page && p->owner != pctr_thread_id_) {
			errno = EINVAL;
			return (uint64_t)-1;
		}
		return 0;
	}
	for (;;) {
		seq = pg->p2_seq;
		pctr_barrier2_(pg);
		if (pg->p2_flags & PCTR_PG_DEAD)
			return pg->p2_vtsc_off;
		v = pg->p2_vtsc_off + rdtsc();
		pctr_barrier2_(pg);
		if (pg->p2_seq_end == seq)
			return v;
		p->retries++;
	}
}

/*
 * pctr_read_times() again, retrying an update it straddled, then by
 * PCIOCRDX; EINVAL for a handle another thread mapped when this one has
 * no page.
 */
uint64_t pctr_read_times_slow2_(pctr_t *p, unsigned int i, uint64_t *enabled,
				uint64_t *running)
{
	const volatile struct pctr_page2 *pg = pctr_page2_;
	const volatile struct pctr_page_times *pt;
	uint64_t v, t;
	uint32_t seq;
	int32_t idx;

	if (i >= PCTR_NUM) {
		errno = EINVAL;
		return (uint64_t)-1;
	}
	if (pg == &pctr_nopage2_) {
		if (p->page && p->owner != pctr_thread_id_) {
			errno = EINVAL;
			return (uint64_t)-1;
		}
		return pctr_read_times_slow_(p, i, enabled, running);
	}
	pt = pctr_times_of_((const volatile char *)pg - PCTR_PAGE2_START);
	for (;;) {
		seq = pg->p2_seq;
		pctr_barrier2_(pg);
		/* A dead page has no times. */
		if (!(pg->p2_flags & PCTR_PG_TIMES))
			break;
		idx = pg->p2_slot[i].p2s_index;
		if (idx < 0)
			break;
		v = pg->p2_slot[i].p2s_off + rdpmc(idx);
		t = pg->p2_vtsc_off + rdtsc();
		*enabled = t + pt->pt_enabled_off[i];
		*running = t + pt->pt_running_off[i];
		pctr_barrier2_(pg);
		if (pg->p2_seq_end == seq)
			return v;
		p->retries++;
	}
	return pctr_read_times_slow_(p, i, enabled, running);
}

/*
 * From the page when this thread mapped the handle and every programmed
 * slot is read inline; the free slots are zeroed once, the programmed
 * ones walked.
 */
int pctr_read_all2(pctr_t *p, struct pctrst *st)
{
	const volatile struct pctr_page2 *pg = pctr_page2_;
	uint32_t seq, live, m;
	unsigned int s;
	int32_t idx;

	if (pg != pctr_page2_of(p))
		return ioctl(p->fd, PCIOCRD, st);
	memset(st->pctr_fn, 0, sizeof(st->pctr_fn));
	memset(st->pctr_hwc, 0, sizeof(st->pctr_hwc));
	live = 0;
	for (;;) {
		seq = pg->p2_seq;
		pctr_barrier2_(pg);
		/* Slots freed since the last try read 0 again. */
		for (m = live & ~pg->p2_live; m; m &= m - 1) {
			s = __builtin_ctz(m);
			st->pctr_fn[s] = 0;
			st->pctr_hwc[s] = 0;
		}
		live = pg->p2_live;
		for (m = live; m; m &= m - 1) {
			s = __builtin_ctz(m);
			idx = pg->p2_slot[s].p2s_index;
			if (idx < 0)
				goto slow;
			st->pctr_fn[s] = pg->p2_fn[s];
			st->pctr_hwc[s] = pg->p2_slot[s].p2s_off + rdpmc(idx);
		}
		st->pctr_tsc = rdtsc();
		st->pctr_idl = pg->p2_idl;
		pctr_barrier2_(pg);
		if (pg->p2_seq_end == seq)
			return 0;
		p->retries++;
	}
slow:
	p->fallbacks++;
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
	pctr_unmap(p);
	return ioctl(p->fd, PCIOCRELEASE);
}

int pctr_preset(pctr_t *p, unsigned int slot, uint64_t value)
{
	struct pctr_preset ps = { .ps_ctr = slot, .ps_value = value };

	if (pctr_need_counters(p))
		return -1;
	return ioctl(p->fd, PCIOCPRESET, &ps);
}

/* The device pctr_open() opens. */
static const char *pctr_device_path(void)
{
	const char *dev = getenv("PCTR_DEVICE");

	return dev && *dev ? dev : PCTR_DEVICE;
}

/* pctr_internal.h: for the tools too. */
const char *pctr_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return buf;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return buf;
}

/* ENOENT: the module missing, its device missing, or an unknown event. */
static const char *pctr_msg_enoent(char *msg, size_t len)
{
	const char *dev = pctr_device_path();

	if (access("/sys/module/pctr", F_OK) < 0)
		snprintf(msg, len,
			 "no %s: the pctr module is not loaded (load it: sudo pctr load, or sudo modprobe pctr)",
			 dev);
	else if (access(dev, F_OK) < 0)
		snprintf(msg, len,
			 "no %s, though the pctr module is loaded (did udev make it? see pctr status)",
			 dev);
	else
		snprintf(msg, len,
			 "no event of that name (pctr stat -l lists the backend's events)");
	return msg;
}

/*
 * EACCES: the device is not open to the caller (its mode and group say
 * what the administrator chose), else kernel-mode counting or binding a
 * CPU without the right.
 */
static const char *pctr_msg_eacces(char *msg, size_t len)
{
	const char *dev = pctr_device_path();
	char gbuf[1024], group[64];
	struct group gr, *g = NULL;
	struct stat st;

	if (access(dev, R_OK) == 0 || stat(dev, &st) < 0) {
		snprintf(msg, len,
			 "permission denied: counting kernel mode needs CAP_PERFMON (or the module's allow_kernel=1; else count user mode only), binding a CPU needs CAP_PERFMON");
		return msg;
	}
	if (getgrgid_r(st.st_gid, &gr, gbuf, sizeof(gbuf), &g) || !g)
		snprintf(group, sizeof(group), "%u", (unsigned int)st.st_gid);
	else
		snprintf(group, sizeof(group), "%s", g->gr_name);
	if ((st.st_mode & 0040) && st.st_gid != 0)
		snprintf(msg, len,
			 "permission denied on %s (mode %04o, group %s): join the group (sudo usermod -aG %s $USER, then log in again)",
			 dev, (unsigned int)(st.st_mode & 07777), group, group);
	else
		snprintf(msg, len,
			 "permission denied on %s (mode %04o, group %s): only root may open it; the administrator can open it to the pctr group with dev_mode=0660 (Documentation/admin.rst), or to all with dev_mode=0666",
			 dev, (unsigned int)(st.st_mode & 07777), group);
	return msg;
}

int pctr_fd_users(int (*match)(const char *fd, const char *target,
				void *arg),
		  void *arg, const char *prefix, int max, char *buf,
		  size_t len)
{
	DIR *proc = opendir("/proc"), *fds;
	struct dirent *p, *f;
	int n = 0;

	buf[0] = '\0';
	if (!proc)
		return 0;
	while ((p = readdir(proc)) && n < max) {
		char dir[300], fp[600], t[64], comm[32];
		int hit = 0;
		ssize_t l;

		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(dir, sizeof(dir), "/proc/%s/fd", p->d_name);
		fds = opendir(dir);
		if (!fds)
			continue;
		while (!hit && (f = readdir(fds))) {
			snprintf(fp, sizeof(fp), "%s/%s", dir, f->d_name);
			l = readlink(fp, t, sizeof(t) - 1);
			if (l > 0) {
				t[l] = '\0';
				hit = match(fp, t, arg);
			}
		}
		closedir(fds);
		if (!hit)
			continue;
		snprintf(fp, sizeof(fp), "/proc/%s/comm", p->d_name);
		pctr_read_line(fp, comm, sizeof(comm));
		if (strlen(buf) + strlen(comm) + 32 < len)
			snprintf(buf + strlen(buf), len - strlen(buf),
				 "%s%s%.12s (%.16s)", n ? ", " : "", prefix,
				 p->d_name, comm);
		n++;
	}
	closedir(proc);
	return n;
}

static int pctr_is_perf_event(const char *fd, const char *target, void *arg)
{
	return !strcmp(target, "anon_inode:[perf_event]");
}

/* The processes with a perf event open, as /proc lets us see them. */
static int pctr_perf_users(char *buf, size_t len)
{
	return pctr_fd_users(pctr_is_perf_event, NULL, "pid ", 4, buf, len);
}

/*
 * EBUSY: while pctr holds the PMU, a CPU binding holds the counter, or
 * another process's binding owns the thread's counters; else whoever
 * holds the PMU, as far as we can see:
 * the NMI watchdog, perf events; the simulator's sim_busy.
 */
static const char *pctr_msg_ebusy(char *msg, size_t len)
{
	char buf[128], who[256];
	size_t o;

	if (!strcmp(pctr_read_line("/sys/class/misc/pctr/taken", buf,
				   sizeof(buf)), "1")) {
		if (strcmp(pctr_read_line("/sys/class/misc/pctr/cpu_bindings",
					  buf, sizeof(buf)), "0"))
			snprintf(msg, len,
				 "busy: a CPU binding (cpustat, cpc_bind_cpu) holds that counter (pctr status shows it; use another), or this thread's counters were set up by another process, or the descriptor is bound");
		else
			snprintf(msg, len,
				 "busy: this thread's counters were set up by another process (only it may change them), or the descriptor is bound");
		return msg;
	}
	/* The simulator's counters are its own: only sim_busy takes them. */
	if (!strcmp(pctr_read_line("/sys/module/pctr/parameters/sim_busy",
				   buf, sizeof(buf)), "Y")) {
		snprintf(msg, len,
			 "the counters are in use by the simulator, loaded with sim_busy=1 (reload it without: sudo pctr unload; sudo pctr load pmu=sim)");
		return msg;
	}
	o = snprintf(msg, len, "the counters are in use by");
	if (!strcmp(pctr_read_line("/proc/sys/kernel/nmi_watchdog", buf,
				   sizeof(buf)), "1") && o < len)
		o += snprintf(msg + o, len - o,
			      " the NMI watchdog (free them: sudo sysctl kernel.nmi_watchdog=0);");
	if (pctr_perf_users(who, sizeof(who)) && o < len)
		o += snprintf(msg + o, len - o,
			      " perf events of %s (end them);", who);
	if (o < len && msg[o - 1] == ';')
		msg[o - 1] = '\0';
	else if (o < len)
		snprintf(msg + o, len - o,
			 " perf or the NMI watchdog (try sudo sysctl kernel.nmi_watchdog=0, end perf sessions)");
	return msg;
}

/*
 * What an errno means for pctr and what to do about it, looked up when
 * asked (the module's state, the device's mode, who holds the PMU), in
 * a buffer of the calling thread's.
 */
const char *pctr_strerror(int err)
{
	static __thread char msg[512];
	char why[128];

	switch (err) {
	case ENOENT:
		return pctr_msg_enoent(msg, sizeof(msg));
	case ENODEV:
		pctr_backend_reason(why, sizeof(why));
		snprintf(msg, sizeof(msg),
			 "no performance counters here (%s): pctr offers the TSC only",
			 why[0] ? why : "this CPU has none pctr can drive");
		return msg;
	case EPERM:
		return "not permitted: open /dev/pctr for writing, or the function needs CAP_PERFMON";
	case EACCES:
		return pctr_msg_eacces(msg, sizeof(msg));
	case EINVAL:
		return "no such counter, a function it cannot count, or a handle another thread mapped (one handle per thread)";
	case EBUSY:
		return pctr_msg_ebusy(msg, sizeof(msg));
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
	return pctr_read_line("/sys/class/misc/pctr/reason", buf, len);
}
