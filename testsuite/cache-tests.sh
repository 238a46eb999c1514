#!/bin/bash
# cache-tests.sh - the module cache (translator/cache/modcache.c), on the
# host, at -p4, with a cache of its own (XDG_CACHE_HOME): a second identical
# run skips passes 1-4 and gets the same module and the same warnings; a
# change to the script, an option, a tapset or a probed program rebuilds;
# a run with a wildcard over files is kept by its C (pass 4 skipped only);
# --disable-cache neither reads nor writes; --clean-cache bounds the size;
# the tracepoints' metadata is kept per kernel and rebuilt when damaged.
# usage: cache-tests.sh    env: CSTAP_BUILD (build dir)
set -u
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME=$work/cache
cache=$XDG_CACHE_HOME/cstap/modules
cd "$work" || exit 1

# run NAME ARGS...: stap -v -p4 ARGS, stderr in NAME.err; "built" or
# "cached" (passes 1-4 skipped) or "c-cached" (pass 4 only) in $how
run() {
	local name=$1
	shift
	"$STAP" -v -p4 "$@" > "$name.out" 2> "$name.err"
	rc=$?
	if grep -q '^Pass 3: using cached' "$name.err"; then how=cached
	elif grep -q '^Pass 4: using cached' "$name.err"; then how=c-cached
	else how=built; fi
}
warnings() { grep -v '^Pass [0-9]' "$1.err"; }

script='global g; probe begin { x = 1; printf("hi\n"); exit() }'
run a1 -m cm_a -e "$script"; cp cm_a.ko a1.ko
run a2 -m cm_a -e "$script"
if [ $rc = 0 ] && [ $how = cached ] && cmp -s a1.ko cm_a.ko && [ "$(cat a2.out)" = cm_a.ko ]; then
	ok "a second identical run skips passes 1-4 and leaves the same NAME.ko"
else
	bad "identical run" "rc=$rc how=$how" "$(cat a2.err)"
fi
if [ -n "$(warnings a1)" ] && [ "$(warnings a1)" = "$(warnings a2)" ]; then
	ok "a cached run prints the warnings the building run printed"
else
	bad "warnings of a cached run" "first: $(warnings a1)" "cached: $(warnings a2)"
fi
run a3 -m cm_a -e "${script/hi/ho}"
[ $how = built ] && ok "a changed script is built" || bad "changed script" "how=$how"
run a4 -m cm_a -DMAXACTION=5 -e "$script"
[ $how = built ] && ok "a changed option (-D) is built" || bad "changed option" "how=$how"

# the default module name: the cached one's, and its run goes on from pass 5
run d1 -e 'probe begin { exit() }'
run d2 -e 'probe begin { exit() }'
if [ $how = cached ] && [ "$(cat d1.out)" = "$(cat d2.out)" ] && [ -s "$(cat d2.out)" ]; then
	ok "without -m, a hit gives the cached module its name"
else
	bad "default name" "how=$how" "$(cat d1.out) / $(cat d2.out)"
fi

# a script on stdin is keyed by its text
echo 'probe begin { exit() }' | run s1 -m cm_s -
echo 'probe begin { exit() }' | run s2 -m cm_s -
[ $how = cached ] && ok "a script on stdin" || bad "stdin" "how=$how" "$(cat s2.err)"

# a tapset (-I) changed since
mkdir tap
echo 'function cm_word() { return "one" }' > tap/cm.stp
run t1 -I tap -m cm_t -e 'probe begin { println(cm_word()); exit() }'
run t2 -I tap -m cm_t -e 'probe begin { println(cm_word()); exit() }'
echo 'function cm_word() { return "two" }' > tap/cm.stp
touch -d '+1 sec' tap/cm.stp
run t3 -I tap -m cm_t -e 'probe begin { println(cm_word()); exit() }'
if [ $how = built ] && grep -q '^cached$' <<< "$(run t2x -I tap -m cm_t -e 'probe begin { println(cm_word()); exit() }'; echo $how)"; then
	ok "a changed tapset is built again (and cached anew)"
else
	bad "changed tapset" "how=$how" "$(head -3 t3.err)"
fi

# a probed program rebuilt since (its identity is kept with the entry)
printf 'int main(void) { return 0; }\n' > prog.c
gcc -g -O0 -o prog prog.c
pscript='probe process("'$work'/prog").function("main") { printf("main\n") }'
run p1 -m cm_p -e "$pscript"
run p2 -m cm_p -e "$pscript"
p2=$how
printf 'int main(void) { return 1; }\n' > prog.c
gcc -g -O0 -o prog prog.c
touch -d '+1 sec' prog
run p3 -m cm_p -e "$pscript"
# (its C may come out the same: then pass 4 is skipped by the C's key)
if [ $p2 = cached ] && [ $how != cached ] && grep -q '^Pass 2:' p3.err; then
	ok "a probed program that changed is read again"
