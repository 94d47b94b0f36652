// SPDX-License-Identifier: GPL-2.0
/*
 * A descriptor's state (file.h): made at open, freed at the last close,
 * once what it was bound to has ended (bind.c) and system mode has let
 * its opener go (system.c).  Its sampling ring (sample.c) may outlive
 * it: a mapping or a sampling thread holds its own reference.
 */
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "file.h"
#include "sample.h"

int pctr_file_open(struct file *file)
{
	struct pctr_file *pf = kzalloc(sizeof(*pf), GFP_KERNEL);

	if (!pf)
		return -ENOMEM;
	mutex_init(&pf->lock);
	file->private_data = pf;
	return 0;
}

void pctr_file_close(struct file *file)
{
	struct pctr_file *pf = pctr_file(file);

	sample_ring_put(pf->ring);
	mutex_destroy(&pf->lock);
	kfree(pf);
}
