#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain,asan
# The rendezvous copy chosen by measurement (copychoose.c): the choice
# lm_copy_choose() makes for given timings, a size class's trials and
# re-measuring, and jobs at 2 and 4 ranks with MPICHAN_COPY=kernel,
# mapped and auto, contiguous and strided receives of 64 KiB to 4 MiB
# checked byte for byte: over the device each forced method is the only
# one that ran and auto reports a choice for every size class it timed
# (and says it with MPICHAN_COPY_DEBUG), and the control variable
# mpichan_copy written to kernel leaves only kernel copies; natively
# the setting changes
# nothing (process_vm_readv) and a bad value is ignored.  Over the
# device a bad value stops MPI_Init.
. "$(dirname "$0")/test.bash"

cases() {
	echo "decide the choice for given timings"
	echo "sequence a class's trials, choice, report and re-measuring"
	echo "forced MPICHAN_COPY=kernel and mapped, data checked (-n 2, 4)"
	echo "auto MPICHAN_COPY=auto (and unset) chooses and reports (-n 2, 4)"
	echo "bad a bad MPICHAN_COPY (fatal over the device, ignored natively)"
}

run_case() {
	local np m
	case $1 in
	decide|sequence)
		t_job 60 -n 1 "$bin/copychoose" "$1"
		t_status 0 "$1"
		t_said "copychoose: ok" "$1" ;;
	forced)
		for np in 2 4; do
			for m in kernel mapped; do
				t_job 300 MPICHAN_COPY=$m -n "$np" "$bin/copychoose" $m
				t_status 0 "$m, -n $np"
				t_said "copychoose: ok" "$m, -n $np"
			done
		done ;;
	auto)
		for np in 2 4; do
			t_job 300 MPICHAN_COPY_DEBUG=1 -n "$np" "$bin/copychoose" auto
			t_status 0 "unset, -n $np"
			t_said "copychoose: ok" "unset, -n $np"
			if [ "$mode" = vm ]; then
				t_said "mpichan copy: rank 1, 65536-131071 bytes: kernel [0-9]* MB/s, mapped [0-9]* MB/s: \(kernel\|mapped\)" \
					"the choice said, -n $np"
			fi
		done
		t_job 300 MPICHAN_COPY=auto -n 2 "$bin/copychoose" auto
		t_status 0 "auto, -n 2" ;;
	bad)
		t_job 60 MPICHAN_COPY=fast -n 2 "$bin/copychoose" auto
		if [ "$mode" = vm ]; then
			t_failed "MPICHAN_COPY=fast"
			t_said "MPICHAN_COPY=fast: not auto, kernel or mapped" "bad value"
		else
			t_status 0 "MPICHAN_COPY=fast natively"
		fi ;;
	*)
		t_fail "no case $1" ;;
	esac
}

t_main "$@"
