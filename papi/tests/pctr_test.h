/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pctr's component tests share: PAPI started with pctr's component
 * found (a skip, with the component's reason, where it is disabled),
 * an event to count, and a loop of known length.
 */
#ifndef PCTR_TEST_H
#define PCTR_TEST_H

#include <stdio.h>
#include <string.h>

#include "papi.h"
#include "papi_test.h"

/* dec; jnz: two instructions and one branch an iteration. */
static inline void pctr_test_loop(unsigned long n)
{
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

/* PAPI initialised; pctr's component index, or a skip saying why not. */
static inline int pctr_test_init(int quiet)
{
	const PAPI_component_info_t *ci;
	int ret, cidx;

	ret = PAPI_library_init(PAPI_VER_CURRENT);
	if (ret != PAPI_VER_CURRENT)
		test_fail(__FILE__, __LINE__, "PAPI_library_init", ret);
	cidx = PAPI_get_component_index("pctr");
	if (cidx < 0)
		test_fail(__FILE__, __LINE__, "no component named pctr", cidx);
	ci = PAPI_get_component_info(cidx);
	if (!ci)
		test_fail(__FILE__, __LINE__, "PAPI_get_component_info", PAPI_ECMP);
	if (ci->disabled) {
		if (!quiet)
			printf("pctr's component is disabled: %s\n",
			       ci->disabled_reason);
		test_skip(__FILE__, __LINE__, "pctr's component disabled",
			  ci->disabled);
	}
	return cidx;
}

/*
 * The event the tests count: PAPI_TOT_INS where the backend has the
 * preset, else the component's first native event; its name in @name.
 */
static inline int pctr_test_event(int cidx, char name[PAPI_MAX_STR_LEN])
{
	int code = PAPI_TOT_INS, ret;

	if (PAPI_query_event(code) != PAPI_OK) {
		code = PAPI_NATIVE_MASK;
		ret = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx);
		if (ret != PAPI_OK)
			test_fail(__FILE__, __LINE__, "PAPI_enum_cmp_event", ret);
	}
	ret = PAPI_event_code_to_name(code, name);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_event_code_to_name", ret);
	return code;
}

/* An event set of pctr's component holding @code. */
static inline int pctr_test_eventset(int cidx, int code)
{
	int es = PAPI_NULL, ret;

	ret = PAPI_create_eventset(&es);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_create_eventset", ret);
	ret = PAPI_assign_eventset_component(es, cidx);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_assign_eventset_component", ret);
	ret = PAPI_add_event(es, code);
	if (ret != PAPI_OK)
		test_fail(__FILE__, __LINE__, "PAPI_add_event", ret);
	return es;
}

#endif
