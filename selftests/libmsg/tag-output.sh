#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain
# mpiexec --tag-output prefixes each line a rank writes, on stdout and on
# stderr, with "[rank] ".
. "$(dirname "$0")/test.bash"

cases() {
	echo "tag mpiexec --tag-output (-n 3)"
}

run_case() {
	local r

	t_job 30 -n 3 --tag-output sh -c 'echo hello $MPICHAN_RANK; echo err >&2'
	t_status 0 "--tag-output"
	for r in 0 1 2; do
		grep -qx "\[$r\] hello $r" "$T_OUT" || t_fail "no '[$r] hello $r'"
		grep -qx "\[$r\] err" "$T_OUT" || t_fail "no '[$r] err'"
	done
}

t_main "$@"
