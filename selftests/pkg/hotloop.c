// SPDX-License-Identifier: GPL-2.0
/*
 * hotloop: prove that libpctr's hot-loop reads make no system call.
 *
 * Built by testing/pkgtest against an installed libpctr (pkg-config), once
 * shared and once static, and run in a guest with pmu=sim.  It programs
 * slot 0 with the backend's first named event, maps its counter page,
 * then shuts itself in a seccomp sandbox where any system call but
 * read, write, exit and rt_sigreturn kills the process, and reads
 * pctr_read(p, 0) and pctr_vtsc(p) a million times, checking both only
 * ever go up.  A read that fell back to the PCIOCRD ioctl would have
 * killed it, so finishing at all proves the reads stayed in user space.
 * Page version 2 reads a counter inline only by rdpmc: where the page
 * says slot 0 has none (the sim), only pctr_vtsc() is read in the
 * sandbox, and the line says "slot0=ioctl".
 *
 * The sandbox is a seccomp filter with exactly the system calls
 * SECCOMP_MODE_STRICT allows, not strict mode itself: on x86 strict mode
 * also sets CR4.TSD for the thread (disable_TSC() in kernel/seccomp.c),
 * so the first rdtsc would fault.
 *
 *   hotloop            the test; exit 0 and a line "NAME: ok ..."
 *   hotloop --canary   the control: one ioctl in the sandbox, which must
 *                      kill it with SIGSYS
 *
 * Exit status: 0 passed, 1 a check failed, 2 could not set up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <pctr.h>

#define LOOPS		1000000

#if defined(__x86_64__)
#define HOTLOOP_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define HOTLOOP_AUDIT_ARCH	AUDIT_ARCH_I386
#else
#error "hotloop: no seccomp audit arch for this architecture"
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Allow system call @nr: fall through to the next test otherwise. */
#define ALLOW(nr)							\
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),		\
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static const char *name = "hotloop";

/* From here on, any system call but these four kills the process. */
static int enter_sandbox(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HOTLOOP_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		ALLOW(__NR_read),
		ALLOW(__NR_write),
		ALLOW(__NR_exit),
		ALLOW(__NR_rt_sigreturn),
#ifdef __NR_sigreturn
		ALLOW(__NR_sigreturn),
#endif
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = {
		.len	= ARRAY_SIZE(filter),
		.filter	= filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* A line built without stdio, which must not run in the sandbox. */
struct line {
	char	buf[256];
	size_t	len;
};

static void put_str(struct line *l, const char *s)
{
	while (*s && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = *s++;
}

static void put_u64(struct line *l, const char *label, uint64_t v)
{
	char digits[21];
	int n = 0;

	put_str(l, label);
	do {
		digits[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = digits[--n];
}

/* Write @l and end the thread: exit_group is not allowed in the sandbox. */
static void __attribute__((noreturn)) finish(struct line *l, int status)
{
	put_str(l, "\n");
	if (write(STDOUT_FILENO, l->buf, l->len) < 0)
		status = 1;
	for (;;)
		syscall(SYS_exit, status);
}

int main(int argc, char **argv)
{
	uint64_t c0, t0, c, t, pc, pt, tsc0, tsc1;
	unsigned long bad_c = 0, bad_t = 0;
	struct pctr_event ev;
	struct line l = { .len = 0 };
	struct pctrst st;
	int canary, ok, inl;
	pctr_t *p;
	long i;

	if (argc > 0 && argv[0][0]) {
		const char *s = strrchr(argv[0], '/');

		name = s ? s + 1 : argv[0];
	}
	canary = argc > 1 && !strcmp(argv[1], "--canary");

	p = pctr_open(O_RDWR);
	if (!p) {
		fprintf(stderr, "%s: pctr_open: %s\n", name,
			pctr_strerror(errno));
		return 2;
	}
	if (!p->info.pi_nevents) {
		fprintf(stderr, "%s: backend %s has no named events\n", name,
			p->info.pi_backend);
		return 2;
	}
	memset(&ev, 0, sizeof(ev));
	ev.pe_index = 0;
	if (ioctl(p->fd, PCIOCEVENT, &ev) < 0) {
		fprintf(stderr, "%s: PCIOCEVENT 0: %s\n", name,
			pctr_strerror(errno));
		return 2;
	}
	if (pctr_set_event(p, 0, ev.pe_name, PCTR_U | PCTR_K | PCTR_EN) < 0) {
		fprintf(stderr, "%s: pctr_set_event(0, %s): %s\n", name,
			ev.pe_name, pctr_strerror(errno));
		return 2;
	}
	if (pctr_map(p) < 0) {
		fprintf(stderr, "%s: pctr_map: %s\n", name,
			pctr_strerror(errno));
		return 2;
	}
	if (pctr_page2_->p2_version != PCTR_PAGE2_VERSION) {
		fprintf(stderr, "%s: counter page version %u, expected %u\n",
			name, pctr_page2_->p2_version, PCTR_PAGE2_VERSION);
		return 2;
	}
	inl = pctr_page2_->p2_slot[0].p2s_index >= 0;
	printf("%s: backend %s, slot 0 counts %s; entering the sandbox\n",
	       name, p->info.pi_backend, ev.pe_name);
	fflush(stdout);
	if (enter_sandbox() < 0) {
		fprintf(stderr, "%s: seccomp: %s\n", name, strerror(errno));
		return 2;
	}

	if (canary) {
		/* What a fallback does: this must be the end of us. */
		pctr_read_all(p, &st);
		put_str(&l, name);
		put_str(&l, ": FAIL: the sandbox let an ioctl through");
		finish(&l, 1);
	}

	tsc0 = rdtsc();
	pc = c0 = inl ? pctr_read(p, 0) : 0;
	pt = t0 = pctr_vtsc(p);
	for (i = 0; i < LOOPS; i++) {
		c = inl ? pctr_read(p, 0) : pc + 1;
		t = pctr_vtsc(p);
		if (c < pc)
			bad_c++;
		if (t < pt)
			bad_t++;
		pc = c;
		pt = t;
	}
	tsc1 = rdtsc();

	ok = !bad_c && !bad_t && pc > c0 && pt > t0 && !p->fallbacks;
	put_str(&l, name);
	put_str(&l, ok ? ": ok" : ": FAIL");
	put_u64(&l, " reads=", (inl ? 2ULL : 1ULL) * LOOPS);
	if (inl) {
		put_u64(&l, " slot0=", c0);
		put_u64(&l, "..", pc);
	} else {
		put_str(&l, " slot0=ioctl");
	}
	put_u64(&l, " vtsc=", t0);
	put_u64(&l, "..", pt);
	put_u64(&l, " backwards=", bad_c);
	put_u64(&l, "/", bad_t);
	put_u64(&l, " retries=", p->retries);
	put_u64(&l, " fallbacks=", p->fallbacks);
	put_u64(&l, " tsc_per_iter=", (tsc1 - tsc0) / LOOPS);
	finish(&l, ok ? 0 : 1);
}
