#!/bin/bash
# dtrace-usdt-tests.sh - dtrace -h and -G (USDT providers on <sys/sdt.h>): a
# small program built with a provider.d through cstap's dtrace: the header
# (its macros, guard, C and C++), the semaphores' object (names, section,
# visibility, -32/-64), the program runs; stap -L lists its markers with their
# names and argument counts (and mark("foo-bar") finds foo__bar); the same
# markers, notes, macros and semaphores as SystemTap's script (/usr/bin/dtrace of
# systemtap-sdt-dev) makes when it is installed, and either tool's header links
# with the other's object; -C with -D and an #include beside the script;
# the default output names; the errors. As root on a host running BPF, a
# marker traced natively (--runtime=bpf) sees its arguments and sets its
# semaphore (_ENABLED()).
# usage: dtrace-usdt-tests.sh    env: CSTAP_BUILD (build dir), KEEP=1
# Exit status 77 (skip) without a C compiler or <sys/sdt.h>.
set -u
. "$(dirname "$0")/lib.sh"
unset CSTAP_DEFAULT_RUNTIME   # the native run below: BPF on this host
DTRACE=$build/translator/dtrace

command -v cc > /dev/null || { echo "dtrace-usdt-tests: SKIP: no cc"; exit 77; }
printf '#include <sys/sdt.h>\nint x;\n' | cc -x c -c -o /dev/null - 2> /dev/null ||
	{ echo "dtrace-usdt-tests: SKIP: no <sys/sdt.h> (systemtap-sdt-dev)"; exit 77; }
[ -x "$DTRACE" ] || { echo "dtrace-usdt-tests: SKIP: no $DTRACE"; exit 77; }
cd "$work" || exit 1

# --- the provider and the program --------------------------------------------
cat > prov.d <<'EOF'
/* a provider as programs declare them */
provider myprov {
	probe foo__bar(int, char *);
	probe plain();
	probe twelve(int, long, char *, const char *, unsigned long long, short,
		     char, void *, int, int, int, uint64_t);
	probe mapped(int a, int b) : (int b, int a, int a);
};
#pragma D attributes Evolving/Evolving/Common provider myprov provider
provider other { probe p1(uintptr_t); probe flag(bool); };
EOF
cat > prog.c <<'EOF'
#include <stdio.h>
#include "prov.h"
int main(int argc, char **argv)
{
	(void)argc;
	for (int i = 0; i < 2; i++) {
		if (MYPROV_FOO_BAR_ENABLED())
			printf("enabled %d\n", i);
		MYPROV_FOO_BAR(i + 40, argv[0]);
		MYPROV_PLAIN();
		MYPROV_TWELVE(1, 2L, "three", "four", 5ULL, (short)6, 'c', (void *)0, 9, 10, 11, 12);
		MYPROV_MAPPED(i, 7);
		OTHER_P1(i);
		OTHER_FLAG(i == 1);
	}
	printf("done %d\n", OTHER_P1_ENABLED() ? 1 : 0);
	return 0;
}
EOF
# the markers stap -L must list (the path made ./prog)
cat > marks.expect <<'EOF'
process("./prog").mark("flag") $arg1:long
process("./prog").mark("foo__bar") $arg1:long $arg2:long
process("./prog").mark("mapped") $arg1:long $arg2:long
process("./prog").mark("p1") $arg1:long
process("./prog").mark("plain")
process("./prog").mark("twelve") $arg1:long $arg2:long $arg3:long $arg4:long $arg5:long $arg6:long $arg7:long $arg8:long $arg9:long $arg10:long $arg11:long $arg12:long
EOF
semaphores="myprov_foo__bar_semaphore myprov_mapped_semaphore myprov_plain_semaphore myprov_twelve_semaphore other_flag_semaphore other_p1_semaphore"

