#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: packaging
#
# Packaging (testing/pkgtest): a staged install of libpctr, libcpc and
# the overlays, programs and examples built against it with pkg-config,
# run in guests.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

# A staged install, programs built against it with pkg-config (shared and
# static), and in a guest: their hot loop without a single system call,
# and the libcpc examples (examples/measure: 20 measured iterations;
# examples/overflow: overflow signals), as built against the install;
# the example programs of the reference pages pctr follows, cut out of
# the pages now (testing/examples/extract), built with the overlays'
# pkg-config lines and run on the sim on each kernel (the emulated-PMU
# phase runs them on the emulated Intel and AMD PMUs).
testing/pkgtest --kernel "$kb" >"$logdir/pkgtest.log" 2>&1
script_result pkgtest "$logdir/pkgtest.log" '^FAIL: '
end_phase
