// SPDX-License-Identifier: GPL-2.0
/*
 * pctr_domain: the domains under pctr's rules, as a user (uid 1000 when
 * started as root): PAPI_DOM_USER counts; a domain with the kernel in it
 * is refused at PAPI_start with PAPI_EPERM where perf's policy refuses
 * that user the kernel (perf_event_paranoid above 1, pctr's
 * allow_kernel off), and counts where it allows it.  The refused event
 * set counts in the user domain afterwards.
 */
#include <stdlib.h>
#include <unistd.h>

#include "pctr_test.h"

/* The first line of @path in @buf, its newline dropped ("" if none). */
static void read_line(const char *path, char *buf, int len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

static void set_domain(int es, int domain)
{
	PAPI_option_t opt;
	int ret;

	memset(&opt, 0, sizeof(opt));
	opt.domain.eventset = es;
	opt.domain.domain = domain;
	ret = PAPI_set_opt(PAPI_DOMAIN, &opt);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_set_opt PAPI_DOMAIN", ret);
}

int main(int argc, char **argv)
{
	char name[PAPI_MAX_STR_LEN], allow[8], para[16];
	int quiet, cidx, code, es, ret, paranoid, refuse;
	long long v;

	quiet = tests_quiet(argc, argv);
	if (geteuid() == 0 && (setgid(1000) || setuid(1000)))
		test_fail(__FILE__, __LINE__, "cannot become uid 1000", PAPI_ESYS);
	read_line("/proc/sys/kernel/perf_event_paranoid", para, sizeof(para));
	paranoid = para[0] ? atoi(para) : 2;
	read_line("/sys/module/pctr/parameters/allow_kernel", allow,
		  sizeof(allow));
	refuse = paranoid > 1 && allow[0] != 'Y';
	cidx = pctr_test_init(quiet);
	code = pctr_test_event(cidx, name);
	es = pctr_test_eventset(cidx, code);

	set_domain(es, PAPI_DOM_USER | PAPI_DOM_KERNEL);
	ret = PAPI_start(es);
	if (!quiet)
		printf("uid %d, perf_event_paranoid %d, allow_kernel %s: user and kernel: %s\n",
		       (int)getuid(), paranoid, allow[0] ? allow : "?",
		       PAPI_strerror(ret));
	if (refuse && ret != PAPI_EPERM)
		test_fail(__FILE__, __LINE__, "the kernel domain was not refused", ret);
	if (!refuse) {
		if (ret != PAPI_OK)
			test_fail(__FILE__, __LINE__, "the kernel domain was refused", ret);
		ret = PAPI_stop(es, &v);
		if (ret != PAPI_OK)
			test_fail(__FILE__, __LINE__, "PAPI_stop", ret);
	}

	set_domain(es, PAPI_DOM_USER);
	ret = PAPI_start(es);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_start, user domain", ret);
	pctr_test_loop(100000);
	ret = PAPI_stop(es, &v);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_stop", ret);
	if (!quiet)
		printf("%s, user domain: %lld\n", name, v);
	if (v <= 0)
		test_fail(__FILE__, __LINE__, "the user domain counted nothing",
			  PAPI_EBUG);
	test_pass(__FILE__);
}
