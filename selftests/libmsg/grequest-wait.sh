#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain
# A generalized request completed by another thread wakes a waiter that
# spins and one that sleeps in the transport (grequest.c under each
# MPICHAN_WAIT).
. "$(dirname "$0")/test.bash"

cases() {
	echo "spin+sleep grequest with MPICHAN_WAIT=spin and =sleep (-n 3)"
}

run_case() {
	t_settings MPICHAN_WAIT spin sleep -- 120 -n 3 "$bin/grequest"
}

t_main "$@"
