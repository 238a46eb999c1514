#!/bin/bash
# stapbpf-tests.sh - stapbpf (stapbpf/stapbpf.c) on hand-written BPF bundles
# (doc/bpf-bundle.md), run on this host: begin programs in the interpreter
# (printf records, @globals written back through map_lookup_elem, programs
# in ID order, a per-CPU array merged), foreach over a hash map sorted by
# value, kernel programs (timer, perf, tracepoint) counting with an atomic
# add, SystemTap's printf conversions (runtime/format.h's, a string field
# filled to its end) and sprintf, a program the verifier
# refuses (its script position reported), -c and -x in @config, MAXACTION,
# ERROR/WARN/EXIT_STATUS records, signals, -o, malformed bundles (formats the translator
# would refuse, %m), a utimer program, procfs
# FIFOs, maxskipped, and a
# timer program with a bpf_loop callback (BTF func info). Skipped (exit 0)
# where bpf() is not allowed. Needs root (bpf(), perf events), no kprobes.
# usage: stapbpf-tests.sh    env: CSTAP_BUILD (build dir), KEEP=1
set -u
. "$(dirname "$0")/lib.sh"
STAPBPF=$build/stapbpf/stapbpf
[ -x "$STAPBPF" ] || { bad "no $STAPBPF (make first)"; finish; }

# --- a small assembler: one function per instruction; CODE in hex here,
# written out in decimal as the bundle wants. Jumps name a label (@NAME),
# placed with "label NAME"; bundle() turns them into offsets.
I()      { echo "insn $(($1)) $2 $3 $4 $5"; }	# CODE DST SRC OFF IMM
mov()    { I 0xb7 "$1" 0 0 "$2"; }		# rD = imm
movr()   { I 0xbf "$1" "$2" 0 0; }		# rD = rS
addi()   { I 0x07 "$1" 0 0 "$2"; }		# rD += imm
ld64()   { I 0x18 "$1" 0 0 $(($2 & 0xffffffff)); I 0 0 0 0 $((($2 >> 32) & 0xffffffff)); }
ldmap()  { I 0x18 "$1" 1 0 "$2"; I 0 0 0 0 0; }	# rD = map ID (BPF_PSEUDO_MAP_FD)
ldfunc() { I 0x18 "$1" 4 0 "$2"; I 0 0 0 0 0; }	# rD = the function at label (BPF_PSEUDO_FUNC)
stdw()   { I 0x7a "$1" 0 "$2" "$3"; }		# *(u64 *)(rD + off) = imm
stw()    { I 0x62 "$1" 0 "$2" "$3"; }		# *(u32 *)(rD + off) = imm
stxdw()  { I 0x7b "$1" "$2" "$3" 0; }		# *(u64 *)(rD + off) = rS
ldxdw()  { I 0x79 "$1" "$2" "$3" 0; }		# rD = *(u64 *)(rS + off)
xadd()   { I 0xdb "$1" "$2" "$3" 0; }		# lock *(u64 *)(rD + off) += rS
call()   { I 0x85 0 0 0 "$1"; }
ret0()   { mov 0 0; I 0x95 0 0 0 0; }		# r0 = 0; exit
jeq()    { I 0x15 "$1" 0 "$3" "$2"; }		# if rD == imm goto label
jsle()   { I 0xd5 "$1" 0 "$3" "$2"; }		# if (s64)rD <= imm goto label
ja()     { I 0x05 0 0 "$1" 0; }
label()  { echo "label $1"; }
# a PRINTF/EXIT/ERROR/WARN tag (kind, fmt) at r10+off
tag()    { ld64 1 $(($2 << 32 | $1)); stxdw 10 1 "$3"; }
# ringbuf_output(map 0, r10 + off, size, 0)
rb_out() { ldmap 1 0; movr 2 10; addi 2 "$2"; mov 3 "$1"; mov 4 0; call 130; }
# a 64-byte NUL-padded string at rD + off
str_at() {
	local reg=$1 off=$2 s=$3 i j v c
	for ((i = 0; i < 64; i += 4)); do
		v=0
		for ((j = 3; j >= 0; j--)); do
			c=${s:i+j:1}
			v=$((v * 256 + $([ -n "$c" ] && printf '%d' "'$c" || echo 0)))
		done
		stw "$reg" $((off + i)) "$v"
	done
}
# lookup0 MAP LABEL: MAP's value at key 0 in r0 (the key at r10-4); to LABEL when absent
lookup0() { stw 10 -4 0; ldmap 1 "$1"; movr 2 10; addi 2 -4; call 1; jeq 0 0 "$2"; }

