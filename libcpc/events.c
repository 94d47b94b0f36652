// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libcpc: from an event name, flags and attributes to a pctr function and
 * the slots that may count it.  Names are tried in this order: the
 * backend's own (PCIOCEVENT), the generic PAPI names, a raw "0x<hex>"
 * event select code, and libpfm4's names when libpfm4 knows the CPU.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#ifdef CPC_HAVE_PFM
#include <perfmon/pfmlib.h>
#endif

#include "cpc_private.h"
#include "events_private.h"

/* The bits of a function that select what a general counter counts. */
#define CPC_FN_EVENT_BITS	(PCTR_EVENT_MASK | PCTR_UM_MASK | PCTR_E | \
				 PCTR_I | PCTR_CM_MASK | PCTR_EVENT_HI_MASK | \
				 PCTR_HG_MASK)
/* Raw event select codes: 8 bits, 12 on AMD. */
#define CPC_RAW_MAX		0xfff

/*
 * What the fixed counters count, for backends whose event table lists
 * general-counter events only: the sim's fixed counter i counts what
 * its event i does (driver/arch/sim).  Intel's table names its fixed
 * counters itself.
 */
static const char *const cpc_sim_fixed[] = { "sim_ticks", "sim_ticks_div" };

/* Is fixed counter @i named by an event of the table? */
static int cpc_fixed_named(const cpc_t *cpc, unsigned int i)
{
	unsigned int k;

	for (k = 0; k < cpc->nevents; k++)
		if (cpc->events[k].slots & (1ULL << PCTR_FIXED(i)))
			return 1;
	return 0;
}

/*
 * Name each fixed counter the table leaves unnamed, where the backend's
 * is known: an entry of its own (function 0: the counter's event is its
 * own), so that cpc_walk_events_pic() lists it and "picnum" picks it.
 */
static void cpc_name_fixed(cpc_t *cpc)
{
	unsigned int i, nfixed = cpc->pc->info.pi_nfixed;
	struct cpc_event *e;

	if (cpc->pc->info.pi_backend_id != PCTR_BACKEND_SIM)
		return;
	for (i = 0; i < nfixed && i < PCTR_MAX_FIXED &&
		    i < sizeof(cpc_sim_fixed) / sizeof(cpc_sim_fixed[0]); i++) {
		if (cpc_fixed_named(cpc, i))
			continue;
		e = &cpc->events[cpc->nevents++];
		snprintf(e->name, sizeof(e->name), "%s", cpc_sim_fixed[i]);
		e->fn = 0;
		e->slots = 1ULL << PCTR_FIXED(i);
	}
}

int cpc_load_events(cpc_t *cpc)
{
	unsigned int i, n = cpc->pc->info.pi_nevents;
	struct pctr_event ev;

	/* Room for the fixed counters' names too. */
	cpc->events = calloc(n + PCTR_MAX_FIXED, sizeof(*cpc->events));
	if (!cpc->events)
		return -1;
	for (i = 0; i < n; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.pe_index = i;
		if (ioctl(cpc->pc->fd, PCIOCEVENT, &ev) < 0)
			break;		/* the table shrank: keep what we have */
		memcpy(cpc->events[i].name, ev.pe_name,
		       sizeof(cpc->events[i].name));
		cpc->events[i].name[sizeof(cpc->events[i].name) - 1] = '\0';
		cpc->events[i].fn = ev.pe_fn;
		cpc->events[i].slots = ev.pe_slots;
	}
	cpc->nevents = i;
	cpc_name_fixed(cpc);
	return 0;
}

/*
 * The event named @name that a slot of @slots can count, else the first
 * of that name (a name may stand for a general and a fixed counter's
 * event), else NULL.
 */
static const struct cpc_event *cpc_find_event_on(cpc_t *cpc, const char *name,
						 uint64_t slots)
{
	const struct cpc_event *first = NULL;
	unsigned int i;

	for (i = 0; i < cpc->nevents; i++) {
		if (strcmp(cpc->events[i].name, name))
			continue;
		if (cpc->events[i].slots & slots)
			return &cpc->events[i];
		if (!first)
			first = &cpc->events[i];
	}
	return first;
}

static const struct cpc_event *cpc_find_event(cpc_t *cpc, const char *name)
{
	return cpc_find_event_on(cpc, name, ~0ULL);
}

/*
 * The generic events and the backend event each stands for.  The
 * simulated PMU has stand-ins for the two every program asks for, so
 * that generic-event programs run under test.
 */
struct cpc_generic {
	const char	*name;
	const char	*intel;
	const char	*amd;
	const char	*sim;
};

