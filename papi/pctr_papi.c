// SPDX-License-Identifier: GPL-2.0
/*
 * pctr's PAPI component: PAPI's counters through /dev/pctr (libpctr),
 * built into libpapi by testing/papi/build as src/components/pctr.
 *
 * Native events are the backend's events by the names PCIOCEVENT gives
 * (libpfm4's names, as pctr stat takes them), their codes the index in
 * that table.  PAPI maps its presets on component 0's events only; the
 * build makes this component 0 and init_component loads the preset rows
 * of papi_events.csv for the PMU pctr drives (see preset_pmus[]).
 *
 * Each thread opens /dev/pctr for itself (a thread's counters and page
 * are its own).  start programs the event set's slots with PCTR_EN and
 * the domain's PCTR_U/PCTR_K, and takes each slot's value as its base;
 * read is pctr_read() of each slot (rdpmc from the thread's page, the
 * ioctl where the page cannot give it) less the base; reset takes new
 * bases; stop keeps the last values and frees the slots.
 *
 * Overflow (PAPI_overflow, and PAPI_profil, which PAPI builds on it) is
 * pctr's overflow signal: an overflowing event's slot has PCTR_INT and
 * starts at 2^64 - threshold; when it wraps, the thread's counters
 * freeze and the kernel sends hardware_intr_sig (chosen with
 * PCIOCSOPTS).  The handler adds what each overflowed slot counted to
 * its total, presets it to 2^64 - threshold again, presets every other
 * slot to its frozen value, hands the overflow to PAPI (which calls the
 * user's handler) and thaws the counters (PCIOCRESTART).
 *
 * Attach (PAPI_attach, PAPI_CPU_ATTACH) is a binding: start binds a
 * descriptor of its own (PCIOCBIND) to the thread, which the caller must
 * trace with ptrace, as PAPI's tests do, or to the CPU (CAP_PERFMON);
 * read is PCIOCRD on it, stop ends it.  A thread held stopped (a child
 * stopped at its exec by PTRACE_TRACEME, as PAPI's attach tests have it)
 * gets a deferred binding (PCTR_BF_DEFER), set up when it resumes.  A
 * binding cannot interrupt: no overflow on an attached event set.
 *
 * Inheritance (PAPI_INHERIT) is pctr's PCTR_O_INHERIT: threads and
 * processes created while the event set runs count the same events for
 * themselves, from zero.  Their counts are their own: unlike
 * perf_event's, they are not added to the parent's when they exit.
 *
 * Multiplexing is PAPI's own, in software, over start/stop/read.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "papi_memory.h"
#include "papi_preset.h"
#include "extras.h"
#include "threads.h"

#include "pctr.h"

papi_vector_t _pctr_vector;

struct pctr_papi_ctx {
	pctr_t		*p;
	int		mapped;
};

struct pctr_papi_ctl {
	int		n;
	int		domain;
	int		running;
	int		inherit;
	unsigned int	tid;			/* attached to a thread, or 0 */
	int		cpu;			/* attached to a CPU, or -1 */
	int		bfd;			/* the binding's descriptor */
	unsigned int	ev[PCTR_NUM];		/* index in events[] */
	unsigned int	slot[PCTR_NUM];
	uint64_t	base[PCTR_NUM];
	uint64_t	acc[PCTR_NUM];		/* counted before the last preset */
	uint64_t	ovf[PCTR_NUM];		/* overflow threshold, 0: none */
	long long	counts[PCTR_NUM];
};

/* The backend's events, read once by init_component. */
static struct pctr_event *events;
static unsigned int nevents;
static struct pctr_info info;

/*
 * The papi_events.csv rows whose event names are the ones pctr's backend
 * gives: Intel's architectural events are named as libpfm4 names them
 * for Nehalem (TOT_INS, TOT_CYC, REF_CYC) and for the architectural PMU
 * (BR_INS, BR_MSP); AMD's core events as for family 17h.
 */
static const struct {
	const char	*backend;
	const char	*pmu[3];
} preset_pmus[] = {
	{ "intel", { "nhm", "ix86arch", NULL } },
	{ "amd", { "amd64_fam17h", NULL } },
};

