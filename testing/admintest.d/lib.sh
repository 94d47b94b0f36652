# SPDX-License-Identifier: GPL-2.0
#
# The guest scripts' checks (testing/admintest): one line per check,
# "admin: ok NAME" or "admin: not ok NAME", then the output that failed.

cd /work
OUT=/tmp/admin.out

# check NAME WANT-STATUS PATTERN... -- COMMAND...: COMMAND's status is
# WANT-STATUS and its output (stdout and stderr) has every PATTERN.
check() {
	name=$1 want=$2
	shift 2
	pats=
	while [ "$1" != -- ]; do
		pats="$pats
$1"
		shift
	done
	shift
	"$@" >$OUT 2>&1
	rc=$?
	good=1
	[ "$rc" = "$want" ] || good=0
	echo "$pats" | sed 1d >/tmp/admin.pats
	while IFS= read -r p; do
		grep -q -e "$p" $OUT || { good=0; echo "# missing: $p"; }
	done </tmp/admin.pats
	if [ $good = 1 ]; then
		echo "admin: ok $name"
	else
		echo "admin: not ok $name (exit $rc, wanted $want)"
		sed 's/^/#   /' $OUT
	fi
}
as_user() {
	su -s /bin/sh user -c "export PATH=$PATH; cd /work; $*"
}
truth() {	# truth NAME COMMAND...: a shell test
	name=$1
	shift
	if "$@"; then
		echo "admin: ok $name"
	else
		echo "admin: not ok $name"
	fi
}