# build DIR TOOL: DIR/prog from prov.d and prog.c, the header and object by
# TOOL (a dtrace); status 0, or 1 with what failed in DIR/log
build() {
	mkdir -p "$1" && cp prov.d prog.c "$1/" && (
		cd "$1" &&
		"$2" -h -s prov.d -o prov.h > log 2>&1 &&
		cc -Wall -Wextra -Werror -c prog.c -o prog.o >> log 2>&1 &&
		"$2" -G -s prov.d -o prov.o prog.o >> log 2>&1 &&
		cc -o prog prog.o prov.o >> log 2>&1
	)
}
# marks DIR: what stap -L lists of DIR/prog, its path made ./prog, sorted
marks() {
	(cd "$1" && "$STAP" -L 'process("./prog").mark("*")' 2>&1) | sed "s|process(\"[^\"]*/prog\")|process(\"./prog\")|" | LC_ALL=C sort
}
# notes DIR: each marker's note (provider, name, argument count, whether it
# has a semaphore), sorted
notes() {
	readelf -n "$1/prog" | awk '
		/Provider:/ { p = $2 } /Name:/ { n = $2 }
		/Semaphore:/ { s = ($NF ~ /^0x0+$/) ? "nosem" : "sem" }
		/Arguments:/ { print p, n, NF - 1, s }' | LC_ALL=C sort
}
# semsyms FILE: the semaphore symbols of an object or a program: name, size,
# binding, visibility and section name
semsyms() {
	readelf -sW "$1" | awk '$8 ~ /_semaphore$/ { print $8, $3, $5, $6, $7 }' | LC_ALL=C sort |
		while read -r name size bind vis ndx; do
			printf '%s %s %s %s %s\n' "$name" "$size" "$bind" "$vis" \
				"$(readelf -SW "$1" | sed 's/^ *\[ */[/' | awk -v n="[$ndx]" '$1 == n { print $2 }')"
		done
}

if build cstap "$DTRACE"; then
	ok "dtrace -h and -G build the program (cc -Wall -Wextra -Werror)"
else
	bad "dtrace -h and -G build the program" "$(cat cstap/log)"
	finish
fi

# --- the header -------------------------------------------------------------
h=cstap/prov.h
missing=
for want in '^#ifndef _PROV_H$' '^#define _PROV_H$' '^#define _SDT_HAS_SEMAPHORES 1$' '^#include <sys/sdt.h>$' \
	'^#define MYPROV_FOO_BAR(arg0, arg1) \\$' 'STAP_PROBE2(myprov, foo__bar, arg0, arg1)$' \
	'^#define MYPROV_FOO_BAR_ENABLED() \\$' 'myprov_foo__bar_semaphore, 0)$' \
	'^__extension__ extern unsigned short myprov_foo__bar_semaphore$' \
	'^#define MYPROV_PLAIN() \\$' 'STAP_PROBE(myprov, plain)$' \
	'STAP_PROBE12(myprov, twelve, arg0, ' 'STAP_PROBE2(myprov, mapped, arg0, arg1)$' \
	'^#define OTHER_P1(arg0) \\$' '^/\* myprov:::foo-bar (int, char \*) \*/$'; do
	grep -q -- "$want" "$h" || missing="$missing
$want"
done
[ -z "$missing" ] && ok "the header: guard, semaphores on, each probe's macros and semaphore" ||
	bad "the header lacks" "$missing" "$(cat "$h")"

printf '#include "prov.h"\n#include "prov.h"\nint main(void) { MYPROV_PLAIN(); return MYPROV_PLAIN_ENABLED() ? 1 : 0; }\n' > cstap/twice.c
if (cd cstap && cc -std=c99 -pedantic -Wall -Wextra -Werror -c twice.c -o twice.o 2> twice.log); then
	ok "the header: included twice, C99 -pedantic"
else
	bad "the header: included twice, C99 -pedantic" "$(cat cstap/twice.log)"
fi
if command -v c++ > /dev/null; then
	cp prog.c cstap/progxx.cc
	if (cd cstap && c++ -Wall -Werror -c progxx.cc -o progxx.o 2> xx.log && c++ -o progxx progxx.o prov.o 2>> xx.log &&
	    ./progxx > xx.out 2>> xx.log) && grep -q '^done 0$' cstap/xx.out; then
		ok "the header: C++"
	else
		bad "the header: C++" "$(cat cstap/xx.log)"
	fi
fi

# --- the object and the program ---------------------------------------------
want=$(for s in $semaphores; do echo "$s 2 GLOBAL HIDDEN .probes"; done)
got=$(semsyms cstap/prov.o)
[ "$got" = "$want" ] && ok "the object: each semaphore, 2 bytes, hidden, in .probes" ||
	bad "the object's semaphores" "want:" "$want" "got:" "$got"
