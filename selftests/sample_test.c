// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling (PCIOCRING, PCIOCSAMPLE, the ring's protocol) at the ioctl
 * level, on a backend with overflow interrupts (the simulated PMU in
 * make check).
 *
 * The sim counts TSC ticks, and its overflow freeze is exact: a sampling
 * slot and a counting slot given the same event count the same events,
 * so the counting slot's total N, the samples S, the period P and what
 * the sampling slot counted since its last sample k obey N = S * P + k
 * exactly (on a PMU with skid, within a sample).  A period the CPU's
 * sample-rate limit throttled is not recorded but counted (S then
 * includes the throttle records' skipped samples).
 *
 * The fixture turns the time limit (cpu_time_max_percent) off, since a
 * slow guest's interrupts may reach it: each test sees every period it
 * asks for unless it sets a limit itself (throttled, throttled_time).
 */
#include "pctr_test.h"

#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"

/* Every test on the simulated PMU, whatever the bench loaded. */
RELOAD_FIXTURE(sample, "pmu=sim cpu_time_max_percent=0");

#define MAX_SAMPLE_RATE	"/sys/module/pctr/parameters/max_sample_rate"
#define CPU_TIME_PCT	"/sys/module/pctr/parameters/cpu_time_max_percent"

#define PERIOD		2000

/*
 * The user call chain is walked on x86-64 only (EOPNOTSUPP elsewhere):
 * CHAIN asks for it where it is; where it is not, the tiny ring fills
 * with plain records, more of them (TINY_PERIOD).
 */
#ifdef __x86_64__
#define CHAIN		PCTR_SA_CALLCHAIN
#define TINY_PERIOD	200
#else
#define CHAIN		0
#define TINY_PERIOD	40
#endif

struct ring {
	int			fd;
	struct pctr_ring_attr	ra;
	char			*base;
	struct pctr_ring_ctl	*ctl;
	struct pctr_ring_cpu	*cpu;
};

/* What the records read so far said. */
struct seen {
	uint64_t	samples;
	uint64_t	lost;
	uint64_t	bad;		/* records that do not parse */
	uint64_t	kaddr;		/* kernel addresses anywhere */
	uint64_t	kchain;		/* ... in a user call chain */
	uint64_t	kframes;	/* samples with kernel frames */
	uint64_t	kframe_bad;	/* ... one not a kernel address */
	uint64_t	user;
	uint64_t	in_chain;	/* chains with an address in [lo, hi) */
	uint64_t	lo, hi;
	uint64_t	tmin, tmax;
	unsigned int	fmin, fmax;
	uint64_t	throttles;	/* throttle records: starts */
	uint64_t	by_rate, by_time;	/* ... and why */
	uint64_t	ends;		/* ... ends */
	uint64_t	skipped;	/* samples the ends say were not taken */
	uint64_t	rc_throttles;	/* the rings' counts of starts */
	pid_t		pids[8];
	pid_t		tids[8];
	unsigned int	npids, ntids;
};

static int sampling_ok(int fd)
{
	struct pctr_info in;

	return !ioctl(fd, PCIOCINFO, &in) && (in.pi_caps & PCTR_CAP_NOTIFY) &&
	       in.pi_backend_id == PCTR_BACKEND_SIM;
}

static int ring_open(struct ring *r, unsigned int pages)
{
	memset(r, 0, sizeof(*r));
	r->fd = open(PCTR_DEV, O_RDWR);
	if (r->fd < 0)
		return -1;
	r->ra.ra_pages = pages;
	if (ioctl(r->fd, PCIOCRING, &r->ra))
		return -1;
	r->base = mmap(NULL, r->ra.ra_mmap_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, r->fd, PCTR_RING_OFFSET);
	if (r->base == MAP_FAILED)
		return -1;
	r->ctl = (struct pctr_ring_ctl *)r->base;
	r->cpu = (struct pctr_ring_cpu *)(r->ctl + 1);
	return 0;
}

static void ring_close(struct ring *r)
{
	munmap(r->base, r->ra.ra_mmap_size);
	close(r->fd);
}

static int is_kaddr(uint64_t a)
{
	return a >= 0xffff800000000000ULL;
}

static void note(pid_t *v, unsigned int *n, pid_t x)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (v[i] == x)
			return;
	if (*n < 8)
		v[(*n)++] = x;
}

