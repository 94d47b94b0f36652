#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# testing/papi/all.sh: one guest of make check's PAPI job
# (testing/phases/jobs/papi.sh): guest.sh as uid 1000 (PAPI's tools and
# papi_loop, perf_event_paranoid as the guest booted), then as root
# referee.sh (papi_command_line PAPI_TOT_INS on pctr against perf_event)
# and ctests.sh TEST... (PAPI's own tests against pctr and against
# perf_event), when tests are named.  Exit status: guest.sh's, else
# referee.sh's.
#
#   all.sh [TEST...]

cd /work || exit 1
su -s /bin/sh user -c 'cd /work && exec ./guest.sh'
rc=$?
./referee.sh || [ $rc != 0 ] || rc=1
[ $# -eq 0 ] || ./ctests.sh "$@"
exit $rc
