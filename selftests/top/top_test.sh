#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/top/top_test.sh: mpichan-top against jobs that hang on
# purpose (selftests/libmsg/hang.c), TAP.  Each case starts a job in a
# session of its own, waits until mpichan-top --once --json sees it make
# no progress, checks what it says about each rank and its diagnosis,
# then kills the job:
#   - two ranks both in a 4 MiB MPI_Send to each other;
#   - seven ranks in a barrier the eighth never joins (it waits in a
#     receive nobody sends);
#   - a receive of tag 42 whose sender used tag 5 and went on to
#     MPI_Finalize;
#   - a job that moves all the time: shown running, no diagnosis, and
#     it ends well (looking has no effect on it);
#   - another user sees none of these jobs.
# Over /dev/mpichan (in the VM, tools/test/vm-tests) the jobs are found
# through debugfs, and the first case runs again over the fallback
# (MPICHAN_TRANSPORT=shm), found through its memfd; without the module
# (natively) every case runs over the fallback.
set -u
cd "$(dirname "$0")/../.." || exit 1
top=build/bin/mpichan-top
mpiexec=build/bin/mpiexec
hang=build/selftests/libmsg/hang
py=/usr/bin/python3
limit=${TOP_TEST_LIMIT:-60}	# seconds for a job to be seen stalled

if [ -e /dev/mpichan ] && [ -d /sys/kernel/debug/mpichan ]; then
	where=debugfs
else
	where=memfd
fi
cases=5
[ "$where" = debugfs ] && cases=6
echo "1..$cases"
echo "# jobs found through $where"
n=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); echo "not ok $n $*"; }

job_pid=""
start() {	# start NP MODE [ENV...]: the job's mpiexec in $job_pid
	local np=$1 mode=$2
	shift 2
	log=$(mktemp)
	env "$@" setsid "$mpiexec" -n "$np" "$hang" "$mode" > "$log" 2>&1 &
	job_pid=$!
}

stop() {
	[ -n "$job_pid" ] || return
	kill -KILL -- "-$job_pid" 2>/dev/null || kill -KILL "$job_pid" 2>/dev/null
	wait "$job_pid" 2>/dev/null
	job_pid=""
	rm -f "$log"
}
trap stop EXIT