out=$(cd cstap && ./prog 2>&1)
[ "$out" = "done 0" ] && ok "the program runs (no semaphore set)" || bad "the program runs" "$out"

got=$(marks cstap)
[ "$got" = "$(cat marks.expect)" ] && ok "stap -L: every marker, its name and arguments" ||
	bad "stap -L" "want:" "$(cat marks.expect)" "got:" "$got"
got=$(cd cstap && "$STAP" -L 'process("./prog").mark("foo-bar")' 2>&1 | sed "s|\"[^\"]*/prog\"|\"./prog\"|")
[ "$got" = 'process("./prog").mark("foo__bar") $arg1:long $arg2:long' ] &&
	ok "stap: mark(\"foo-bar\") is DTrace's name of foo__bar" || bad "mark(\"foo-bar\")" "$got"
got=$(notes cstap)
want='myprov foo__bar 2 sem
myprov mapped 2 sem
myprov plain 0 sem
myprov twelve 12 sem
other flag 1 sem
other p1 1 sem'
[ "$got" = "$want" ] && ok "the notes: provider, name, arguments and a semaphore each" ||
	bad "the notes" "want:" "$want" "got:" "$got"

# --- the same as SystemTap's script -----------------------------------------
if [ -x /usr/bin/dtrace ] && head -c 200 /usr/bin/dtrace | grep -q python && grep -q -i systemtap /usr/bin/dtrace; then
	if build systemtap /usr/bin/dtrace; then
		d=$(diff <(marks systemtap) <(marks cstap))
		[ -z "$d" ] && ok "stap -L: the same markers as with SystemTap's dtrace" || bad "stap -L differs from SystemTap's" "$d"
		d=$(diff <(notes systemtap) <(notes cstap))
		[ -z "$d" ] && ok "the notes: the same as with SystemTap's dtrace" || bad "the notes differ from SystemTap's" "$d"
		macros() { grep -oE '^#define [A-Z0-9_]+\(' "$1" | LC_ALL=C sort -u; }
		d=$(diff <(macros systemtap/prov.h) <(macros cstap/prov.h))
		[ -z "$d" ] && ok "the header: the same macros as SystemTap's" || bad "the macros differ from SystemTap's" "$d"
		d=$(diff <(semsyms systemtap/prov.o) <(semsyms cstap/prov.o))
		[ -z "$d" ] && ok "the semaphores: the same as SystemTap's" || bad "the semaphores differ from SystemTap's" "$d"
		# either header with the other's object
		if cc -o mixed1 cstap/prog.o systemtap/prov.o 2> mixed.log && cc -o mixed2 systemtap/prog.o cstap/prov.o 2>> mixed.log &&
		   [ "$(./mixed1)" = "done 0" ] && [ "$(./mixed2)" = "done 0" ]; then
			ok "either tool's header links and runs with the other's object"
		else
			bad "mixing the tools' headers and objects" "$(cat mixed.log)"
		fi
	else
		bad "the program builds with SystemTap's dtrace" "$(cat systemtap/log)"
	fi
else
	echo "note: no SystemTap dtrace script at /usr/bin/dtrace: not compared"
fi

# --- -C, default names, -32/-64 ---------------------------------------------
mkdir -p cpp/sub
printf '#define ARGTYPE long\n' > cpp/sub/types.h
cat > cpp/sub/cprov.d <<'EOF'
#include "types.h"
provider cp {
	probe a(int, ARGTYPE);
#ifdef WITH_B
	probe b__c();
#endif
};
EOF
if (cd cpp && "$DTRACE" -C -DWITH_B -h -s sub/cprov.d > log 2>&1 && "$DTRACE" -C -DWITH_B -G -s sub/cprov.d >> log 2>&1) &&
   grep -q '^/\* cp:::a (int, long) \*/$' cpp/cprov.h && grep -q '^#define CP_B_C() \\$' cpp/cprov.h &&
   [ "$(semsyms cpp/cprov.o | cut -d' ' -f1 | tr '\n' ' ')" = "cp_a_semaphore cp_b__c_semaphore " ]; then
	ok "-C -D, #include beside the script; without -o: cprov.h and cprov.o here"
else
	bad "-C and the default output names" "$(cat cpp/log; ls cpp)"
