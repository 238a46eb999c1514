#!/bin/bash
# remote-ssh-tests.sh - stap --remote=ssh://... against two guests running an
# SSH server (Debian's dropbear-bin), reached through QEMU's user network
# (stap-vm -p HOSTPORT:22). The guests boot different kernels when two are
# installed, so one command builds two modules. Checked: both hosts run the
# script, each line gets its host's "N: " (--remote-prefix), remote_id() and
# remote_uri() are the host's, -c runs on the host, -o gathers the output
# here, hosts named through ssh_config work, Ctrl-C stops every host
# and their end probes still print, an unreachable host and an unsupported
# URL fail with their tags. The module goes into a private directory there:
# another user's /tmp/NAME.ko (a link to a root file on one host, a file
# anyone may write on the other) is neither followed nor overwritten nor
# loaded, and nothing is left behind.
# usage: remote-ssh-tests.sh    env: CSTAP_BUILD (build dir), KEEP=1
set -u
. "$(dirname "$0")/lib.sh"
command -v qemu-system-x86_64 >/dev/null || { echo "remote-ssh-tests: SKIP: no qemu"; exit 77; }
dropbear=/usr/sbin/dropbear
[ -x "$dropbear" ] || { echo "remote-ssh-tests: SKIP: no $dropbear (apt-get install dropbear-bin)"; exit 77; }
command -v ssh >/dev/null || { echo "remote-ssh-tests: SKIP: no ssh (apt-get install openssh-client)"; exit 77; }

mapfile -t rels < <("$STAPVM" --releases)
rel0=${rels[0]}
rel1=${rels[1]:-${rels[0]}}

# the client side: a key, and ssh with a configuration of its own (first on PATH)
ssh-keygen -q -t ed25519 -N '' -f "$work/id"
cat > "$work/ssh_config" <<EOF
Host *
  IdentityFile $work/id
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  ConnectTimeout 20
EOF
mkdir "$work/bin"
printf '#!/bin/sh\nexec %s -F %s "$@"\n' "$(command -v ssh)" "$work/ssh_config" > "$work/bin/ssh"
chmod +x "$work/bin/ssh"
export PATH="$work/bin:$PATH"

# the hosts: root with the key, dropbear, cstap's stapio where staprun looks;
# they run until /tmp/stop appears
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$work/passwd"
cat > "$work/host.sh" <<'EOF'
mkdir -p /etc/dropbear && chmod 700 /root/.ssh
ln -s /usr/libexec/cstap/stapio /usr/bin/stapio
dropbear -R -E -p 22 2>/tmp/dropbear.log || echo "dropbear failed"
while [ ! -e /tmp/stop ]; do sleep 1; done
EOF
port0=$((20000 + RANDOM % 20000))
port1=$((port0 + 1))
# the same hosts by ssh configuration names: [USER@]HOST, ssh://HOST
cat >> "$work/ssh_config" <<EOF
Host guest0
  HostName 127.0.0.1
  Port $port0
Host guest1
  HostName 127.0.0.1
  Port $port1
  User root
EOF
guest() {   # guest N RELEASE PORT
	"$STAPVM" -r "$2" -t 900 -p "$3:22" -f "$dropbear" -f "$work/id.pub:/root/.ssh/authorized_keys" \
		-f "$work/passwd:/etc/passwd" -f "$work/host.sh:/host.sh" -- sh /host.sh > "$work/guest$1.log" 2>&1 &
}
guest 0 "$rel0" "$port0"
pid0=$!
guest 1 "$rel1" "$port1"
pid1=$!
stop_guests() {
	for p in $port0 $port1; do ssh -p "$p" root@127.0.0.1 touch /tmp/stop 2>/dev/null; done
	wait "$pid0" "$pid1" 2>/dev/null
}
trap 'stop_guests; [ "${KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT

h0=ssh://root@127.0.0.1:$port0
h1=ssh://root@127.0.0.1:$port1
up=0
for i in $(seq 1 90); do
	if ssh -p "$port0" root@127.0.0.1 true 2>/dev/null && ssh -p "$port1" root@127.0.0.1 true 2>/dev/null; then
		up=1
		break
	fi
	sleep 2
done
if [ "$up" != 1 ]; then
	bad "the two guests' ssh servers did not come up" "$(tail -5 "$work/guest0.log")" "$(tail -5 "$work/guest1.log")"
	finish
fi

# 1. both hosts, prefixed, each its own id and URL; a module per kernel;
# another user (uid 1000) has made /tmp/ssh_hello.ko first: a link to a
# root file on host 0, a file anyone may write on host 1
ssh -p "$port0" root@127.0.0.1 'echo precious > /tmp/victim && ln -s /tmp/victim /tmp/ssh_hello.ko && chown -h 1000:1000 /tmp/ssh_hello.ko'
ssh -p "$port1" root@127.0.0.1 'echo "not a module" > /tmp/ssh_hello.ko && chown 1000:1000 /tmp/ssh_hello.ko && chmod 666 /tmp/ssh_hello.ko'
cat > "$work/hello.stp" <<'EOF'
probe begin { printf("hello id=%d uri=%s\n", remote_id(), remote_uri()); exit() }
EOF
"$STAP" -v --disable-cache -m ssh_hello --remote="$h0" --remote="$h1" --remote-prefix "$work/hello.stp" > "$work/1.out" 2> "$work/1.err"
rc=$?
want="0: hello id=0 uri=$h0
1: hello id=1 uri=$h1"
if [ "$rc" = 0 ] && [ "$(sort "$work/1.out")" = "$want" ]; then
	ok "two hosts, --remote-prefix, remote_id() and remote_uri()"
