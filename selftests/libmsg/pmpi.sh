#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain,asan
# The profiling interface (pmpi.c): a counting profiler made from mpi.h
# (pmpi-wrap) sees every MPI call of the program once and none of
# libmsg's own, attached each way a tool attaches one: linked before
# libmsg, preloaded with LD_PRELOAD, and linked with libmsg.a (the ASan
# build: that way only, against the sanitized libmsg.a).
. "$(dirname "$0")/test.bash"

ways() {
	case $bin in
	*/asan) echo static ;;
	*) echo linked preload static ;;
	esac
}

cases() {
	local how np
	for how in $(ways); do
		for np in $(t_counts 1 3 8); do
			echo "$how-$np profiler $how, every call seen once (-n $np)"
		done
	done
}

run_case() {
	local how=${1%-*} np=${1##*-}
	case $how in
	linked) t_job 120 -n "$np" "$bin/pmpi-linked" ;;
	static) t_job 120 -n "$np" "$bin/pmpi-static" ;;
	preload)
		t_job 120 -n "$np" env LD_PRELOAD="$bin/libpmpiwrap.so" "$bin/pmpi" ;;
	*) t_fail "no case $1"; return ;;
	esac
	t_status 0 "$how"
	t_said "^pmpi: .* calls seen, each once, none of libmsg's own" "$how"
}

t_main "$@"
