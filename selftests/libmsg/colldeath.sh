#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain,asan
# A member of a collective dies (colldeath.c): the survivors' collectives
# on a communicator with the dead rank fail with MPI_ERR_PROC_FAILED,
# through the collective area and then (the "messages" cases) with the
# algorithms made of messages forced, where a rank that had all it
# needed may also succeed (COLLDEATH_LAX); each survivor says so before
# the launcher ends it, and the launcher names the dead rank.
. "$(dirname "$0")/test.bash"

cases() {
	local np
	for np in $(t_counts 2 3 4 8); do
		echo "$np a peer dies, collectives fail (-n $np)"
	done
	for np in $(t_counts 3 8); do
		echo "messages-$np a peer dies, collectives fail (messages) (-n $np)"
	done
}

run_case() {
	local np=${1#messages-} lax=()

	# Message algorithms for every collective colldeath calls.
	[ "$np" != "$1" ] && lax=(COLLDEATH_LAX=1
		MPICHAN_COLL_BARRIER=dissemination
		MPICHAN_COLL_ALLREDUCE=recursive_doubling
		MPICHAN_COLL_BCAST=binomial MPICHAN_COLL_REDUCE=binomial)
	t_job 60 "${lax[@]}" -n "$np" "$bin/colldeath"
	t_peer_died colldeath "$np"
}

t_main "$@"
