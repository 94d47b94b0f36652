/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libpctr: a thin C library over /dev/pctr (uapi/linux/pctr.h).
 *
 * Errors are returned as -1 with errno set, as the kernel gave them;
 * pctr_strerror() says what an errno means for pctr.
 *
 * Hot-loop reads: after pctr_map(), pctr_read() and pctr_vtsc() read the
 * calling thread's 64-bit virtual counters and virtual TSC from the
 * thread's counter page with rdpmc or rdtsc and a few loads, with no
 * system call, retrying when the thread was switched in between.  Where
 * a slot cannot be read that way they fall back to the PCIOCRD ioctl.
 *
 * Two page layouts (uapi/linux/pctr.h): a program built with this header
 * reads version 2, where a counting slot is one offset plus rdpmc and
 * the page is found through a thread-local pointer that pctr_map() sets
 * (pctr_page2_), so a read always reads the calling thread's own page:
 * pctr_read() and pctr_vtsc() read the calling thread's counters whatever
 * handle they are given, as PCIOCRD does; a thread that mapped no page
 * of its own gets EINVAL for a handle another thread mapped.  A program
 * built with PCTR_PAGE_V1 defined before including this header (or built
 * before version 2) reads version 1 through the handle: there a handle
 * read from a thread other than the one that mapped it (or a forked
 * child) fails with EINVAL, the check being one thread-local load and a
 * compare (pctr_thread_id_ against the handle's owner).  pctr_map() says
 * which layout the kernel is to keep: the version 1 function is the
 * symbol pctr_map, version 2's pctr_map2.
 */
#ifndef _PCTR_LIB_H
#define _PCTR_LIB_H

#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <linux/pctr.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCTR_DEVICE	"/dev/pctr"

/*
 * The library's exported functions.  libpctr is built with
 * -fvisibility=hidden: only what is marked PCTR_API is exported from
 * libpctr.so, with symbol version LIBPCTR_1 (lib/libpctr.map).
 */
#if defined(__GNUC__) && __GNUC__ >= 4
#define PCTR_API	__attribute__((visibility("default")))
#else
#define PCTR_API
#endif

typedef struct pctr {
	int			fd;
	struct pctr_info	info;
	/*
	 * The calling thread's counter page, once pctr_map() made it: the
	 * mapping, whose layout is version 1 only for a PCTR_PAGE_V1 program.
	 */
	const volatile struct pctr_page *page;
	/* Inline reads retried because the thread was switched meanwhile. */
	unsigned long		retries;
	/* Inline reads that had to fall back to the ioctl. */
	unsigned long		fallbacks;
	/* pctr_thread_id_ of the thread that mapped the page. */
	unsigned long		owner;
} pctr_t;

/*
 * The calling thread's id for the inline reads' thread check: 0 until
 * the thread's first pctr_map(), then unique in the process (a forked
 * child starts again at 0).  Initial-exec, so that reading it is one
 * load from the thread pointer, in libraries too.
 */
PCTR_API extern __thread unsigned long pctr_thread_id_
	__attribute__((tls_model("initial-exec")));

/* Open /dev/pctr (or $PCTR_DEVICE); flags is O_RDONLY or O_RDWR. */
PCTR_API pctr_t *pctr_open(int flags);
PCTR_API void pctr_close(pctr_t *p);
/*
 * Map the calling thread's counter page (creates its context): version
 * 1.  pctr_map2() maps version 2 and makes it the page the calling
 * thread's inline reads read.
 */
PCTR_API int pctr_map(pctr_t *p);
PCTR_API int pctr_map2(pctr_t *p);

/*
 * All slots, as PCIOCRD gives them: by the ioctl.  pctr_read_all2()
 * reads them from version 2 of the calling thread's page when the handle
 * is the one it mapped and every programmed slot can be read inline.
 */
PCTR_API int pctr_read_all(pctr_t *p, struct pctrst *st);
PCTR_API int pctr_read_all2(pctr_t *p, struct pctrst *st);

/*
 * A program reads version 2 unless it defines PCTR_PAGE_V1 first: its
 * pctr_map() and pctr_read_all() are then the version 2 functions.
 */
#ifndef PCTR_PAGE_V1
#define pctr_map(p)		pctr_map2(p)
#define pctr_read_all(p, st)	pctr_read_all2(p, st)
#endif
PCTR_API int pctr_set(pctr_t *p, unsigned int slot, uint64_t fn);
/* Set a slot to a named event (PCIOCEVENT), with PCTR_U/K/EN in flags. */
PCTR_API int pctr_set_event(pctr_t *p, unsigned int slot, const char *name,
			    uint64_t flags);
PCTR_API int pctr_event_fn(pctr_t *p, const char *name, uint64_t *fn);
PCTR_API int pctr_zero(pctr_t *p);
/* End the calling thread's counters and page (libcpc's cpc_unbind). */
PCTR_API int pctr_release(pctr_t *p);
PCTR_API int pctr_preset(pctr_t *p, unsigned int slot, uint64_t value);
/* What an errno from a pctr call means, in pctr's terms. */
PCTR_API const char *pctr_strerror(int err);
PCTR_API const char *pctr_backend_reason(char *buf, unsigned int len);

/* --- inline helpers, as pctr(4) has them ------------------------------ */

/* The time-stamp counter. */
static inline uint64_t rdtsc(void)
{
#if defined(__x86_64__)
	uint64_t lo, hi;	/* the halves come zero-extended */

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return hi << 32 | lo;
#elif defined(__i386__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#elif defined(__sparc__) && defined(__arch64__)
	uint64_t t;

	/* %tick: the cycle counter, which Linux lets user mode read. */
	__asm__ __volatile__("rd %%tick, %0" : "=r"(t));
	return t;
#else
	return 0;
#endif
}

/* The TSC, once earlier instructions are done; *aux gets TSC_AUX (CPU). */
static inline uint64_t rdtscp(uint32_t *aux)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi, c;

	__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(c));
	if (aux)
		*aux = c;
	return ((uint64_t)hi << 32) | lo;