/* A PAPI error code for a pctr errno, with pctr's reason said. */
static int pctr_papi_err(int err, const char *what)
{
	PAPIERROR("pctr: %s: %s", what, pctr_strerror(err));
	switch (err) {
	case EACCES:
	case EPERM:
		return PAPI_EPERM;
	case EBUSY:
		return PAPI_ECNFLCT;
	case ENOENT:
		return PAPI_ENOEVNT;
	case EINVAL:
		return PAPI_EINVAL;
	case ENOMEM:
		return PAPI_ENOMEM;
	case ENODEV:
	case ENOTTY:
	case EOPNOTSUPP:
		return PAPI_ECMP;
	default:
		return PAPI_ESYS;
	}
}

static int pctr_papi_disable(int err, const char *why)
{
	snprintf(_pctr_vector.cmp_info.disabled_reason, PAPI_HUGE_STR_LEN,
		 "%s: %s", why, pctr_strerror(err));
	_pctr_vector.cmp_info.disabled = PAPI_ECMP;
	return PAPI_ECMP;
}

static int pctr_papi_load_events(pctr_t *p)
{
	unsigned int i;

	events = papi_calloc(info.pi_nevents ? info.pi_nevents : 1,
			     sizeof(*events));
	if (!events)
		return PAPI_ENOMEM;
	for (i = 0; i < info.pi_nevents; i++) {
		events[i].pe_index = i;
		if (ioctl(p->fd, PCIOCEVENT, &events[i]) < 0)
			break;
		events[i].pe_name[sizeof(events[i].pe_name) - 1] = '\0';
		events[i].pe_desc[sizeof(events[i].pe_desc) - 1] = '\0';
	}
	nevents = i;
	return PAPI_OK;
}

/*
 * PAPI's preset loader is made for a component initialized after PAPI's
 * threads (as perf_event is), and this one is initialized before them:
 *   - each lookup keeps its state in the calling thread's PAPI record,
 *     which does not exist yet: a blank record stands in while the rows
 *     load;
 *   - each name is looked up in every component not disabled, and the
 *     components after this one are not initialized yet (perf_event's
 *     lookup would crash): they are marked disabled meanwhile, and given
 *     back their state after;
 *   - a row naming an event the backend lacks is an error PAPI prints
 *     when verbose: those rows are for other models of the PMU, and
 *     PAPI is kept quiet meanwhile.
 */
static void pctr_papi_load_presets(int cidx)
{
	int saved[PAPI_NUM_COMP];
	ThreadInfo_t blank, *was;
	int c, level = _papi_hwi_error_level;
	unsigned int i, k;

	if (cidx != 0)
		return;
	was = _papi_hwi_my_thread;
	if (!was) {
		memset(&blank, 0, sizeof(blank));
		blank.tls_papi_event_code = -1;
		blank.tls_papi_event_code_changed = -1;
		_papi_hwi_my_thread = &blank;
	}
	_papi_hwi_error_level = PAPI_QUIET;
	for (c = 0; _papi_hwd[c] && c < PAPI_NUM_COMP; c++) {
		saved[c] = _papi_hwd[c]->cmp_info.disabled;
		if (c != cidx)
			_papi_hwd[c]->cmp_info.disabled = PAPI_ENOINIT;
	}
	for (i = 0; i < sizeof(preset_pmus) / sizeof(preset_pmus[0]); i++) {
		if (strcmp(info.pi_backend, preset_pmus[i].backend))
			continue;
		for (k = 0; preset_pmus[i].pmu[k]; k++)
			_papi_load_preset_table((char *)preset_pmus[i].pmu[k],
						0, cidx);
	}
	for (c = 0; _papi_hwd[c] && c < PAPI_NUM_COMP; c++)
		_papi_hwd[c]->cmp_info.disabled = saved[c];
	_papi_hwi_my_thread = was;
	_papi_hwi_error_level = level;
}