/* Read every CPU's records, giving the space back. */
static void drain(struct ring *r, struct seen *s)
{
	unsigned int c, i, knr;

	s->lost = 0;
	s->rc_throttles = 0;
	for (c = 0; c < r->ra.ra_ncpu; c++) {
		struct pctr_ring_cpu *rc = &r->cpu[c];
		char *data = r->base + r->ra.ra_ctl_size + c * r->ra.ra_data_size;
		uint64_t head = __atomic_load_n(&rc->rc_head, __ATOMIC_ACQUIRE);
		uint64_t tail = rc->rc_tail;
		struct pctr_sample_rec *rec;

		while ((rec = ring_next(data, r->ra.ra_data_size, &tail, head,
					&s->bad))) {
			if (rec->sr_type == PCTR_REC_PAD)
				continue;
			if (rec->sr_type == PCTR_REC_THROTTLE) {
				struct pctr_throttle_rec *t = (void *)rec;

				if (t->tr_size != sizeof(*t) ||
				    t->tr_cpu != c || t->tr_reserved0) {
					s->bad++;
				} else if (t->tr_flags == PCTR_TR_END) {
					s->ends++;
					s->skipped += t->tr_skipped;
				} else {
					s->throttles++;
					s->by_rate += t->tr_flags == PCTR_TR_RATE;
					s->by_time += t->tr_flags == PCTR_TR_TIME;
					if (t->tr_skipped)
						s->bad++;
				}
				continue;
			}
			if (rec->sr_type != PCTR_REC_SAMPLE ||
			    rec->sr_size != sizeof(*rec) + 8 * rec->sr_nr ||
			    rec->sr_cpu != c) {
				s->bad++;
				continue;
			}
			s->samples++;
			if (!s->tmin || rec->sr_tsc < s->tmin) {
				s->tmin = rec->sr_tsc;
				s->fmin = rec->sr_flags;
			}
			if (rec->sr_tsc > s->tmax) {
				s->tmax = rec->sr_tsc;
				s->fmax = rec->sr_flags;
			}
			if (rec->sr_flags & PCTR_SR_USER)
				s->user++;
			if (is_kaddr(rec->sr_ip))
				s->kaddr++;
			note(s->pids, &s->npids, rec->sr_pid);
			note(s->tids, &s->ntids, rec->sr_tid);
			if (s->samples == 1)
				printf("# first sample: flags %#x ip %#llx nr %u chain[0] %#llx\n",
				       rec->sr_flags, (unsigned long long)rec->sr_ip,
				       rec->sr_nr, rec->sr_nr ?
				       (unsigned long long)rec->sr_chain[0] : 0ULL);
			/* PCTR_SA_KCHAIN: the kernel's frames open the chain. */
			knr = PCTR_SR_KNR(rec->sr_flags);
			if (knr > rec->sr_nr || (knr && !(rec->sr_flags & PCTR_SR_KADDR)))
				s->bad++;
			if (knr)
				s->kframes++;
			for (i = 0; i < knr && i < rec->sr_nr; i++)
				s->kframe_bad += !is_kaddr(rec->sr_chain[i]);
			for (i = knr; i < rec->sr_nr; i++) {
				if (is_kaddr(rec->sr_chain[i])) {
					s->kaddr++;
					s->kchain++;
				}
				if (rec->sr_chain[i] >= s->lo &&
				    rec->sr_chain[i] < s->hi) {
					s->in_chain++;
					break;
				}
			}
		}
		__atomic_store_n(&rc->rc_tail, tail, __ATOMIC_RELEASE);
		s->lost += rc->rc_lost;
		s->rc_throttles += rc->rc_throttles;
	}
}

static int start_sampling(struct ring *r, uint32_t flags, uint64_t period)
{
	struct pctr_sample_attr sa = {
		.sa_slot = 0, .sa_flags = flags,
		.sa_fn = FNU(EV_DIV), .sa_period = period,
	};
	struct pctr_preset ps = { .ps_ctr = 1 };

	/*
	 * Slot 1 counts the same events, for the exact check: set up while
	 * disabled, both start at the same instant.
	 */
	if (ioctl(r->fd, PCIOCS64(1), &(uint64_t){ FNU(EV_DIV) }) ||
	    ioctl(r->fd, PCIOCDISABLE) ||
	    ioctl(r->fd, PCIOCSAMPLE, &sa) ||
	    ioctl(r->fd, PCIOCPRESET, &ps))
		return -1;
	return ioctl(r->fd, PCIOCENABLE);
}

