// SPDX-License-Identifier: GPL-2.0
/*
 * libcpc's headers as Solaris programs use them (issue 16): this file
 * includes <libcpc_impl.h> and nothing else before the harness, as
 * cpustat's and cputrack's cpucmds.h does, and uses what they take from
 * it: <libcpc.h>'s limits and its <libpctx.h>, <libcpc_impl.h>'s
 * <string.h>, and the tick register's name.  That it compiles is half the test; the rest
 * checks the names' values (cpc_test checks what libcpc does with them).
 */
/* A name the headers should have declared is an error, not a warning. */
#pragma GCC diagnostic error "-Wimplicit-function-declaration"
#include <libcpc_impl.h>

/* Used before any other header: the libcpc headers brought them. */
static size_t spec_len(const char *spec)
{
	return strlen(spec);
}

static pctx_t *(*const capture)(pid_t, void *, int, pctx_errfn_t *) =
	pctx_capture;

static char event_buf[CPC_MAX_EVENT_LEN];	/* a Solaris tool's buffer */

#include "kselftest_harness.h"

TEST(names)
{
	EXPECT_EQ(5, spec_len("pic0="));
	EXPECT_NE(NULL, capture);
	EXPECT_EQ(512, CPC_MAX_EVENT_LEN);
	EXPECT_EQ(32, CPC_MAX_ATTR_LEN);
	EXPECT_EQ(512, CPC_MAX_IMPL_NAME);
	EXPECT_EQ(1024, CPC_MAX_CPUREF);
	EXPECT_EQ(512, sizeof(event_buf));
#if defined(__x86_64__) || defined(__i386__)
	EXPECT_STREQ("tsc", CPC_TICKREG_NAME);
#endif
}

TEST_HARNESS_MAIN