static int pctr_papi_init_component(int cidx)
{
	PAPI_component_info_t *ci = &_pctr_vector.cmp_info;
	pctr_t *p;
	int ret;

	ci->CmpIdx = cidx;
	p = pctr_open(O_RDONLY);
	if (!p)
		return pctr_papi_disable(errno, "cannot open " PCTR_DEVICE);
	info = p->info;
	if (!(info.pi_caps & PCTR_CAP_COUNTERS)) {
		pctr_close(p);
		return pctr_papi_disable(ENODEV, "no programmable counters");
	}
	ret = pctr_papi_load_events(p);
	pctr_close(p);
	if (ret != PAPI_OK)
		return ret;

	snprintf(ci->description, sizeof(ci->description),
		 "pctr counters (%s backend, %s)", info.pi_backend,
		 info.pi_vendor[0] ? info.pi_vendor : "no vendor");
	snprintf(ci->kernel_version, sizeof(ci->kernel_version), "ABI %u",
		 info.pi_abi_version);
	ci->num_cntrs = info.pi_ngeneral + info.pi_nfixed;
	if (ci->num_cntrs > PCTR_NUM)
		ci->num_cntrs = PCTR_NUM;
	ci->num_mpx_cntrs = PAPI_MAX_SW_MPX_EVENTS;
	ci->num_native_events = nevents;
	ci->fast_counter_read = !!(info.pi_caps & PCTR_CAP_USER_RDPMC);
	ci->hardware_intr = !!(info.pi_caps & PCTR_CAP_NOTIFY);
	ci->hardware_intr_sig = SIGRTMIN + 2;

	pctr_papi_load_presets(cidx);
	return PAPI_OK;
}

static int pctr_papi_shutdown_component(void)
{
	papi_free(events);
	events = NULL;
	nevents = 0;
	return PAPI_OK;
}

static int pctr_papi_init_thread(hwd_context_t *ctx)
{
	struct pctr_papi_ctx *c = ctx;

	c->mapped = 0;
	c->p = pctr_open(O_RDWR);
	if (!c->p)
		return pctr_papi_err(errno, "cannot open " PCTR_DEVICE);
	return PAPI_OK;
}

static int pctr_papi_shutdown_thread(hwd_context_t *ctx)
{
	struct pctr_papi_ctx *c = ctx;

	if (c->p)
		pctr_close(c->p);
	c->p = NULL;
	return PAPI_OK;
}

static int pctr_papi_init_control_state(hwd_control_state_t *ctl)
{
	struct pctr_papi_ctl *s = ctl;

	memset(s, 0, sizeof(*s));
	s->domain = _pctr_vector.cmp_info.default_domain;
	s->cpu = -1;
	s->bfd = -1;
	return PAPI_OK;
}

/*
 * Give each event a slot that can count it, first come first served, in
 * the order the event set has them.
 */
static int pctr_papi_update_control_state(hwd_control_state_t *ctl,
					  NativeInfo_t *native, int count,
					  hwd_context_t *ctx)
{
	struct pctr_papi_ctl *s = ctl;
	uint64_t used = 0, can;
	unsigned int code;
	int i, k;

	(void)ctx;
	if (count > PCTR_NUM)
		return PAPI_ECNFLCT;
	for (i = 0; i < count; i++) {
		code = native[i].ni_event;
		if (code >= nevents)
			return PAPI_ENOEVNT;
		can = events[code].pe_slots & ~used;
		if (!can)
			return PAPI_ECNFLCT;
		k = __builtin_ctzll(can);
		if (k >= PCTR_NUM)
			return PAPI_ECNFLCT;
		used |= 1ULL << k;
		s->ev[i] = code;
		s->slot[i] = k;
		s->counts[i] = 0;
		s->acc[i] = 0;
		native[i].ni_position = i;
	}
	s->n = count;
	return PAPI_OK;
}

static uint64_t pctr_papi_flags(int domain)
{
	uint64_t f = PCTR_EN;

	if (domain & PAPI_DOM_USER)
		f |= PCTR_U;
	if (domain & PAPI_DOM_KERNEL)
		f |= PCTR_K;
	return f;
}

/* Take each slot's value now as its base: the counts start from zero. */
static int pctr_papi_take_bases(struct pctr_papi_ctx *c,
				struct pctr_papi_ctl *s)
{
	uint64_t v;
	int i;

	for (i = 0; i < s->n; i++) {
		s->acc[i] = 0;
		s->counts[i] = 0;
		if (s->ovf[i]) {
			/* Told after ovf[i] events. */
			s->base[i] = -s->ovf[i];
			if (pctr_preset(c->p, s->slot[i], s->base[i]) < 0)
				return pctr_papi_err(errno, "cannot preset a counter");
			continue;
		}
		errno = 0;
		v = pctr_read(c->p, s->slot[i]);
		if (v == (uint64_t)-1 && errno)
			return pctr_papi_err(errno, "cannot read a counter");
		s->base[i] = v;
	}
	return PAPI_OK;
}

