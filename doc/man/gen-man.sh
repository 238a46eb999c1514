#!/bin/sh
# gen-man.sh - the generated manual pages, from the sources they document:
#   error::TAG.7stap      one per diagnostic tag of translator/diag_tags.def
#                         (its meaning, its category and pass, and the first
#                         testsuite/semko/TAG.*.stp as an example)
#   error::passN.7stap    what failed when "Pass N: ... failed. [man error::passN]"
#   error::fault.7stap    the run-time error "... read fault ... [man error::fault]"
#   function::NAME.3stap  one per tapset function with a doc comment
#   probe::NAME.3stap     one per tapset probe alias with a doc comment
# Doc comments are "/** sfunction NAME - summary */" on one line, or a block
# (its first line may also hold the "sfunction" line):
#   /**
#    * sfunction NAME - summary        (or: probe NAME - summary)
#    * @arg: what it is
#    *
#    * Description: more text ...
#    */
# followed, for a function, by its "function NAME..." line (the synopsis).
# usage: gen-man.sh SRCDIR OUTDIR      (POSIX sh and awk: mawk is enough)
set -eu
src=$1
out=$2
mkdir -p "$out"
rm -f "$out"/*.7stap "$out"/*.3stap

# error::TAG pages
awk -v out="$out" -v src="$src" '
function esc(s) { gsub(/\\/, "\\e", s); sub(/^[.'\'']/, "\\\\\\&&", s); return s }
function category(t) {
	p = substr(t, 1, 2)
	if (p == "P_") return "parse error|1|the parser (pass 1) refused the script text"
	if (p == "E_") return "semantic error|2|elaboration (pass 2) could not resolve or check the script"
	if (p == "T_") return "translate error|3|translation to C (pass 3) failed"
	if (p == "B_") return "build error|4|building the kernel module (pass 4) failed"
	if (p == "R_") return "run error|5|running the module (pass 5) failed"
	if (p == "O_") return "usage error|0|the command line or a file it names is wrong"
	return "WARNING|2|stap warns; the run goes on (-W makes it an error, -w hides it)"
}
/^DIAG\(/ {
	line = $0
	sub(/^DIAG\( */, "", line)
	tag = line; sub(/,.*/, "", tag)
	meaning = line; sub(/^[^"]*"/, "", meaning); sub(/"[^"]*$/, "", meaning)
	split(category(tag), c, "|")
	f = out "/error::" tag ".7stap"
	print ".TH \"ERROR::" tag "\" 7stap \"\" \"cstap\" \"cstap diagnostics\"" > f
	print ".SH NAME" > f
	print "error::" tag " \\- " esc(meaning) > f
	print ".SH DESCRIPTION" > f
	print "stap prints this tag as" > f
	print ".IP" > f
	print "\\fB" c[1] " [" tag "]:\\fP \\fImessage\\fP at \\fIfile\\fP:\\fIline\\fP:\\fIcolumn\\fP" > f
	print ".PP" > f
	print "followed by the source line with a caret under the column, when there is one." > f
	print "It means: " esc(meaning) "." > f
	print "Category: " c[1] "; " c[3] "." > f
	print "Tags never change name or meaning: scripts and tests may match on them." > f
	ex = ""
	cmd = "ls \"" src "/testsuite/semko/\" 2>/dev/null"
	while ((cmd | getline name) > 0)
		if (ex == "" && index(name, tag ".") == 1 && name ~ /\.stp$/)
			ex = src "/testsuite/semko/" name
	close(cmd)
	if (ex != "") {
		print ".SH EXAMPLE" > f
		print "A script that gets this diagnostic:" > f
		print ".PP" > f
		print ".nf" > f
		n = 0
		while ((getline l < ex) > 0 && n < 20) { print esc(l) > f; n++ }
		close(ex)
		print ".fi" > f
	}
	print ".SH SEE ALSO" > f
	if (c[2] > 0)
		print ".BR error::pass" c[2] " (7stap)," > f
	print ".BR stap (1)" > f
	close(f)
}' "$src/translator/diag_tags.def"

