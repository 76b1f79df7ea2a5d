#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain,asan
# A peer dies during one-sided epochs (rma_death.c): the locks it held
# are broken, the survivors' epochs with it and their fences fail with
# MPI_ERR_PROC_FAILED instead of hanging, each says so before the
# launcher ends it, and the launcher names the dead rank.
. "$(dirname "$0")/test.bash"

cases() {
	local np
	for np in $(t_counts 2 3 4 8); do
		echo "$np a peer dies in one-sided epochs, its locks broken (-n $np)"
	done
}

run_case() {
	t_job 90 -n "$1" "$bin/rma_death"
	t_peer_died rma_death "$1"
}

t_main "$@"
