#!/bin/bash
# tree-tests.sh - the repository holds no build output: no tracked file
# matches the ignore rules (.gitignore: *.ko, *.bo, logs, test output ...).
# Skipped (77) outside a git work tree (a release tarball).
set -u
. "$(dirname "$0")/lib.sh"
git -C "$src" rev-parse --is-inside-work-tree > /dev/null 2>&1 || { echo "SKIP: $src is not a git work tree"; exit 77; }
tracked=$(git -C "$src" ls-files -ci --exclude-standard)
if [ -z "$tracked" ]; then
	ok "no tracked file matches .gitignore"
else
	bad "tracked files match .gitignore (build output? git rm --cached them)" $tracked
fi
finish
