// SPDX-License-Identifier: GPL-2.0
/*
 * pctr top's counting and the symbols it shares with pctr report
 * (tools/pctr/top_count.c, symbols.c), on the host, against record
 * streams as pctr record writes them: this program's own maps and two
 * of its functions sampled 2:1, and kernel samples named from a
 * kallsyms file of the test's (the kernel's functions, a module's, and
 * the zeros an unprivileged reader sees).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pctr.h"
#include "record.h"
#include "top.h"

#include "kselftest_harness.h"

static volatile unsigned long sink;

/* The sampled functions (bodies differ: not folded into one). */
__attribute__((noinline)) void work_a(unsigned long n)
{
	while (n--)
		sink += n * 7;
}

__attribute__((noinline)) void work_b(unsigned long n)
{
	while (n--)
		sink ^= n * 13;
}

/* The running kernel's boot ID, as record.c reads it: the test's. */
char *read_boot_id(char *id, size_t len)
{
	snprintf(id, len, "6f1e0b7a-test-boot");
	return id;
}

/* One stream line to top's counting, @h the stream's head. */
static void feed(struct top_head *h, enum top_sort sort, const char *fmt, ...)
{
	char line[4200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	top_count_line(line, strlen(line), sort, h);
}

/* The head of a stream of process @pid: its maps, as pctr record saves them. */
static void stream_head(struct top_head *h, enum top_sort sort, int pid)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");

	feed(h, sort, "event sim_ticks_div period 2000 slot 0 fn 0 backend sim tsc_khz 1 callchain 0\n");
	feed(h, sort, "boot 6f1e0b7a-test-boot\n");
	feed(h, sort, "maps %d 0 1\n", pid);
	while (f && fgets(line, sizeof(line), f))
		if (strchr(line, '/'))
			feed(h, sort, "m %s", line);
	if (f)
		fclose(f);
}

/* 2N samples in work_a, N in work_b, interleaved, user mode. */
static void samples_2_1(struct top_head *h, enum top_sort sort, int pid,
			unsigned int n)
{
	unsigned int i;

	for (i = 0; i < 3 * n; i++)
		feed(h, sort, "s %d %d 0 1 %x %lx 0\n", pid, pid, 100 + i,
		     (unsigned long)(i % 3 == 2 ? (uintptr_t)work_b :
				     (uintptr_t)work_a) + 4);
}

/* Row @i by samples: its key and count. */
static const char *row(unsigned int i, uint64_t *count)
{
	unsigned int *o = sorted(&top_rows);
	const char *s = NULL;

	*count = 0;
	if (i < top_rows.n && top_rows.count[o[i]]) {
		s = top_rows.str[o[i]];
		*count = top_rows.count[o[i]];
	}
	free(o);
	return s ? s : "";
}

static const char *self_name(void)
{
	static char name[256];
	ssize_t n = readlink("/proc/self/exe", name, sizeof(name) - 1);

	name[n > 0 ? n : 0] = '\0';
	return strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
}

/* Row @i is @sym in this program, with @count samples. */
static void expect_row(struct __test_metadata *_metadata, unsigned int i,
		       const char *sym, uint64_t count)
{
	char want[300];
	uint64_t n;

	snprintf(want, sizeof(want), "%s\t%s", sym, self_name());
	EXPECT_STREQ(want, row(i, &n));
	EXPECT_EQ(count, n);
}

TEST(sym_rows_sorted_2_to_1)
{
	struct top_head h = { 0 };
	uint64_t n;

	stream_head(&h, TOP_SYM, getpid());
	samples_2_1(&h, TOP_SYM, getpid(), 100);
	EXPECT_STREQ("sim_ticks_div", h.event);
	EXPECT_EQ(2000, h.period);
	EXPECT_EQ(300, top_samples);
	expect_row(_metadata, 0, "work_a", 200);
	expect_row(_metadata, 1, "work_b", 100);
	EXPECT_STREQ("", row(2, &n));
}

/* A refresh starts a new interval: only what came since counts. */
TEST(clear_starts_an_interval)
{
	struct top_head h = { 0 };
	uint64_t n;

	stream_head(&h, TOP_SYM, getpid());
	samples_2_1(&h, TOP_SYM, getpid(), 100);
	top_count_clear();
	EXPECT_EQ(0, top_samples);
	EXPECT_STREQ("", row(0, &n));
	feed(&h, TOP_SYM, "s %d %d 0 1 200 %lx 0\n", getpid(), getpid(),
	     (unsigned long)(uintptr_t)work_b + 4);
	expect_row(_metadata, 0, "work_b", 1);
	EXPECT_EQ(1, top_samples);
}