static const struct cpc_generic cpc_generic_events[] = {
	{ "PAPI_tot_cyc", "UNHALTED_CORE_CYCLES", "CYCLES_NOT_IN_HALT",
	  "sim_ticks" },
	{ "PAPI_tot_ins", "INSTRUCTION_RETIRED", "RETIRED_INSTRUCTIONS",
	  "sim_ticks_div" },
	{ "PAPI_ref_cyc", "UNHALTED_REFERENCE_CYCLES", NULL, NULL },
	{ "PAPI_br_ins", "BRANCH_INSTRUCTIONS_RETIRED",
	  "RETIRED_BRANCH_INSTRUCTIONS", NULL },
	{ "PAPI_br_msp", "MISPREDICTED_BRANCH_RETIRED",
	  "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", NULL },
	{ "PAPI_br_tkn", NULL, "RETIRED_TAKEN_BRANCH_INSTRUCTIONS", NULL },
	{ "PAPI_l3_tca", "LLC_REFERENCES", NULL, NULL },
	{ "PAPI_l3_tcm", "LLC_MISSES", NULL, NULL },
};

static const char *cpc_generic_native(cpc_t *cpc, const struct cpc_generic *g)
{
	const char *n = NULL;

	switch (cpc->pc->info.pi_backend_id) {
	case PCTR_BACKEND_INTEL:
		n = g->intel;
		break;
	case PCTR_BACKEND_AMD:
		n = g->amd;
		break;
	case PCTR_BACKEND_SIM:
		n = g->sim;
		break;
	}
	return n && cpc_find_event(cpc, n) ? n : NULL;
}

/* The backend event generic event @name stands for here, or NULL. */
static const char *cpc_generic_to_native(cpc_t *cpc, const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(cpc_generic_events) /
			sizeof(cpc_generic_events[0]); i++)
		if (!strcmp(cpc_generic_events[i].name, name))
			return cpc_generic_native(cpc, &cpc_generic_events[i]);
	return NULL;
}

/* Counters a request may name with picnum: general, then fixed. */
uint_t cpc_npic(cpc_t *cpc)
{
	const struct pctr_info *in = &cpc->pc->info;
	uint_t g = in->pi_ngeneral, f = in->pi_nfixed;

	if (g > PCTR_MAX_GENERAL)
		g = PCTR_MAX_GENERAL;
	if (f > PCTR_MAX_FIXED)
		f = PCTR_MAX_FIXED;
	return g + f;
}

/* The pctr slot of counter @picno (see libcpc.h), 0 if there is none. */
static uint64_t cpc_pic_slot(cpc_t *cpc, uint_t picno)
{
	const struct pctr_info *in = &cpc->pc->info;

	if (picno < in->pi_ngeneral && picno < PCTR_MAX_GENERAL)
		return 1ULL << picno;
	picno -= in->pi_ngeneral;
	if (picno < in->pi_nfixed && picno < PCTR_MAX_FIXED)
		return 1ULL << PCTR_FIXED(picno);
	return 0;
}

/* "0x<hex>": a raw event select code. */
static int cpc_parse_raw(const char *name, uint64_t *code)
{
	char *end;

	if (name[0] != '0' || (name[1] != 'x' && name[1] != 'X') || !name[2])
		return 0;
	errno = 0;
	*code = strtoull(name + 2, &end, 16);
	if (*end || errno)
		return -1;
	return *code <= CPC_RAW_MAX ? 1 : -1;
}

#ifdef CPC_HAVE_PFM
static pthread_once_t cpc_pfm_once = PTHREAD_ONCE_INIT;
static int cpc_pfm_ok;

static void cpc_pfm_init(void)
{
	cpc_pfm_ok = pfm_initialize() == PFM_SUCCESS;
}

/*
 * libpfm4's encoding of @name for the CPU it found: 1 and *fn on
 * success, 0 if it does not know the name, -1 (reported) if it knows it
 * but cannot encode it for pctr.
 */
