/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting engine as the device sees it: what core.c (the device)
 * and ioctl.c (the ABI) call in ctx.c, thread.c and bind.c.  The
 * engine's own internals are in ctx.h; the backend seam is pmu.h.
 */
#ifndef _PCTR_ENGINE_H
#define _PCTR_ENGINE_H

#include <linux/types.h>
#include <linux/pctr.h>

struct file;

/* ctx.c: the calling thread's counters */
int pctr_ctx_init(void);
void pctr_ctx_exit(void);
int pctr_ctx_snapshot(u64 *fn, u64 *val, u64 *tsc, u32 *mask);
int pctr_ctx_set(unsigned int slot, u64 fn);
int pctr_ctx_set_pcr(const struct pctr_pcr *pcr);
void pctr_ctx_get_pcr(struct pctr_pcr *pcr);
int pctr_ctx_zero(void);
int pctr_ctx_preset(unsigned int slot, u64 value);
void pctr_ctx_starts(unsigned long *kept, unsigned long *loaded);
struct vm_area_struct;
int pctr_ctx_mmap(struct vm_area_struct *vma);
int pctr_ctx_release(void);
int pctr_ctx_restart(void);
int pctr_ctx_enable(bool on);
int pctr_ctx_set_opts(const struct pctr_opts *o);
void pctr_ctx_get_opts(struct pctr_opts *o);

/* bind.c: descriptors bound to a CPU or to another process's thread */
int pctr_file_open(struct file *file);
void pctr_file_release(struct file *file);
bool pctr_file_bound(struct file *file);
int pctr_file_bind(struct file *file, const struct pctr_bind __user *arg);
int pctr_file_read(struct file *file, u64 *fn, u64 *val, u32 *mask);
void pctr_file_unbind(struct file *file);

/* ioctl.c */
long pctr_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* _PCTR_ENGINE_H */