else
	bad "probed program" "second: $p2, after the change: $how" "$(head -3 p3.err)"
fi

# a wildcard over files: keyed by the C after pass 3
mkdir bin && cp prog bin/prog1 && cp prog bin/prog2
wscript='probe process("'$work'/bin/prog*").function("main") { printf("main\n") }'
run w1 -m cm_w -e "$wscript"
run w2 -m cm_w -e "$wscript"
if [ $rc = 0 ] && [ $how = c-cached ] && grep -q '^Pass 2:' w2.err; then
	ok "a wildcard over files skips pass 4 only"
else
	bad "wildcard over files" "how=$how" "$(cat w2.err)"
fi

# --disable-cache
n=$(ls "$cache" | wc -l)
run x1 --disable-cache -m cm_x -e 'probe begin { printf("x\n"); exit() }'
run x2 --disable-cache -m cm_x -e 'probe begin { printf("x\n"); exit() }'
if [ $how = built ] && [ "$(ls "$cache" | wc -l)" = "$n" ]; then
	ok "--disable-cache neither uses nor fills the cache"
else
	bad "--disable-cache" "how=$how, entries $n -> $(ls "$cache" | wc -l)"
fi

# --clean-cache: down to the size limit (the files' sizes), least recently
# used first; a module of 300 probes first, so that the cache is surely over 1 MiB
run big -m cm_big -u -e 'probe kernel.function("vfs_*"), kernel.function("ksys_*") { }'
run a5 -m cm_a -e "$script"   # used last: kept longest
before=$(ls "$cache" | wc -l)
# KiB of the entries' files, as the cache counts them
kib() { find "$cache" -type f ! -name cache_mb_limit -printf '%s\n' | awk '{ n += $1 } END { print int(n / 1024) }'; }
bsize=$(kib)
echo 1 > "$cache/cache_mb_limit"
"$STAP" --clean-cache > clean.out 2>&1
crc=$?
after=$(ls "$cache" | grep -v cache_mb_limit | wc -l)
size=$(kib)
run a6 -m cm_a -e "$script"
if [ $crc = 0 ] && [ "$bsize" -gt 1024 ] && [ "$after" -lt "$before" ] && [ "$size" -le 1024 ] && [ $how = cached ]; then
	ok "--clean-cache removes the least recently used entries beyond cache_mb_limit"
else
	bad "--clean-cache" "rc=$crc entries $before -> $after, $bsize -> ${size} KiB, last used: $how" "$(cat clean.out)"
fi

# the tracepoints' metadata (target/tpmeta_cache.c), per kernel build-id:
# kernel.trace("*") writes it, the next runs read it (the same -L and -l),
# and a truncated, damaged or stale file is found again and rewritten
tpl() { "$STAP" -vv "$1" 'kernel.trace("*")' > "$2.out" 2> "$2.err"; sed -n 's/^tracepoints: [0-9]* \([a-z]*\) .*/\1/p' "$2.err"; }
tpfile() { ls "$XDG_CACHE_HOME"/cstap/tpmeta-*.txt 2>/dev/null | head -1; }
XDG_CACHE_HOME=$work/nocache "$STAP" -l 'kernel.trace("*")' > tl0.out 2>&1
t1=$(tpl -L t1); f=$(tpfile)
t2=$(tpl -L t2)
if [ "$t1" = kept ] && [ -s "$f" ] && [ "$t2" = from ] && [ "$(wc -l < t1.out)" -gt 1000 ] && cmp -s t1.out t2.out; then
	ok "kernel.trace(\"*\") keeps the tracepoints' metadata; the next -L reads it and lists the same"
else
	bad "tracepoint metadata kept, then read" "first: $t1, second: $t2, file: $f" "$(diff t1.out t2.out | head -5)"
fi
t3=$(tpl -l t3)
[ "$t3" = from ] && cmp -s t3.out tl0.out &&
	ok "-l from the metadata lists what it lists without" ||
	bad "-l from the metadata" "$t3" "$(diff tl0.out t3.out | head -5)"
head -c $(( $(wc -c < "$f") / 2 )) "$f" > "$f.half" && mv "$f.half" "$f"
t4=$(tpl -L t4)
t5=$(tpl -L t5)
sed -i '1s/ [0-9a-f]*$/ 0123456789abcdef/' "$f"   # as if made from other module files
t6=$(tpl -L t6)
if [ "$t4" = kept ] && [ "$t5" = from ] && [ "$t6" = kept ] && cmp -s t1.out t4.out && cmp -s t1.out t5.out &&
   cmp -s t1.out t6.out && grep -q 'stale or damaged' t4.err && grep -q 'stale or damaged' t6.err; then
	ok "truncated or stale tracepoint metadata is found again, rewritten, and lists the same"
else
	bad "truncated or stale tracepoint metadata" "truncated: $t4, then: $t5, stale: $t6"
fi

finish