fi
mkdir -p dout
if (cd dout && "$DTRACE" -G -s /dev/stdin < ../prov.d > log 2>&1) && [ "$(semsyms dout/d.out | wc -l)" = 6 ]; then
	ok "-G of a script whose name does not end in .d: d.out, as DTrace"
else
	bad "-G -s /dev/stdin" "$(cat dout/log; ls dout)"
fi
if "$DTRACE" -G -64 -s prov.d -o p64.o 2> p64.log && readelf -h p64.o | grep -q 'Class: *ELF64'; then
	ok "-64"
else
	bad "-64" "$(cat p64.log)"
fi
if printf 'int x;\n' | cc -m32 -x c -c -o t32.o - 2> /dev/null; then
	if "$DTRACE" -G -32 -s prov.d -o p32.o t32.o 2> p32.log && readelf -h p32.o | grep -q 'Class: *ELF32'; then
		ok "-32: a 32-bit object"
	else
		bad "-32" "$(cat p32.log)"
	fi
	if "$DTRACE" -G -s prov.d -o mix.o cstap/prog.o t32.o 2> mix.log; then
		bad "-G of a 32-bit object beside 64-bit semaphores succeeded"
	elif grep -q 'incorrect ELF class for object file t32.o' mix.log && [ ! -e mix.o ]; then
		ok "-G: an object of the other ELF class is an error"
	else
		bad "-G of mixed ELF classes" "$(cat mix.log)"
	fi
fi
echo 'a libtool object' > x.lo
"$DTRACE" -G -s prov.d -o lo.o x.lo no-such.o 2> lo.log && [ -s lo.o ] &&
	ok "-G: objects that are no ELF file, or not there, are not looked at" || bad "-G with x.lo" "$(cat lo.log)"

# --- errors -----------------------------------------------------------------
# expect_error WANT-STATUS WANT-TEXT ARGS...: dtrace ARGS fails so
expect_error() {
	es_want=$1 es_text=$2; shift 2
	es_out=$("$DTRACE" "$@" 2>&1); es_rc=$?
	if [ "$es_rc" = "$es_want" ] && grep -qF -- "$es_text" <<< "$es_out"; then
		ok "error: dtrace $* ($es_text)"
	else
		bad "error: dtrace $*" "status $es_rc, want $es_want and \"$es_text\"; got:" "$es_out"
	fi
}
printf 'provider p { probe a(int,int,int,int,int,int,int,int,int,int,int,int,int); };\n' > many.d
printf 'provider p { probe a__b(int); probe a_b(); };\n' > clash.d
printf 'provider p { probe a(int) };\n' > syntax.d
expect_error 1 "failed to open none.d" -h -s none.d
expect_error 1 "[D_PROV_PRARGLEN]" -xerrtags -h -s many.d
expect_error 1 "[D_PROV_BADNAME]" -xerrtags -h -s clash.d
expect_error 1 "[D_SYNTAX]" -xerrtags -G -s syntax.d
expect_error 2 "requires a script" -h
expect_error 2 "illegal option -- 66" -66 -h -s prov.d
[ ! -e many.h ] && [ ! -e syntax.o ] && ok "no output after an error" || bad "output left after an error" "$(ls)"

# --- traced: the semaphore set, the arguments read --------------------------
if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] && "$STAP" --bpf -e 'probe timer.ms(1) { exit() }' > /dev/null 2>&1; then
	out=$(cd cstap && timeout 120 "$STAP" --runtime=bpf -e 'probe process("./prog").mark("foo-bar") { printf("%s %d %s\n", $$name, $arg1, user_string($arg2)) }
		probe process("./prog").mark("twelve") { printf("twelve %s %d %d\n", user_string($arg4), $arg7, $arg12) }' -c ./prog 2>&1)
	want='done 0
enabled 0
enabled 1
foo__bar 40 ./prog
foo__bar 41 ./prog
twelve four 99 12
twelve four 99 12'
	got=$(grep -v '^stap: ' <<< "$out" | LC_ALL=C sort)
	[ "$got" = "$want" ] && ok "traced natively: _ENABLED() true, the arguments read" ||
		bad "traced natively" "want (sorted):" "$want" "got:" "$out"
else
	echo "note: BPF does not run here (root, BTF, bpf()): the native run is skipped"
fi

finish
