#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain modes=vm
# MPICHAN_IOV moves which sends the module gathers: iov.c reads it and
# checks over debugfs (64-byte runs gathered when on, nothing gathered
# when off); this makes sure it did look.
. "$(dirname "$0")/test.bash"

cases() {
	echo "on+off iov with MPICHAN_IOV=on and =off (-n 2)"
}

run_case() {
	t_settings MPICHAN_IOV "on # span: short runs gathered" \
		"off # span: vector gathered.* in 1 segments" \
		-- 120 -n 2 "$bin/iov"
}

t_main "$@"