static volatile uint64_t sink;

static void burn(double secs, int syscalls)
{
	double end = now_sec() + secs;
	unsigned int i;

	while (now_sec() < end)
		for (i = 0; i < 10000; i++) {
			sink += i;
			if (syscalls && !(i % 64))
				syscall(SYS_getppid);
		}
}

/* Three frames with frame pointers: the samples' chains pass outer(). */
__attribute__((noinline, optimize("no-omit-frame-pointer")))
static void inner(double secs)
{
	burn(secs, 0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, optimize("no-omit-frame-pointer")))
static void outer(double secs)
{
	inner(secs);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void outer_end(void)
{
	__asm__ volatile("");
}

/* N = S * P + k, and every record parses. */
TEST_F(sample, exact_count)
{
	struct seen s = {};
	struct ring r;
	struct pctrst st;
	uint64_t n, k;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, ring_open(&r, 64));
	if (!sampling_ok(r.fd))
		SKIP(return, "backend cannot interrupt");
	uint64_t t0 = rdtsc(), t1;
	ASSERT_EQ(0, start_sampling(&r, 0, PERIOD));
	t1 = rdtsc();
	/*
	 * Half a second, and more until a score of periods have passed: on
	 * sparc64 (%tick at 100 MHz) a period is 20 ms, and the sim stops
	 * counting from an overflow until its interrupt runs, so a loaded
	 * host can leave few periods in a fixed time.
	 */
	burn(0.5, 0);
	for (int i = 0; i < 200; i++) {
		ASSERT_EQ(0, ioctl(r.fd, PCIOCRD, &st));
		if (st.pctr_hwc[1] >= 20 * PERIOD)
			break;
		burn(0.1, 0);
	}
	ASSERT_EQ(0, ioctl(r.fd, PCIOCDISABLE));
	ASSERT_EQ(0, ioctl(r.fd, PCIOCRD, &st));
	/* A throttle still on ends with the sampling, and says so. */
	ASSERT_EQ(0, ioctl(r.fd, PCIOCRELEASE));
	drain(&r, &s);
	TH_LOG("start %llu..%llu first %llu (%#x) last %llu (%#x) end %llu", (unsigned long long)t0, (unsigned long long)t1,
	       (unsigned long long)s.tmin, s.fmin, (unsigned long long)s.tmax, s.fmax, (unsigned long long)st.pctr_tsc);
	n = st.pctr_hwc[1];
	k = st.pctr_hwc[0] + PERIOD;
	TH_LOG("N %llu S %llu k %llu lost %llu", (unsigned long long)n,
	       (unsigned long long)s.samples, (unsigned long long)k,
	       (unsigned long long)s.lost);
	EXPECT_EQ(0, s.bad);
	EXPECT_EQ(0, s.lost);
	EXPECT_LT(k, PERIOD);
	EXPECT_GT(s.samples, 10);
	EXPECT_EQ(n, (s.samples + s.skipped) * PERIOD + k);
	EXPECT_EQ(1, s.npids);
	EXPECT_EQ(getpid(), s.pids[0]);
	EXPECT_EQ(gettid(), s.tids[0]);
	EXPECT_GT(s.user, 0);
	ring_close(&r);
}

/* A one-page ring not read meanwhile: records lost, counted, none torn. */
TEST_F(sample, tiny_ring_loses)
{
	struct seen s = {};
	struct ring r;
	struct pctrst st;
	uint64_t n, cap;
	double t0;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, ring_open(&r, 1));
	if (!sampling_ok(r.fd))
		SKIP(return, "backend cannot interrupt");
	ASSERT_EQ(0, start_sampling(&r, CHAIN, TINY_PERIOD));
	/*
	 * Until more periods have passed than every ring could hold at the
	 * smallest record: the sim counts time, and a starved vCPU once
	 * burnt 0.5 s for 80 periods, which a ring held whole.
	 */
	cap = r.ra.ra_ncpu * (r.ra.ra_data_size /
			      sizeof(struct pctr_sample_rec));
	t0 = now_sec();
	do {
		burn(0.1, 0);
		ASSERT_EQ(0, ioctl(r.fd, PCIOCRD, &st));
	} while (st.pctr_hwc[1] / TINY_PERIOD <= 2 * cap && now_sec() - t0 < 60);
	ASSERT_EQ(0, ioctl(r.fd, PCIOCDISABLE));
	ASSERT_EQ(0, ioctl(r.fd, PCIOCRD, &st));
	drain(&r, &s);
	n = st.pctr_hwc[1];
	TH_LOG("N/P %llu S %llu lost %llu throttles %llu",
	       (unsigned long long)(n / TINY_PERIOD),
	       (unsigned long long)s.samples, (unsigned long long)s.lost,
	       (unsigned long long)s.rc_throttles);
	EXPECT_EQ(0, s.bad);
	EXPECT_GT(s.lost, 0);
	EXPECT_GT(s.samples, 0);
	/* Lost records may be throttles': none may have happened. */
	EXPECT_EQ(0, s.rc_throttles);
	EXPECT_EQ(n / TINY_PERIOD, s.samples + s.lost);
	ring_close(&r);
}

