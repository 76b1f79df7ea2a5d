#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain
# A setting that names a choice refuses any other value, listing them:
# the job fails, saying so.
. "$(dirname "$0")/test.bash"

cases() {
	echo "refused unknown MPICHAN_WAIT, MPICHAN_SPAN, MPICHAN_IOV and MPICHAN_RMA_REGION values refused"
}

run_case() {
	local s var want
	for s in "MPICHAN_WAIT use hybrid, spin or sleep" \
		 "MPICHAN_SPAN use off, on or auto" \
		 "MPICHAN_IOV use off, on or auto" \
		 "MPICHAN_RMA_REGION use off or auto"; do
		var=${s%% *} want=${s#* }
		t_job 30 "$var=bogus" -n 1 "$bin/env"
		t_failed "$var=bogus"
		t_said "$var=bogus: $want" "$var=bogus"
	done
}

t_main "$@"
