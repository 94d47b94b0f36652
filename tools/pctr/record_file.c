// SPDX-License-Identifier: GPL-2.0
/*
 * pctr record's file and rings: the binary file's one buffer (its
 * header, the rings' records copied as they are, rec_out's text records
 * between them, in the order they come), the --text format's sample and
 * throttle lines (also pctr report --dump's), and drain(), which copies
 * each CPU's new records to the file and gives the space back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pctr.h"
#include "record.h"
#include "record_internal.h"
#include "fail.h"

FILE *rec_out;

/*
 * The binary file: its header, the rings' records and rec_out's text
 * records go through one buffer, in the order they come, to out_fd.
 * rec_out is unbuffered, so that what record_follow.c and
 * record_system.c print lands between the samples where they print it.
 */
static int out_fd = -1, out_errno;
static char out_buf[1 << 16];
static size_t out_len;

static void out_write(const char *p, size_t len)
{
	ssize_t n;

	while (len && !out_errno) {
		n = write(out_fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			out_errno = n < 0 ? errno : EIO;
			return;
		}
		p += n;
		len -= n;
	}
}

static void out_flush(void)
{
	out_write(out_buf, out_len);
	out_len = 0;
}

static void out_put(const void *p, size_t len)
{
	/* A large span straight from the ring, after what came before it. */
	if (out_len + len > sizeof(out_buf) || len >= sizeof(out_buf) / 2)
		out_flush();
	if (len >= sizeof(out_buf) / 2) {
		out_write(p, len);
		return;
	}
	memcpy(out_buf + out_len, p, len);
	out_len += len;
}

/* rec_out's writes: as PCTR_FREC_TEXT records of at most 4 KiB. */
static ssize_t text_write(void *cookie, const char *s, size_t n)
{
	static const char zero[8];
	struct pctr_file_text t = { .ft_type = PCTR_FREC_TEXT };
	size_t left = n, k;

	while (left) {
		k = left < 4096 ? left : 4096;
		t.ft_len = k;
		t.ft_size = sizeof(t) + ((k + 7) & ~7UL);
		out_put(&t, sizeof(t));
		out_put(s, k);
		out_put(zero, (8 - k % 8) % 8);
		s += k;
		left -= k;
	}
	if (out_errno) {
		errno = out_errno;
		return -1;
	}
	return n;
}

static int text_close(void *cookie)
{
	out_flush();
	if (close(out_fd) && !out_errno)
		out_errno = errno;
	if (out_errno) {
		errno = out_errno;
		return -1;
	}
	return 0;
}

/* Open @path for the binary file and write its header: rec_out. */
static FILE *binary_open(const char *path)
{
	static const cookie_io_functions_t io = {
		.write = text_write,
		.close = text_close,
	};
	struct pctr_file_hdr h = {
		.fh_magic = PCTR_FILE_MAGIC,
		.fh_version = PCTR_FILE_VERSION,
		.fh_size = sizeof(h),
	};
	FILE *f;

	out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (out_fd < 0)
		return NULL;
	f = fopencookie(NULL, "w", io);
	if (!f) {
		close(out_fd);
		return NULL;
	}
	setvbuf(f, NULL, _IONBF, 0);
	out_put(&h, sizeof(h));
	return f;
}

/* Ring bytes [from, to) of a CPU's @data (@size, a power of two), as they are. */
static void out_ring(const char *data, uint64_t size, uint64_t from,
		     uint64_t to)
{
	uint64_t off, n;

	while (from < to) {
		off = from & (size - 1);
		n = to - from < size - off ? to - from : size - off;
		out_put(data + off, n);
		from += n;
	}
}

/*
 * --text: a sample's "s" line, as printf's "%u %u %u %x %llx %llx %u"
 * and " %llx" per frame would write it, formatted here: the recorder
 * shares the CPUs with what it measures, and printf cost it several
 * times more instructions a sample than the interrupt that took it.
 * Also pctr report --dump's.
 */
static char *put_dec(char *p, unsigned int v)
{
	char t[10];
	int n = 0;

	do
		t[n++] = '0' + v % 10;
	while ((v /= 10));
	while (n)
		*p++ = t[--n];
	return p;
}

static char *put_hex(char *p, uint64_t v)
{
	static const char digit[] = "0123456789abcdef";
	char t[16];
	int n = 0;

	do
		t[n++] = digit[v & 15];
	while ((v >>= 4));
	while (n)
		*p++ = t[--n];
	return p;
}

/* record.h; no more frames than the record holds. */
void write_sample(FILE *f, const struct pctr_sample_rec *rec)
{
	char buf[1024], *p = buf;
	unsigned int i, nr = rec->sr_nr;

	if (rec->sr_size < sizeof(*rec))
		return;
	if (nr > (rec->sr_size - sizeof(*rec)) / sizeof(uint64_t))
		nr = (rec->sr_size - sizeof(*rec)) / sizeof(uint64_t);
	*p++ = 's';
	*p++ = ' ';
	p = put_dec(p, rec->sr_pid);
	*p++ = ' ';
	p = put_dec(p, rec->sr_tid);
	*p++ = ' ';
	p = put_dec(p, rec->sr_cpu);
	*p++ = ' ';
	p = put_hex(p, rec->sr_flags);
	*p++ = ' ';
	p = put_hex(p, rec->sr_tsc);
	*p++ = ' ';
	p = put_hex(p, rec->sr_ip);
	*p++ = ' ';
	p = put_dec(p, nr);
	for (i = 0; i < nr; i++) {
		if (p - buf > (long)sizeof(buf) - 20) {
			fwrite(buf, 1, p - buf, f);
			p = buf;
		}
		*p++ = ' ';
		p = put_hex(p, rec->sr_chain[i]);
	}
	*p++ = '\n';
	fwrite(buf, 1, p - buf, f);
}

