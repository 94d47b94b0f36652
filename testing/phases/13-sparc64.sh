#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# title: sparc64 guest
#
# The sparc64 guests (sun4u, emulated UltraSPARC counters): pctr's SPARC
# backend, PCR.PRIV and the Perfmon test on sparc64 kernels.  They ran
# in the background (testing/phases/jobs/sparc64-guest.sh, started by
# the driver, which waited for it); here their results.
# PCTR_SPARC64_GUEST=0 leaves them out; PCTR_SPARC64_KERNELS chooses the
# kernels.
# shellcheck source=testing/lib.sh
. "$(dirname "$0")/../lib.sh"

sgd=$logdir/sparc64-guest
if [ "${PCTR_SPARC64_GUEST:-1}" = 0 ]; then
	skip=$((skip + 1))
	echo "SKIP: sparc64 guest (PCTR_SPARC64_GUEST=0)"
	end_phase
fi
cold=$(cat "$sgd/cold" 2>/dev/null)
if [ -n "$cold" ]; then
	echo "check: sparc64 guest: cold cache, built$cold in $(cat "$sgd/build.secs" 2>/dev/null)s (in the background)"
	grep -E 'built|failed' "$sgd/build.log" | sed 's/^/  /'
fi
for sk in "${sparc_kernels[@]}"; do
	echo "check: sparc64 guests on $sk took $(cat "$sgd/guest-$sk.secs" 2>/dev/null)s (in the background)"
	rc=$(cat "$sgd/guest-$sk.rc" 2>/dev/null || echo 125)
	guest_result "sparc64 guest-check on $sk" "$sgd/guest-$sk.log" "$rc" \
		sparc64-guest "sparc64 $sk"
	rc=$(cat "$sgd/suite-$sk.rc" 2>/dev/null || echo 125)
	guest_result "sparc64 selftests on $sk" "$sgd/suite-$sk.log" "$rc" \
		selftests "sparc64 $sk"
done
end_phase