static int cpc_pfm_encode(cpc_t *cpc, const char *fn_name, const char *name,
			  uint_t flags, uint64_t *fn)
{
	pfm_pmu_encode_arg_t arg;
	pfm_event_info_t einfo;
	pfm_pmu_info_t pinfo;
	int plm = 0, ret;

	pthread_once(&cpc_pfm_once, cpc_pfm_init);
	if (!cpc_pfm_ok)
		return 0;
	if (flags & CPC_COUNT_USER)
		plm |= PFM_PLM3;
	if (flags & CPC_COUNT_SYSTEM)
		plm |= PFM_PLM0;
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(name, plm, PFM_OS_NONE, &arg);
	if (ret == PFM_ERR_NOTFOUND || ret == PFM_ERR_NOINIT)
		return 0;
	if (ret != PFM_SUCCESS)
		return cpc_err(cpc, fn_name, CPC_INVALID_ATTRIBUTE, EINVAL,
			       "%s: %s (libpfm4)", name, pfm_strerror(ret));

	/* Only core PMU events: not libpfm4's "perf" pseudo PMU. */
	memset(&einfo, 0, sizeof(einfo));
	einfo.size = sizeof(einfo);
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	if (pfm_get_event_info(arg.idx, PFM_OS_NONE, &einfo) != PFM_SUCCESS ||
	    pfm_get_pmu_info(einfo.pmu, &pinfo) != PFM_SUCCESS ||
	    pinfo.type != PFM_PMU_TYPE_CORE) {
		free(arg.codes);
		return 0;
	}
	if (arg.count != 1) {
		free(arg.codes);
		return cpc_err(cpc, fn_name, CPC_PIC_NOT_CAPABLE, EINVAL,
			       "%s: needs %d registers, pctr programs one",
			       name, arg.count);
	}
	/* pctr keeps the interrupt bit for its own overflow handling. */
	*fn = (arg.codes[0] & ~PCTR_INT) | PCTR_EN;
	free(arg.codes);
	return 1;
}
#else
static int cpc_pfm_encode(cpc_t *cpc, const char *fn_name, const char *name,
			  uint_t flags, uint64_t *fn)
{
	return 0;
}
#endif

/* Set @bit of *@fn from a 0/1 attribute; -1 if out of range. */
static int cpc_attr_bit(uint64_t *fn, uint64_t bit, uint64_t val)
{
	if (val > 1)
		return -1;
	*fn = val ? *fn | bit : *fn & ~bit;
	return 0;
}

static int cpc_apply_attrs(cpc_t *cpc, const char *fn_name,
			   struct cpc_request *req)
{
	const cpc_attr_t *a;
	uint64_t slot;
	unsigned int i;
	int bad;

	for (i = 0; i < req->nattrs; i++) {
		a = &req->attrs[i];
		bad = 0;
		if (!strcmp(a->ca_name, "picnum")) {
			slot = a->ca_val > UINT32_MAX ? 0 :
			       cpc_pic_slot(cpc, a->ca_val);
			if (!slot)
				return cpc_err(cpc, fn_name, CPC_INVALID_PICNUM,
					       EINVAL,
					       "picnum %llu: there are %u counters",
					       (unsigned long long)a->ca_val,
					       cpc_npic(cpc));
			if (!(req->slots & slot))
				return cpc_err(cpc, fn_name,
					       CPC_PIC_NOT_CAPABLE, EINVAL,
					       "counter %llu cannot count %s",
					       (unsigned long long)a->ca_val,
					       req->event);
			req->slots = slot;
		} else if (!strcmp(a->ca_name, "umask")) {
			bad = a->ca_val > 0xff;
			req->fn = (req->fn & ~PCTR_UM_MASK) |
				  ((a->ca_val & 0xff) << PCTR_UM_SHIFT);
		} else if (!strcmp(a->ca_name, "cmask")) {
			bad = a->ca_val > 0xff;
			req->fn = (req->fn & ~PCTR_CM_MASK) |
				  ((a->ca_val & 0xff) << PCTR_CM_SHIFT);
		} else if (!strcmp(a->ca_name, "edge")) {
			bad = cpc_attr_bit(&req->fn, PCTR_E, a->ca_val);
		} else if (!strcmp(a->ca_name, "inv")) {
			bad = cpc_attr_bit(&req->fn, PCTR_I, a->ca_val);
		} else if (!strcmp(a->ca_name, "anythr")) {
			bad = cpc_attr_bit(&req->fn, PCTR_ANY, a->ca_val);
		} else {
			return cpc_err(cpc, fn_name, CPC_INVALID_ATTRIBUTE,
				       EINVAL, "no attribute \"%s\"",
				       a->ca_name);
		}
		if (bad)
			return cpc_err(cpc, fn_name,
				       CPC_ATTRIBUTE_OUT_OF_RANGE, EINVAL,
				       "attribute %s: value %llu is out of range",
				       a->ca_name,
				       (unsigned long long)a->ca_val);
	}
	/* A fixed counter's event is the hardware's: nothing to qualify. */
	if (!(req->slots & cpc->general_slots) &&
	    (req->fn & CPC_FN_EVENT_BITS))
		return cpc_err(cpc, fn_name, CPC_PIC_NOT_CAPABLE, EINVAL,
			       "%s is counted by a fixed counter, which takes no umask, cmask, edge or inv",
			       req->event);
	return 0;
}

/* The slot @req's "picnum" attribute names; every slot without one. */
static uint64_t cpc_req_pic_slot(cpc_t *cpc, const struct cpc_request *req)
{
	unsigned int i;

	for (i = 0; i < req->nattrs; i++)
		if (!strcmp(req->attrs[i].ca_name, "picnum") &&
		    req->attrs[i].ca_val <= UINT32_MAX)
			return cpc_pic_slot(cpc, req->attrs[i].ca_val);
	return ~0ULL;
}

