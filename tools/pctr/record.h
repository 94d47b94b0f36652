/* SPDX-License-Identifier: GPL-2.0 */
/* pctr record and pctr report: sampling profiles (pctr-record(1)). */
#ifndef _PCTR_TOOLS_RECORD_H
#define _PCTR_TOOLS_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pctr_sample_rec;
struct pctr_throttle_rec;

/* argv[0] is the subcommand's name; each returns pctr's exit status. */
int pctr_record(int argc, char **argv);
int pctr_report(int argc, char **argv);

/*
 * pctr record's file (pctr-record(1)).  Binary, by default: struct
 * pctr_file_hdr, then the ring's records as the kernel wrote them
 * (struct pctr_sample_rec and the other PCTR_REC_* types: sr_type and
 * sr_size first, sr_size a multiple of 8), copied with no formatting,
 * and between them PCTR_FREC_TEXT records, text of the text format's
 * lines other than "s" and "t" (event, boot, maps, m, exec, comm,
 * system, throttled, lost, exit), cut anywhere: joined, they are those
 * lines in file order.  In the recording machine's byte order.  Text
 * (pctr record --text, and every file from before the binary one): one
 * item a line, "pctr-record 1" first.
 */
#define PCTR_FILE_MAGIC		"PCTRDATA"
#define PCTR_FILE_VERSION	2
#define PCTR_FREC_TEXT		0x8001

struct pctr_file_hdr {
	char		fh_magic[8];	/* PCTR_FILE_MAGIC, no NUL */
	uint32_t	fh_version;	/* PCTR_FILE_VERSION */
	uint32_t	fh_size;	/* this header's: where records start */
};

struct pctr_file_text {
	uint16_t	ft_type;	/* PCTR_FREC_TEXT */
	uint16_t	ft_size;	/* the record's bytes, padded to 8 */
	uint32_t	ft_len;		/* bytes of text after this header */
};

/* A sample's "s" line and a throttle record's "t" line, as text files have them. */
void write_sample(FILE *f, const struct pctr_sample_rec *rec);
void write_throttle(FILE *f, const struct pctr_throttle_rec *t);

/* The running kernel's boot ID into @id (no newline), or NULL. */
char *read_boot_id(char *id, size_t len);

#endif
