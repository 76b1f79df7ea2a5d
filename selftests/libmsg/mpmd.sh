#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain
# Several programs in one job (mpiexec's "a : b"): mpmd.c checks
# MPI_APPNUM, the ranks numbered across the programs, messages between
# them.
. "$(dirname "$0")/test.bash"

cases() {
	echo "2+1+3 mpiexec a : b : c, MPI_APPNUM (-n 2+1+3)"
}

run_case() {
	t_job 60 -n 2 "$bin/mpmd" 0 2,1,3 : -n 1 "$bin/mpmd" 1 2,1,3 \
		: -n 3 "$bin/mpmd" 2 2,1,3
	t_status 0 "mpmd"
}

t_main "$@"
