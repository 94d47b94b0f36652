#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: the documentation's examples
#
# The documentation's examples (testing/doc-examples), built and run as
# printed, guests included.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

testing/doc-examples >"$logdir/doc-examples.log" 2>&1
script_result doc-examples "$logdir/doc-examples.log" '^(FAIL|SKIP): '
end_phase