#elif defined(__sparc__) && defined(__arch64__)
	uint64_t t;

	/* membar #Sync: every earlier instruction done first. */
	__asm__ __volatile__("membar #Sync\n\trd %%tick, %0" : "=r"(t) : : "memory");
	if (aux)
		*aux = 0;
	return t;
#else
	if (aux)
		*aux = 0;
	return 0;
#endif
}

/*
 * Read performance counter @ctr (an rdpmc index: ps_rdpmc - 1 from the
 * page).  Faults unless the kernel allowed it for this thread.  On
 * sparc64 it is "rd %pic" (SIGILL while PCR.PRIV is set), @ctr choosing
 * its low (PIC0) or high (PIC1) half.
 */
static inline uint64_t rdpmc(uint32_t ctr)
{
#if defined(__x86_64__)
	uint64_t lo, hi;	/* the halves come zero-extended */

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ctr));
	return hi << 32 | lo;
#elif defined(__i386__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ctr));
	return ((uint64_t)hi << 32) | lo;
#elif defined(__sparc__) && defined(__arch64__)
	uint64_t pic;

	/* %asr17 is the PIC, assembled without -Av9a. */
	__asm__ __volatile__("rd %%asr17, %0" : "=r"(pic));
	return (pic >> (32 * (ctr & 1))) & 0xffffffffULL;
#else
	(void)ctr;
	return 0;
#endif
}

/* A full compiler barrier. */
#define pctr_barrier()	__asm__ __volatile__("" ::: "memory")

/*
 * The ioctl, for what the page cannot give: slots @i to @i + @n - 1 into
 * @vals.  Version 1's inline reads call it here, version 2's from
 * libpctr's slow paths.
 */
static inline int pctr_read_slow_(pctr_t *p, uint64_t *vals, unsigned int i,
				  unsigned int n)
{
	struct pctrst st;
	unsigned int k;

	if (i + n > PCTR_NUM) {
		errno = EINVAL;
		return -1;
	}
	p->fallbacks++;
	if (ioctl(p->fd, PCIOCRD, &st) < 0)
		return -1;
	for (k = 0; k < n; k++)
		vals[k] = st.pctr_hwc[i + k];
	return 0;
}

/*
 * PCIOCRDX, for the times the page cannot give: slot @i's value, its
 * times in *enabled and *running.  pctr_read_times()'s fallback.
 */
