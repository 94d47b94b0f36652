/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting engine as the device sees it: what core.c (the device)
 * and ioctl.c (the ABI) call.  Each function is named for its file.  The
 * engine's own internals are in ctx.h, a descriptor's state in file.h;
 * the backend seam is backend.h.
 */
#ifndef _PCTR_ENGINE_H
#define _PCTR_ENGINE_H

#include <linux/types.h>
#include <linux/pctr.h>

struct file;
struct vm_area_struct;

/* ctx.c, cpub.c: the engine's figures, for sysfs (held slots: prog.c too) */
void pctr_ctx_starts(unsigned long *kept, unsigned long *loaded);
unsigned long pctr_ctx_failures(void);
unsigned int pctr_ctx_cpu_bindings(void);
u32 pctr_ctx_held_slots(void);

/* thread.c: the calling thread's counters; set-up of the engine */
int pctr_thread_init(void);
void pctr_thread_exit(void);
int pctr_thread_read(u64 *fn, u64 *val, u64 *tsc, u32 *mask);
int pctr_thread_read_times(u64 *fn, u64 *val, u64 *tsc, u32 *mask,
			   u64 *enabled, u64 *running);
int pctr_thread_set(unsigned int slot, u64 fn);
int pctr_thread_set_pcr(const struct pctr_pcr *pcr);
void pctr_thread_get_pcr(struct pctr_pcr *pcr);
int pctr_thread_zero(void);
int pctr_thread_preset(unsigned int slot, u64 value);
int pctr_thread_restart(void);
int pctr_thread_enable(bool on);
int pctr_thread_set_opts(const struct pctr_opts *o);
void pctr_thread_get_opts(struct pctr_opts *o);
int pctr_thread_mmap(struct vm_area_struct *vma);
int pctr_thread_release(void);
struct pctr_ring;
int pctr_thread_sample(struct pctr_ring *r, const struct pctr_sample_attr *sa);

/* bind.c: descriptors bound to a CPU or to another process's thread */
int pctr_bind(struct file *file, const struct pctr_bind __user *arg);
int pctr_bind_sample(struct file *file, struct pctr_ring *r,
		     const struct pctr_sample_attr *sa);
int pctr_bind_ring(struct file *file, struct pctr_ring_attr *ra);
int pctr_bind_enable(struct file *file, bool on);
int pctr_bind_read(struct file *file, u64 *fn, u64 *val, u32 *mask,
		   u64 *enabled, u64 *running);
void pctr_bind_end(struct file *file);
void pctr_bind_close(struct file *file);
ssize_t pctr_bind_show(char *buf);

/*
 * system.c: system mode (mode=system), OpenBSD's semantics: functions
 * for the whole machine, PCIOCRD of the current CPU.
 */
extern bool pctr_system;
int pctr_sys_set(unsigned int slot, u64 fn);
int pctr_sys_set_pcr(const struct pctr_pcr *pcr);
int pctr_sys_zero(void);
void pctr_sys_get_pcr(struct pctr_pcr *pcr);
int pctr_sys_read(u64 *fn, u64 *val, u64 *tsc, u32 *mask);
void pctr_sys_cpu_online(void);
void pctr_sys_cpu_offline(void);
void pctr_sys_resume(void);
void pctr_sys_exit(void);
int pctr_sys_open(struct file *file);
void pctr_sys_close(struct file *file);

/*
 * ioctl.c: the ABI.  A descriptor of /dev/perfmon programs counters
 * however it was opened, as Sun's Perfmon device's did.
 */
/* flush.c: Perfmon's cache flush of the calling CPU */
int pctr_flush_cache(void);

long pctr_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
long pctr_perfmon_ioctl(struct file *file, unsigned int cmd,
			unsigned long arg);

#endif /* _PCTR_ENGINE_H */