/* A throttled run: what its records said, its counts, its length. */
struct throttled {
	struct seen	s;
	struct pctrst	st;
	double		secs;
};

/*
 * Sample with a period far below the CPU's limit (@rate a second, @pct
 * of a tick): the slot is throttled, tick after tick, and its ring says
 * so, in records all well formed, each throttle with its end.  False if
 * the backend cannot interrupt.
 */
static bool run_throttled(struct __test_metadata *_metadata,
			  struct throttled *t, const char *rate,
			  const char *pct)
{
	struct seen *s = &t->s;
	struct pctrst *st = &t->st;
	struct ring r;
	double t0;

	memset(t, 0, sizeof(*t));
	ASSERT_EQ(0, write_text(MAX_SAMPLE_RATE, rate));
	ASSERT_EQ(0, write_text(CPU_TIME_PCT, pct));
	ASSERT_EQ(0, ring_open(&r, 64));
	if (!sampling_ok(r.fd)) {
		ring_close(&r);
		return false;
	}
	/*
	 * A period of one event: the sim freezes at each and interrupts as
	 * fast as it may (every 10 us at most), exactly at the wrap.
	 */
	ASSERT_EQ(0, start_sampling(&r, 0, 1));
	t0 = now_sec();
	burn(0.5, 1);
	ASSERT_EQ(0, ioctl(r.fd, PCIOCDISABLE));
	t->secs = now_sec() - t0;
	ASSERT_EQ(0, ioctl(r.fd, PCIOCRD, st));
	ASSERT_EQ(0, ioctl(r.fd, PCIOCRELEASE));
	drain(&r, s);
	TH_LOG("%.2f s: N %llu S %llu throttles %llu (rate %llu, time %llu; ring %llu) ends %llu skipped %llu lost %llu",
	       t->secs, (unsigned long long)st->pctr_hwc[1],
	       (unsigned long long)s->samples,
	       (unsigned long long)s->throttles,
	       (unsigned long long)s->by_rate, (unsigned long long)s->by_time,
	       (unsigned long long)s->rc_throttles,
	       (unsigned long long)s->ends, (unsigned long long)s->skipped,
	       (unsigned long long)s->lost);
	EXPECT_EQ(0, s->bad);
	EXPECT_EQ(s->throttles, s->ends);
	ring_close(&r);
	return true;
}

/*
 * max_sample_rate: at 1000 a second, a period of one event (the sim's
 * interrupts then come as fast as it raises them) takes at most that
 * many samples a second; each throttle has its start and its end, the
 * rings count the starts, and every period is a sample or a skipped one.
 */
TEST_F(sample, throttled)
{
	struct throttled t;

	RETURN_IF_SKIPPED();
	if (!run_throttled(_metadata, &t, "1000", "0"))
		SKIP(return, "backend cannot interrupt");
	EXPECT_EQ(0, t.s.lost);
	EXPECT_GT(t.s.throttles, 0);
	EXPECT_EQ(t.s.throttles, t.s.by_rate);
	EXPECT_EQ(t.s.throttles, t.s.rc_throttles);
	EXPECT_GT(t.s.skipped, t.s.samples);
	/* 1000 a second, per tick: a tick more for where it started. */
	EXPECT_LE(t.s.samples, 1000 * t.secs + 1000 / 100 + 1);
	EXPECT_EQ(t.st.pctr_hwc[1],
		  t.s.samples + t.s.skipped + t.st.pctr_hwc[0] + 1);
}

