# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # globals of testing/doc-examples
#
# testing/doc-examples.d/kinds.sh: how testing/doc-examples runs a block
# of each kind but "machine" (machine.sh), one function a kind:
#   run_KIND BLOCK WHAT NAME
# in the document's view $view, counting with ok/bad/skipped.  A recipe
# that fails sets $broken (the rest of the document is skipped); $last_out
# is the output of the last recipe, for an "output" block, unless it was
# skipped ($no_out says why).  Sourced by testing/doc-examples.

# A view of the tree to run a document's recipes in: its entries link to
# the tree's (build/ too, so the tree's builds are reused), but for the
# module's sources, which testing/vm/build-module copies into build/ and
# make builds in place, and must find as directories, not links: those
# are copied, times kept.
make_view() {
	local v=$1 e
	rm -rf "$v"
	mkdir -p "$v"
	for e in "$top"/* "$top"/.git*; do
		[ -e "$e" ] || continue
		case "$(basename "$e")" in
		Kbuild|driver|uapi) cp -a "$e" "$v/" ;;
		*) ln -s "$e" "$v/$(basename "$e")" ;;
		esac
	done
}

# The -I and libraries a "c" or "fragment" block is built with.
build_flags=(-O2 -Wall -Wextra -Werror -Wno-unused-parameter -Wno-unused-variable
	     -I"$top/uapi" -I"$top/lib" -I"$top/libcpc" -I"$top/libpctx")
build_libs=("$top/build/lib/libcpc.a" "$top/build/lib/libpctr.a")
[ -f /usr/include/perfmon/pfmlib.h ] && build_libs+=(-lpfm)

run_file() {
	cp "$1" "$view/$3"
}

run_c() {
	if cc "${build_flags[@]}" -o "$view/$3.bin" -x c "$1" \
		-x none "${build_libs[@]}" >"$view/$3.log" 2>&1; then
		ok "$2 compiles"
	else
		head -n 20 "$view/$3.log"
		bad "$2 compiles"
	fi
}

run_fragment() {
	fragment_wrap "$1" >"$view/$3.frag.c"
	if cc "${build_flags[@]}" -Wno-unused-function -c \
		-o "$view/$3.o" "$view/$3.frag.c" >"$view/$3.log" 2>&1; then
		ok "$2 compiles"
	else
		head -n 20 "$view/$3.log"
		bad "$2 compiles"
	fi
}

run_sh() {
	local b=$1 what=$2 name=$3 rc
	if [ "$guest" = 0 ] && grep -q 'testing/vm/run' "$b"; then
		skipped "$what (boots a guest; --no-guest)"
		broken="a guest recipe"
		return
	fi
	no_out=
	if grep -q -- '--emulated-pmu' "$b" &&
	   ! "$top/testing/vm/qemu/build" --print >/dev/null 2>&1; then
		no_out="the emulated PMU's QEMU is not cached: testing/vm/qemu/build"
		skipped "$what ($no_out)"
		last_out=
		return
	fi
	last_out=$view/$name.out
	(
		cd "$view" || exit 1
		set -a
		# shellcheck disable=SC1090
		. "$view.env"
		set +a
		bash -e -o pipefail -c "$(cat "$b")
export -p >'$view.env.new'"
	) >"$last_out" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		mv "$view.env.new" "$view.env"
		ok "$what runs"
	else
		tail -n 30 "$last_out"
		bad "$what runs (exit $rc)"
		broken=$name
	fi
}

# One printed line as an extended regular expression: numbers and hex
# numbers stand for any number, a <word> for any text.
output_re() {
	printf '%s' "$1" | sed -e 's/[][\.*^$/+?(){}|]/\\&/g' \
		-e 's/<[a-z][a-z_-]*>/\x01/g' \
		-e 's/0x[0-9a-f][0-9a-f]*/\x02/g' \
		-e 's/\([^a-zA-Z_0-9]\|^\)[0-9][0-9]*\(\\\.[0-9][0-9]*\)\{0,1\}/\1\x03/g' \
		-e 's/\([^a-zA-Z_0-9]\|^\)[0-9][0-9]*\(\\\.[0-9][0-9]*\)\{0,1\}/\1\x03/g' \
		-e 's/\x01/.*/g' -e 's/\x02/0x[0-9a-f]+/g' \
		-e 's/\x03/[0-9]+(\\.[0-9]+)?/g'
}

run_output() {
	local b=$1 what=$2 l re missing=0
	if [ -z "$last_out" ] && [ -n "$no_out" ]; then
		skipped "$what ($no_out)"
		return
	fi
	if [ -z "$last_out" ] || [ ! -f "$last_out" ]; then
		bad "$what: no recipe ran before it"
		return
	fi
	while IFS= read -r l; do
		[ -z "$l" ] && continue
		re=$(output_re "$l")
		if ! grep -Eq "^[[:space:]]*${re}[[:space:]]*\$" "$last_out"; then
			echo "  not printed: $l"
			missing=1
		fi
	done <"$b"
	if [ $missing = 0 ]; then
		ok "$what: printed as shown"
	else
		tail -n 15 "$last_out" | sed 's/^/  | /'
		bad "$what: printed as shown"
	fi
}
