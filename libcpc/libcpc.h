/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libcpc: the Solaris CPU performance counter interface (cpc_open(3CPC),
 * cpc_set_create(3CPC), cpc_buf_create(3CPC), cpc_bind_curlwp(3CPC),
 * cpc_set_sample(3CPC), ...) on top of pctr (/dev/pctr, libpctr).
 *
 * A set is a list of requests, each an event with flags, attributes and a
 * 64-bit preset.  cpc_bind_curlwp() gives each request a pctr slot and
 * programs the calling thread's counters; cpc_set_sample() then reads
 * them from the thread's counter page, without a system call.
 *
 * Events may be named
 *   - by the backend's own names (PCIOCEVENT: "sim_ticks",
 *     "INSTRUCTION_RETIRED", "RETIRED_INSTRUCTIONS", ...);
 *   - by the generic PAPI names cpc_walk_generic_events_all() lists
 *     ("PAPI_tot_cyc", "PAPI_tot_ins", ...);
 *   - as a raw event select code, "0x<hex>" (0x0-0xfff; the unit mask and
 *     the rest come from the attributes);
 *   - when libcpc is built with libpfm4 and it knows the running CPU (or
 *     the one LIBPFM_FORCE_PMU names), by any libpfm4 name and modifiers
 *     ("INST_RETIRED:ANY_P", "BR_INST_RETIRED:ALL_BRANCHES:c=2").
 *
 * Attributes: "picnum" (the counter to use: 0 .. ngeneral-1 are the
 * general counters, ngeneral .. cpc_npic()-1 the fixed ones), "umask",
 * "cmask" (0-255), "edge", "inv", "anythr" (0 or 1).
 *
 * Overflow signals (CPC_OVF_NOTIFY_EMT) need a backend that can deliver
 * them (cpc_caps() has CPC_CAP_OVERFLOW_INTERRUPT; bind fails with
 * ENOTSUP without).  Linux has no SIGEMT on most architectures: there the
 * signal is SIGIO, pctr's default overflow signal, and SIGEMT is defined
 * to it below, with EMT_CPCOVF its si_code, so that Solaris programs build
 * unchanged.
 *
 * Bindings:
 *   - cpc_bind_curlwp(): the calling thread; with CPC_BIND_LWP_INHERIT
 *     also the threads and processes it creates afterwards, each with
 *     counters of its own that it samples, presets and restarts itself;
 *   - cpc_bind_cpu(): a CPU (needs CAP_PERFMON or CAP_SYS_ADMIN); the
 *     calling thread is pinned to it until cpc_unbind();
 *   - cpc_bind_pctx(): a thread of another process, captured with
 *     pctx_capture() (<libpctx.h>): the caller must be allowed to
 *     ptrace(2) it.
 */
#ifndef _LIBCPC_H
#define _LIBCPC_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/pctr.h>
#include <libpctx.h>		/* as Solaris's: pctx_t and its calls */

