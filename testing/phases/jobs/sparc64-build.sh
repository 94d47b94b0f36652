#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's background job for the phase "sparc64 cross-build
# (results)": testing/vm/build-sparc64, its log and time in build/check.
#
# Against the sparc64 guest kernels (testing/vm/kernel/build-sparc64-guest,
# built once and cached, shared with the sparc64 guests); warm, the
# build takes about a minute and a half.  The driver starts it after
# the host tests: it compiles on the core the next phases' single guests
# leave free, and its results are read before the selftests' guests,
# which take both.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../../lib.sh"

sparc_t=$(date +%s)
testing/vm/build-sparc64 >"$logdir/sparc64.log" 2>&1
echo $(($(date +%s) - sparc_t)) >"$logdir/sparc64.secs"
