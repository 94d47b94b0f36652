// SPDX-License-Identifier: GPL-2.0
/*
 * pctr_inherit: PAPI_INHERIT through pctr's component.  A child forked
 * while the event set runs counts for itself (pctr's PCTR_O_INHERIT),
 * and, unlike perf_event's inheritance, its counts are not added to the
 * parent's when it exits (Documentation/papi.rst says so): the parent's
 * count across a child that runs a loop stays well under what that loop
 * counts in the parent.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pctr_test.h"

#define LOOP 20000000UL

int main(int argc, char **argv)
{
	long long own0, own1, across0, across1;
	char name[PAPI_MAX_STR_LEN];
	int quiet, cidx, code, es, ret, status;
	PAPI_option_t opt;
	pid_t pid;

	quiet = tests_quiet(argc, argv);
	cidx = pctr_test_init(quiet);
	code = pctr_test_event(cidx, name);
	es = pctr_test_eventset(cidx, code);
	memset(&opt, 0, sizeof(opt));
	opt.inherit.eventset = es;
	opt.inherit.inherit = PAPI_INHERIT_ALL;
	ret = PAPI_set_opt(PAPI_INHERIT, &opt);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_set_opt PAPI_INHERIT", ret);
	ret = PAPI_start(es);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_start", ret);

	ret = PAPI_read(es, &own0);
	pctr_test_loop(LOOP);
	ret |= PAPI_read(es, &own1);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_read", ret);

	ret = PAPI_read(es, &across0);
	pid = fork();
	if (pid < 0)
		test_fail(__FILE__, __LINE__, "fork", PAPI_ESYS);
	if (pid == 0) {
		pctr_test_loop(LOOP);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		test_fail(__FILE__, __LINE__, "the child", PAPI_ESYS);
	ret |= PAPI_read(es, &across1);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_read", ret);
	ret = PAPI_stop(es, NULL);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_stop", ret);
	if (!quiet)
		printf("%s: the loop in the parent %lld; the parent across a child running it %lld\n",
		       name, own1 - own0, across1 - across0);
	if (own1 - own0 <= 0)
		test_fail(__FILE__, __LINE__, "the loop counted nothing", PAPI_EBUG);
	if (across1 - across0 >= (own1 - own0) / 2)
		test_fail(__FILE__, __LINE__, "the child's counts went to the parent",
			  PAPI_EBUG);
	test_pass(__FILE__);
}
