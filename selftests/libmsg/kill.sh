#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain,asan
# A rank that dies (kill.c: the last of 4, while the others wait for it
# or for anyone): the launcher names it, returns its status, and the job
# ends in its time instead of hanging; with nobody dying it succeeds.
. "$(dirname "$0")/test.bash"

cases() {
	local how
	for how in none kill exit abort; do
		echo "$how rank dies ($how), job ends (-n 4)"
	done
}

run_case() {
	local how=$1 want msg
	case $how in
	none) want=0 msg= ;;
	kill) want=137 msg='mpiexec: rank 3 killed by signal 9' ;;
	exit) want=3 msg='mpiexec: rank 3 exited with status 3' ;;
	abort) want=4 msg='mpiexec: rank 3 exited with status 4' ;;
	*) t_fail "no case $how"; return ;;
	esac
	t_job 30 -n 4 "$bin/kill" "$how"
	t_status "$want" "$how"
	[ -z "$msg" ] || t_said "$msg" "$how"
}

t_main "$@"
