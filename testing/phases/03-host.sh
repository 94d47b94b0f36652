#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: host tests
#
# The host tests (selftests/host): the x86 and SPARC backends against
# register models, event encodings against libpfm4.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

if [ -f selftests/host/Makefile ]; then
	out=$(make -s -C selftests/host run 2>&1 | tee "$logdir/host.log" |
	      grep -E '^host: [0-9]+ passed')
	add_counts "host tests" "$out" || { tail -n 30 "$logdir/host.log"; bad "host tests ran"; }
	grep -E '^not ok|^# FAIL' "$logdir/host.log" | head -n 20
fi
end_phase
