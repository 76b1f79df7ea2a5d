#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain,asan
# A peer dies (peerdeath.c): the survivors' receives from it or from
# anyone fail with MPI_ERR_PROC_FAILED, each says so before the launcher
# ends it, and the launcher names the dead rank.
. "$(dirname "$0")/test.bash"

cases() {
	local np
	for np in $(t_counts 2 3 4 8); do
		echo "$np a peer dies, wildcard and named receives fail (-n $np)"
	done
}

run_case() {
	t_job 60 -n "$1" "$bin/peerdeath"
	t_peer_died peerdeath "$1"
}

t_main "$@"
