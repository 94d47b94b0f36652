#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: sparc64 cross-build (results)
#
# sparc64 (make sparc64): the module cross-built W=1 and sparse clean
# against the sparc64 6.1 and 6.12 guest kernels (built once, cached),
# user space and the Perfmon test cross-built without warnings.  The
# build ran in the background (testing/phases/jobs/sparc64-build.sh,
# started by the driver, which waited for it); here its results.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

echo "check: sparc64 cross-build took $(cat "$logdir/sparc64.secs" 2>/dev/null)s (in the background)"
while read -r line; do
	case "$line" in
	"sparc64: ok: "*) ok "sparc64: ${line#sparc64: ok: }" ;;
	"sparc64: FAIL: "*) bad "sparc64: ${line#sparc64: FAIL: }" ;;
	"sparc64: SKIP: "*) skip=$((skip + 1)); echo "SKIP: sparc64: ${line#sparc64: SKIP: }" ;;
	esac
done < <(grep -E '^sparc64: (ok|FAIL|SKIP): ' "$logdir/sparc64.log")
grep -qE '^sparc64: (ok|FAIL): ' "$logdir/sparc64.log" ||
	{ tail -n 20 "$logdir/sparc64.log"; bad "sparc64 cross-build ran"; }
grep -B20 -E '^sparc64: FAIL: ' "$logdir/sparc64.log" | head -n 40
end_phase