/*
 * cpu_time_max_percent: at 1 % of a tick, the rate left unlimited, the
 * interrupts' own time throttles the slot.
 */
TEST_F(sample, throttled_time)
{
	struct throttled t;

	RETURN_IF_SKIPPED();
	if (!run_throttled(_metadata, &t, "2147483647", "1"))
		SKIP(return, "backend cannot interrupt");
	EXPECT_GT(t.s.by_time, 0);
	EXPECT_EQ(0, t.s.by_rate);
}

/* The limits' parameters refuse what they cannot mean. */
TEST_F(sample, throttle_parameters)
{
	RETURN_IF_SKIPPED();
	EXPECT_EQ(100000, read_long(MAX_SAMPLE_RATE));
	EXPECT_EQ(-1, write_text(MAX_SAMPLE_RATE, "0"));
	EXPECT_EQ(-1, write_text(CPU_TIME_PCT, "101"));
	EXPECT_EQ(0, write_text(CPU_TIME_PCT, "25"));
	EXPECT_EQ(25, read_long(CPU_TIME_PCT));
}

/* With PCTR_SA_CALLCHAIN the chains pass through outer(). */
TEST_F(sample, callchain)
{
	struct seen s = {};
	struct ring r;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, ring_open(&r, 64));
	if (!sampling_ok(r.fd))
		SKIP(return, "backend cannot interrupt");
	s.lo = (uintptr_t)outer;
	s.hi = (uintptr_t)outer_end;
	if (s.hi <= s.lo || s.hi - s.lo > 4096)
		s.hi = s.lo + 256;
#ifndef __x86_64__
	/* No chain walker here: refused, not always empty. */
	EXPECT_EQ(-1, start_sampling(&r, PCTR_SA_CALLCHAIN, PERIOD));
	EXPECT_EQ(EOPNOTSUPP, errno);
	ring_close(&r);
	return;
#endif
	ASSERT_EQ(0, start_sampling(&r, PCTR_SA_CALLCHAIN, PERIOD));
	outer(0.5);
	ASSERT_EQ(0, ioctl(r.fd, PCIOCDISABLE));
	drain(&r, &s);
	TH_LOG("outer() %p..%p burn %p", (void *)outer, (void *)outer_end, (void *)burn);
	TH_LOG("S %llu through outer() %llu", (unsigned long long)s.samples,
	       (unsigned long long)s.in_chain);
	EXPECT_EQ(0, s.bad);
	EXPECT_GT(s.samples, 10);
	/* Nearly all: a sample in burn()'s prologue may miss a frame. */
	EXPECT_GE(s.in_chain * 10, s.samples * 8);
	ring_close(&r);
}

/*
 * Half a second of work with many system calls, so that samples land in
 * the kernel, sampled with @flags into @s.  False if the backend cannot
 * interrupt.
 */
static bool sample_syscalls(struct __test_metadata *_metadata,
			    uint32_t flags, struct seen *s)
{
	struct ring r;

	ASSERT_EQ(0, ring_open(&r, 64));
	if (!sampling_ok(r.fd)) {
		ring_close(&r);
		return false;
	}
	ASSERT_EQ(0, start_sampling(&r, flags, 500));
	burn(0.5, 1);
	ASSERT_EQ(0, ioctl(r.fd, PCIOCDISABLE));
	drain(&r, s);
	ring_close(&r);
	return true;
}

/*
 * Many system calls, so that samples land in the kernel: none has a
 * kernel address unless the caller may count kernel events.
 */
TEST_F(sample, kernel_addresses)
{
	struct seen s = {};
	int priv;

	RETURN_IF_SKIPPED();
	if (!sample_syscalls(_metadata, CHAIN, &s))
		SKIP(return, "backend cannot interrupt");
	priv = geteuid() == 0;
	TH_LOG("S %llu user %llu kernel addresses %llu (uid %d)",
	       (unsigned long long)s.samples, (unsigned long long)s.user,
	       (unsigned long long)s.kaddr, (int)geteuid());
	EXPECT_EQ(0, s.bad);
	EXPECT_GT(s.samples, 10);
	/* Some samples were in the kernel. */
	EXPECT_LT(s.user, s.samples);
	if (!priv)
		EXPECT_EQ(0, s.kaddr);
}