static inline uint64_t pctr_read_times_slow_(pctr_t *p, unsigned int i,
					     uint64_t *enabled,
					     uint64_t *running)
{
	struct pctrstx st;

	if (i >= PCTR_NUM) {
		errno = EINVAL;
		return (uint64_t)-1;
	}
	p->fallbacks++;
	if (ioctl(p->fd, PCIOCRDX, &st) < 0)
		return (uint64_t)-1;
	*enabled = st.pctr_enabled[i];
	*running = st.pctr_running[i];
	return st.pctr_st.pctr_hwc[i];
}

/* The times block of the page whose version 1 layout is at @pg. */
#define pctr_times_of_(pg) ((const volatile struct pctr_page_times *) \
	((const volatile char *)(pg) + PCTR_PAGE_TIMES_START))

#ifdef PCTR_PAGE_V1

/*
 * Keep the page's loads on their side of rdtsc/rdpmc without making the
 * compiler forget everything else (the caller's handle stays in a
 * register): the barrier claims to read and write the page only.
 */
#define pctr_barrier_(pg) \
	__asm__ __volatile__("" : "+m"(*(struct pctr_page *)(uintptr_t)(pg)))

/*
 * Slot's raw counter value now, or 0 with *ok = 0 if it has no recipe.
 * *tsc is the TSC sample simulated slots share (0: not taken yet), so
 * that slots read together are read at one instant, as one read() of
 * the simulated registers would.
 */
static inline uint64_t pctr_raw_(const volatile struct pctr_page *pg,
				 const volatile struct pctr_page_slot *ps,
				 int *ok, uint64_t *tsc)
{
	uint64_t t, lim, per;

	if (ps->ps_rdpmc)
		return rdpmc(ps->ps_rdpmc - 1);
	per = ps->ps_sim_period;
	if (per) {
		if (!*tsc)
			*tsc = rdtsc();
		t = *tsc;
		lim = pg->pg_sim_limit;
		if (t > lim)
			t = lim;
		if (per == 1)
			return ps->ps_sim_val + (t - ps->ps_sim_t0);
		return ps->ps_sim_val + (t / per - ps->ps_sim_t0 / per);
	}
	*ok = 0;
	return 0;
}

/* A slot's virtual value from the page; *ok = 0 if it has no recipe. */
static inline uint64_t pctr_slot_(const volatile struct pctr_page *pg,
				  const volatile struct pctr_page_slot *ps,
				  int *ok, uint64_t *tsc)
{
	uint64_t v = ps->ps_sum;

	if (ps->ps_mask)
		v += (pctr_raw_(pg, ps, ok, tsc) - ps->ps_prev) & ps->ps_mask;
	return v;
}

/* Wait out an update; 0 if the page cannot be read inline at all. */
static inline int pctr_seq_busy_(pctr_t *p)
{
	if (p->page->pg_flags & PCTR_PG_DEAD)
		return 0;
	p->retries++;
	return 1;
}

/*
 * Version 1's sequence at the start of a read, into *@seq: 1 once it is
 * even (no update under way), 0 if the page is dead (read by ioctl).
 */
static inline int pctr_seq_begin_(pctr_t *p,
				  const volatile struct pctr_page *pg,
				  uint32_t *seq)
{
	for (;;) {
		*seq = pg->pg_seq;
		pctr_barrier_(pg);
		if (!(*seq & 1))
			return 1;
		if (!pctr_seq_busy_(p))
			return 0;
	}
}

/* Is the handle's page the calling thread's?  One thread-local load. */
static inline int pctr_mine_(const pctr_t *p)
{
	return __builtin_expect(p->owner == pctr_thread_id_, 1);
}

/*
 * Slots @first..@first+@n-1 from one consistent view of page @pg, with
 * no thread check: 1 when done, 0 when the page cannot give them (a
 * dead page, or a slot with no recipe).
 */
static inline int pctr_view_(pctr_t *p, const volatile struct pctr_page *pg,
			     uint64_t *vals, unsigned int first,
			     unsigned int n)
{
	unsigned int i;
	uint64_t tsc;
	uint32_t seq;
	int ok;

	for (;;) {
		if (!pctr_seq_begin_(p, pg, &seq))
			return 0;
		/* Invalid (EIO; an older module's CPU binding: EAGAIN). */
		if (pg->pg_flags & PCTR_PG_INVALID)
			return 0;
		ok = 1;
		tsc = 0;
		for (i = 0; i < n; i++)
			vals[i] = pctr_slot_(pg, &pg->pg_slot[first + i], &ok,
					     &tsc);
		pctr_barrier_(pg);
		if (pg->pg_seq == seq)
			return ok;
		p->retries++;
	}
}