# bundle NAME: stdin (with labels) to $work/NAME.bo
bundle() {
	cat > "$work/$1.src"
	awk 'NR == FNR { if ($1 == "prog") p++; if ($1 == "label") at[p, $2] = n[p]; if ($1 == "insn") n[p]++; next }
	     $1 == "prog" { q++; i = 0 }
	     $1 == "label" { next }
	     $1 == "insn" { if ($5 ~ /^@/) $5 = at[q, substr($5, 2)] - i - 1
			    if ($6 ~ /^@/) $6 = at[q, substr($6, 2)] - i - 1; i++ }
	     { print }' "$work/$1.src" "$work/$1.src" > "$work/$1.bo"
}

# run NAME [stapbpf options]: out, err and rc of the run
run() {
	local name=$1
	shift
	"$STAPBPF" "$@" "$work/$name.bo" > "$work/$name.out" 2> "$work/$name.err"
	rc=$?
	out=$(cat "$work/$name.out")
	err=$(cat "$work/$name.err")
}

# check NAME WANT-RC WANT-OUT: stdout exactly, and the exit status
check() {
	if [ "$rc" = "$2" ] && [ "$out" = "$3" ]; then
		ok "$1"
	else
		bad "$1" "rc $rc (want $2)" "stdout: $out" "want:   $3" "stderr: $err"
	fi
}

# --- 1: printf from begin, a string built on the stack, then exit()
bundle hello <<EOF
cstap-bpf 1
module hello
map 0 ringbuf - - 4096 @ring
fmt 0 ls hello %d %s\n
prog 0 begin
line 0 hello.stp:1:15
$(tag 1 0 -80)
$(stdw 10 -72 42)
$(str_at 10 -64 world)
$(rb_out 80 -80)
line 10 hello.stp:1:50
$(stdw 10 -88 2)
$(rb_out 8 -88)
$(ret0)
end
EOF
run hello
if [ $rc != 0 ] && grep -qE 'cannot create map .*(Operation not permitted|Function not implemented)' <<<"$err"; then
	echo "SKIP: stapbpf-tests: bpf() is not allowed here: $err"
	exit 0
fi
check "begin: printf of a number and a stack string, exit()" 0 "hello 42 world"

# --- 2: @globals written through map_lookup_elem's pointer and read back
# by end; begin programs in ID order (2 is first in the file); a per-CPU
# array read merged
bundle globals <<EOF
cstap-bpf 1
module globals
map 0 ringbuf - - 4096 @ring
map 1 array i ll 1 @globals
map 2 percpu_array i l 1 g_pc
fmt 0 lll globals %d %d percpu %d\n
prog 2 begin
$(lookup0 1 @out)
$(mov 1 5)
$(xadd 0 1 0)
$(stdw 10 -16 2)
$(rb_out 8 -16)
label out
$(ret0)
prog 1 begin
$(lookup0 1 @out)
$(stdw 0 0 7)
$(mov 1 99)
$(stxdw 0 1 8)
$(lookup0 2 @out)
$(stdw 0 0 3)
label out
$(ret0)
prog 3 end
$(lookup0 1 @out)
$(movr 6 0)
$(lookup0 2 @out)
$(ldxdw 1 0 0)
$(stxdw 10 1 -8)
$(ldxdw 1 6 0)
$(stxdw 10 1 -24)
$(ldxdw 1 6 8)
$(stxdw 10 1 -16)
$(tag 1 0 -32)
$(rb_out 32 -32)
label out
$(ret0)
end
EOF
run globals
check "@globals written back from begin (ID order), per-CPU array merged" 0 "globals 12 99 percpu 3"

