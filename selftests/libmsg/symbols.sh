#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain modes=native
# selftests/libmsg/symbols.sh: libmsg's C interface against itself and
# against MPI:
#   1. every function libmsg/include/mpi.h declares, MPI_ and its
#      profiling twin PMPI_ (mpi_pmpi.h, generated beside it), is
#      defined and exported by build/libmsg/libmsg.so (nm -D; the MPI_
#      names are weak), and every function it exports is declared;
#   2. every C function of MPI-4.0 (selftests/libmsg/mpi-functions.txt)
#      is declared, but those the list says libmsg leaves out, and mpi.h
#      declares nothing else but what the list adds.
# The declarations are read with GCC's -aux-info, so macros and line
# breaks do not matter.
. "$(dirname "$0")/test.bash"

so=build/libmsg/libmsg.so
hdr=libmsg/include/mpi.h
list=selftests/libmsg/mpi-functions.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$T_OUT"' EXIT

cases() {
	echo "exports mpi.h declares what libmsg.so defines, MPI_ and PMPI_"
	echo "standard the MPI-4.0 functions libmsg claims are declared"
}

# The functions mpi.h (and mpi_pmpi.h beside it) declares.
declared() {
	[ -f "$so" ] || { t_fail "$so is not built"; return 1; }
	${CC_GCC:-gcc} -aux-info "$tmp/aux" -fsyntax-only \
		-I build/libmsg/include -x c "$hdr" || { t_fail "$hdr"; return 1; }
	sed -n 's/^.*\*\/ extern [^(]*[ *]\(P\{0,1\}MPI_[A-Za-z0-9_]*\) (.*$/\1/p' \
		"$tmp/aux" | sort -u > "$tmp/declared"
	[ -s "$tmp/declared" ] || { t_fail "mpi.h declares nothing"; return 1; }
}

run_case() {
	declared || return
	case $1 in
	exports)
		nm -D --defined-only "$so" |
			awk '($2 == "T" || $2 == "W") && $3 ~ /^P?MPI_/ { print $3 }' |
			sort -u > "$tmp/defined"
		comm -23 "$tmp/declared" "$tmp/defined" | sed 's/^/declared, not defined: /' > "$tmp/bad"
		comm -13 "$tmp/declared" "$tmp/defined" | sed 's/^/defined, not declared: /' >> "$tmp/bad"
		echo "$(wc -l < "$tmp/declared") functions declared"
		[ -s "$tmp/bad" ] && t_fail "$(cat "$tmp/bad")" ;;
	standard)
		grep '^MPI_' "$tmp/declared" > "$tmp/declared-mpi"
		grep -v '^#' "$list" | grep -v ' -- \| ++ ' | sort -u > "$tmp/claimed"
		grep -v '^#' "$list" | sed 's/ -- .*\| ++ .*//' | sort -u > "$tmp/known"
		comm -23 "$tmp/claimed" "$tmp/declared-mpi" | sed 's/^/MPI-4.0, not declared: /' > "$tmp/bad"
		comm -13 "$tmp/known" "$tmp/declared-mpi" | sed 's/^/declared, neither MPI-4.0 nor listed: /' >> "$tmp/bad"
		echo "$(wc -l < "$tmp/claimed") of $(grep -v '^#' "$list" | grep -vc ' ++ ') MPI-4.0 functions claimed"
		[ -s "$tmp/bad" ] && t_fail "$(cat "$tmp/bad")" ;;
	*) t_fail "no case $1" ;;
	esac
}

t_main "$@"