/*
 * As pctr_view_(), from the handle's page: 0 without one, and -1 with
 * errno EINVAL when the calling thread did not map it (its values would
 * be another thread's, and the ioctl would read the caller's instead).
 */
static inline int pctr_read_page_(pctr_t *p, uint64_t *vals,
				  unsigned int first, unsigned int n)
{
	const volatile struct pctr_page *pg = p->page;

	if (!pg)
		return 0;
	if (!pctr_mine_(p)) {
		errno = EINVAL;
		return -1;
	}
	return pctr_view_(p, pg, vals, first, n);
}

/*
 * The calling thread's 64-bit virtual value of slot @i, without a system
 * call when the page allows it.  (uint64_t)-1 with errno set on error:
 * EINVAL for a bad slot or a handle another thread mapped.
 */
static inline uint64_t pctr_read(pctr_t *p, unsigned int i)
{
	uint64_t v = 0;
	int r;

	if (i < PCTR_NUM) {
		r = pctr_read_page_(p, &v, i, 1);
		if (r > 0)
			return v;
		if (r < 0)
			return (uint64_t)-1;
	}
	if (pctr_read_slow_(p, &v, i, 1))
		return (uint64_t)-1;
	return v;
}

/* Slots 0..n-1 at once, from one consistent view of the page. */
static inline int pctr_read_n(pctr_t *p, uint64_t *vals, unsigned int n)
{
	int r;

	if (n > PCTR_NUM)
		n = PCTR_NUM;
	r = pctr_read_page_(p, vals, 0, n);
	if (r > 0)
		return 0;
	if (r < 0)
		return -1;
	return pctr_read_slow_(p, vals, 0, n);
}

/* The virtual TSC from page @pg, with no thread check. */
static inline uint64_t pctr_vtsc_view_(pctr_t *p,
				       const volatile struct pctr_page *pg)
{
	uint64_t v;
	uint32_t seq;

	for (;;) {
		seq = pg->pg_seq;
		pctr_barrier_(pg);
		v = pg->pg_vtsc_off + rdtsc();
		pctr_barrier_(pg);
		/* One test for "unchanged and even": the common case. */
		if (__builtin_expect(((pg->pg_seq ^ seq) | (seq & 1)) == 0, 1))
			return v;
		if ((seq & 1) && (pg->pg_flags & PCTR_PG_DEAD))
			return pg->pg_vtsc_off;
		p->retries++;
	}
}

/*
 * The calling thread's virtual TSC: TSC cycles it has run since its
 * context was made (libcpc's cpc_buf_tick).  Needs pctr_map(); 0 without,
 * and the final figure once the context has ended.  (uint64_t)-1 with
 * errno EINVAL when another thread mapped the handle's page.
 */
static inline uint64_t pctr_vtsc(pctr_t *p)
{
	const volatile struct pctr_page *pg = p->page;

	if (!pg)
		return 0;
	if (!pctr_mine_(p)) {
		errno = EINVAL;
		return (uint64_t)-1;
	}
	return pctr_vtsc_view_(p, pg);
}

/*
 * The calling thread's 64-bit virtual value of slot @i, with the slot's
 * enabled and running times (PCIOCRDX's: TSC cycles) in *enabled and
 * *running: from the page, with no system call, when the slot is read
 * inline there (it counts now); by PCIOCRDX otherwise (a slot with no
 * recipe, a starving or stopped one, a module older than the page's
 * times).  (uint64_t)-1 with errno set on error, as pctr_read(); ENOTTY
 * from a module older than PCIOCRDX.
 */
