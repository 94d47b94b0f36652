// SPDX-License-Identifier: GPL-2.0
/* page_abi.h as a version 2 program: the header's default. */
#include "page_abi.h"
