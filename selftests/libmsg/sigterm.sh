#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain
# The launcher forwards SIGTERM to ranks blocked forever (kill.c's
# `hang`), and the job ends with 128 + 15.
. "$(dirname "$0")/test.bash"

cases() {
	echo "forward mpiexec forwards SIGTERM (-n 4)"
}

run_case() {
	local pid

	"$MPIEXEC" -n 4 "$bin/kill" hang &
	pid=$!
	sleep 2
	kill -TERM $pid
	for _ in $(seq 100); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid
		t_fail "mpiexec did not end after SIGTERM"
	fi
	wait $pid
	rc=$?
	t_status 143 "after SIGTERM"
}

t_main "$@"