static inline uint64_t pctr_read_times(pctr_t *p, unsigned int i,
				       uint64_t *enabled, uint64_t *running)
{
	const volatile struct pctr_page *pg = p->page;
	const volatile struct pctr_page_slot *ps;
	uint64_t v, t, tsc;
	uint32_t seq;
	int ok;

	if (pg && i < PCTR_NUM) {
		if (!pctr_mine_(p)) {
			errno = EINVAL;
			return (uint64_t)-1;
		}
		ps = &pg->pg_slot[i];
		for (;;) {
			if (!pctr_seq_begin_(p, pg, &seq))
				break;
			if ((pg->pg_flags & (PCTR_PG_TIMES | PCTR_PG_INVALID)) !=
			    PCTR_PG_TIMES || !ps->ps_mask)
				break;
			ok = 1;
			tsc = 0;
			v = pctr_slot_(pg, ps, &ok, &tsc);
			/* A simulated slot's TSC sample serves the times too. */
			t = pg->pg_vtsc_off + (tsc ? tsc : rdtsc());
			*enabled = t + pctr_times_of_(pg)->pt_enabled_off[i];
			*running = t + pctr_times_of_(pg)->pt_running_off[i];
			pctr_barrier_(pg);
			if (pg->pg_seq == seq) {
				if (ok)
					return v;
				break;
			}
			p->retries++;
		}
	}
	return pctr_read_times_slow_(p, i, enabled, running);
}

#else /* page version 2 */

/*
 * Keep the page's loads on their side of rdtsc/rdpmc without making the
 * compiler forget everything else: the barrier claims to read and write
 * the page only.
 */
#define pctr_barrier2_(pg) \
	__asm__ __volatile__("" : "+m"(*(struct pctr_page2 *)(uintptr_t)(pg)))

/*
 * rdpmc and rdtsc between the loads of page @pg's two sequences.  On
 * x86-64 with no barrier: the page's fields are volatile, which keeps
 * their loads in program order, and neither GCC nor clang moves a
 * volatile load across a volatile asm (GCC schedules no instruction
 * across one; clang takes it to touch memory).  A barrier that claimed
 * to write memory would keep the compiler from leaving other loads (the
 * handle, for the slow path) out of the fast path.
 */
static inline uint64_t pctr_rdpmc2_(const volatile struct pctr_page2 *pg,
				    int32_t idx)
{
#if defined(__x86_64__)
	uint64_t lo, hi;

	(void)pg;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return hi << 32 | lo;
#else
	uint64_t v;

	pctr_barrier2_(pg);
	v = rdpmc(idx);
	pctr_barrier2_(pg);
	return v;
#endif
}

static inline uint64_t pctr_rdtsc2_(const volatile struct pctr_page2 *pg)
{
#if defined(__x86_64__)
	uint64_t lo, hi;

	(void)pg;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return hi << 32 | lo;
#else
	uint64_t v;

	pctr_barrier2_(pg);
	v = rdtsc();
	pctr_barrier2_(pg);
	return v;
#endif
}

/*
 * The calling thread's version 2 page, set by pctr_map(); until then (and
 * in a forked child, and after pctr_release()) a page of the library's
 * on which nothing reads inline, so that the reads need no test for it.
 * Initial-exec: reading it is one load from the thread pointer.
 */
PCTR_API extern __thread const volatile struct pctr_page2 *pctr_page2_
	__attribute__((tls_model("initial-exec")));

/* The slow paths, out of line: the page's rules, then the ioctl. */
PCTR_API uint64_t pctr_read_slow2_(pctr_t *p, unsigned int i)
	__attribute__((cold, noinline));
PCTR_API int pctr_read_n_slow2_(pctr_t *p, uint64_t *vals, unsigned int n)
	__attribute__((cold, noinline));
PCTR_API uint64_t pctr_vtsc_slow2_(pctr_t *p)
	__attribute__((cold, noinline));
PCTR_API uint64_t pctr_read_times_slow2_(pctr_t *p, unsigned int i,
					 uint64_t *enabled, uint64_t *running)
	__attribute__((cold, noinline));

/*
 * The calling thread's 64-bit virtual value of slot @i, without a system
 * call when the page allows it: one offset plus rdpmc, between two loads
 * of the page's sequence.  (uint64_t)-1 with errno set on error: EINVAL
 * for a bad slot, or for a handle another thread mapped when the calling
 * thread has no page.
 */
