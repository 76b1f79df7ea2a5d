#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain,asan
# A peer's malformed span or layout offer, or a control message naming a
# send that does not exist, stops the receiver with a protocol error,
# never a crash or a wrong copy (badspan.c writes them, case by case).
. "$(dirname "$0")/test.bash"

cases() {
	echo "1-31 malformed offers and control messages refused (cases 1-31, -n 2)"
}

# stopped CASE MESSAGE: rank 1 stopped with "protocol error: MESSAGE
# from rank 0" (so the job failed, in its time).
stopped() {
	t_job 30 -n 2 "$bin/badspan" "$1"
	t_failed "case $1"
	t_said "protocol error: $2 from rank 0" "case $1"
}

run_case() {
	local c spans layouts unknown
	[ "$1" = 1-31 ] || { t_fail "no case $1"; return; }
	# The checks are libmsg's own, the same over either transport: in
	# the VM (seconds of start-up a job) one case of each kind, and
	# case 31, the module's.
	if [ "$mode" = vm ]; then
		spans=5 layouts=24 unknown=28
	else
		spans=$(seq 1 12) layouts=$(seq 13 25) unknown="27 28 29"
	fi
	for c in $spans; do
		stopped "$c" "bad span offer"
	done
	for c in $layouts; do
		stopped "$c" "bad layout offer"
	done
	# The layout the cases break is itself valid.
	t_job 30 -n 2 "$bin/badspan" 26
	t_status 0 "case 26"
	t_said "base layout is valid" "case 26"
	for c in $unknown; do
		stopped "$c" "completion for an unknown send"
	done
	stopped 30 "cancel reply for an unknown send"
	# Runs offered under a module send nobody made: the receive fails,
	# the job goes on.
	t_job 30 -n 2 "$bin/badspan" 31
	t_status 0 "case 31"
	t_said "case 31 refused" "case 31"
}

t_main "$@"
