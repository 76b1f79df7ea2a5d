#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain modes=vm
# The sparsity limit moves which spans the module is offered: span.c
# reads MPICHAN_SPAN_SPARSE and checks over debugfs what the module
# holds (the 8x vector packed at 4, the 64x vector offered at 64); this
# makes sure it did look.
. "$(dirname "$0")/test.bash"

cases() {
	echo "4+64 span with MPICHAN_SPAN_SPARSE=4 and =64 (-n 2)"
}

run_case() {
	t_settings MPICHAN_SPAN_SPARSE \
		"4 # span: 8x sparse vector packed.*: the module holds" \
		"64 # span: 64x sparse vector span.*: the module holds" \
		-- 120 -n 2 "$bin/span"
}

t_main "$@"
