# SPDX-License-Identifier: MIT
# test.bash: what the test scripts of selftests/libmsg share (test.h is
# the programs').  A script NAME.sh sources it, defines
#   cases     one line a case: an id (no spaces), a space, the case's name
#   run_case  ID: runs that case, judging it with t_fail and t_skip
# and ends with `t_main "$@"`:
#   NAME.sh --list   its cases
#   NAME.sh ID       one case: exits 0 (pass), 1 (fail) or 77 (skip,
#                    "SKIP: why" on stderr)
#   NAME.sh          every case in turn
# ./run sets LIBMSG_MODE (native: the user-space fallback; vm: over
# /dev/mpichan), LIBMSG_BIN (the programs of the build this run is for)
# and MPIEXEC; by hand they default to the mode this machine gives, the
# plain build and build/bin/mpiexec.  Scripts run in the project's top
# folder.

set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
: "${LIBMSG_MODE:=$([ -e /dev/mpichan ] && echo vm || echo native)}"
: "${LIBMSG_BIN:=$PWD/build/selftests/libmsg}"
: "${MPIEXEC:=$PWD/build/bin/mpiexec}"
bin=$LIBMSG_BIN
mode=$LIBMSG_MODE

_t_failed=0

# t_counts N...: the rank counts a case list runs at: all of them
# natively, the last (largest) alone in the VM, where a job costs
# seconds of emulated start-up whatever it does; the module's part (a
# death seen, rings between many pairs, ranks above the CPUs) is taken
# at the largest, the user-space code behind every count natively (the
# programs' vm-np marker key, for scripts).
t_counts() {
	if [ "$mode" = vm ]; then
		echo "${@: -1}"
	else
		echo "$@"
	fi
}
# The last job's output (also on stdout, for the log) and its status.
T_OUT=$(mktemp)
rc=0
trap 'rm -f "$T_OUT"' EXIT

# t_fail WHY: the case fails (it goes on, to say what else is wrong).
t_fail() {
	echo "FAIL: $*" >&2
	_t_failed=1
}

# t_skip WHY: the case cannot run here.
t_skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# t_job SECONDS [VAR=VALUE...] MPIEXEC-ARGS...: run a job under a time
# limit, with those variables set; its output goes to $T_OUT and
# stdout, its exit status to $rc (124: out of time).
t_job() {
	local limit=$1 vars=()
	shift
	while [[ ${1:-} == [A-Z]*=* ]]; do
		vars+=("$1")
		shift
	done
	env "${vars[@]}" timeout "$limit" "$MPIEXEC" "$@" > "$T_OUT" 2>&1
	rc=$?
	cat "$T_OUT"
	[ $rc = 124 ] && echo "# timed out after $limit s"
	return 0
}

# t_status WANT WHAT: the last job ended with status WANT.
t_status() {
	[ "$rc" = "$1" ] || t_fail "$2: status $rc, expected $1"
}

# t_failed WHAT: the last job failed, in its time.
t_failed() {
	[ "$rc" != 0 ] && [ "$rc" != 124 ] || t_fail "$1: status $rc, expected a failure"
}

# t_said PATTERN WHAT: the last job's output has a line matching PATTERN
# (grep's basic regular expression).
t_said() {
	grep -q -- "$1" "$T_OUT" || t_fail "$2: no '$1' in the output"
}

# t_settings VAR "VALUE[ PATTERN]"... -- SECONDS MPIEXEC-ARGS...: the
# job passes with VAR set to each VALUE in turn, and where a PATTERN
# follows the value, its output has a line matching it.
t_settings() {
	local var=$1 values=() v
	shift
	while [ "$1" != -- ]; do
		values+=("$1")
		shift
	done
	shift
	for v in "${values[@]}"; do
		t_job "$1" "$var=${v%% *}" "${@:2}"
		t_status 0 "$var=${v%% *}"
		[ "$v" = "${v%% *}" ] || t_said "${v#* }" "$var=${v%% *}"
	done
}

# t_peer_died PROG NP: a job of NP ranks of PROG whose last rank was
# SIGKILLed: the launcher named it and returned 128 + 9, and every
# survivor said "PROG: rank R ok" (it saw what it should, see PROG.c).
t_peer_died() {
	local prog=$1 np=$2 oks

	oks=$(grep -c "^$prog: rank [0-9]* ok\$" "$T_OUT")
	t_status 137 "-n $np"
	t_said "mpiexec: rank $((np - 1)) killed by signal 9" "-n $np"
	[ "$oks" = $((np - 1)) ] ||
		t_fail "-n $np: $oks survivors ok of $((np - 1))"
}

t_main() {
	local id name all=0
	case "${1:-}" in
	--list)
		cases
		exit 0 ;;
	"")
		while read -r id name; do
			echo "# $id: $name"
			( run_case "$id" < /dev/null; exit $_t_failed )
			case $? in 0) ;; 77) echo "# skipped" ;; *) all=1 ;; esac
		done < <(cases)
		exit $all ;;
	esac
	run_case "$1"
	exit $_t_failed
}
