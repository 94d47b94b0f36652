// SPDX-License-Identifier: GPL-2.0
/*
 * page_abi.h as a program built for page version 1 (PCTR_PAGE_V1): one
 * built before version 2 reads the page this way, and must keep working.
 */
#define PCTR_PAGE_V1
#include "page_abi.h"
