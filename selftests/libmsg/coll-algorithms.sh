#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain
# Every collective algorithm forced in turn (MPICHAN_COLL_<NAME>=ALG)
# under coll.c's section of that collective, at 1 to 9 ranks, up to
# 1 MiB per buffer.  Under emulation (the VM) the whole sweep would take
# 20 minutes, and most algorithms are point-to-point over the transport
# that every other test takes there: the VM runs those whose data goes
# its own way through the module (the shared area's, the direct
# broadcast's one rendezvous offer that every rank takes), at 3 and 8
# ranks (an odd count, and more ranks than CPUs), up to 64 KiB; the
# default algorithms run the full sizes in `coll` itself.
. "$(dirname "$0")/test.bash"

# "coll-section NAME algorithm..."
algos="barrier BARRIER area dissemination recursive_doubling
bcast BCAST area binomial knomial scatter_allgather direct linear
gather GATHER binomial linear
scatter SCATTER binomial linear
gatherv GATHERV linear
gatherv SCATTERV linear
allgather ALLGATHER recursive_doubling bruck ring
allgather ALLGATHERV ring linear
alltoall ALLTOALL bruck pairwise linear
alltoallv ALLTOALLV pairwise linear
alltoallv ALLTOALLW pairwise linear
reduce REDUCE area binomial rabenseifner linear pipeline
allreduce ALLREDUCE area recursive_doubling rabenseifner ring reduce_bcast
reduce_scatter REDUCE_SCATTER halving pairwise reduce_scatterv
reduce_scatter REDUCE_SCATTER_BLOCK halving pairwise reduce_scatterv
scan SCAN recursive_doubling linear
scan EXSCAN recursive_doubling linear"

nps="1 2 3 4 5 6 7 8 9" max=1048576
[ "$mode" = vm ] && nps="3 8" max=65536

# The VM's: NAME=ALG words.
vm_only="BARRIER=area BCAST=area BCAST=direct REDUCE=area ALLREDUCE=area"

cases() {
	local section name list al
	while read -r section name list; do
		for al in $list; do
			[ "$mode" = vm ] && [[ " $vm_only " != *" $name=$al "* ]] && continue
			echo "$name=$al MPICHAN_COLL_$name=$al at ${nps// /,} ranks"
		done
	done <<< "$algos"
}

run_case() {
	local name=${1%%=*} al=${1#*=} section list np

	section=$(awk -v n="$name" '$2 == n { print $1 }' <<< "$algos")
	list=$(awk -v n="$name" '$2 == n { $1 = $2 = ""; print }' <<< "$algos")
	case " $list " in
	*" $al "*) ;;
	*) t_fail "no algorithm $1"; return ;;
	esac
	for np in $nps; do
		t_job 120 "MPICHAN_COLL_$name=$al" COLL_MAX=$max -n "$np" \
			"$bin/coll" "$section"
		t_status 0 "-n $np"
	done
}

t_main "$@"
