#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain
# On a kernel without membarrier the lock has no bias: bias.c runs
# itself again under a seccomp filter that fails the system call, and
# checks the mutex alone carries its threads (it skips where the filter
# cannot load: it is written for x86-64).
. "$(dirname "$0")/test.bash"

cases() {
	echo "1,3 bias without membarrier: the mutex only (-n 1,3)"
}

run_case() {
	local np
	for np in 1 3; do
		t_job 120 BIAS_NO_MEMBARRIER=1 -n "$np" "$bin/bias"
		[ "$rc" = 77 ] && t_skip "$(sed -n 's/^SKIP: //p' "$T_OUT" | head -1)"
		t_status 0 "-n $np"
		t_said "without membarrier" "-n $np"
	done
}

t_main "$@"