/* comm,sym: a row per process and symbol; a process gone is ":PID". */
TEST(comm_sym_rows)
{
	struct top_head h = { 0 };
	char want[300], comm[32] = "";
	FILE *f = fopen("/proc/self/comm", "r");
	uint64_t n;

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	stream_head(&h, TOP_COMM_SYM, getpid());
	samples_2_1(&h, TOP_COMM_SYM, getpid(), 10);
	/* Pid 0x7ffffff0 is above any pid_max: no such process. */
	feed(&h, TOP_COMM_SYM, "s %d %d 0 1 200 %lx 0\n", 0x7ffffff0,
	     0x7ffffff0, 0x1234UL);
	snprintf(want, sizeof(want), "%s\twork_a\t%s", comm, self_name());
	EXPECT_STREQ(want, row(0, &n));
	EXPECT_EQ(20, n);
	snprintf(want, sizeof(want), "%s\twork_b\t%s", comm, self_name());
	EXPECT_STREQ(want, row(1, &n));
	EXPECT_STREQ(":2147483632\t[unknown]\t[unknown]", row(2, &n));
	EXPECT_EQ(1, n);
}

/* dso: a row per object. */
TEST(dso_rows)
{
	struct top_head h = { 0 };
	uint64_t n;

	stream_head(&h, TOP_DSO, getpid());
	samples_2_1(&h, TOP_DSO, getpid(), 10);
	EXPECT_STREQ(self_name(), row(0, &n));
	EXPECT_EQ(30, n);
	EXPECT_STREQ("", row(1, &n));
}

/* A kallsyms file of the test's, as the kernel shows it to root. */
static const char kallsyms_root[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T do_syscall_64\n"
	"ffffffff81000200 t entry_after\n"
	"ffffffff82000000 D some_data\n"
	"ffffffffc0001000 t pctr_ioctl\t[pctr]\n"
	"ffffffffc0001100 t pctr_sample_nmi\t[pctr]\n"
	"ffffffffc0001200 d pctr_table\t[pctr]\n"
	"ffffffffc0002000 T other_fn\t[other]\n";

/* ... and to a user who may not see kernel addresses. */
static const char kallsyms_user[] =
	"0000000000000000 T _stext\n"
	"0000000000000000 T do_syscall_64\n"
	"0000000000000000 t pctr_ioctl\t[pctr]\n";

static void use_kallsyms(const char *text)
{
	static char path[] = "/tmp/top_test.kallsyms.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	sym_kallsyms = path;
}

/* Kernel samples (flags PCTR_SR_KERNEL): the kernel's and modules' functions. */
static void kernel_samples(struct top_head *h, const char *boot)
{
	static const unsigned long ips[] = {
		0xffffffffc0001104, 0xffffffffc0001180, 0xffffffffc0001010,
		0xffffffff81000104, 0xffffffffc0002008,
	};
	unsigned int i;

	feed(h, TOP_SYM, "boot %s\n", boot);
	for (i = 0; i < sizeof(ips) / sizeof(ips[0]); i++)
		feed(h, TOP_SYM, "s 1 1 0 %x 10 %lx 0\n", PCTR_SR_KERNEL,
		     ips[i]);
}

TEST(module_functions_named)
{
	struct top_head h = { 0 };
	uint64_t n;

	use_kallsyms(kallsyms_root);
	kernel_samples(&h, "6f1e0b7a-test-boot");
	unlink(sym_kallsyms);
	EXPECT_STREQ("pctr_sample_nmi\t[pctr]", row(0, &n));
	EXPECT_EQ(2, n);
	EXPECT_STREQ("do_syscall_64\t[kernel.kallsyms]", row(1, &n));
	EXPECT_STREQ("other_fn\t[other]", row(2, &n));
	EXPECT_STREQ("pctr_ioctl\t[pctr]", row(3, &n));
	EXPECT_EQ(5, top_samples);
}

/* No kernel name for whom the kernel shows zeros, nor from another boot. */
static void expect_kernel_unnamed(struct __test_metadata *_metadata,
				  const char *kallsyms, const char *boot)
{
	struct top_head h = { 0 };
	uint64_t n;

	use_kallsyms(kallsyms);
	kernel_samples(&h, boot);
	unlink(sym_kallsyms);
	EXPECT_STREQ("[kernel]\t[kernel]", row(0, &n));
	EXPECT_EQ(5, n);
}

TEST(kernel_hidden_from_user)
{
	expect_kernel_unnamed(_metadata, kallsyms_user, "6f1e0b7a-test-boot");
}

TEST(kernel_of_another_boot)
{
	expect_kernel_unnamed(_metadata, kallsyms_root, "another-boot");
}

TEST(sort_names)
{
	EXPECT_EQ(TOP_SYM, top_sort_of("sym"));
	EXPECT_EQ(TOP_COMM_SYM, top_sort_of("comm,sym"));
	EXPECT_EQ(TOP_DSO, top_sort_of("dso"));
	EXPECT_EQ(-1, top_sort_of("comm"));
}

TEST_HARNESS_MAIN
