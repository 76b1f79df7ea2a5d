#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain
# Reduce and bcast go through the collective area only when forced:
# then they move its generation too (area.c checks it).
. "$(dirname "$0")/test.bash"

cases() {
	echo "reduce+bcast area with reduce and bcast forced through it (-n 1,3,8)"
}

run_case() {
	local np
	for np in 1 3 8; do
		t_job 120 MPICHAN_COLL_REDUCE=area MPICHAN_COLL_BCAST=area \
			-n "$np" "$bin/area"
		t_status 0 "-n $np"
	done
}

t_main "$@"
