// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libcpc: the handle (cpc_open, cpc_close) and what the CPU offers
 * (cpc_caps, cpc_cciname, cpc_cpuref).  The top of libcpc: see cpc_private.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpc_private.h"
#include "events_private.h"

static void cpc_make_cciname(cpc_t *cpc)
{
	const struct pctr_info *in = &cpc->pc->info;
	int n;

	n = snprintf(cpc->cciname, sizeof(cpc->cciname),
		     "pctr %.16s: %.16s family %u model %u",
		     in->pi_backend, in->pi_vendor[0] ? in->pi_vendor : "-",
		     in->pi_cpu_family, in->pi_cpu_model);
	if (in->pi_backend_id == PCTR_BACKEND_INTEL && n > 0 &&
	    (size_t)n < sizeof(cpc->cciname))
		snprintf(cpc->cciname + n, sizeof(cpc->cciname) - n,
			 ", perfmon v%u", in->pi_version);
}

/*
 * Open the counters.  Fails with EINVAL for another version, ENOTSUP
 * when pctr has no counters here (no module, or pmu=none), and with
 * open(2)'s errno otherwise.
 */
cpc_t *cpc_open(int ver)
{
	const struct pctr_info *in;
	cpc_t *cpc;
	int err;

	if (ver != CPC_VER_CURRENT) {
		errno = EINVAL;
		return NULL;
	}
	cpc = calloc(1, sizeof(*cpc));
	if (!cpc)
		return NULL;
	cpc->pc = pctr_open(O_RDWR);
	cpc->writable = 1;
	if (!cpc->pc && (errno == EACCES || errno == EPERM)) {
		/* Readable only: events and info, but no binding. */
		cpc->pc = pctr_open(O_RDONLY);
		cpc->writable = 0;
	}
	if (!cpc->pc) {
		err = errno == ENOENT || errno == ENODEV || errno == ENXIO ?
		      ENOTSUP : errno;
		goto fail;
	}
	in = &cpc->pc->info;
	if (!(in->pi_caps & PCTR_CAP_COUNTERS)) {
		err = ENOTSUP;
		goto fail;
	}
	cpc->general_slots = in->pi_ngeneral >= PCTR_MAX_GENERAL ?
			     (1ULL << PCTR_MAX_GENERAL) - 1 :
			     (1ULL << in->pi_ngeneral) - 1;
	cpc->fixed_slots = (in->pi_nfixed >= PCTR_MAX_FIXED ?
			    (1ULL << PCTR_MAX_FIXED) - 1 :
			    (1ULL << in->pi_nfixed) - 1) << PCTR_FIXED_BASE;
	if (cpc_load_events(cpc)) {
		err = errno;
		goto fail;
	}
	cpc_make_cciname(cpc);
	cpc_self_init_();
	return cpc;
fail:
	if (cpc->pc)
		pctr_close(cpc->pc);
	free(cpc);
	errno = err;
	return NULL;
}

/* Unbind and free every set and buffer, then the handle. */
int cpc_close(cpc_t *cpc)
{
	struct __cpc_buf *b, *nb;
	cpc_set_t *set;

	if (!cpc)
		return 0;
	/* Nothing is freed while another thread counts with a set. */
	for (set = cpc->sets; set; set = set->next)
		if (cpc_set_bound_elsewhere_(set))
			return cpc_err(cpc, __func__, CPC_INVALID_ARGUMENT,
				       EINVAL,
				       "a set is bound to another thread: unbind it there first");
	while (cpc->sets)
		cpc_set_destroy(cpc, cpc->sets);
	for (b = cpc->bufs; b; b = nb) {
		nb = b->next;
		free(b);
	}
	free(cpc->events);
	pctr_close(cpc->pc);
	free(cpc);
	return 0;
}

/*
 * With pctr's overflow notification the counter that overflowed is known
 * exactly: only a request with CPC_OVF_NOTIFY_EMT signals, and only its
 * own wrap does (precise in Solaris's sense; si_addr is where the thread
 * was when the kernel noticed, which may be a little after the event).
 */
uint_t cpc_caps(cpc_t *cpc)
{
	if (cpc->pc->info.pi_caps & PCTR_CAP_NOTIFY)
		return CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE;
	return 0;
}

const char *cpc_cciname(cpc_t *cpc)
{
	return cpc->cciname;
}

const char *cpc_cpuref(cpc_t *cpc)
{
	switch (cpc->pc->info.pi_backend_id) {
	case PCTR_BACKEND_INTEL:
		return "See the chapter \"Performance Monitoring\" and the event tables of the Intel 64 and IA-32 Architectures Software Developer's Manual, Volume 3, and perfmon-events.intel.com for the model's events.";
	case PCTR_BACKEND_AMD:
		return "See \"Performance Monitor Counters\" in the AMD64 Architecture Programmer's Manual, Volume 2, and the Processor Programming Reference (PPR) or BIOS and Kernel Developer's Guide (BKDG) of the processor's family.";
	case PCTR_BACKEND_SIM:
		return "pctr's simulated PMU (pmu=sim): events derived from the TSC, for tests; see pctr's Documentation/design.rst.";
	}
	return "See pctr(4) for the counters pctr drives on this CPU.";
}