/*
 * PCTR_SA_KCHAIN: a sample in the kernel gets the kernel's own frames,
 * kernel addresses all, for whom may see them (root here, where the
 * arch can walk them: x86-64), and none for another user.
 */
TEST_F(sample, kernel_chain)
{
	struct seen s = {};
	int want;

	RETURN_IF_SKIPPED();
	/* Where there is no call chain, no kernel frames either. */
	if (!sample_syscalls(_metadata, CHAIN ? CHAIN | PCTR_SA_KCHAIN : 0, &s))
		SKIP(return, "backend cannot interrupt");
#if defined(__x86_64__)
	want = geteuid() == 0;
#else
	want = 0;
#endif
	TH_LOG("S %llu user %llu with kernel frames %llu (uid %d)",
	       (unsigned long long)s.samples, (unsigned long long)s.user,
	       (unsigned long long)s.kframes, (int)geteuid());
	EXPECT_EQ(0, s.bad);
	EXPECT_GT(s.samples, 10);
	if (want) {
		EXPECT_GT(s.kframes, 0);
	} else {
		EXPECT_EQ(0, s.kframes);
	}
#if defined(__x86_64__)
	/* Kernel addresses by x86-64's split: where each belongs. */
	EXPECT_EQ(0, s.kframe_bad);
	EXPECT_EQ(0, s.kchain);
#endif
}

/*
 * Spin with %rbp on a frame whose "return address" is a kernel address,
 * as code built without frame pointers may leave it.  The frame is the
 * caller's, above this function's %rsp as a real one is (a leaf's own
 * locals may sit below it, in the red zone).
 */
#if defined(__x86_64__)
__attribute__((noinline))
static void forged_frame_spin(volatile uint64_t *frame, unsigned long n)
{
	frame[0] = (uintptr_t)&frame[2];
	frame[1] = 0xffffffff81000000ULL;
	frame[2] = 0;
	frame[3] = 0;
	__asm__ volatile("push %%rbp\n\t"
			 "mov %1, %%rbp\n"
			 "1:\tdec %0\n\t"
			 "jnz 1b\n\t"
			 "pop %%rbp"
			 : "+c"(n) : "S"(frame) : "cc", "memory");
}
#else
/* The frame-pointer walk is x86-64's (driver/sample.c); nothing here. */
static void forged_frame_spin(volatile uint64_t *frame, unsigned long n)
{
	(void)frame;
	(void)n;
}
#endif

/*
 * A call chain holds user return addresses only: a frame whose return
 * address is no user address ends the walk, whoever samples.
 */
TEST_F(sample, forged_frame_ends_the_chain)
{
	volatile uint64_t frame[4];
	struct seen s = {};
	struct ring r;
	double end;

	RETURN_IF_SKIPPED();
#if !defined(__x86_64__)
	SKIP(return, "call chains are walked on x86-64 only");
#endif
	ASSERT_EQ(0, ring_open(&r, 64));
	if (!sampling_ok(r.fd))
		SKIP(return, "backend cannot interrupt");
	ASSERT_EQ(0, start_sampling(&r, PCTR_SA_CALLCHAIN, PERIOD));
	end = now_sec() + 0.5;
	while (now_sec() < end)
		forged_frame_spin(frame, 1000000);
	ASSERT_EQ(0, ioctl(r.fd, PCIOCDISABLE));
	drain(&r, &s);
	TH_LOG("S %llu user %llu kernel addresses in chains %llu",
	       (unsigned long long)s.samples, (unsigned long long)s.user,
	       (unsigned long long)s.kchain);
	EXPECT_EQ(0, s.bad);
	EXPECT_GT(s.user, 10);
	EXPECT_EQ(0, s.kchain);
	ring_close(&r);
}

static void *thread_spin(void *arg)
{
	*(pid_t *)arg = gettid();
	burn(0.3, 0);
	return NULL;
}