static inline uint64_t pctr_read(pctr_t *p, unsigned int i)
{
	const volatile struct pctr_page2 *pg = pctr_page2_;
	uint64_t v;
	uint32_t seq;
	int32_t idx;

	if (__builtin_expect(i < PCTR_NUM, 1)) {
		seq = pg->p2_seq;
		idx = pg->p2_slot[i].p2s_index;
		v = pg->p2_slot[i].p2s_off;
		if (__builtin_expect(idx >= 0, 1)) {
			v += pctr_rdpmc2_(pg, idx);
			if (__builtin_expect(pg->p2_seq_end == seq, 1))
				return v;
		}
	}
	return pctr_read_slow2_(p, i);
}

/*
 * Slots 0..n-1 at once, from one consistent view of the page (a free
 * slot reads 0); the ioctl when one of them cannot be read inline.
 */
static inline int pctr_read_n(pctr_t *p, uint64_t *vals, unsigned int n)
{
	const volatile struct pctr_page2 *pg = pctr_page2_;
	uint32_t seq, live;
	unsigned int k;
	int32_t idx;

	if (n > PCTR_NUM)
		n = PCTR_NUM;
	seq = pg->p2_seq;
	live = pg->p2_live;
	for (k = 0; k < n; k++) {
		vals[k] = 0;
		if (!(live & (1U << k)))
			continue;
		idx = pg->p2_slot[k].p2s_index;
		if (idx < 0)
			return pctr_read_n_slow2_(p, vals, n);
		vals[k] = pg->p2_slot[k].p2s_off + pctr_rdpmc2_(pg, idx);
	}
	if (__builtin_expect(pg->p2_seq_end == seq, 1))
		return 0;
	return pctr_read_n_slow2_(p, vals, n);
}

/*
 * The calling thread's virtual TSC: TSC cycles it has run since its
 * context was made (libcpc's cpc_buf_tick).  Needs pctr_map(); 0 without,
 * and the final figure once the context has ended.  (uint64_t)-1 with
 * errno EINVAL for a handle another thread mapped when the calling
 * thread has no page.
 */
static inline uint64_t pctr_vtsc(pctr_t *p)
{
	const volatile struct pctr_page2 *pg = pctr_page2_;
	uint32_t seq;
	uint64_t v;

	seq = pg->p2_seq;
	v = pg->p2_vtsc_off + pctr_rdtsc2_(pg);
	if (__builtin_expect(pg->p2_seq_end == seq, 1))
		return v;
	return pctr_vtsc_slow2_(p);
}

/*
 * The calling thread's 64-bit virtual value of slot @i, with the slot's
 * enabled and running times (PCIOCRDX's: TSC cycles) in *enabled and
 * *running: from the page when the slot is read inline there (one
 * offset plus rdpmc, the virtual TSC plus one offset each), by PCIOCRDX
 * otherwise (a slot not read inline, a module older than the page's
 * times).  (uint64_t)-1 with errno set on error, as pctr_read(); ENOTTY
 * from a module older than PCIOCRDX.
 */
static inline uint64_t pctr_read_times(pctr_t *p, unsigned int i,
				       uint64_t *enabled, uint64_t *running)
{
	const volatile struct pctr_page2 *pg = pctr_page2_;
	const volatile struct pctr_page_times *pt;
	uint64_t v, t;
	uint32_t seq;
	int32_t idx;

	if (__builtin_expect(i < PCTR_NUM, 1)) {
		seq = pg->p2_seq;
		idx = pg->p2_slot[i].p2s_index;
		/* The library's page for a thread with none has no times. */
		if (__builtin_expect(idx >= 0 &&
				     (pg->p2_flags & PCTR_PG_TIMES), 1)) {
			pt = pctr_times_of_((const volatile char *)pg -
					    PCTR_PAGE2_START);
			v = pg->p2_slot[i].p2s_off + pctr_rdpmc2_(pg, idx);
			t = pg->p2_vtsc_off + pctr_rdtsc2_(pg);
			*enabled = t + pt->pt_enabled_off[i];
			*running = t + pt->pt_running_off[i];
			if (__builtin_expect(pg->p2_seq_end == seq, 1))
				return v;
		}
	}
	return pctr_read_times_slow2_(p, i, enabled, running);
}

#endif /* PCTR_PAGE_V1 */

#ifdef __cplusplus
}
#endif

#endif /* _PCTR_LIB_H */
