#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In a guest booted with --no-load (testing/admintest): pctr load, status
# and unload through libkmod, from the build tree and from modules.dep
# with modprobe.d's options; the error messages a person acts on.  One
# line per check: "admin: ok NAME" or "admin: not ok NAME", then the
# output that failed it.

. /work/lib.sh
rel=$(uname -r)

# --- not loaded ---
check "status without the module: exit 3, says how to load it" 3 \
	'^module  *pctr not loaded (load it: sudo pctr load)' \
	'^available  */pctr/pctr.ko (build tree)' -- pctr status
check "pctr info without the module: sudo pctr load" 1 \
	'the pctr module is not loaded (load it: sudo pctr load, or sudo modprobe pctr)' -- pctr info
check "pctr stat without the module: sudo pctr load" 1 \
	'^pctr stat: open /dev/pctr: no /dev/pctr: the pctr module is not loaded (load it: sudo pctr load' -- pctr stat true
check "pctr selfcheck without the module: sudo pctr load" 1 \
	'^selfcheck: cannot open /dev/pctr: no /dev/pctr: the pctr module is not loaded (load it: sudo pctr load' -- pctr selfcheck
check "unload without the module is refused" 1 'the module is not loaded' -- pctr unload
check "load as uid 1000: needs root" 1 \
	'loading a module needs root (CAP_SYS_MODULE): sudo pctr load' -- as_user pctr load
check "load with an unknown parameter: exit 2, nearest name" 2 \
	"unknown parameter 'pmus': did you mean 'pmu'?" -- pctr load pmus=sim
truth "a refused load loads nothing" [ ! -d /sys/module/pctr ]

# --- from the build tree ---
check "load finds the build tree's pctr.ko (libkmod)" 0 \
	'^pctr: loaded /pctr/pctr.ko (build tree) with pmu=sim$' -- pctr load pmu=sim
check "status: module, parameters, device, backend, PMU, contexts" 0 \
	'^module  *pctr live, 0 reference(s)' '^parameters .* dev_mode=438 (0666) .*pmu=sim' \
	'^device  */dev/pctr 0666 ' '^backend  *sim$' '^counters  *[0-9]* general' \
	'^pmu  *not held' '^contexts  *0$' '^cpu_bindings 0$' -- pctr status
check "load while loaded is refused" 1 'already loaded (pctr status shows it)' -- pctr load
./hold sim_ticks 60 >/tmp/hold.out 2>&1 &
hold=$!
i=0
while ! grep -q counting /tmp/hold.out && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
check "status while a thread counts: PMU held, one context" 0 \
	'^module  *pctr live, [1-9][0-9]* reference(s)' '^pmu  *held by pctr' '^contexts  *1$' -- pctr status
check "unload while in use: refused, names the process and the contexts" 1 \
	'the module is in use ([1-9][0-9]* references*)' "/dev/pctr is open in: $hold (hold)" \
	'counter contexts: 1, CPU bindings: 0' -- pctr unload
truth "a refused unload leaves the module" [ -d /sys/module/pctr ]
kill $hold
wait $hold 2>/dev/null
check "unload as uid 1000: needs root" 1 \
	'unloading a module needs root (CAP_SYS_MODULE): sudo pctr unload' -- as_user pctr unload
check "unload once unused" 0 '^pctr: unloaded$' -- pctr unload
truth "unloaded: no /sys/module/pctr" [ ! -d /sys/module/pctr ]

# --- from modules.dep, with modprobe.d's options (the example file) ---
cp -r /work/modroot/lib /
mkdir -p /etc/modprobe.d
cp /work/pctr.conf /etc/modprobe.d/pctr.conf
check "status finds pctr.ko in modules.dep" 3 \
	"^available  */lib/modules/$rel/extra/pctr.ko (modules.dep)" -- pctr status
check "load from modules.dep with modprobe.d's dev_mode=0660" 0 \
	"^pctr: loaded /lib/modules/$rel/extra/pctr.ko (modules.dep) with dev_mode=0660$" -- pctr load
truth "dev_mode=0660: /dev/pctr is mode 0660" [ "$(stat -c %a /dev/pctr)" = 660 ]
want=$(sed -n 's/.*RESULT=="\([0-9]*\)".*/\1/p' /work/60-pctr.rules)
have=$(cat /sys/module/pctr/parameters/dev_mode)
truth "the udev rule's RESULT ($want) is what the module shows for dev_mode=0660 ($have)" [ "$want" = "$have" ]
truth "the udev rule reads the parameter's file, which exists" \
	test -r "$(sed -n 's/.*PROGRAM="[^ ]* \([^"]*\)".*/\1/p' /work/60-pctr.rules)"
# What the rule does (udev is not in the guest): group pctr, mode 0660.
echo 'pctr:x:1001:' >>/etc/group
chgrp pctr /dev/pctr
check "EACCES for a user outside the group: join it with usermod" 1 \
	'permission denied on /dev/pctr (mode 0660, group pctr): join the group (sudo usermod -aG pctr $USER, then log in again)' \
	-- as_user pctr info
sed -i 's/^pctr:x:1001:$/pctr:x:1001:user/' /etc/group
check "a member of the pctr group opens it" 0 '^backend ' -- as_user pctr info
pctr unload >/dev/null 2>&1
check "the command line overrides modprobe.d (dev_mode=0600)" 0 \
	'with dev_mode=0660 dev_mode=0600$' -- pctr load dev_mode=0600
check "EACCES when only root may open it: says dev_mode and the group" 1 \
	'(mode 0600, group root): only root may open it; the administrator can open it to the pctr group with dev_mode=0660' \
	-- as_user pctr info
pctr unload >/dev/null 2>&1
rm /etc/modprobe.d/pctr.conf

# --- EBUSY, unknown events ---
pctr load pmu=sim sim_busy=1 >/dev/null
check "EBUSY names who holds the counters (the simulator's sim_busy)" 1 \
	'hold: set: the counters are in use by the simulator, loaded with sim_busy=1' -- ./hold sim_ticks 0
pctr unload >/dev/null
pctr load pmu=sim >/dev/null
check "libpctr: an unknown event is ENOENT 'no event of that name', not 'module not loaded'" 1 \
	"hold: set: no event of that name (pctr stat -l lists the backend's events)" -- ./hold sim_tick 0
check "pctr stat: an unknown event: exit 2, the nearest name" 2 \
	"unknown event 'sim_tick': did you mean 'sim_ticks'?" -- pctr stat -e sim_tick true
pctr unload >/dev/null
exit 0