void write_throttle(FILE *f, const struct pctr_throttle_rec *t)
{
	fprintf(f, "t %u %u %u %x %llx %llu\n", t->tr_pid, t->tr_tid,
		t->tr_cpu, t->tr_flags, (unsigned long long)t->tr_tsc,
		(unsigned long long)t->tr_skipped);
}

/* --text, or the binary file. */
static int rec_text;

/*
 * The file at @path, rec_out: the text format's (with its first line)
 * or the binary one's (with its header).  NULL and errno if it cannot
 * be made.
 */
FILE *rec_file_open(const char *path, int text)
{
	FILE *f;

	rec_text = text;
	if (!text)
		return binary_open(path);
	f = fopen(path, "w");
	if (f)
		fprintf(f, "pctr-record 1\n");
	return f;
}

/* All written so far in the file (before a fork). */
void rec_file_flush(void)
{
	fflush(rec_out);
	if (!rec_text)
		out_flush();
}

/* Copy every CPU's new records to the file, giving the space back. */
void drain(struct ring *r)
{
	unsigned int c;
	uint64_t lost = 0, throttles = 0;

	for (c = 0; c < r->ra.ra_ncpu; c++) {
		struct pctr_ring_cpu *rc = &r->cpu[c];
		char *data = r->base + r->ra.ra_ctl_size +
			     (size_t)c * r->ra.ra_data_size;
		uint64_t head = __atomic_load_n(&rc->rc_head, __ATOMIC_ACQUIRE);
		uint64_t tail = rc->rc_tail, from = tail;

		while (tail < head) {
			const struct pctr_sample_rec *rec = (const void *)
				(data + (tail & (r->ra.ra_data_size - 1)));

			if (rec->sr_size < 8 || rec->sr_size % 8 ||
			    rec->sr_size > head - tail) {
				fprintf(stderr, "%s: CPU %u's ring is corrupt; its records are skipped\n",
					rec_prog, c);
				if (!rec_text)
					out_ring(data, r->ra.ra_data_size,
						 from, tail);
				tail = from = head;
				break;
			}
			tail += rec->sr_size;
			if (rec->sr_type == PCTR_REC_THROTTLE &&
			    rec->sr_size >= sizeof(struct pctr_throttle_rec)) {
				const struct pctr_throttle_rec *t = (const void *)rec;

				if (rec_text)
					write_throttle(rec_out, t);
				if (t->tr_flags & PCTR_TR_END)
					r->throttled += t->tr_skipped;
				continue;
			}
			/* Any other type is skipped whole, as the ABI says. */
			if (rec->sr_type != PCTR_REC_SAMPLE)
				continue;
			/* A CPU's sample: who it interrupted, first (-a). */
			if ((rec->sr_flags & PCTR_SR_COMM) &&
			    rec->sr_size >= sizeof(*rec) + PCTR_SR_COMM_LEN +
					    rec->sr_nr * sizeof(uint64_t)) {
				/* Its name and maps go before it. */
				if (!rec_text) {
					out_ring(data, r->ra.ra_data_size, from,
						 tail - rec->sr_size);
					from = tail - rec->sr_size;
				}
				system_sample_seen(rec);
			}
			if (rec_text)
				write_sample(rec_out, rec);
			r->samples++;
		}
		if (!rec_text)
			out_ring(data, r->ra.ra_data_size, from, tail);
		__atomic_store_n(&rc->rc_tail, tail, __ATOMIC_RELEASE);
		lost += __atomic_load_n(&rc->rc_lost, __ATOMIC_RELAXED);
		throttles += __atomic_load_n(&rc->rc_throttles,
					     __ATOMIC_RELAXED);
	}
	r->lost = lost;
	r->throttles = throttles;
}

/* Make the ring of descriptor @fd and map it: 0 or an errno. */
int ring_open(struct ring *r, int fd, unsigned int pages,
		     unsigned int watermark)
{
	r->fd = fd;
	r->ra.ra_pages = pages;
	r->ra.ra_watermark = watermark;
	if (ioctl(fd, PCIOCRING, &r->ra))
		return errno;
	r->base = mmap(NULL, r->ra.ra_mmap_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, PCTR_RING_OFFSET);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return errno;
	}
	r->cpu = (struct pctr_ring_cpu *)(r->base + sizeof(struct pctr_ring_ctl));
	return 0;
}

void __attribute__((noreturn)) ring_error(int err)
{
	fail(EXIT_FAIL, "cannot make the ring: %s%s",
	     pctr_strerror(err), err == ENOTTY ?
	     " (a module without sampling: load this version's)" :
	     err == EINVAL ? " (-w larger than the ring?)" :
	     err == EPERM ? " (over your locked-memory allowance for rings: "
	     "a smaller -m, or an admin raises the module's ring_kb or your "
	     "RLIMIT_MEMLOCK, ulimit -l)" : "");
}
