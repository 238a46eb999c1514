#!/bin/bash
# man-tests.sh - the manual pages (doc/man): each written and generated page
# renders with man -l without a groff warning; every diagnostic tag has its
# error::TAG page and every "[man error::...]" stap prints names a page;
# stap(1), staprun(8), stap-vm(1), stap-exporter(8), stap-merge(1) and stapbpf(8) document every option their --help
# lists; every documented tapset function and probe alias has its page; and
# make install puts the pages in their sections.
# usage: man-tests.sh    env: CSTAP_BUILD (build dir)
set -u
. "$(dirname "$0")/lib.sh"
command -v groff >/dev/null && command -v man >/dev/null || { echo "man-tests: SKIP: no groff/man"; exit 77; }

gen=$work/gen
sh "$src/doc/man/gen-man.sh" "$src" "$gen" > /dev/null || { bad "gen-man.sh failed"; exit 1; }
written="stap.1 staprun.8 stap-vm.1 stapprobes.3stap stapex.3stap stap-exporter.8 stap-merge.1 stapbpf.8 dtrace.1"

# every page renders with no groff warning: groff over a hundred pages at a
# time (its warnings name the file and line), then man -l on the written
# pages and on one generated page of each kind (man -l on each of the 1200
# pages took 3 minutes)
n=$( (for w in $written; do echo "$src/doc/man/$w"; done; ls -d "$gen"/*) | tee "$work/pages" | wc -l)
broken=$(tr '\n' '\0' < "$work/pages" | xargs -0 -n 100 groff -man -ww -z 2>&1)
for f in $written; do echo "$src/doc/man/$f"; done > "$work/man-l"
for k in error function probe; do ls -d "$gen/$k::"* | head -1; done >> "$work/man-l"
while read -r f; do
	MANWIDTH=80 man -l "$f" > /dev/null 2>&1 || broken+=$'\n'"${f##*/}: man -l failed"
done < "$work/man-l"
[ -z "$broken" ] && ok "all $n pages render with no groff warning (man -l: $(wc -l < "$work/man-l") of them)" ||
	bad "pages that do not render cleanly" "$broken"

# a page for every tag, and for every [man error::...] stap prints
missing=""
for t in $("$STAP" --list-tags | awk '{ print $1 }'); do
	[ -f "$gen/error::$t.7stap" ] || missing="$missing $t"
done
for p in $(grep -rhoE 'man error::[A-Za-z0-9_%]+' "$src"/translator "$src"/runtime "$src"/tapsets "$src"/staprun \
	--include=*.c --include=*.h --include=*.stp | sed 's/man error:://' | sort -u); do
	case $p in
	*%d) for i in 1 2 3 4 5; do [ -f "$gen/error::${p%\%d}$i.7stap" ] || missing="$missing ${p%\%d}$i"; done ;;
	*) [ -f "$gen/error::$p.7stap" ] || missing="$missing $p" ;;
	esac
done
ntags=$("$STAP" --list-tags | wc -l)
[ -z "$missing" ] && [ "$ntags" -gt 50 ] && ok "error::TAG pages for all $ntags tags and error::pass1-5" ||
	bad "error pages missing:$missing (tags listed: $ntags)"

# every option of the --help texts is in its page
opts_of() { grep -oE '(^|[ /,])--?[A-Za-z][A-Za-z-]*' | sed 's/^[ \/,]//' | sort -u; }
check_opts() {   # page, help text
	local page=$1 help=$2 miss=""
	for o in $(opts_of <<<"$help"); do
		grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$src/doc/man/$page" || grep -qF -- "$o" "$src/doc/man/$page" ||
			miss="$miss $o"
	done
	[ -z "$miss" ] && ok "$page documents every option of its --help" || bad "$page lacks:$miss"
}
check_opts stap.1 "$("$STAP" --help 2>&1)"
check_opts stap-vm.1 "$("$build/translator/stap-vm" --help 2>&1 | sed -n '/^options:/,/^JOBFILE/p')"
check_opts staprun.8 "$("$build/staprun/staprun" -h 2>&1)"
check_opts stap-exporter.8 "$("$build/staprun/stap-exporter" -h 2>&1)"
check_opts stap-merge.1 "$("$build/staprun/stap-merge" -h 2>&1)"
check_opts stapbpf.8 "$("$build/stapbpf/stapbpf" -h 2>&1)"
check_opts dtrace.1 "$("$build/translator/dtrace" 2>&1)"

# every documented tapset function and probe alias has its page
missing=""
for k in function probe; do
	key=$([ $k = function ] && echo sfunction || echo probe)
	for name in $(grep -rhoE "^(/\*\*| \*) $key [A-Za-z0-9][A-Za-z0-9_.]* - " "$src/tapsets" | awk '{ print $3 }' | sort -u); do
		[ -f "$gen/$k::$name.3stap" ] || missing="$missing $k::$name"
	done
done
nf=$(ls "$gen" | grep -c '^function::'); np=$(ls "$gen" | grep -c '^probe::')
[ -z "$missing" ] && [ "$nf" -gt 300 ] && [ "$np" -gt 300 ] &&
	ok "a page for each documented tapset function ($nf) and probe alias ($np)" ||
	bad "tapset pages missing:$(head -c 600 <<<"$missing") ($nf function, $np probe pages)"

# make install: each page in its section
if [ -f "$build/Makefile" ] && make -C "$build" -s install-data-local DESTDIR="$work/dest" > "$work/install.log" 2>&1; then
	m=$(find "$work/dest" -type d -name man | head -1)
	if [ -n "$m" ] && [ -f "$m/man1/stap.1" ] && [ -f "$m/man8/staprun.8" ] && [ -f "$m/man3/stapprobes.3stap" ] &&
	   [ -f "$m/man7/error::E_UNRESOLVED_FUNC.7stap" ] && [ -f "$m/man3/function::execname.3stap" ] &&
	   MANPATH=$m man -w error::pass2 > /dev/null 2>&1 && MANPATH=$m man -w stap > /dev/null 2>&1; then
		ok "make install puts the pages in man1, man3, man7 and man8, where man finds them"
	else
		bad "make install of the pages" "$(find "$work/dest" -name '*.1' -o -name 'error::E_UNRESOLVED_FUNC*' | head)"
	fi
else
	bad "make install-data-local failed" "$(tail -5 "$work/install.log")"
fi
finish