static void pctr_opts_clear(struct pctr_papi_ctx *c)
{
	struct pctr_opts o = {
		.po_signo = _pctr_vector.cmp_info.hardware_intr_sig,
	};

	ioctl(c->p->fd, PCIOCSOPTS, &o);
}

static void pctr_papi_free_slots(struct pctr_papi_ctx *c,
				 struct pctr_papi_ctl *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		pctr_set(c->p, s->slot[i], 0);
}

static int pctr_papi_attached(const struct pctr_papi_ctl *s)
{
	return s->tid || s->cpu >= 0;
}

/* An attached event set's values: PCIOCRD on its binding. */
static int pctr_papi_read_bound(struct pctr_papi_ctl *s, uint64_t *v)
{
	struct pctrst st;
	int i;

	if (ioctl(s->bfd, PCIOCRD, &st) < 0)
		return pctr_papi_err(errno, "cannot read the attached counters");
	for (i = 0; i < s->n; i++)
		v[i] = st.pctr_hwc[s->slot[i]];
	return PAPI_OK;
}

/*
 * Start an attached event set: bind a descriptor of its own to the
 * thread or CPU, every slot from zero.  A thread stopped by its tracer
 * is bound deferred; a kernel without PCTR_BF_DEFER refuses the flag
 * (EINVAL), and is asked again without it.
 */
static int pctr_papi_start_bound(struct pctr_papi_ctl *s, uint64_t flags)
{
	struct pctr_bind b;
	int i, ret;

	for (i = 0; i < s->n; i++)
		if (s->ovf[i])
			return PAPI_ECMP;
	memset(&b, 0, sizeof(b));
	b.pb_kind = s->tid ? PCTR_BIND_THREAD : PCTR_BIND_CPU;
	b.pb_id = s->tid ? s->tid : (unsigned int)s->cpu;
	b.pb_flags = s->tid ? PCTR_BF_DEFER : 0;
	for (i = 0; i < s->n; i++)
		b.pb_fn[s->slot[i]] = events[s->ev[i]].pe_fn | flags;
	s->bfd = open(PCTR_DEVICE, O_RDWR | O_CLOEXEC);
	if (s->bfd < 0)
		return pctr_papi_err(errno, "cannot open " PCTR_DEVICE);
	ret = ioctl(s->bfd, PCIOCBIND, &b);
	if (ret < 0 && errno == EINVAL && b.pb_flags) {
		b.pb_flags = 0;
		ret = ioctl(s->bfd, PCIOCBIND, &b);
	}
	if (ret < 0) {
		ret = pctr_papi_err(errno, s->tid ?
				    "cannot bind to the thread (is it traced?)" :
				    "cannot bind to the CPU");
		close(s->bfd);
		s->bfd = -1;
		return ret;
	}
	for (i = 0; i < s->n; i++) {
		s->base[i] = 0;
		s->acc[i] = 0;
		s->counts[i] = 0;
	}
	s->running = 1;
	return PAPI_OK;
}

static int pctr_papi_start(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	struct pctr_papi_ctx *c = ctx;
	struct pctr_papi_ctl *s = ctl;
	uint64_t flags = pctr_papi_flags(s->domain);
	struct pctr_opts o = {
		.po_signo = _pctr_vector.cmp_info.hardware_intr_sig,
	};
	int i, ret, ovf = 0;

	if (pctr_papi_attached(s))
		return pctr_papi_start_bound(s, flags);
	for (i = 0; i < s->n; i++) {
		ovf |= !!s->ovf[i];
		if (pctr_set(c->p, s->slot[i], events[s->ev[i]].pe_fn | flags |
			     (s->ovf[i] ? PCTR_INT : 0)) < 0) {
			ret = pctr_papi_err(errno, events[s->ev[i]].pe_name);
			pctr_papi_free_slots(c, s);
			return ret;
		}
	}
	/*
	 * The overflow signal: PAPI's handler was installed for it; and
	 * inheritance.  Options are the thread's: set them every start.
	 */
	if (s->inherit)
		o.po_flags = PCTR_O_INHERIT;
	if (ioctl(c->p->fd, PCIOCSOPTS, &o) < 0) {
		ret = pctr_papi_err(errno, ovf ?
				    "cannot choose the overflow signal" :
				    "cannot set inheritance");
		pctr_papi_free_slots(c, s);
		return ret;
	}
	/* Without a page the reads fall back to the ioctl. */
	if (!c->mapped && pctr_map(c->p) == 0)
		c->mapped = 1;
	ret = pctr_papi_take_bases(c, s);
	if (ret != PAPI_OK) {
		pctr_papi_free_slots(c, s);
		return ret;
	}
	s->running = 1;
	return PAPI_OK;
}

