/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmdapctr's counting (tools/pmdapctr/counting.c) and configuration
 * (config.c): the events of the configuration, one CPU binding
 * (PCIOCBIND, PCTR_BIND_CPU) per online CPU counting them, and the
 * module's own figures from PCIOCINFO and /sys/class/misc/pctr.  Nothing
 * here knows PCP.
 */
#ifndef PMDAPCTR_COUNTING_H
#define PMDAPCTR_COUNTING_H

#include <stddef.h>
#include <stdint.h>

#include <linux/pctr.h>

/* One configured event. */
struct pc_event {
	char		spec[64];	/* as the configuration spells it */
	char		metric[64];	/* its PMNS leaf: [a-z0-9_] */
	char		backend[48];	/* the backend's name for it */
	char		desc[80];	/* the backend's description */
	unsigned int	line;		/* configuration line, 0 for a default */
	unsigned int	slot;
	uint64_t	fn;		/* with mode and PCTR_EN */
	int		generic;	/* GENERIC_* or -1 */
};

/* One CPU's binding and its last read. */
struct pc_cpu {
	int		cpu;
	int		fd;
	int		err;		/* errno of the last failed read, or 0 */
	struct pctrst	st;
};

struct pc_agent {
	int		fd;		/* /dev/pctr, for PCIOCINFO and events */
	struct pctr_info info;
	struct pc_event	ev[PCTR_NUM];
	unsigned int	nev;
	struct pc_cpu	*cpus;
	unsigned int	ncpus;
};

/*
 * Open /dev/pctr and read what the backend offers.  0, or -1 with a
 * message in @err.
 */
int pc_open(struct pc_agent *a, char *err, size_t len);

/*
 * Read the configuration @path into @a->ev: one event a line ("NAME" or
 * "NAME:MODE", MODE u, k or uk, uk by default), '#' to the end of a line
 * is a comment.  No event at all (or no file at @path): the backend's
 * defaults.  0, or -1 with "PATH:LINE: what is wrong" in @err.
 */
int pc_config_load(struct pc_agent *a, const char *path, char *err,
		   size_t len);

/*
 * Bind every online CPU the process may run on to the events.  0, or
 * -1 with a message in @err naming the CPU and, for EBUSY, who holds the
 * counters (pctr_strerror()).
 */
int pc_bind_all(struct pc_agent *a, char *err, size_t len);

/* Read every CPU's binding into its st (a failure into its err). */
void pc_read_all(struct pc_agent *a);

/* The index of the event counting generic event @g, or -1. */
int pc_find_generic(const struct pc_agent *a, int g);

/*
 * /sys/class/misc/pctr/@name's first line into @buf; 0, or -1 when the
 * module has no such file.
 */
int pc_sysfs(const char *name, char *buf, size_t len);

#endif /* PMDAPCTR_COUNTING_H */
