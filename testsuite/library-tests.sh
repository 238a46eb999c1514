#!/bin/bash
# library-tests.sh - SystemTap 4.8's documented library, as its reference
# pages give it (Debian's systemtap-doc: function::NAME(3stap) and
# probe::NAME(3stap) under /usr/share/man/man3), resolves in cstap. Each
# function is called with arguments of the types its SYNOPSIS gives (every
# form of it), its value used as the type it gives (l++ for a long, l .= ""
# for a string), each probe point named with an empty body; all of them in
# one `stap -p2 -g -u` per kernel series installed. Every line SystemTap 4.8
# resolves on that kernel (all but those testsuite/library/refused-SERIES.txt
# lists) must resolve in cstap too; a line it refuses there and cstap
# resolves is counted. Only the pages are read: no guest.
# usage: library-tests.sh                  the check
#        library-tests.sh --list REL       with SystemTap 4.8 (STAP_REF, default
#                                          /usr/bin/stap): the lines it refuses for
#                                          kernel REL, one a line (what refused-SERIES.txt
#                                          holds; its probe points one stap run each:
#                                          minutes)
# env: CSTAP_BUILD (build dir), MAN3 (default /usr/share/man/man3)
set -u
. "$(dirname "$0")/lib.sh"
man3=${MAN3:-/usr/share/man/man3}
ls "$man3"/function::*.3stap* > /dev/null 2>&1 || { echo "library-tests: SKIP: no SystemTap reference pages in $man3 (systemtap-doc)"; exit 77; }

# The SYNOPSIS lines of a page (troff source: those between SYNOPSIS and
# ARGUMENTS or VALUES that are not requests), "1) " prefixes dropped.
synopsis() {
	zcat -f "$1" | sed -n '/^\.SH "SYNOPSIS"/,/^\.SH "\(ARGUMENTS\|VALUES\|DESCRIPTION\)"/p' |
		grep -v '^\.' | sed -E 's/^ *([0-9]+\) *)?//; s/ *$//' | grep -v '^$'
}

# lines.tsv: KEY<TAB>SCRIPT LINE, one a form of a function or a probe point
for f in "$man3"/function::*.3stap*; do
	synopsis "$f" | sed 's/^/function\t/'
