#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# testing/fleet-check's guest half: one host of the fleet.  Brings up the
# network (SLIP on ttyS1, vm/run --hostfwd), starts pmcd with pmdapctr (ctl.sh start), then
# serves the collector's commands on port 7000 (ctl.sh) until "stop";
# pmcd's and the agent's logs follow.  In /work: pmcd, pmcpp, pmdapctr and
# its help, pmcd's own agent (pmdas/pmcd/), root (the PMNS), pmcd.conf,
# pcp.conf (PCP's directories in /work and /tmp), fleet.conf (the
# events), loop (testing/vm/emu/loop), slattach, ctl.sh.
#
#   sh ./guest.sh
cd /work || exit 1
if ! insmod /pctr/slhc.ko || ! insmod /pctr/slip.ko; then
	echo "guest: no SLIP"
	exit 1
fi
./slattach /dev/ttyS1 &
sleep 1
ip link set sl0 mtu 1500 up && ip addr add 10.0.2.15/24 dev sl0 ||
	{ echo "guest: no network"; exit 1; }
# The wall clock at boot, to the hundredth (busybox's date has whole
# seconds): ctl.sh's times are this plus the uptime, in the clock pmcd
# stamps its answers with, and so pmlogger its records.
s0=$(date +%s)
while [ "$(date +%s)" = "$s0" ]; do :; done
awk -v s="$s0" '{ printf "%.2f\n", s + 1 - $1 }' /proc/uptime >/tmp/boot_wall
sh ./ctl.sh start || exit 1
mkfifo /tmp/stop
# -ll: a connection after another, each its own ctl.sh.
nc -ll -p 7000 -e /work/ctl.sh &
nc=$!
echo "guest: serving"
# Blocks, with nothing running, until ctl.sh's "stop": a sleep loop
# here would add its instructions to the counts.
read -r _ </tmp/stop
kill "$nc"
sh ./ctl.sh kill
echo "=== pmcd.log"
cat /tmp/pmcd.log
echo "=== pctr.log"
cat /tmp/pctr.log
echo "=== END"