/* CPC_API (what the library exports) and pctx_t come from <libpctx.h>. */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What Solaris programs that use libcpc call without including its
 * header (cpc_bind_curlwp(3CPC)'s examples): strerror() and bzero(),
 * declared alone, because glibc's <string.h> and <strings.h> declare
 * index() with them, a name such a program may give a variable
 * (Example 2's "int index"); and _lwp_self(), the calling LWP's id,
 * here the kernel's thread id (gettid(2)): unique in the system, not
 * numbered from 1 within the process as Solaris numbers LWPs.  C++
 * gets <string.h> itself: a redeclaration there would have to match
 * the library's exception specifications.
 */
#ifdef __cplusplus
}
#include <string.h>	/* C++: the library's declarations, as they are */
extern "C" {
#else
extern char *strerror(int errnum);
extern void bzero(void *s, size_t n);
#endif
#ifndef _lwp_self
static inline __attribute__((unused)) int _lwp_self(void)
{
	return (int)syscall(SYS_gettid);
}
#endif

/* Solaris types the interface uses (uint_t also in <libpctx.h>). */
#ifndef _CPC_UINT_T
#define _CPC_UINT_T
typedef unsigned int uint_t;
#endif
typedef int64_t hrtime_t;
typedef int processorid_t;

typedef struct __cpc cpc_t;
typedef struct __cpc_set cpc_set_t;
typedef struct __cpc_buf cpc_buf_t;

typedef struct {
	char		*ca_name;
	uint64_t	ca_val;
} cpc_attr_t;

#define CPC_VER_NONE		0
#define CPC_VER_CURRENT		2

/*
 * Solaris's limits (<sys/cpc_impl.h> there): the longest event name,
 * attribute name, cpc_cciname() and cpc_cpuref() strings, each with its
 * NUL.  Names up to these lengths are accepted.
 */
#define CPC_MAX_EVENT_LEN	512
#define CPC_MAX_ATTR_LEN	32
#define CPC_MAX_IMPL_NAME	512
#define CPC_MAX_CPUREF		1024

/* cpc_set_add_request() flags. */
#define CPC_OVF_NOTIFY_EMT	0x1	/* signal SIGEMT at overflow */
#define CPC_COUNT_USER		0x2
#define CPC_COUNT_SYSTEM	0x4

/* cpc_bind_curlwp() flags. */
#define CPC_BIND_LWP_INHERIT	0x1	/* new threads and children count too */

/*
 * The overflow signal.  Where the architecture has no SIGEMT (x86, arm,
 * ...), it is SIGIO: pctr's default overflow signal, which libcpc keeps.
 * A program that catches SIGEMT then catches SIGIO, and should not use
 * SIGIO for I/O readiness itself.  Where SIGEMT exists (mips, sparc,
 * alpha), libcpc asks pctr for it.
 */
#ifndef SIGEMT
#define SIGEMT		SIGIO
#endif
/* siginfo si_code of an overflow signal (pctr's PCTR_SI_OVERFLOW). */
#ifndef EMT_CPCOVF
#define EMT_CPCOVF	PCTR_SI_OVERFLOW
#endif

/* cpc_caps() bits. */
#define CPC_CAP_OVERFLOW_INTERRUPT	0x1
#define CPC_CAP_OVERFLOW_PRECISE	0x2

/* What went wrong, as given to an error handler (cpc_seterrhndlr()). */
enum {
	CPC_INVALID_EVENT,		/* no such event */
	CPC_INVALID_PICNUM,		/* no such counter */
	CPC_INVALID_ATTRIBUTE,		/* no such attribute */
	CPC_ATTRIBUTE_OUT_OF_RANGE,	/* attribute value out of range */
	CPC_RESOURCE_UNAVAIL,		/* counters taken or absent */
	CPC_PIC_NOT_CAPABLE,		/* the counter cannot count it */
	CPC_REQ_INVALID_FLAGS,		/* bad request or bind flags */
	CPC_CONFLICTING_REQS,		/* requests cannot all be counted */
	CPC_ATTR_REQUIRES_PRIVILEGE,	/* attribute needs privilege */
	CPC_PBIND_FAILED,		/* the LWP is not (or no longer) pinned */
	CPC_HV_NO_ACCESS,		/* (hypervisor events, none) */
	CPC_INVALID_ARGUMENT,		/* anything else (pctr's addition) */
	CPC_NOT_SUPPORTED,		/* not possible here (pctr's) */
};

typedef void (cpc_errhndlr_t)(const char *fn, int subcode, const char *fmt,
			      va_list ap);

CPC_API cpc_t *cpc_open(int ver);
CPC_API int cpc_close(cpc_t *cpc);
CPC_API void cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn);

CPC_API cpc_set_t *cpc_set_create(cpc_t *cpc);
CPC_API int cpc_set_destroy(cpc_t *cpc, cpc_set_t *set);
CPC_API int cpc_set_add_request(cpc_t *cpc, cpc_set_t *set,
				const char *event, uint64_t preset,
				uint_t flags, uint_t nattrs,
				const cpc_attr_t *attrs);
CPC_API void cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
			       void (*action)(void *arg, int index,
					      const char *event,
					      uint64_t preset, uint_t flags,
					      int nattrs,
					      const cpc_attr_t *attrs));

CPC_API cpc_buf_t *cpc_buf_create(cpc_t *cpc, cpc_set_t *set);
CPC_API int cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf);
CPC_API int cpc_buf_get(cpc_t *cpc, cpc_buf_t *buf, int index,
			uint64_t *val);
CPC_API int cpc_buf_set(cpc_t *cpc, cpc_buf_t *buf, int index,
			uint64_t val);
CPC_API hrtime_t cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf);
CPC_API uint64_t cpc_buf_tick(cpc_t *cpc, cpc_buf_t *buf);
/* pctr's: request @index's enabled and running times at the sample. */
CPC_API int cpc_buf_times(cpc_t *cpc, cpc_buf_t *buf, int index,
			  uint64_t *enabled, uint64_t *running);
CPC_API void cpc_buf_sub(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a,
			 cpc_buf_t *b);
CPC_API void cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a,
			 cpc_buf_t *b);
CPC_API void cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src);
CPC_API void cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf);

CPC_API int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags);
CPC_API int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, id_t id, cpc_set_t *set,
			  uint_t flags);
CPC_API int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set,
			 uint_t flags);
CPC_API int cpc_unbind(cpc_t *cpc, cpc_set_t *set);
CPC_API int cpc_request_preset(cpc_t *cpc, int index, uint64_t preset);
CPC_API int cpc_set_restart(cpc_t *cpc, cpc_set_t *set);
CPC_API int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf);
CPC_API int cpc_enable(cpc_t *cpc);
CPC_API void cpc_terminate(cpc_t *cpc);
CPC_API int cpc_disable(cpc_t *cpc);

CPC_API uint_t cpc_npic(cpc_t *cpc);
CPC_API uint_t cpc_caps(cpc_t *cpc);
CPC_API const char *cpc_cciname(cpc_t *cpc);
CPC_API const char *cpc_cpuref(cpc_t *cpc);

CPC_API void cpc_walk_events_all(cpc_t *cpc, void *arg,
				 void (*action)(void *arg, const char *event));
CPC_API void cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
				 void (*action)(void *arg, uint_t picno,
						const char *event));
CPC_API void cpc_walk_generic_events_all(cpc_t *cpc, void *arg,
					 void (*action)(void *arg,
							const char *event));
CPC_API void cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
					 void (*action)(void *arg, uint_t picno,
							const char *event));
CPC_API void cpc_walk_attrs(cpc_t *cpc, void *arg,
			    void (*action)(void *arg, const char *attr));

/*
 * pctr's addition: the pctr function (uapi/linux/pctr.h) request @index
 * of @set is programmed with, and the slot it was given at the last
 * bind (-1 before).  For tools and tests.
 */
CPC_API int cpc_request_fn(cpc_t *cpc, cpc_set_t *set, int index,
			   uint64_t *fn, int *slot);

#ifdef __cplusplus
}
#endif

#endif /* _LIBCPC_H */