/* PCTR_O_INHERIT: a thread and a child process sample into the ring. */
TEST_F(sample, inherit)
{
	struct pctr_opts o = { .po_flags = PCTR_O_INHERIT };
	struct seen s = {};
	struct ring r;
	pthread_t t;
	pid_t tid = 0, child;
	unsigned int i;
	int st, tid_seen = 0, child_seen = 0;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, ring_open(&r, 64));
	if (!sampling_ok(r.fd))
		SKIP(return, "backend cannot interrupt");
	ASSERT_EQ(0, start_sampling(&r, 0, PERIOD));
	ASSERT_EQ(0, ioctl(r.fd, PCIOCSOPTS, &o));
	ASSERT_EQ(0, pthread_create(&t, NULL, thread_spin, &tid));
	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		burn(0.3, 0);
		_exit(0);
	}
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(child, waitpid(child, &st, 0));
	ASSERT_EQ(0, ioctl(r.fd, PCIOCDISABLE));
	drain(&r, &s);
	for (i = 0; i < s.ntids; i++)
		tid_seen |= s.tids[i] == tid;
	for (i = 0; i < s.npids; i++)
		child_seen |= s.pids[i] == child;
	TH_LOG("S %llu pids %u tids %u", (unsigned long long)s.samples,
	       s.npids, s.ntids);
	EXPECT_EQ(0, s.bad);
	EXPECT_TRUE(tid_seen);
	EXPECT_TRUE(child_seen);
	ring_close(&r);
}

/* The descriptor closed and unmapped while the thread samples on. */
TEST_F(sample, close_while_sampling)
{
	struct ring r;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, ring_open(&r, 1));
	if (!sampling_ok(r.fd))
		SKIP(return, "backend cannot interrupt");
	ASSERT_EQ(0, start_sampling(&r, CHAIN, 100));
	ASSERT_EQ(0, munmap(r.base, r.ra.ra_mmap_size));
	ASSERT_EQ(0, close(r.fd));
	burn(0.2, 1);
	r.fd = open(PCTR_DEV, O_RDWR);
	ASSERT_GE(r.fd, 0);
	ASSERT_EQ(0, ioctl(r.fd, PCIOCRELEASE));
	ring_close(&r);
}

/*
 * A thread binding samples (pctr record -p): PCIOCSAMPLE on a descriptor
 * bound to another process's thread puts a slot of that thread's context
 * in sampling mode into the descriptor's ring.  Its arguments are
 * checked as the caller's own; the binder must still trace the thread;
 * the records carry the thread's pid and tid; the binder may turn the
 * counting off and on (PCIOCDISABLE, PCIOCENABLE); once the binding
 * ends the thread samples no more and may count for itself.
 */