static int pctr_papi_read(hwd_context_t *ctx, hwd_control_state_t *ctl,
			  long long **vals, int flags)
{
	struct pctr_papi_ctx *c = ctx;
	struct pctr_papi_ctl *s = ctl;
	uint64_t v;
	int i;

	(void)flags;
	if (s->running && s->bfd >= 0) {
		uint64_t bv[PCTR_NUM];
		int ret = pctr_papi_read_bound(s, bv);

		if (ret != PAPI_OK)
			return ret;
		for (i = 0; i < s->n; i++)
			s->counts[i] = (long long)(bv[i] - s->base[i]);
	} else if (s->running) {
		for (i = 0; i < s->n; i++) {
			errno = 0;
			v = pctr_read(c->p, s->slot[i]);
			if (v == (uint64_t)-1 && errno)
				return pctr_papi_err(errno,
						     "cannot read a counter");
			s->counts[i] = (long long)(s->acc[i] + v - s->base[i]);
		}
	}
	*vals = s->counts;
	return PAPI_OK;
}

static int pctr_papi_stop(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	struct pctr_papi_ctx *c = ctx;
	struct pctr_papi_ctl *s = ctl;
	long long *vals;
	int ret;

	if (!s->running)
		return PAPI_OK;
	ret = pctr_papi_read(ctx, ctl, &vals, 0);
	s->running = 0;
	if (s->bfd >= 0) {
		/* The binding ends with its descriptor. */
		close(s->bfd);
		s->bfd = -1;
		return ret;
	}
	/* No more inheritance: the options back to none. */
	if (s->inherit)
		pctr_opts_clear(c);
	pctr_papi_free_slots(c, s);
	return ret;
}

static int pctr_papi_reset(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	struct pctr_papi_ctl *s = ctl;
	int i;

	if (s->running && s->bfd >= 0) {
		uint64_t bv[PCTR_NUM];
		int ret = pctr_papi_read_bound(s, bv);

		if (ret != PAPI_OK)
			return ret;
		for (i = 0; i < s->n; i++) {
			s->base[i] = bv[i];
			s->counts[i] = 0;
		}
		return PAPI_OK;
	}
	if (s->running)
		return pctr_papi_take_bases(ctx, s);
	for (i = 0; i < s->n; i++)
		s->counts[i] = 0;
	return PAPI_OK;
}

static int pctr_papi_write(hwd_context_t *ctx, hwd_control_state_t *ctl,
			   long long *from)
{
	(void)ctx;
	(void)ctl;
	(void)from;
	return PAPI_ECMP;
}

static int pctr_papi_set_domain(hwd_control_state_t *ctl, int domain)
{
	struct pctr_papi_ctl *s = ctl;

	if (!domain || (domain & ~(PAPI_DOM_USER | PAPI_DOM_KERNEL)))
		return PAPI_EINVAL;
	s->domain = domain;
	return PAPI_OK;
}