# The JSON of this case's job (its ranks are children of $job_pid), once
# it made no progress between two looks; "" on time-out.
stalled_job() {	# stalled_job SOURCE [yes: until it is stalled]
	local src=$1 want=${2:-yes} t0=$SECONDS out kids
	while [ $((SECONDS - t0)) -lt "$limit" ]; do
		kids=$(ps -o pid= --ppid "$job_pid" | tr -d ' ' | tr '\n' ' ')
		if [ -n "$kids" ]; then
			out=$("$top" --once --json --interval 1 --source "$src" |
			      "$py" -c '
import json, sys
kids = set(int(k) for k in sys.argv[1].split())
want = sys.argv[2] == "yes"
for j in json.load(sys.stdin)["jobs"]:
    pids = set(r["pid"] for r in j["ranks"])
    if pids and pids <= kids and (not want or not j["progress"]):
        print(json.dumps(j))
        break
' "$kids" "$want")
			if [ -n "$out" ]; then
				echo "$out"
				return
			fi
		fi
		sleep 1
	done
}

# check JSON PYTHON-EXPRESSION...: each must hold of job j (r: its ranks).
check() {
	local json=$1
	shift
	"$py" -c '
import json, sys
j = json.loads(sys.argv[1]); r = j["ranks"]; d = " | ".join(j["diagnosis"])
bad = [e for e in sys.argv[2:] if not eval(e)]
for e in bad:
    print("# does not hold:", e)
if bad:
    print("# diagnosis:", d)
    for k in r:
        print("#", json.dumps(k))
sys.exit(1 if bad else 0)
' "$json" "$@"
}

case_hang() {	# case_hang NAME SOURCE NP MODE ENV -- CHECKS...
	local name=$1 src=$2 np=$3 mode=$4 envs=() j
	shift 4
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	start "$np" "$mode" "${envs[@]}"
	j=$(stalled_job "$src")
	if [ -z "$j" ]; then
		notok "$name: mpichan-top never saw the job stalled"
		sed 's/^/# /' "$log"
		"$top" --once --source "$src" | sed 's/^/# /'
	elif check "$j" "$@"; then
		ok "$name"
	else
		notok "$name"
	fi
	stop
}

case_hang "send-send cycle, 4 MiB each way ($where)" "$where" 2 sendsend -- \
	'"ranks 0 and 1 are both in MPI_Send to each other with 4 MiB, neither has posted a receive" in d' \
	'r[0]["call"] == "MPI_Send" and r[0]["kind"] == "send" and r[0]["peer"] == 1 and r[0]["tag"] == 5 and r[0]["bytes"] == 4 << 20' \
	'r[1]["call"] == "MPI_Send" and r[1]["peer"] == 0' \
	'all(k["state"] == "alive" for k in r)' \
	'j["source"] == "'"$where"'"'

if [ "$where" = debugfs ]; then
	case_hang "send-send cycle over the fallback (memfd)" memfd 2 sendsend \
		MPICHAN_TRANSPORT=shm -- \
		'"ranks 0 and 1 are both in MPI_Send to each other with 4 MiB, neither has posted a receive" in d' \
		'j["source"] == "memfd"'
fi

case_hang "a barrier rank 7 never joins ($where)" "$where" 8 barrier -- \
	'"ranks 0-6 wait in MPI_Barrier on comm ctx %d, rank 7 is in MPI_Recv from rank 3 tag 9" % r[0]["context"] in d' \
	'all(k["call"] == "MPI_Barrier" and k["kind"] == "coll" and k["context"] == r[0]["context"] and k["context"] != 0 and k["comm_size"] == 8 for k in r[:7])' \
	'r[7]["call"] == "MPI_Recv" and r[7]["kind"] == "recv" and r[7]["peer"] == 3 and r[7]["tag"] == 9'

case_hang "a receive that never matches ($where)" "$where" 2 recv -- \
	'"rank 0 waits in MPI_Finalize on comm ctx 0, rank 1 is in MPI_Recv from rank 0 tag 42" in d' \
	'r[1]["call"] == "MPI_Recv" and r[1]["peer"] == 0 and r[1]["tag"] == 42 and r[1]["bytes"] == 4'

# A job that moves: seen running, told nothing, and it ends well.
start 3 progress SECONDS_=8
sleep 2
j=$(stalled_job "$where" no)
if [ -z "$j" ]; then
	notok "a job that moves: mpichan-top never saw it"
elif ! check "$j" 'j["progress"]' 'not j["diagnosis"]' 'len(r) == 3'; then
	notok "a job that moves: shown stalled"
elif ! wait "$job_pid"; then
	notok "a job that moves: it failed while watched"
	sed 's/^/# /' "$log"
else
	ok "a job that moves is shown running, and ends well"
fi
job_pid=""
rm -f "$log"

# Permissions, debugfs's: a job of user nobody is shown to root (who
# has CAP_SYS_ADMIN), not to root without CAP_SYS_ADMIN (mpichan-top's
# own check with libcap over memfds, the module's over debugfs), nor to
# another user.
log=$(mktemp)
chmod 666 "$log"
setsid setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$mpiexec" -n 2 "$hang" sendsend > "$log" 2>&1 &
job_pid=$!
j=$(stalled_job "$where")
shown() {	# shown JSON: is the job of $j in it?
	"$py" -c '
import json, sys
key = json.loads(sys.argv[2])["key"]
sys.exit(0 if any(x["key"] == key for x in json.loads(sys.argv[1])["jobs"]) else 1)' "$1" "$j"
}
if [ -z "$j" ]; then
	notok "permissions: root never saw nobody's job"
	sed 's/^/# /' "$log"
else
	noadmin=$(setpriv --bounding-set=-sys_admin "$top" --once --json \
		  --interval 0.2 --source "$where")
	other=$(setpriv --reuid=65533 --regid=65533 --clear-groups \
		"$top" --once --json --interval 0.2 --source "$where")
	if shown "$noadmin"; then
		notok "permissions: root without CAP_SYS_ADMIN sees nobody's job"
	elif shown "$other"; then
		notok "permissions: another user sees nobody's job"
	else
		ok "permissions: nobody's job shown to CAP_SYS_ADMIN only"
	fi
fi
stop
