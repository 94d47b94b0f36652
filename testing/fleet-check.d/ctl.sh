#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# testing/fleet-check's commands in a guest (guest.sh): "start" (pmcd,
# which starts pmdapctr) as an argument, or one line from the collector
# (nc -e: stdin and stdout are the connection), answered "done STATUS
# START END" (the guest's wall clock when it started and ended, seconds):
#   work N     run N iterations of testing/vm/emu/loop (2N instructions
#              in user mode, one CPU)
#   restart    stop pmcd (and so the agent), then start it again
#   kill       stop pmcd for good
#   stop       end guest.sh
export PCP_CONF=/work/pcp.conf
cd /work || exit 1

# pmcd's port, 44321 (0xAD21), listening.
listening() {
	grep -q ':AD21 0*:0000 0A' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
stop_pmcd() {
	[ -f /tmp/pmcd.pid ] && kill "$(cat /tmp/pmcd.pid)" 2>/dev/null
	# The agent goes with pmcd; a new one binds the CPUs only once the
	# old one let them go.  (A sleep costs no time under -icount.)
	i=0
	while { pidof pmcd || pidof pmdapctr || listening; } >/dev/null && [ $i -lt 100 ]; do
		sleep 1
		i=$((i + 1))
	done
	rm -f /tmp/pmcd.pid
}
start_pmcd() {
	./pmcd -c /work/pmcd.conf -n /work/root -l /tmp/pmcd.log -U user
	i=0
	until listening && pidof pmdapctr >/dev/null; do
		[ $i -ge 100 ] && { echo "pmcd did not start"; cat /tmp/pmcd.log; return 1; }
		sleep 1
		i=$((i + 1))
	done
}

now() {
	awk -v b="$(cat /tmp/boot_wall)" '{ printf "%.2f", b + $1 }' /proc/uptime
}

case "${1:-}" in
start) start_pmcd; exit ;;
kill) stop_pmcd; exit ;;
esac
read -r cmd arg
case "$cmd" in
work) t0=$(now); ./loop "$arg"; rc=$?; echo "done $rc $t0 $(now)" ;;
restart) t0=$(now); stop_pmcd; start_pmcd; echo "done $? $t0 $(now)" ;;
kill) t0=$(now); stop_pmcd; echo "done 0 $t0 $(now)" ;;
stop) echo "done 0"; echo stop >/tmp/stop ;;
*) echo "unknown command $cmd" ;;
esac
