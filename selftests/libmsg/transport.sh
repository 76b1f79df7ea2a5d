#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain
# The transport in use: natively libmsg announces the user-space
# fallback exactly once a job; in the VM it uses /dev/mpichan without a
# word.
. "$(dirname "$0")/test.bash"

cases() {
	if [ "$mode" = native ]; then
		echo "fallback fallback announced once (-n 4)"
	else
		echo "device runs over /dev/mpichan (-n 4)"
	fi
}

run_case() {
	local warn

	t_job 60 -n 4 "$bin/env"
	t_status 0 "env"
	warn=$(grep -c 'libmsg: warning: .*fallback' "$T_OUT")
	case $1 in
	fallback)
		[ "$warn" = 1 ] || t_fail "the fallback announced $warn times" ;;
	device)
		[ -e /dev/mpichan ] || t_fail "no /dev/mpichan"
		[ "$warn" = 0 ] || t_fail "the fallback announced $warn times" ;;
	*) t_fail "no case $1" ;;
	esac
}

t_main "$@"
