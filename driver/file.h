/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An open descriptor of /dev/pctr (or /dev/perfmon): what it holds,
 * made and freed by file.c at open and last close.  Each part is kept
 * by the file named beside it; they reach it from the struct file.
 */
#ifndef _PCTR_FILE_H
#define _PCTR_FILE_H

#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct pctr_cpub;
struct pctr_ctx;
struct pctr_req;
struct pctr_ring;
struct sys_reader;

struct pctr_file {
	struct mutex	lock;		/* its binding's (bind.c) */
	u32		kind;		/* bound to: 0 or PCTR_BIND_* */
	struct pctr_cpub *cpub;		/* a CPU binding (cpu_bind.c) */
	struct pctr_ctx	*ctx;		/* a thread binding's context */
	struct pctr_req	*req;		/* or, deferred, its request (bind.c) */
	struct pctr_ring *ring;		/* PCIOCRING's (sample.c) */
	struct sys_reader *sys;		/* system mode's reader (system.c) */
};

static inline struct pctr_file *pctr_file(struct file *file)
{
	return file->private_data;
}

/* Is the descriptor bound (PCIOCBIND) to a CPU or another thread? */
static inline bool pctr_file_bound(struct file *file)
{
	return READ_ONCE(pctr_file(file)->kind) != 0;
}

/* file.c: open and last close.  Process context. */
int pctr_file_open(struct file *file);
void pctr_file_close(struct file *file);

#endif /* _PCTR_FILE_H */
