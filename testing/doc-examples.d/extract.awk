# SPDX-License-Identifier: GPL-2.0
#
# testing/doc-examples.d/extract.awk: each block of a document, marked or
# a C block, as OUT/<n>.block, with OUT/index lines "<n> <line> KIND NAME"
# (KIND "-" for an unmarked C block).  Run by testing/doc-examples as
#   awk -v fmt=md|rst|roff -v out=OUT -f extract.awk FILE
# The markers and formats are described in testing/doc-examples' header.
function flush(   i, f, c) {
	if (!inblk)
		return
	inblk = 0
	# Trailing blank lines are not part of a block.
	while (nl > 0 && lines[nl] ~ /^[ \t]*$/)
		nl--
	c = 0
	for (i = 1; i <= nl; i++)
		if (lines[i] ~ /^#include/)
			c = 1
	if (kind == "" && !(c || isc))
		return
	n++
	f = out "/" n ".block"
	printf "" >f
	for (i = 1; i <= nl; i++)
		print lines[i] >f
	close(f)
	print n, start, (kind == "" ? "-" : kind), name >(out "/index")
	kind = ""
	name = ""
}
function unroff(s) {
	gsub(/\\e/, "\001", s)
	gsub(/\\-/, "-", s)
	gsub(/\\\(aq/, "\047", s)
	gsub(/\\\(dq/, "\"", s)
	gsub(/\\\(ti/, "~", s)
	gsub(/\\\(ha/, "^", s)
	gsub(/\\&/, "", s)
	gsub(/\001/, "\\", s)
	return s
}
BEGIN { n = 0; inblk = 0; kind = ""; name = ""; want = 0 }
fmt == "md" {
	if (inblk) {
		if ($0 ~ /^```/) { flush(); next }
		lines[++nl] = $0
		next
	}
	if (match($0, /^<!-- doc-example: [a-z]+ [^ ]+ -->/)) {
		split($0, w, " ")
		kind = w[3]; name = w[4]
		next
	}
	if ($0 ~ /^```/) {
		inblk = 1; nl = 0; start = NR + 1
		isc = ($0 ~ /^```c *$/)
		next
	}
	next
}
fmt == "rst" {
	if (inblk) {
		if ($0 ~ /^[ \t]*$/) { lines[++nl] = ""; next }
		if (substr($0, 1, length(indent)) == indent &&
		    substr($0, length(indent) + 1, 1) != "" ) {
			lines[++nl] = substr($0, length(indent) + 1)
			next
		}
		flush()
		# fall through: this line may start something
	}
	if (want == 2) {
		if ($0 ~ /^[ \t]*$/)
			next
		match($0, /^[ \t]+/)
		if (RLENGTH > 0) {
			indent = substr($0, 1, RLENGTH)
			inblk = 1; nl = 0; start = NR; isc = 0
			lines[++nl] = substr($0, RLENGTH + 1)
			want = 0
			next
		}
		want = 0
	}
	if ($0 ~ /^\.\. doc-example: /) {
		split($0, w, " ")
		kind = w[3]; name = w[4]
		next
	}
	if ($0 ~ /::[ \t]*$/ && $0 !~ /^\.\. [a-z-]+::/) {
		want = 2
		next
	}
	next
}
fmt == "roff" {
	if (inblk) {
		if ($0 ~ /^\.EE/) { flush(); next }
		lines[++nl] = unroff($0)
		next
	}
	if ($0 ~ /^\.\\" doc-example: /) {
		split($0, w, " ")
		kind = w[3]; name = w[4]
		next
	}
	if ($0 ~ /^\.EX/) {
		inblk = 1; nl = 0; start = NR + 1; isc = 0
		next
	}
	next
}
END { flush() }