# error::passN pages
pass_page() {   # N, name, what it does, what to check
	f="$out/error::pass$1.7stap"
	{
		printf '%s\n' ".TH \"ERROR::PASS$1\" 7stap \"\" \"cstap\" \"cstap diagnostics\""
		printf '%s\n' ".SH NAME"
		printf '%s\n' "error::pass$1 \\- pass $1 ($2) failed"
		printf '%s\n' ".SH DESCRIPTION"
		printf '%s\n' "stap runs five passes: parse, elaborate, translate, build, run."
		printf '%s\n' "\"Pass $1: $2 failed\" ends a run after the diagnostics that say why,"
		printf '%s\n' "each with its tag; \\fBman error::\\fP\\fITAG\\fP explains a tag."
		printf '%s\n' ".PP"
		printf '%s\n' "Pass $1 $3"
		printf '%s\n' ".SH WHAT TO CHECK"
		printf '%s\n' "$4"
		printf '%s\n' ".SH SEE ALSO"
		printf '%s\n' ".BR stap (1),"
		printf '%s\n' ".BR stapprobes (3stap)"
	} > "$f"
}
pass_page 1 parse "reads the script (a file, \\-e text, stdin) and the tapset library, and
parses them: the errors are tagged P_... and point at the text." \
"The line and column given, and the caret under them; a file that is not a
SystemTap script; \\-\\-compatible=VERSION for scripts written for an older SystemTap."
pass_page 2 analysis "resolves every name (functions, globals, \$target variables), every
probe point (against the kernel's DWARF and symbols, the tapset aliases, the
probed programs) and the types: the errors are tagged E_..." \
"A probe point that does not exist in this kernel (stap \\-l 'POINT' lists what
does); a function from a tapset that needs debuginfo (install
linux\\-image\\-RELEASE\\-dbg, or set DEBUGINFOD_URLS); a blacklisted function
(E_BLACKLISTED: probing it could hang the kernel); -g for embedded C."
pass_page 3 translation "writes the module's C: the errors are tagged T_..." \
"A construct stap cannot translate; the message names it. \\-p3 prints the C
of a script that translates."
pass_page 4 compilation "builds the kernel module with kbuild: the compiler's
first errors are shown, then B_KBUILD with the path of the C file kept." \
"That the kernel's build tree is installed (linux\\-headers\\-RELEASE, stap \\-r
RELEASE for another kernel); embedded C (\\-g) that does not compile for this
kernel; \\-D definitions. \\-k keeps the build directory; \\-v \\-v \\-v shows kbuild's commands."
pass_page 5 run "loads the module with staprun and relays its output, here or in a QEMU
guest: the errors are tagged R_..., and the module's own run-time errors
print as ERROR: lines." \
"That this host can load modules (or that a guest can boot: qemu\\-system\\-x86,
busybox\\-static, the kernel image); the module's messages (ERROR: ... near
FILE:LINE); MAXACTION, MAXMAPENTRIES and the other \\-D limits."

# error::fault: the run-time error of a read or write at a bad address
f="$out/error::fault.7stap"
cat > "$f" <<'PAGE'
.TH "ERROR::FAULT" 7stap "" "cstap" "cstap diagnostics"
.SH NAME
error::fault \- a probe read or wrote memory at an address that is not mapped
.SH DESCRIPTION
A script reads kernel or user memory through target variables
(\fB$ptr\->field\fP), \fB@cast\fP, and functions such as
\fBkernel_string\fP, \fBuser_string\fP or \fBkernel_long\fP.
Every such access is checked: a bad address never faults the kernel, the
handler stops with a run-time error instead, printed as
.IP
ERROR: read fault [man error::fault] at 0x0 near identifier 'kernel_string' at x.stp:3:9
.PP
(a write through a guru-mode assignment fails the same way). Like any run-time error it
counts towards MAXERRORS (0 by default: the script stops after its end
probes), unless the read is in a \fBtry\fP block or
\fB\-\-suppress\-handler\-errors\fP is given.
.SH WHAT TO CHECK
A NULL or stale pointer in the probed code at that moment; a user address
read while the probe runs in another process (user memory is the current
task's); user memory not paged in (reads never sleep, so a page not present
is a fault). Guard the read: \fBif ($ptr)\fP, \fBtry { ... } catch { ... }\fP,
or the functions with a default value (\fBuser_string(addr, "<bad>")\fP).
.SH SEE ALSO
.BR stap (1),
.BR error::pass5 (7stap)
PAGE

