#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# testing/doc-examples.d/machine-guest.sh: run in a guest by machine.sh
# (as ./.doc-machine.sh, in /work): each line of ./.doc-machine.lines as
# a user types it at a shell, in order, each followed by a line
# "doc-machine: exit <n> <status>"; stops at the first that fails.

n=0
while IFS= read -r line; do
	n=$((n + 1))
	printf '\ndoc-machine: # %s\n' "$line"
	sh -c "$line"
	rc=$?
	printf '\ndoc-machine: exit %s %s\n' "$n" "$rc"
	[ "$rc" = 0 ] || exit "$rc"
done <./.doc-machine.lines
