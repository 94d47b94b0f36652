// SPDX-License-Identifier: GPL-2.0
/*
 * pctr_cmpinfo: pctr's component is PAPI's component 0 (testing/papi/build
 * makes it so: PAPI maps its presets on component 0's events) and says
 * what it offers: counters, the user and kernel domains, thread and
 * CPU attach, inheritance, and native events each with a description
 * and a name that goes to a code of the same event and back.
 */
#include "pctr_test.h"

int main(int argc, char **argv)
{
	const PAPI_component_info_t *ci;
	char name[PAPI_MAX_STR_LEN];
	PAPI_event_info_t ev;
	int quiet, cidx, ret, code, back, n = 0;

	quiet = tests_quiet(argc, argv);
	cidx = pctr_test_init(quiet);
	if (cidx != 0)
		test_fail(__FILE__, __LINE__, "pctr is not component 0", cidx);
	ci = PAPI_get_component_info(cidx);
	if (!quiet)
		printf("%s: %s, %d counters, %d native events, fast reads %s\n",
		       ci->name, ci->description, ci->num_cntrs,
		       ci->num_native_events,
		       ci->fast_counter_read ? "yes" : "no");
	if (ci->num_cntrs <= 0 || ci->num_native_events <= 0)
		test_fail(__FILE__, __LINE__, "no counters or no events",
			  PAPI_ECMP);
	if ((ci->available_domains & (PAPI_DOM_USER | PAPI_DOM_KERNEL)) !=
	    (PAPI_DOM_USER | PAPI_DOM_KERNEL) ||
	    ci->default_domain != PAPI_DOM_USER)
		test_fail(__FILE__, __LINE__, "domains", PAPI_ECMP);
	if (!ci->attach || !ci->attach_must_ptrace || !ci->cpu || !ci->inherit)
		test_fail(__FILE__, __LINE__, "attach, cpu or inherit", PAPI_ECMP);

	code = PAPI_NATIVE_MASK;
	ret = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx);
	while (ret == PAPI_OK) {
		ret = PAPI_get_event_info(code, &ev);
		if (ret != PAPI_OK)
			test_fail(__FILE__, __LINE__, "PAPI_get_event_info", ret);
		if (!ev.symbol[0] || !ev.long_descr[0])
			test_fail(__FILE__, __LINE__, "an event without a name or description",
				  PAPI_EBUG);
		/*
		 * PAPI may give a name looked up a code of its own, not the
		 * enumeration's: it must be the same event of pctr's.
		 */
		ret = PAPI_event_name_to_code(ev.symbol, &back);
		if (ret != PAPI_OK)
			test_fail(__FILE__, __LINE__, "name to code", ret);
		ret = PAPI_event_code_to_name(back, name);
		if (ret != PAPI_OK || strcmp(name, ev.symbol) ||
		    PAPI_get_event_component(back) != cidx) {
			if (!quiet)
				printf("%s: code %#x, from its name %#x, %s\n",
				       ev.symbol, code, back, name);
			test_fail(__FILE__, __LINE__, "name to code and back", ret);
		}
		ret = PAPI_event_code_to_name(code, name);
		if (ret != PAPI_OK || strcmp(name, ev.symbol))
			test_fail(__FILE__, __LINE__, "code to name", ret);
		n++;
		ret = PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx);
	}
	if (n != ci->num_native_events) {
		if (!quiet)
			printf("enumerated %d events of %d\n", n,
			       ci->num_native_events);
		test_fail(__FILE__, __LINE__, "enumeration", PAPI_EBUG);
	}
	ret = PAPI_event_name_to_code("pctr:::no_such_event", &back);
	if (ret != PAPI_ENOEVNT)
		test_fail(__FILE__, __LINE__, "an unknown name", ret);
	test_pass(__FILE__);
}