static int pctr_papi_ctl(hwd_context_t *ctx, int code,
			 _papi_int_option_t *option)
{
	struct pctr_papi_ctl *s;

	(void)ctx;
	switch (code) {
	case PAPI_ATTACH:
		s = option->attach.ESI->ctl_state;
		if (!option->attach.tid || option->attach.tid > 0x7fffffffUL)
			return PAPI_EINVAL;
		s->tid = (unsigned int)option->attach.tid;
		return PAPI_OK;
	case PAPI_DETACH:
		s = option->attach.ESI->ctl_state;
		s->tid = 0;
		return PAPI_OK;
	case PAPI_CPU_ATTACH:
		s = option->cpu.ESI->ctl_state;
		if (option->cpu.cpu_num > 0x7fffffffU)
			return PAPI_EINVAL;
		s->cpu = (int)option->cpu.cpu_num;
		return PAPI_OK;
	case PAPI_INHERIT:
		s = option->inherit.ESI->ctl_state;
		s->inherit = option->inherit.inherit != PAPI_INHERIT_NONE;
		return PAPI_OK;
	case PAPI_DOMAIN:
	case PAPI_DEFDOM:
		if (code == PAPI_DEFDOM)
			return PAPI_OK;
		return pctr_papi_set_domain(option->domain.ESI->ctl_state,
					    option->domain.domain);
	case PAPI_GRANUL:
	case PAPI_DEFGRN:
		/* PAPI_GRN_SYS: what a CPU-attached event set counts. */
		if (option->granularity.granularity != PAPI_GRN_THR &&
		    option->granularity.granularity != PAPI_GRN_SYS)
			return PAPI_ECMP;
		return PAPI_OK;
	case PAPI_DEF_ITIMER:
	case PAPI_DEF_ITIMER_NS:
		/* PAPI's own timer (software overflow, multiplexing). */
		return PAPI_OK;
	default:
		return PAPI_ECMP;
	}
}

/*
 * An overflow signal: which slots overflowed (each one's count since its
 * preset reached its threshold), their counts kept and their presets set
 * again, the other slots preset to where they froze; PAPI told; the
 * counters thawed.
 */
static void pctr_papi_dispatch(int sig, hwd_siginfo_t *si, void *uc)
{
	_papi_hwi_context_t hctx = { .si = si, .ucontext = uc };
	ThreadInfo_t *thread = _papi_hwi_lookup_thread(0);
	int cidx = _pctr_vector.cmp_info.CmpIdx, hw = 0, i;
	struct pctr_papi_ctx *c;
	struct pctr_papi_ctl *s;
	EventSetInfo_t *esi;
	long long vector = 0;
	uint64_t v;

	(void)sig;
	if (!thread || si->si_code != PCTR_SI_OVERFLOW)
		return;
	esi = thread->running_eventset[cidx];
	c = thread->context[cidx];
	if (!esi || !c || !c->p)
		return;
	s = esi->ctl_state;
	for (i = 0; i < s->n; i++) {
		errno = 0;
		v = pctr_read(c->p, s->slot[i]);
		if (v == (uint64_t)-1 && errno)
			continue;
		if (s->ovf[i] && v - s->base[i] >= s->ovf[i]) {
			s->acc[i] += v - s->base[i];
			pctr_preset(c->p, s->slot[i], s->base[i]);
			vector |= 1LL << i;
		} else if (s->ovf[i]) {
			/*
			 * Another slot's overflow: this one keeps its base
			 * (2^64 - threshold), so that it still wraps, and
			 * is told, at its own threshold.
			 */
			pctr_preset(c->p, s->slot[i], v);
		} else {
			pctr_preset(c->p, s->slot[i], v);
			s->acc[i] += v - s->base[i];
			s->base[i] = v;
		}
	}
	if (vector && (esi->state & PAPI_OVERFLOWING))
		_papi_hwi_dispatch_overflow_signal(&hctx,
						   (vptr_t)si->si_addr, &hw,
						   vector, 0, &thread, cidx);
	ioctl(c->p->fd, PCIOCRESTART);
}

/*
 * Overflow for event @idx of @esi at every @thresh events (0: no more):
 * PAPI's handler of the signal is installed with the first overflowing
 * event, removed with the last; start chooses the signal for the
 * thread's counters (PCIOCSOPTS needs them set).
 */
static int pctr_papi_set_overflow(EventSetInfo_t *esi, int idx, int thresh)
{
	struct pctr_papi_ctl *s = esi->ctl_state;
	int sig = _pctr_vector.cmp_info.hardware_intr_sig;
	int pos = esi->EventInfoArray[idx].pos[0], had = 0, has = 0, i;

	if (pos < 0 || pos >= s->n || thresh < 0)
		return PAPI_EINVAL;
	for (i = 0; i < s->n; i++)
		had |= !!s->ovf[i];
	s->ovf[pos] = (uint64_t)thresh;
	for (i = 0; i < s->n; i++)
		has |= !!s->ovf[i];
	if (has && !had)
		return _papi_hwi_start_signal(sig, 1, esi->CmpIdx);
	if (had && !has)
		return _papi_hwi_stop_signal(sig);
	return PAPI_OK;
}

