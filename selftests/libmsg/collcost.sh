#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain,asan
# Collective selection by cost (collcost.c): the models' shape, the
# choices lm_coll_choose() makes for given parameters, the parameter
# file's format, and that a job takes its parameters from
# MPICHAN_COLL_PARAMS: an 8-byte allreduce goes through the collective
# area when a cache-line handoff is cheap and by recursive doubling when
# it is dear, at 2 and 4 ranks, and through the area when forced
# (MPICHAN_COLL_ALLREDUCE=area) however dear; a bad file stops MPI_Init.
. "$(dirname "$0")/test.bash"

cases() {
	echo "models every model positive, rising with size, dearer oversubscribed and across caches"
	echo "decide the algorithm chosen for given parameters, sizes, placement"
	echo "params MPICHAN_COLL_PARAMS file format"
	echo "job a job's allreduce follows MPICHAN_COLL_PARAMS (-n 2, 4)"
}

run_case() {
	local f np
	case $1 in
	models|decide|params)
		t_job 60 -n 1 "$bin/collcost" "$1"
		t_status 0 "$1"
		t_said "collcost: ok" "$1" ;;
	job)
		f=$(mktemp)
		for np in 2 4; do
			printf 'alpha_us 1\nline_ns 10\n' > "$f"
			t_job 60 MPICHAN_COLL_PARAMS="$f" -n "$np" "$bin/collcost" area
			t_status 0 "cheap lines, -n $np"
			printf 'alpha_us 1\nline_ns 100000\nline_far_ns 100000\n' > "$f"
			t_job 60 MPICHAN_COLL_PARAMS="$f" -n "$np" "$bin/collcost" recursive_doubling
			t_status 0 "dear lines, -n $np"
			# A forced algorithm runs whatever the models say.
			t_job 60 MPICHAN_COLL_PARAMS="$f" MPICHAN_COLL_ALLREDUCE=area \
				-n "$np" "$bin/collcost" area
			t_status 0 "dear lines, area forced, -n $np"
		done
		printf 'latency 3\n' > "$f"
		t_job 60 MPICHAN_COLL_PARAMS="$f" -n 2 "$bin/collcost" area
		t_failed "unknown parameter"
		t_said "^libmsg: rank [01]: MPICHAN_COLL_PARAMS=.*unknown parameter" "unknown parameter"
		rm -f "$f" ;;
	*)
		t_fail "no case $1" ;;
	esac
}

t_main "$@"