# function:: and probe:: pages from the tapsets' doc comments
find "$src/tapsets" -name '*.stp' | sort | while read -r f; do cat "$f"; echo "/*EOF*/"; done | awk -v out="$out" '
function esc(s) { gsub(/\\/, "\\e", s); sub(/^[.'\'']/, "\\&&", s); return s }
function strip(l) { sub(/^[ \t]*\*?[ \t]?/, "", l); return l }
function begin_doc(l,    rest) {   # "sfunction NAME - summary" or "probe NAME - summary"
	kind = (l ~ /^sfunction /) ? "function" : "probe"
	rest = l; sub(/^(sfunction|probe)[ \t]+/, "", rest)
	name = rest; sub(/[ \t].*/, "", name)
	summary = rest; sub(/^[^ \t]*[ \t]*-?[ \t]*/, "", summary)
	args = ""; desc = ""; want_sig = (kind == "function")
}
function end_doc(   k) {
	if (name == "" || name ~ /^_/ || name ~ /[^A-Za-z0-9_.*()"]/)
		return   # no page for internal (_name) ones
	k = kind "::" name
	if (!(k in summ)) { summ[k] = summary; order[++n] = k }
	if (args != "") argtext[k] = argtext[k] args
	if (desc != "") desctext[k] = desctext[k] desc
	cur = k
}
# one-line comment
/^\/\*\*[ \t]*(sfunction|probe)[ \t].*\*\// {
	l = $0; sub(/^\/\*\*[ \t]*/, "", l); sub(/[ \t]*\*\/.*$/, "", l)
	begin_doc(l); end_doc(); pending = want_sig; next
}
# a block opened on the first line: "/** sfunction NAME - summary"
/^\/\*\*[ \t]*(sfunction|probe)[ \t]/ {
	l = $0; sub(/^\/\*\*[ \t]*/, "", l)
	begin_doc(l); inblock = 1; started = 1; next
}
/^\/\*\*[ \t]*$/ { inblock = 1; started = 0; next }
inblock && /\*\// { inblock = 0; if (started) { end_doc(); pending = want_sig } next }
inblock {
	l = strip($0)
	if (!started) {
		if (l ~ /^(sfunction|probe)[ \t]/) { begin_doc(l); started = 1 }
		else inblock = 0
		next
	}
	if (l ~ /^@[A-Za-z0-9_]+:/) {
		a = l; sub(/:.*/, "", a); sub(/^@/, "", a)
		t = l; sub(/^@[A-Za-z0-9_]+:[ \t]*/, "", t)
		args = args ".TP\n.I " a "\n" esc(t) "\n"
	} else if (l ~ /^Description:/) {
		sub(/^Description:[ \t]*/, "", l)
		desc = desc esc(l) "\n"
	} else if (l == "") {
		if (desc != "") desc = desc ".PP\n"
	} else if (desc != "" || args == "") {
		desc = desc esc(l) "\n"
	} else {
		args = args esc(l) "\n"
	}
	next
}
pending && /^[ \t]*function[ \t]/ {
	sig = $0; sub(/^[ \t]*function[ \t]+/, "", sig)
	p = index(sig, ")"); if (p) sig = substr(sig, 1, p)
	if (index(syn[cur], sig "\n") == 0) syn[cur] = syn[cur] esc(sig) "\n"
	pending = 0
}
/^\/\*EOF\*\// { inblock = 0; pending = 0 }
END {
	for (i = 1; i <= n; i++) {
		k = order[i]
		split(k, kn, "::")
		f = out "/" k "." (kn[1] == "function" ? "3stap" : "3stap")
		u = toupper(k)
		print ".TH \"" u "\" 3stap \"\" \"cstap\" \"cstap tapset reference\"" > f
		print ".SH NAME" > f
		print k " \\- " esc(summ[k]) > f
		print ".SH SYNOPSIS" > f
		print ".nf" > f
		if (kn[1] == "function" && syn[k] != "") printf "%s", syn[k] > f
		else print esc(kn[2]) > f
		print ".fi" > f
		if (argtext[k] != "") {
			print ".SH " (kn[1] == "function" ? "ARGUMENTS" : "VALUES") > f
			printf "%s", argtext[k] > f
		}
		if (desctext[k] != "") {
			print ".SH DESCRIPTION" > f
			printf "%s", desctext[k] > f
		}
		print ".SH SEE ALSO" > f
		print ".BR stap (1)," > f
		print ".BR stapprobes (3stap)" > f
		close(f)
	}
}'
echo "gen-man: $(ls "$out" | wc -l) pages in $out"