# --- 3: a hash map filled by begin, foreach sorted by value descending in end
bundle foreach <<EOF
cstap-bpf 1
module foreach
map 0 ringbuf - - 4096 @ring
map 1 hash l l 16 g_h
fmt 0 ll %d=%d\n
fmt 1 l count %d\n
prog 0 begin
$(for kv in 1:10 2:30 3:20 4:20; do
	stdw 10 -8 ${kv%:*}; stdw 10 -16 ${kv#*:}
	ldmap 1 1; movr 2 10; addi 2 -8; movr 3 10; addi 3 -16; mov 4 0; call 2
done)
$(stdw 10 -8 2)
$(rb_out 8 -8)
$(ret0)
prog 1 end
$(ldmap 1 1)
$(mov 2 $((0 | 2 << 8)))
$(mov 3 0)
$(call 4097)
$(movr 6 0)
label next
$(movr 1 6)
$(movr 2 10)
$(addi 2 -8)
$(call 4098)
$(jeq 0 0 @done)
$(ldmap 1 1)
$(movr 2 10)
$(addi 2 -8)
$(call 1)
$(jeq 0 0 @next)
$(ldxdw 1 0 0)
$(stxdw 10 1 -16)
$(ldxdw 1 10 -8)
$(stxdw 10 1 -24)
$(tag 1 0 -32)
$(rb_out 24 -32)
$(ja @next)
label done
$(ldmap 1 1)
$(call 4100)
$(stxdw 10 0 -40)
$(tag 1 1 -48)
$(rb_out 16 -48)
$(ret0)
end
EOF
run foreach
check "foreach sorted by value descending (ties by key), map_count" 0 "2=30
3=20
4=20
1=10
count 4"

# --- 4: kernel programs counting with an atomic add: a timer (cpu-clock
# on CPU 0, 10 ms) and a perf event (cpu-clock on every CPU, 100 Hz: a
# negative PERIOD is a frequency); end reads the counts
bundle timer <<EOF
cstap-bpf 1
module timer
map 0 ringbuf - - 4096 @ring
map 1 array i l 2 g_ticks
fmt 0 - timer ticked\n
fmt 1 - perf ticked\n
prog 0 timer 10000000
line 0 timer.stp:1:24
$(lookup0 1 @out)
$(mov 1 1)
$(xadd 0 1 0)
label out
$(ret0)
prog 1 perf 1 0 -100
$(stw 10 -4 1)
$(ldmap 1 1)
$(movr 2 10)
$(addi 2 -4)
$(call 1)
$(jeq 0 0 @out)
$(mov 1 1)
$(xadd 0 1 0)
label out
$(ret0)
prog 2 end
$(lookup0 1 @no0)
$(ldxdw 1 0 0)
$(jsle 1 0 @no0)
$(tag 1 0 -16)
$(rb_out 8 -16)
label no0
$(stw 10 -4 1)
$(ldmap 1 1)
$(movr 2 10)
$(addi 2 -4)
$(call 1)
$(jeq 0 0 @no1)
$(ldxdw 1 0 0)
$(jsle 1 0 @no1)
$(tag 1 1 -16)
$(rb_out 8 -16)
label no1
$(ret0)
end
EOF
run timer -T 1
check "kernel timer and perf (-Hz) programs (-T 1): their counts read by end" 0 "timer ticked
perf ticked"

# --- 4b: a tracepoint program (sched:sched_switch, BPF_PROG_TYPE_TRACEPOINT);
# stapbpf mounts tracefs when it is not, and the test unmounts it again
mounted=$(mountpoint -q /sys/kernel/tracing 2>/dev/null || mountpoint -q /sys/kernel/debug 2>/dev/null && echo yes)
bundle tracepoint <<EOF
cstap-bpf 1
module tracepoint
map 0 ringbuf - - 4096 @ring
map 1 array i l 1 g_switches
fmt 0 - switched\n
prog 0 tracepoint sched sched_switch
$(lookup0 1 @out)
$(mov 1 1)
$(xadd 0 1 0)
label out
$(ret0)
prog 1 end
$(lookup0 1 @none)
$(ldxdw 1 0 0)
$(jsle 1 0 @none)
$(tag 1 0 -16)
$(rb_out 8 -16)
label none
$(ret0)
end
EOF
run tracepoint -T 1
[ -z "$mounted" ] && mountpoint -q /sys/kernel/tracing && umount /sys/kernel/tracing
if [ $rc != 0 ] && grep -q "B_ATTACH.*No such file" <<<"$err"; then
	echo "SKIP: tracepoint: this kernel has no sched:sched_switch (or no tracefs): $err"
else
	check "a tracepoint program (sched:sched_switch, tracefs mounted if needed)" 0 "switched"
fi

# --- 5: SystemTap's printf conversions, records by ringbuf_reserve/submit;
# a string field filled to its 64th byte (no NUL) is printed whole
str64=0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+-
bundle printf <<EOF
cstap-bpf 1
module printf
map 0 ringbuf - - 4096 @ring
fmt 0 lllllllssl [%5d][%-5d|][%x][%#x][%o][%c][%p][%10s][%.3s][%%][%u]\n
fmt 1 lllllslllll %+d|% d|%05d|%X|%#o|%-6s|%ld|%5.2d|%-4c|%#X|%i\n
fmt 2 lllsllll [%*d|%-*s|%.*d|%1b%1b]\n
fmt 3 sl %s=%d
fmt 4 s sprintf: <%s>\n
fmt 5 ss [%s] [%-66.70s]\n
prog 0 begin
$(ldmap 1 0)
$(mov 2 200)
$(mov 3 0)
$(call 131)
$(jeq 0 0 @out)
$(movr 6 0)
$(stdw 6 0 1)
$(stdw 6 8 42)
$(stdw 6 16 42)
$(stdw 6 24 255)
$(stdw 6 32 255)
$(stdw 6 40 8)
$(stdw 6 48 65)
$(stdw 6 56 4660)
$(str_at 6 64 abc)
$(str_at 6 128 abcdef)
$(stdw 6 192 -1)
$(movr 1 6)
$(mov 2 0)
$(call 132)
$(ldmap 1 0)
$(mov 2 152)
$(mov 3 0)
$(call 131)
$(jeq 0 0 @out)
$(movr 6 0)
$(ld64 1 $((1 << 32 | 1)))
$(stxdw 6 1 0)
$(stdw 6 8 7)
$(stdw 6 16 7)
$(stdw 6 24 -42)
$(stdw 6 32 48879)
$(stdw 6 40 8)
$(str_at 6 48 hi)
$(stdw 6 112 -5)
$(stdw 6 120 7)
$(stdw 6 128 122)
$(stdw 6 136 0)
$(stdw 6 144 -123)
$(movr 1 6)
$(mov 2 0)
$(call 132)
$(ldmap 1 0)
$(mov 2 128)
$(mov 3 0)
$(call 131)
$(jeq 0 0 @out)
$(movr 6 0)
$(ld64 1 $((2 << 32 | 1)))
$(stxdw 6 1 0)
$(stdw 6 8 5)
$(stdw 6 16 42)
$(stdw 6 24 5)
$(str_at 6 32 ab)
$(stdw 6 96 3)
$(stdw 6 104 7)
$(stdw 6 112 79)
$(stdw 6 120 75)
$(movr 1 6)
$(mov 2 0)
$(call 132)
$(ldmap 1 0)
$(mov 2 136)
$(mov 3 0)
$(call 131)
$(jeq 0 0 @out)
$(movr 6 0)
$(ld64 1 $((5 << 32 | 1)))
$(stxdw 6 1 0)
$(str_at 6 8 "$str64")
$(str_at 6 72 "$str64")
$(movr 1 6)
$(mov 2 0)
$(call 132)
$(str_at 10 -136 x)
$(stdw 10 -72 42)
$(movr 1 10)
$(addi 1 -64)
$(mov 2 3)
$(movr 3 10)
$(addi 3 -136)
$(call 4102)
$(tag 1 4 -72)
$(rb_out 72 -72)
$(stdw 10 -8 2)
$(rb_out 8 -8)
label out
$(ret0)
end
EOF
run printf
check "printf: widths, flags, precisions, %x %o %c %p %s %% %u %b, '*', a full string field; sprintf" 0 \
"[   42][42   |][ff][0xff][10][A][0x1234][       abc][abc][%][18446744073709551615]
+7| 7|-0042|BEEF|010|hi    |-5|   07|z   |0X0|-123
[   42|ab   |007|OK]
[$str64] [$str64  ]
sprintf: <x=42>"

# --- 6: the verifier refuses a read of an unset register: the script
# position of that instruction; begin never runs
bundle refused <<EOF
cstap-bpf 1
module refused
map 0 ringbuf - - 4096 @ring
fmt 0 - begin ran\n
prog 0 begin
$(tag 1 0 -8)
$(rb_out 8 -8)
$(ret0)
prog 1 timer 1000000
line 0 bad.stp:1:1
$(mov 0 0)
$(mov 3 1)
line 2 bad.stp:2:5
$(movr 0 2)
line 3 bad.stp:3:1
$(I 0x95 0 0 0 0)
end
EOF
run refused
# (the log's words are the kernel's: only the refused instruction and its register checked)
want="ERROR [B_VERIFIER]: the kernel's BPF verifier refused probe 1 (bad.stp:2:5): 2: (bf) r0 = r2 | "
if [ $rc = 1 ] && [ -z "$out" ] && grep -qF "$want" <<<"$err" && grep -q "R2 !read_ok" <<<"$err"; then
	ok "verifier rejection: ERROR [B_VERIFIER] at the refused instruction's script position"
else
	bad "verifier rejection" "rc $rc, stdout: $out" "stderr: $err"
fi

# --- 7: malformed bundles: the file and line, exit 1
malformed() {   # description, expected message, bundle text
	printf '%s\n' "$3" > "$work/bad.bo"
	"$STAPBPF" "$work/bad.bo" > "$work/bad.out" 2>&1
	local r=$? o
	o=$(cat "$work/bad.out")
	if [ $r = 1 ] && grep -qF -- "stapbpf: $work/bad.bo:$2" <<<"$o"; then
		ok "malformed bundle: $1"
	else
		bad "malformed bundle: $1" "rc $r, want 1 and 'stapbpf: FILE:$2'" "got: $o"
	fi
}
hdr="cstap-bpf 1
map 0 ringbuf - - 4096 @ring"
malformed "not a bundle" "1: not a BPF bundle" "cstap-bpf 2
end"
malformed "cut short" "4: no 'end' line" "$hdr
prog 0 begin
insn 149 0 0 0 0"
malformed "register out of range" "4: DST 11 is out of range" "$hdr
prog 0 begin
insn 183 11 0 0 0
end"
malformed "map reference to a missing map" "4: a map reference to map 5" "$hdr
prog 0 begin
insn 24 1 1 0 5
insn 0 0 0 0 0
insn 149 0 0 0 0
end"
malformed "jump outside the program" "4: a jump to instruction 11" "$hdr
prog 0 begin
insn 5 0 0 10 0
insn 149 0 0 0 0
end"
malformed "callback outside the program" "4: a callback at instruction 51" "$hdr
prog 0 begin
insn 24 2 4 0 50
insn 0 0 0 0 0
insn 149 0 0 0 0
end"
malformed "format against its argument types" "3: fmt 0: conversion 1 (%s) wants a string" "$hdr
fmt 0 l %s\n
end"
malformed "format with a conversion the translator refuses" "3: fmt 0: invalid conversion '%ll'" "$hdr
fmt 0 l %lld\n
end"
malformed "format reading the probe's memory" "3: fmt 0: conversion 2 (%M) reads the probe's memory" "$hdr
fmt 0 ll %*M\n
end"
malformed "'*' width given a string" "3: fmt 0: argument 1 (a '*' width or precision) wants a number" "$hdr
fmt 0 ss %*s\n
end"
malformed "unknown map kind" "2: unknown map kind 'tree'" "cstap-bpf 1
map 0 tree l l 1 x
end"
malformed "map IDs out of order" "3: map ID 2 out of order" "$hdr
map 2 hash l l 1 x
end"
malformed "text after end" "4: 'prog' after 'end'" "$hdr
end
prog 0 begin"

# --- 8: -c CMD: its pid in @config for begin, its end ends the session;
# -x PID in @config
bundle target <<EOF
cstap-bpf 1
module target
map 0 ringbuf - - 4096 @ring
map 1 array i l 1 @config
fmt 0 l target %d\n
prog 0 begin
$(lookup0 1 @out)
$(ldxdw 1 0 0)
$(stxdw 10 1 -16)
$(tag 1 0 -24)
$(rb_out 16 -24)
label out
$(ret0)
end
EOF
run target -c 'echo child $$'
if [ $rc = 0 ] && [ "$(sed -n 's/^target //p' <<<"$out")" = "$(sed -n 's/^child //p' <<<"$out")" ] &&
   [ "$(wc -l <<<"$out")" = 2 ] && [ "$(head -1 <<<"$out")" != "target 0" ]; then
	ok "-c CMD: its pid is @config's target, the session ends with it"
else
	bad "-c CMD" "rc $rc, stdout: $out" "stderr: $err"
fi
run target -x 4242 -T 1
check "-x PID in @config" 0 "target 4242"

# --- 9: MAXACTION: an endless begin; the error programs run instead of end
bundle endless <<EOF
cstap-bpf 1
module endless
map 0 ringbuf - - 4096 @ring
fmt 0 - end ran\n
fmt 1 - error ran\n
prog 0 begin
label loop
$(ja @loop)
prog 1 end
$(tag 1 0 -8)
$(rb_out 8 -8)
$(ret0)
prog 2 error
$(tag 1 1 -8)
$(rb_out 8 -8)
$(ret0)
end
EOF
run endless
if [ $rc = 1 ] && [ "$out" = "error ran" ] && grep -q "program 0 (begin) ran too long" <<<"$err"; then
	ok "MAXACTION: a begin program stopped after 1000000 instructions, error programs run"
else
	bad "MAXACTION" "rc $rc, stdout: $out" "stderr: $err"
fi

# --- 10: WARN and ERROR records: on stderr; ERROR stops, exit 1, no end
bundle errors <<EOF
cstap-bpf 1
module errors
map 0 ringbuf - - 4096 @ring
fmt 0 - careful\n
fmt 1 l boom %d near errors.stp:1:9\n
fmt 2 - end ran\n
fmt 3 - not reached\n
prog 0 begin
$(tag 4 0 -8)
$(rb_out 8 -8)
$(tag 3 1 -16)
$(stdw 10 -8 7)
$(rb_out 16 -16)
$(ret0)
prog 1 begin
$(tag 1 3 -8)
$(rb_out 8 -8)
$(ret0)
prog 2 end
$(tag 1 2 -8)
$(rb_out 8 -8)
$(ret0)
end
EOF
run errors
if [ $rc = 1 ] && [ -z "$out" ] && [ "$err" = "WARNING: careful
ERROR: boom 7 near errors.stp:1:9
WARNING: Number of errors: 1, skipped probes: 0" ]; then
	ok "WARN and ERROR records: WARNING:/ERROR: on stderr, later begin and end programs skipped, exit 1"
else
	bad "WARN and ERROR records" "rc $rc, stdout: $out" "stderr: $err"
fi

# --- 10b: EXIT_STATUS records (exit_status()): the last one's low 8 bits
# are the exit status; the session goes on to its EXIT and end program
bundle status <<EOF
cstap-bpf 1
module status
map 0 ringbuf - - 4096 @ring
fmt 0 - end ran\n
prog 0 begin
$(tag 9 0 -16)
$(stdw 10 -8 3)
$(rb_out 16 -16)
$(stdw 10 -8 261)
$(rb_out 16 -16)
$(tag 2 0 -16)
$(rb_out 8 -16)
$(ret0)
prog 1 end
$(tag 1 0 -8)
$(rb_out 8 -8)
$(ret0)
end
EOF
run status
check "EXIT_STATUS records: the last one's low 8 bits are the exit status, end runs" 5 "end ran"

# --- 11: SIGINT stops the session, end runs; -o FILE
bundle idle <<EOF
cstap-bpf 1
module idle
map 0 ringbuf - - 4096 @ring
fmt 0 - end ran\n
prog 0 end
$(tag 1 0 -8)
$(rb_out 8 -8)
$(ret0)
end
EOF
"$STAPBPF" -o "$work/idle.txt" "$work/idle.bo" 2> "$work/idle.err" &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
if [ $rc = 0 ] && [ "$(cat "$work/idle.txt")" = "end ran" ]; then
	ok "SIGINT ends the session, end programs print to -o FILE"
else
	bad "SIGINT / -o" "rc $rc, file: $(cat "$work/idle.txt" 2>&1)" "stderr: $(cat "$work/idle.err")"
fi

# usage errors
"$STAPBPF" -c true -x 1 "$work/idle.bo" > "$work/usage.out" 2>&1
r=$?
[ $r = 2 ] && grep -q "cannot be used together" "$work/usage.out" && ok "usage: -c with -x refused" ||
	bad "usage: -c with -x" "rc $r: $(cat "$work/usage.out")"

# --- 12: a utimer program (a timer probe stapbpf runs itself) every 20 ms:
# a count in @globals, printed each time; exit() at the third; then end
bundle utimer <<EOF
cstap-bpf 1
module utimer
map 0 ringbuf - - 4096 @ring
map 1 array i l 1 @globals
fmt 0 l tick %d\n
fmt 1 l end %d\n
prog 0 utimer 20000000
$(lookup0 1 @out)
$(movr 6 0)
$(mov 1 1)
$(xadd 6 1 0)
$(ldxdw 1 6 0)
$(stxdw 10 1 -8)
$(tag 1 0 -16)
$(rb_out 16 -16)
$(ldxdw 1 6 0)
$(jsle 1 2 @out)
$(stdw 10 -24 2)
$(rb_out 8 -24)
label out
$(ret0)
prog 1 end
$(lookup0 1 @out)
$(ldxdw 1 0 0)
$(stxdw 10 1 -8)
$(tag 1 1 -16)
$(rb_out 16 -16)
label out
$(ret0)
end
EOF
run utimer -T 5
check "utimer: runs on its period until its exit(), then end" 0 "$(printf 'tick 1\ntick 2\ntick 3\nend 3')"

# --- 13: a kernel program (a timer) whose loop is bpf_loop's callback (a
# loop over kernel data in a script): stapbpf gives the kernel the BTF of
# its functions, which a callback's address needs; 5 rounds, each adding 1
bundle loop <<EOF
cstap-bpf 1
module loop
map 0 ringbuf - - 4096 @ring
map 1 array i l 1 g_rounds
map 2 array i l 1 g_done
fmt 0 l rounds %d\n
prog 0 timer 10000000
$(lookup0 2 @out)
$(ldxdw 1 0 0)
$(jeq 1 1 @out)
$(mov 1 1)
$(stxdw 0 1 0)
$(mov 1 5)
$(ldfunc 2 @cb)
$(movr 3 10)
$(mov 4 0)
$(call 181)
label out
$(ret0)
label cb
$(lookup0 1 @none)
$(mov 1 1)
$(xadd 0 1 0)
label none
$(ret0)
prog 1 end
$(lookup0 1 @no)
$(ldxdw 1 0 0)
$(stxdw 10 1 -8)
$(tag 1 0 -16)
$(rb_out 16 -16)
label no
$(ret0)
end
EOF
run loop -T 1
check "a timer program with a bpf_loop callback (BTF func info): 5 rounds" 0 "rounds 5"

# --- 14: a SKIP record counted in the closing warning (not an error); the
# interpreter's ksym helper (symdata of an address no symbol holds); a
# rodata map: its value as the rodata line gives it, frozen (an update fails)
bundle skip <<EOF
cstap-bpf 1
module skip
map 0 ringbuf - - 4096 @ring
map 1 rodata i l 1 @rodata
rodata 1 %ps\\x00%pS\\x00
fmt 0 s %s\\n
fmt 1 l %x\\n
fmt 2 l update %d\\n
prog 0 begin
$(tag 6 0 -8)
$(rb_out 8 -8)
$(movr 1 10)
$(addi 1 -72)
$(mov 2 1)
$(mov 3 1)
$(call 4106)
$(tag 1 0 -80)
$(rb_out 72 -80)
$(lookup0 1 @out)
$(ldxdw 1 0 0)
$(stxdw 10 1 -88)
$(tag 1 1 -96)
$(rb_out 16 -96)
$(stw 10 -4 0)
$(ldmap 1 1)
$(movr 2 10)
$(addi 2 -4)
$(movr 3 10)
$(addi 3 -88)
$(mov 4 0)
$(call 2)
$(stxdw 10 0 -88)
$(tag 1 2 -96)
$(rb_out 16 -96)
label out
$(stdw 10 -8 2)
$(rb_out 8 -8)
$(ret0)
end
EOF
run skip
if [ $rc = 0 ] && [ "$out" = "$(printf '0x1\n53702500737025\nupdate -1')" ] &&
   [ "$err" = "WARNING: Number of errors: 0, skipped probes: 1" ]; then
	ok "a SKIP record is a skipped probe; ksym in the interpreter; a frozen rodata map"
else
	bad "SKIP record / ksym / rodata" "rc $rc, stdout: $out" "stderr: $err"
fi
# --- 15: procfs files as FIFOs under /var/tmp/systemtap-USER/MODULE/: a
# reader of "val" runs its procfs_read program, which sets then appends to
# the buffer (HU_PROCFS 1 and 2); a write into "sub/in" runs its
# procfs_write program, which prints $value (HU_PROCFS 0); made before
# begin, gone after the run
bundle pf <<EOF
cstap-bpf 1
module stapbpf_test_pf
map 0 ringbuf - - 4096 @ring
fmt 0 s got %s
prog 0 procfs_read 256 0 val
$(str_at 10 -64 "hi ")
$(mov 1 1)
$(movr 2 10)
$(addi 2 -64)
$(call 4107)
$(mov 1 2)
$(movr 2 10)
$(addi 2 -64)
$(call 4107)
$(ret0)
prog 1 procfs_write 128 0 sub/in
$(tag 1 0 -80)
$(mov 1 0)
$(movr 2 10)
$(addi 2 -72)
$(call 4107)
$(rb_out 72 -80)
$(ret0)
end
EOF
"$STAPBPF" -T 20 "$work/pf.bo" > "$work/pf.out" 2> "$work/pf.err" &
pfpid=$!
pfdir=
for i in $(seq 100); do
	pfdir=$(ls -d /var/tmp/systemtap-*/stapbpf_test_pf 2>/dev/null | head -1)
	[ -n "$pfdir" ] && [ -p "$pfdir/sub/in" ] && break
	sleep 0.1
done
pfread=$(timeout 10 cat "$pfdir/val" 2>&1)
echo x | timeout 10 tee "$pfdir/sub/in" > /dev/null
pfread2=$(timeout 10 cat "$pfdir/val" 2>&1)
pfmode=$(stat -c %A "$pfdir/val" "$pfdir/sub/in" 2>&1 | tr '\n' ' ')
kill -INT $pfpid
wait $pfpid
rc=$?
out=$(cat "$work/pf.out")
if [ $rc = 0 ] && [ "$pfread" = "hi hi " ] && [ "$pfread2" = "$pfread" ] &&
   [ "$out" = "got x" ] && [ "$pfmode" = "pr-------- p-w------- " ] && [ ! -e "$pfdir" ]; then
	ok "procfs: a read FIFO's reader gets what its program set and appended, twice; a write runs its program"
else
	bad "procfs FIFOs" "rc $rc, dir $pfdir, modes $pfmode" "read: $pfread" "read again: $pfread2" \
		"stdout: $out" "stderr: $(cat "$work/pf.err")"
fi

# --- 16: maxskipped N: the SKIP record past N is the module's error, the
# session stops (its end program does not run)
bundle maxskip <<EOF
cstap-bpf 1
module maxskip
maxskipped 1
map 0 ringbuf - - 4096 @ring
fmt 0 - end ran\n
prog 0 begin
$(tag 6 0 -8)
$(rb_out 8 -8)
$(rb_out 8 -8)
$(rb_out 8 -8)
$(ret0)
prog 1 end
$(tag 1 0 -8)
$(rb_out 8 -8)
$(ret0)
end
EOF
run maxskip
if [ $rc = 1 ] && [ -z "$out" ] && [ "$err" = "ERROR: Skipped too many probes, check MAXSKIPPED or try again with stap -t for more details.
WARNING: Number of errors: 1, skipped probes: 3" ]; then
	ok "maxskipped: past it, the module's error and the session stops"
else
	bad "maxskipped" "rc $rc, stdout: $out" "stderr: $err"
fi

malformed "timing line without its from:" "3: timing 0: no NUL between the probe and its" "$hdr
timing 0 begin, (x.stp:1:1)
end"
malformed "rodata for a map that is not rodata" "3: rodata names map 0, which is not a rodata map" "$hdr
rodata 0 x
end"

finish