/* Profiling is PAPI's, on overflow (kernel_profile is not set). */
static int pctr_papi_set_profile(EventSetInfo_t *esi, int idx, int thresh)
{
	(void)esi;
	(void)idx;
	(void)thresh;
	return PAPI_ECMP;
}

static int pctr_papi_ntv_enum_events(unsigned int *code, int modifier)
{
	switch (modifier) {
	case PAPI_ENUM_FIRST:
		if (!nevents)
			return PAPI_ENOEVNT;
		*code = 0;
		return PAPI_OK;
	case PAPI_ENUM_EVENTS:
		if (*code + 1 >= nevents)
			return PAPI_ENOEVNT;
		(*code)++;
		return PAPI_OK;
	default:
		return PAPI_ENOEVNT;
	}
}

static int pctr_papi_ntv_name_to_code(const char *name, unsigned int *code)
{
	unsigned int i;

	for (i = 0; i < nevents; i++) {
		if (!strcasecmp(events[i].pe_name, name)) {
			*code = i;
			return PAPI_OK;
		}
	}
	return PAPI_ENOEVNT;
}

static int pctr_papi_ntv_code_to_name(unsigned int code, char *name, int len)
{
	if (code >= nevents || len <= 0)
		return PAPI_ENOEVNT;
	snprintf(name, len, "%s", events[code].pe_name);
	return PAPI_OK;
}

static int pctr_papi_ntv_code_to_descr(unsigned int code, char *descr,
				       int len)
{
	if (code >= nevents || len <= 0)
		return PAPI_ENOEVNT;
	snprintf(descr, len, "%s", events[code].pe_desc);
	return PAPI_OK;
}

static int pctr_papi_ntv_code_to_info(unsigned int code,
				      PAPI_event_info_t *ei)
{
	if (code >= nevents)
		return PAPI_ENOEVNT;
	snprintf(ei->symbol, sizeof(ei->symbol), "%s", events[code].pe_name);
	snprintf(ei->short_descr, sizeof(ei->short_descr), "%.*s",
		 (int)sizeof(ei->short_descr) - 1, events[code].pe_desc);
	snprintf(ei->long_descr, sizeof(ei->long_descr), "%s",
		 events[code].pe_desc);
	return PAPI_OK;
}

papi_vector_t _pctr_vector = {
	.cmp_info = {
		.name = "pctr",
		.short_name = "pctr",
		.description = "pctr counters",
		.version = "1.0",
		.default_domain = PAPI_DOM_USER,
		.available_domains = PAPI_DOM_USER | PAPI_DOM_KERNEL,
		.default_granularity = PAPI_GRN_THR,
		.available_granularities = PAPI_GRN_THR | PAPI_GRN_SYS,
		.hardware_intr_sig = PAPI_INT_SIGNAL,
		.attach = 1,
		.attach_must_ptrace = 1,
		.cpu = 1,
		.inherit = 1,
	},
	.size = {
		.context = sizeof(struct pctr_papi_ctx),
		.control_state = sizeof(struct pctr_papi_ctl),
		.reg_value = 1,
		.reg_alloc = 1,
	},
	.init_component = pctr_papi_init_component,
	.shutdown_component = pctr_papi_shutdown_component,
	.init_thread = pctr_papi_init_thread,
	.shutdown_thread = pctr_papi_shutdown_thread,
	.init_control_state = pctr_papi_init_control_state,
	.update_control_state = pctr_papi_update_control_state,
	.start = pctr_papi_start,
	.stop = pctr_papi_stop,
	.read = pctr_papi_read,
	.reset = pctr_papi_reset,
	.write = pctr_papi_write,
	.ctl = pctr_papi_ctl,
	.set_domain = pctr_papi_set_domain,
	.dispatch_timer = pctr_papi_dispatch,
	.set_overflow = pctr_papi_set_overflow,
	.set_profile = pctr_papi_set_profile,
	.ntv_enum_events = pctr_papi_ntv_enum_events,
	.ntv_name_to_code = pctr_papi_ntv_name_to_code,
	.ntv_code_to_name = pctr_papi_ntv_code_to_name,
	.ntv_code_to_descr = pctr_papi_ntv_code_to_descr,
	.ntv_code_to_info = pctr_papi_ntv_code_to_info,
};
