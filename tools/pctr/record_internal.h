/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pctr record's own parts (record.c: the command line, the events, the
 * ring and the command; record_file.c: the file and draining the rings
 * into it; record_follow.c: what is mapped, attaching to
 * running processes and following the tracees with ptrace;
 * record_system.c: every thread on some CPUs, -a).
 */
#ifndef _PCTR_TOOLS_RECORD_INTERNAL_H
#define _PCTR_TOOLS_RECORD_INTERNAL_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pctr.h"

#define EXIT_FAIL	1
#define EXIT_USAGE	2

extern const char *rec_prog;
#define fail(status, ...)	tool_fail(rec_prog, status, __VA_ARGS__)

/* A descriptor's ring, mapped, and what was read from it so far. */
struct ring {
	int			fd;
	struct pctr_ring_attr	ra;
	char			*base;
	struct pctr_ring_cpu	*cpu;
	uint64_t		samples;
	uint64_t		lost;
	uint64_t		throttles;	/* the CPUs' sample-rate limit */
	uint64_t		throttled;	/* samples not taken for it */
};

/* The file being written (record_file.c). */
extern FILE *rec_out;
FILE *rec_file_open(const char *path, int text);
void rec_file_flush(void);

/* What every attached thread (-p) or CPU (-a) samples. */
struct attach_setup {
	uint64_t		fn;
	unsigned int		slot, pages, watermark;
	struct pctr_sample_attr	sa;
};
extern struct attach_setup attach_setup;

/* ^C or SIGTERM seen (-p). */
extern volatile sig_atomic_t rec_interrupted;
void rec_on_signal(int sig);
pid_t rec_run(char **cmd);

uint64_t tsc_now(void);
uint64_t ms_now(void);
void drain(struct ring *r);
int ring_open(struct ring *r, int fd, unsigned int pages,
	      unsigned int watermark);
void __attribute__((noreturn)) ring_error(int err);
int sample_start(int fd, struct pctr_sample_attr *sa);

/* The maps of process @pid, exec generation @gen, read from @from. */
void snapshot(const char *from, pid_t pid, unsigned int gen);
void comm_snapshot(const char *from, pid_t pid);

enum follow {
	TRACEES_GONE,		/* no tracee left */
	NO_EVENT,		/* none due now */
	TRACEE_STOPPED,		/* a ptrace stop, dealt with */
	TRACEE_ENDED,		/* a thread ended */
};
enum follow follow_event(pid_t *w, int *st, int attached);
void record_attach(const pid_t *pids, unsigned int npids, int inherit,
		   double secs, char **cmd, struct ring *tot);

/* record_system.c: -a. */
void record_system(const unsigned int *cpus, unsigned int ncpus,
		   double secs, char **cmd, struct ring *tot, int *status);
void system_sample_seen(const struct pctr_sample_rec *rec);

#endif /* _PCTR_TOOLS_RECORD_INTERNAL_H */
