#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain modes=vm
# Short of address space, a rank maps a smaller receive window instead
# of none (env.c, told by ENV_WINDOW_CAPPED, checks it is at least
# 64 MiB and says how large).
. "$(dirname "$0")/test.bash"

cases() {
	echo "rlimit-as a smaller receive window under RLIMIT_AS (-n 2)"
}

run_case() {
	ulimit -v 900000 || t_skip "ulimit -v refused"
	t_job 60 ENV_WINDOW_CAPPED=1 -n 2 "$bin/env"
	t_status 0 "under RLIMIT_AS"
	t_said "receive window of" "under RLIMIT_AS"
}

t_main "$@"
