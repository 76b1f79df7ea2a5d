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
#      declares nothing else but what the list adds;
#   3. every predefined object (MPI_COMM_WORLD, MPI_INT, MPI_SUM, ...)
#      is exported with the size fixed for its kind (base.h,
#      LM_PREDEFINED): a program holds a copy of it of the size it had
#      when the program was linked, so the size may never change.
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
	echo "objects the predefined objects have their fixed ABI sizes"
}

# The size each kind of predefined object is exported with, for good.
abi_size() {
	case $1 in
	libmsg_comm_*) echo 1024 ;;
	libmsg_dt_*) echo 512 ;;
	libmsg_op_*) echo 128 ;;
	libmsg_group_*) echo 64 ;;
	libmsg_errors_*) echo 128 ;;
	libmsg_message_*) echo 512 ;;
	libmsg_info_*) echo 64 ;;
	esac
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
		# (mpi_f08's entries, MPI_Send_f08ts and the like, are Fortran's.)
		nm -D --defined-only "$so" |
			awk '($2 == "T" || $2 == "W") && $3 ~ /^P?MPI_/ &&
				$3 !~ /_f08(ts)?$/ { print $3 }' |
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
	objects)
		nm -D --defined-only -S "$so" | awk '$3 ~ /^[BDRV]$/ { print $4, $2 }' |
			sort -u > "$tmp/objects"
		: > "$tmp/bad"
		n=0
		while read -r name size; do
			want=$(abi_size "$name")
			[ -n "$want" ] || continue
			n=$((n + 1))
			[ $((16#$size)) = "$want" ] ||
				echo "$name: $((16#$size)) bytes, not $want" >> "$tmp/bad"
		done < "$tmp/objects"
		echo "$n predefined objects"
		[ "$n" -ge 60 ] || echo "only $n predefined objects found" >> "$tmp/bad"
		[ -s "$tmp/bad" ] && t_fail "$(cat "$tmp/bad")" ;;
	*) t_fail "no case $1" ;;
	esac
}

t_main "$@"