else
	bad "two hosts (rc=$rc)" "$(cat "$work/1.out")" "$(tail -5 "$work/1.err")"
fi
builds=$(grep -c '^stap: building for kernel' "$work/1.err")
nrel=$(printf '%s\n%s\n' "$rel0" "$rel1" | sort -u | wc -l)
if [ "$builds" = "$nrel" ] && grep -q "runs kernel $rel1" "$work/1.err"; then
	ok "one build per distinct kernel ($nrel: $rel0 $rel1)"
else
	bad "builds: $builds for $nrel kernels" "$(grep '^stap:' "$work/1.err")"
fi
t0=$(ssh -p "$port0" root@127.0.0.1 'cat /tmp/victim; readlink /tmp/ssh_hello.ko; ls -d /tmp/stapremote.* 2>/dev/null')
t1=$(ssh -p "$port1" root@127.0.0.1 'cat /tmp/ssh_hello.ko; ls -ln /tmp/ssh_hello.ko | cut -c1-10; ls -d /tmp/stapremote.* 2>/dev/null')
if [ "$t0" = "$(printf 'precious\n/tmp/victim')" ] && [ "$t1" = "$(printf 'not a module\n-rw-rw-rw-')" ]; then
	ok "another user's /tmp/NAME.ko is neither followed nor used; the private directory is gone"
else
	bad "another user's /tmp/NAME.ko" "host 0: $t0" "host 1: $t1"
fi
ssh -p "$port0" root@127.0.0.1 'rm -f /tmp/victim /tmp/ssh_hello.ko'
ssh -p "$port1" root@127.0.0.1 'rm -f /tmp/ssh_hello.ko'

# 2. -c runs on each host; without --remote-prefix lines come bare; hosts
# named as ssh's configuration names them
"$STAP" --remote=root@guest0 --remote=ssh://guest1 -c 'uname -r' \
	-e 'probe begin { printf("target %d\n", target() > 0) }' > "$work/2.out" 2> "$work/2.err"
rc=$?
want=$(printf '%s\n%s\ntarget 1\ntarget 1' "$rel0" "$rel1" | sort)
if [ "$rc" = 0 ] && [ "$(sort "$work/2.out")" = "$want" ]; then
	ok "-c runs on every host, its kernel's release (USER@HOST, ssh://HOST from ssh_config)"
else
	bad "-c on the hosts (rc=$rc)" "$(cat "$work/2.out")" "$(tail -5 "$work/2.err")"
fi

# -o FILE: every host's output lands in FILE here
"$STAP" --remote="$h0" --remote="$h1" --remote-prefix -o "$work/o.txt" \
	-e 'probe begin { printf("from %d\n", remote_id()); exit() }' > "$work/o.stdout" 2> "$work/o.err"
rc=$?
if [ "$rc" = 0 ] && [ "$(sort "$work/o.txt")" = "$(printf '0: from 0\n1: from 1')" ] && [ ! -s "$work/o.stdout" ]; then
	ok "-o FILE gathers the hosts' output here"
else
	bad "-o FILE (rc=$rc)" "$(cat "$work/o.txt" "$work/o.err" 2>/dev/null)"
fi

# 3. Ctrl-C stops both; their end probes print
cat > "$work/stop.stp" <<'EOF'
global n
probe begin { printf("started %d\n", remote_id()) }
probe timer.ms(50) { n++ }
probe end { printf("end %d ticked %d\n", remote_id(), n > 0) }
EOF
"$STAP" --remote="$h0" --remote="$h1" --remote-prefix "$work/stop.stp" > "$work/3.out" 2> "$work/3.err" &
spid=$!
for i in $(seq 1 120); do
	[ "$(grep -c started "$work/3.out")" = 2 ] && break
	sleep 1
done
sleep 2
kill -INT "$spid"
wait "$spid"
rc=$?
want="0: end 0 ticked 1
0: started 0
1: end 1 ticked 1
1: started 1"
if [ "$rc" = 0 ] && [ "$(sort "$work/3.out")" = "$want" ]; then
	ok "Ctrl-C stops every host, end probes print"
else
	bad "Ctrl-C (rc=$rc)" "$(cat "$work/3.out")" "$(tail -5 "$work/3.err")"
fi
left=$(ssh -p "$port0" root@127.0.0.1 'ls -d /tmp/*.ko /tmp/stapremote.* 2>/dev/null; cat /proc/modules | grep -c "^stap_"')
[ "$left" = 0 ] && ok "nothing left on the host (module unloaded, its directory removed)" || bad "left on the host" "$left"

# 4. failures are tagged
"$STAP" --remote=ssh://root@127.0.0.1:1 -e 'probe begin { exit() }' > /dev/null 2> "$work/4.err"
rc=$?
[ "$rc" != 0 ] && grep -q 'R_REMOTE' "$work/4.err" && ok "unreachable host: R_REMOTE" ||
	bad "unreachable host (rc=$rc)" "$(cat "$work/4.err")"
"$STAP" --remote=libvirt://dom -e 'probe begin { exit() }' > /dev/null 2> "$work/5.err"
rc=$?
[ "$rc" != 0 ] && grep -q 'O_USAGE' "$work/5.err" && ok "unsupported URL: O_USAGE" ||
	bad "unsupported URL (rc=$rc)" "$(cat "$work/5.err")"
"$STAP" --remote=qemu --remote="$h0" -e 'probe begin { exit() }' > /dev/null 2> "$work/6.err"
rc=$?
[ "$rc" != 0 ] && grep -q 'O_USAGE' "$work/6.err" && ok "qemu with ssh: O_USAGE" ||
	bad "qemu with ssh (rc=$rc)" "$(cat "$work/6.err")"
finish