/*
 * Fill in @req's function and slots from its event, flags and
 * attributes.  -1 (reported) if they do not make a request.
 */
int cpc_resolve(cpc_t *cpc, const char *fn_name, struct cpc_request *req)
{
	const struct cpc_event *ev;
	const char *native;
	uint64_t code;
	int ret;

	ev = cpc_find_event_on(cpc, req->event, cpc_req_pic_slot(cpc, req));
	if (!ev) {
		native = cpc_generic_to_native(cpc, req->event);
		if (native)
			ev = cpc_find_event_on(cpc, native,
					       cpc_req_pic_slot(cpc, req));
	}
	if (ev) {
		req->fn = ev->fn;
		req->slots = ev->slots;
	} else if ((ret = cpc_parse_raw(req->event, &code)) != 0) {
		if (ret < 0)
			return cpc_err(cpc, fn_name, CPC_INVALID_EVENT, EINVAL,
				       "%s: a raw event code is 0x0 to 0x%x",
				       req->event, CPC_RAW_MAX);
		req->fn = PCTR_FN(code, 0, 0);
		req->slots = cpc->general_slots;
	} else {
		ret = cpc_pfm_encode(cpc, fn_name, req->event, req->flags,
				     &req->fn);
		if (ret < 0)
			return -1;
		if (!ret)
			return cpc_err(cpc, fn_name, CPC_INVALID_EVENT, EINVAL,
				       "no event named \"%s\" on %s",
				       req->event, cpc->cciname);
		req->slots = cpc->general_slots;
	}
	if (!req->slots)
		return cpc_err(cpc, fn_name, CPC_RESOURCE_UNAVAIL, EINVAL,
			       "%s: no counter can count it", req->event);
	if (cpc_apply_attrs(cpc, fn_name, req))
		return -1;
	if (req->flags & CPC_COUNT_USER)
		req->fn |= PCTR_U;
	if (req->flags & CPC_COUNT_SYSTEM)
		req->fn |= PCTR_K;
	/* Overflow notification: the kernel freezes and signals on wrap. */
	if (req->flags & CPC_OVF_NOTIFY_EMT)
		req->fn |= PCTR_INT;
	req->fn |= PCTR_EN;
	return 0;
}

void cpc_walk_events_all(cpc_t *cpc, void *arg,
			 void (*action)(void *arg, const char *event))
{
	unsigned int i;

	/* Each name once: a fixed counter's entry may repeat one. */
	for (i = 0; i < cpc->nevents; i++)
		if (cpc_find_event(cpc, cpc->events[i].name) == &cpc->events[i])
			action(arg, cpc->events[i].name);
}

void cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
			 void (*action)(void *arg, uint_t picno,
					const char *event))
{
	uint64_t slot = cpc_pic_slot(cpc, picno);
	unsigned int i;

	for (i = 0; slot && i < cpc->nevents; i++)
		if (cpc->events[i].slots & slot)
			action(arg, picno, cpc->events[i].name);
}

void cpc_walk_generic_events_all(cpc_t *cpc, void *arg,
				 void (*action)(void *arg, const char *event))
{
	unsigned int i;

	for (i = 0; i < sizeof(cpc_generic_events) /
			sizeof(cpc_generic_events[0]); i++)
		if (cpc_generic_native(cpc, &cpc_generic_events[i]))
			action(arg, cpc_generic_events[i].name);
}

void cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
				 void (*action)(void *arg, uint_t picno,
						const char *event))
{
	uint64_t slot = cpc_pic_slot(cpc, picno);
	const struct cpc_event *ev;
	const char *native;
	unsigned int i;

	for (i = 0; slot && i < sizeof(cpc_generic_events) /
				sizeof(cpc_generic_events[0]); i++) {
		native = cpc_generic_native(cpc, &cpc_generic_events[i]);
		ev = native ? cpc_find_event_on(cpc, native, slot) : NULL;
		if (ev && (ev->slots & slot))
			action(arg, picno, cpc_generic_events[i].name);
	}
}

static const char *const cpc_attr_names[] = {
	"picnum", "umask", "cmask", "edge", "inv", "anythr",
};

void cpc_walk_attrs(cpc_t *cpc, void *arg,
		    void (*action)(void *arg, const char *attr))
{
	unsigned int i;

	for (i = 0; i < sizeof(cpc_attr_names) / sizeof(cpc_attr_names[0]); i++) {
		if (!strcmp(cpc_attr_names[i], "anythr") &&
		    !(cpc->pc->info.pi_caps & PCTR_CAP_ANYTHREAD))
			continue;
		action(arg, cpc_attr_names[i]);
	}
}
