#!/bin/bash
# bpf-run-tests.sh - the run tests again with stap --runtime=bpf (stapbpf in
# the guest): every test whose script BPF can run must give the output its
# NAME.expect gives the module; the others are refused in pass 2
# (E_BPF_UNSUPPORTED) and counted. The summary line of each kernel says how
# many ran both ways (run-tests.sh, RUNTIME=bpf).
# usage: bpf-run-tests.sh [NAME ...]     env: as run-tests.sh
RUNTIME=bpf exec "$(dirname "$0")/run-tests.sh" "$@"
