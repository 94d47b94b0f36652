#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: dependencies
#
# make check's first phase: installs what is missing (as root,
# testing/vm/install-deps), then names the kernels tested.  Without its
# dependencies the check stops here.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

if ! testing/vm/install-deps; then
	echo "check: dependencies are missing; run 'sudo testing/vm/install-deps'" >&2
	echo "0 passed, 1 failed"
	stop_check
fi

find_kernels
echo "check: kernels: ${kernels[*]}"
end_phase