TEST_F(sample, bound_thread_samples)
{
	struct pctr_sample_attr sa = {
		.sa_slot = 0, .sa_fn = FNU(EV_DIV), .sa_period = PERIOD,
	};
	struct pctr_bind b = { .pb_kind = PCTR_BIND_THREAD };
	struct seen s = {}, s2 = {};
	struct ring r;
	int fd, st, p[2];
	uint64_t fn = FNU(EV_DIV);
	char c;
	pid_t pid;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, ring_open(&r, 16));
	if (!sampling_ok(r.fd))
		SKIP(return, "backend cannot interrupt");
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		/* Spins until told; then its own counters, with their errno. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* a failed test's too */
		close(p[1]);
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		while (read(p[0], &c, 1) != 1)
			burn(0.01, 0);
		fd = open(PCTR_DEV, O_RDWR);
		_exit(fd < 0 ? 100 : ioctl(fd, PCIOCS64(2), &fn) ? errno : 0);
	}
	close(p[0]);
	b.pb_id = pid;
	b.pb_fn[0] = FNU(EV_DIV);
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, pid, 0, 0));
	ASSERT_EQ(0, ioctl(r.fd, PCIOCBIND, &b)) TH_LOG("%s", strerror(errno));
	/* Checked as the caller's own. */
	sa.sa_slot = PCTR_NUM;
	EXPECT_EQ(-1, ioctl(r.fd, PCIOCSAMPLE, &sa));
	EXPECT_EQ(EINVAL, errno);
	sa.sa_slot = 0;
	sa.sa_period = 0;
	EXPECT_EQ(-1, ioctl(r.fd, PCIOCSAMPLE, &sa));
	EXPECT_EQ(EINVAL, errno);
	sa.sa_period = PERIOD;
	/* Another binder: the thread is bound already. */
	fd = open(PCTR_DEV, O_RDWR);
	ASSERT_GE(fd, 0);
	b.pb_fn[0] = 0;
	b.pb_fn[1] = FNU(EV_DIV);
	EXPECT_EQ(-1, ioctl(fd, PCIOCBIND, &b));
	EXPECT_EQ(EBUSY, errno);
	close(fd);
	ASSERT_EQ(0, ioctl(r.fd, PCIOCSAMPLE, &sa)) TH_LOG("%s", strerror(errno));
	usleep(300000);
	drain(&r, &s);
	TH_LOG("S %llu pids %u (%d) tids %u lost %llu",
	       (unsigned long long)s.samples, s.npids, s.pids[0], s.ntids,
	       (unsigned long long)s.lost);
	EXPECT_EQ(0, s.bad);
	EXPECT_GT(s.samples, 5);
	EXPECT_EQ(1, s.npids);
	EXPECT_EQ(pid, s.pids[0]);
	EXPECT_EQ(1, s.ntids);
	EXPECT_EQ(pid, s.tids[0]);
	/* The binder turns it off: nothing more until it turns it on. */
	ASSERT_EQ(0, ioctl(r.fd, PCIOCDISABLE)) TH_LOG("%s", strerror(errno));
	drain(&r, &s2);
	memset(&s2, 0, sizeof(s2));
	usleep(200000);
	drain(&r, &s2);
	EXPECT_EQ(0, s2.samples);
	ASSERT_EQ(0, ioctl(r.fd, PCIOCENABLE));
	usleep(200000);
	drain(&r, &s2);
	EXPECT_GT(s2.samples, 3);
	ASSERT_EQ(0, interrupt_detach(pid));
	/* No longer its tracer: no more changes. */
	EXPECT_EQ(-1, ioctl(r.fd, PCIOCSAMPLE, &sa));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, ioctl(r.fd, PCIOCDISABLE));
	EXPECT_EQ(EPERM, errno);
	/* Released: the thread samples no more ... */
	ASSERT_EQ(0, ioctl(r.fd, PCIOCRELEASE));
	usleep(100000);
	drain(&r, &s2);
	memset(&s2, 0, sizeof(s2));
	usleep(200000);
	drain(&r, &s2);
	EXPECT_EQ(0, s2.samples);
	/* ... and counts for itself. */
	ASSERT_EQ(1, write(p[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	close(p[1]);
	munmap(r.base, r.ra.ra_mmap_size);
	close(r.fd);
}

/* The ABI's refusals. */
TEST_F(sample, refusals)
{
	struct pctr_sample_attr sa = {
		.sa_fn = FNU(EV_DIV), .sa_period = 100,
	};
	struct pctr_ring_attr ra = { .ra_pages = 3 };
	int fd = open(PCTR_DEV, O_RDWR);
	void *p;

	RETURN_IF_SKIPPED();
	ASSERT_GE(fd, 0);
	if (!sampling_ok(fd))
		SKIP(return, "backend cannot interrupt");
	/* No ring yet. */
	EXPECT_EQ(-1, ioctl(fd, PCIOCSAMPLE, &sa));
	EXPECT_EQ(ENXIO, errno);
	EXPECT_EQ(-1, ioctl(fd, PCIOCRING, &ra));
	EXPECT_EQ(EINVAL, errno);
	ra.ra_pages = 1;
	ASSERT_EQ(0, ioctl(fd, PCIOCRING, &ra));
	EXPECT_EQ(-1, ioctl(fd, PCIOCRING, &ra));
	EXPECT_EQ(EBUSY, errno);
	/* Never executable, never private. */
	p = mmap(NULL, ra.ra_mmap_size, PROT_READ | PROT_EXEC, MAP_SHARED, fd,
		 PCTR_RING_OFFSET);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, ra.ra_mmap_size, PROT_READ, MAP_PRIVATE, fd,
		 PCTR_RING_OFFSET);
	EXPECT_EQ(MAP_FAILED, p);
	sa.sa_period = 0;
	EXPECT_EQ(-1, ioctl(fd, PCIOCSAMPLE, &sa));
	EXPECT_EQ(EINVAL, errno);
	sa.sa_period = 100;
	sa.sa_reserved[0] = 1;
	EXPECT_EQ(-1, ioctl(fd, PCIOCSAMPLE, &sa));
	EXPECT_EQ(EINVAL, errno);
	/* Kernel frames only as part of a call chain. */
	sa.sa_reserved[0] = 0;
	sa.sa_flags = PCTR_SA_KCHAIN;
	EXPECT_EQ(-1, ioctl(fd, PCIOCSAMPLE, &sa));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

TEST_HARNESS_MAIN