done | awk -F'\t' '
	function dummy(t) { return t == "string" ? "\"\"" : "0" }
	$2 ~ /^[A-Za-z_][A-Za-z0-9_]*(:[a-z]+)?\(.*\)$/ {
		sig = $2; name = sig; sub(/[:(].*/, "", name)
		ret = ""
		if (sig ~ /^[^(]*:[a-z]+\(/) { ret = substr(sig, 1, index(sig, "(") - 1); sub(/^[^:]*:/, "", ret) }
		args = sig; sub(/^[^(]*\(/, "", args); sub(/\)$/, "", args)
		n = args == "" ? 0 : split(args, a, ",")
		call = ""
		for (i = 1; i <= n; i++) {
			t = a[i]
			if (t ~ /:/) sub(/^[^:]*:/, "", t); else t = "long"
			call = call (i > 1 ? ", " : "") dummy(t)
		}
		c = name "(" call ")"
		if (ret == "long") s = "l = " c "; l++"
		else if (ret == "string") s = "l = " c "; l .= \"x\""
		else s = c
		printf "function %s\tprobe begin { %s }\n", sig, s
	}' > "$work/lines.tsv"
for f in "$man3"/probe::*.3stap*; do
	n=${f##*/probe::}
	n=${n%%.3stap*}
	printf 'probe %s\tprobe %s { }\n' "$n" "$n"
done >> "$work/lines.tsv"
# pvalues.txt: "PROBE NAME ..." the VALUES a probe page documents
for f in "$man3"/probe::*.3stap*; do
	n=${f##*/probe::}
	n=${n%%.3stap*}
	echo "$n $(zcat -f "$f" | sed -n '/^\.SH "VALUES"/,/^\.SH "[^V]/p' |
		sed -n 's/^\\fI\([A-Za-z_][A-Za-z0-9_]*\)\\fR$/\1/p' | sort -u | tr '\n' ' ')"
done > "$work/pvalues.txt"
nf=$(grep -c '^function ' "$work/lines.tsv")
np=$(grep -c '^probe ' "$work/lines.tsv")

# refused STAP REL SCRIPT-LINES: the keys of the lines STAP refuses at -p2
# for kernel REL. A run stops at the first failing phase (resolution, then
# types), so the lines it names are dropped and the rest run again, until a
# run names none.
refused() {
	local stap=$1 rel=$2 keys=$3 left=$work/left.tsv round
	cp "$keys" "$left"
	: > "$work/refused"
	for round in 1 2 3 4 5 6; do
		cut -f2 "$left" > "$work/all.stp"
		(cd "$work" && "$stap" -v -p2 -g -u -r "$rel" all.stp > /dev/null 2> "$work/p2.err")
		grep -o 'all\.stp:[0-9]*' "$work/p2.err" | cut -d: -f2 | sort -un > "$work/bad"
		[ -s "$work/bad" ] || break
		awk 'NR == FNR { bad[$1] = 1; next } (FNR in bad) { print > "/dev/stderr"; next } { print }' \
			"$work/bad" "$left" > "$work/next" 2>> "$work/refused"
		mv "$work/next" "$left"
	done
	cut -f1 "$work/refused" | sort -u
}

# refused_each STAP REL SCRIPT-LINES: the same, a stap run a line (two at
# once): SystemTap names no line of the script when an alias's expansion
# fails, so its probe points are tried one by one
refused_each() {
	local stap=$1 rel=$2
	mkdir -p "$work/each"
	awk -F'\t' -v d="$work/each" '{ f = d "/" NR ".stp"; print $2 > f; close(f); print NR "\t" $1 > (d "/keys") }' "$3"
	cut -f1 "$work/each/keys" | xargs -P 2 -I{} sh -c \
		'cd "$1" && "$2" -p2 -g -u -r "$3" {}.stp > /dev/null 2>&1 || echo {}' sh "$work/each" "$stap" "$rel" |
		sort -n > "$work/each/bad"
	awk -F'\t' 'NR == FNR { bad[$1] = 1; next } ($1 in bad) { print $2 }' "$work/each/bad" "$work/each/keys" | sort -u
}

# vartypes STAP REL: "PROBE VAR:TYPE ..." for every probe page, the types
# STAP's -L gives the VALUES its page documents (two stap runs at once;
# a name in several of the point's -L lines with one type, else each)
vartypes() {
	local stap=$1 rel=$2
	mkdir -p "$work/L"
	cut -d' ' -f1 "$work/pvalues.txt" | xargs -P 2 -I{} sh -c \
		'"$1" -r "$2" -L "{}" > "$3/{}.L" 2> /dev/null; true' sh "$stap" "$rel" "$work/L"
	while read -r n vals; do
		[ -n "$vals" ] || continue
		printf '%s' "$n"
		for v in $vals; do
			tr ' ' '\n' < "$work/L/$n.L" | sed -n "s/^$v:\([a-z]*\)$/\1/p" | sort -u |
				sed "s/^/ $v:/" | tr -d '\n'
		done
		echo
	done < "$work/pvalues.txt"
}

if [ "${1:-}" = --vars ]; then
	vartypes "${STAP_REF:-/usr/bin/stap}" "${2:?usage: library-tests.sh --vars REL}"
	exit 0
fi

if [ "${1:-}" = --list ]; then
	rel=${2:?usage: library-tests.sh --list REL}
	st=${STAP_REF:-/usr/bin/stap}
	grep '^function ' "$work/lines.tsv" > "$work/f.tsv"
	grep '^probe ' "$work/lines.tsv" > "$work/p.tsv"
	{ refused "$st" "$rel" "$work/f.tsv"; refused_each "$st" "$rel" "$work/p.tsv"; } | sort -u
	exit 0
fi

export CSTAP_DEFAULT_RUNTIME=kernel   # the module runtime's library, for the guests' kernels
for rel in $("$STAPVM" --releases 2>/dev/null); do
	series=$(echo "$rel" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
	ref=$src/testsuite/library/refused-$series.txt
	if [ ! -f "$ref" ]; then
		ok "($rel: no testsuite/library/refused-$series.txt, SystemTap 4.8's refusals there: not checked)"
		continue
	fi
	refused "$STAP" "$rel" "$work/lines.tsv" > "$work/cstap-refused"
	grep -v '^#' "$ref" | sort -u > "$work/ref"
	# SystemTap's own static markers (stap_staticmarkers: process("stap").mark(...)
	# in its stap and staprun binaries, probe::stap.pass0 ...): cstap's
	# binaries are not SystemTap's and have none
	missing=$(comm -23 "$work/cstap-refused" "$work/ref" | grep -Ev '^probe (stap|staprun)\.')
	own=$(comm -23 "$work/cstap-refused" "$work/ref" | grep -cE '^probe (stap|staprun)\.')
	extra=$(comm -13 "$work/cstap-refused" "$work/ref" | wc -l)
	vt=$src/testsuite/library/vartypes-$series.txt
	if [ -f "$vt" ]; then	# each documented probe value: SystemTap's type, cstap's
		vartypes "$STAP" "$rel" > "$work/vt-cstap"
		wrong=$(grep -v -e '^#' -e '^stap\.' -e '^staprun\.' "$vt" | while read -r n pairs; do
			got=" $(grep "^$n " "$work/vt-cstap" | cut -d' ' -f2-) "
			for pv in $pairs; do
				case $got in *" $pv "*) ;; *) echo "$n: $pv in SystemTap 4.8, cstap:$(echo "$got" |
					tr ' ' '\n' | grep "^${pv%%:*}:" | tr '\n' ' ' | sed 's/^/ /; s/ $//')";; esac
			done
		done)
		nv=$(grep -v -e '^#' -e '^stap\.' -e '^staprun\.' "$vt" | wc -w)
		nv=$((nv - $(grep -v -e '^#' -e '^stap\.' -e '^staprun\.' "$vt" | wc -l)))
		if [ -z "$wrong" ]; then
			ok "$rel: the $nv values SystemTap 4.8's probe pages document and its -L types, cstap's -L has with the same types (but the markers of SystemTap's own binaries)"
		else
			bad "$rel: probe values SystemTap 4.8 types otherwise (or has, and cstap has not)" "$wrong"
		fi
	else
		ok "($rel: no testsuite/library/vartypes-$series.txt: probe values' types not checked)"
	fi
	if [ -z "$missing" ]; then
		ok "$rel: SystemTap 4.8's $nf function forms and $np probe points (reference pages): all $((nf + np - $(wc -l < "$work/ref"))) it resolves resolve in cstap with the types the pages give, but the $own markers of SystemTap's own binaries ($extra more that SystemTap refuses here)"
	else
		bad "$rel: what SystemTap 4.8 resolves and cstap does not" "$missing"
	fi
done
finish
