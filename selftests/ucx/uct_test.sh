#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/ucx/uct_test.sh: the UCX transport uct_mpichan
# (build/uct/libuct_mpichan.so, loaded with LD_PRELOAD), TAP.
# With /dev/mpichan (in the VM, tools/test/vm-tests suite ucx):
#   - ucx_info lists the mpichan transport;
#   - ucx_perftest get and put_bw, zcopy, 1 MiB, between two processes
#     over -x mpichan: they finish, and debugfs shows that the module's
#     region copies moved the bytes (region_copies, region_bytes_out for
#     get, region_bytes_in for put);
#   - a rank of the MPICH program SIGKILLed while messages go through
#     the module (by region copies, then by mapped regions): the job
#     ends (mpiexec exits non-zero within 120 s);
#   - the mapping cache across fork() (uct_fork.c): the child maps
#     afresh, gets no pointer from a key kept over the fork, and
#     emptying its cache leaves its own memory where the parent's
#     mappings were alone; the parent keeps its cached mapping;
#   - afterwards no region is left and no region page stays pinned.
#   - Debian's MPICH (ch4:ucx) runs selftests/ucx/mpi_xfer (built here
#     with mpicc.mpich: 64 KiB to 1 MiB both ways, every byte checked)
#     with UCX_TLS=posix,mpichan,self: by mapped regions (4 rounds, 24
#     messages: UCX's debug log shows the transport mapping a peer's
#     region or reusing its cached mapping for each, some of each, the
#     even rounds reusing; with UCX_MPICHAN_MAP_CACHE=0 a mapping for
#     each and no reuse), and with UCX_MPICHAN_RKEY_PTR=n by region
#     copies (region_bytes_in/out grew by at least what was sent);
#   - Debian's Open MPI, forced to pml ucx, runs the same program (built
#     with mpicc.openmpi) over mpichan by mapped regions;
# Always:
#   - a libuct_mpichan.so built for another UCX version registers nothing
#     and says so in one line;
#   - without the module (natively): a UCP get between two processes runs
#     over UCX's own transports, each process saying in one line why
#     mpichan is not used; so does the MPICH program.
# Exits 77 (nothing run) when UCX or the transport is not built.
set -u
cd "$(dirname "$0")/../.." || exit 1
. selftests/ucx/tap.bash
lib=$PWD/build/uct/libuct_mpichan.so
badver=$PWD/build/uct/libuct_mpichan-badver.so
size=1048576
iters=${UCT_TEST_ITERS:-20}
port=$((20000 + $$ % 20000))

if ! command -v ucx_perftest > /dev/null || [ ! -f "$lib" ] || [ ! -f "$badver" ]; then
	echo "1..0 # SKIP UCX (ucx-utils) or build/uct not there"
	exit 77
fi
if [ -e /dev/mpichan ] && [ -r "$stats" ]; then
	mode=module
	echo "1..14"
else
	mode=fallback
	echo "1..3"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
xfer="" oxfer=""
if command -v mpicc.openmpi > /dev/null && command -v mpirun.openmpi > /dev/null; then
	mkdir -p build/selftests/ucx
	mpicc.openmpi -O2 -Wall -Wextra -Werror -o build/selftests/ucx/mpi_xfer_ompi \
		selftests/ucx/mpi_xfer.c && oxfer=build/selftests/ucx/mpi_xfer_ompi
fi
if command -v mpicc.mpich > /dev/null && command -v mpiexec.mpich > /dev/null; then
	mkdir -p build/selftests/ucx
	mpicc.mpich -O2 -Wall -Wextra -Werror -o build/selftests/ucx/mpi_xfer \
		selftests/ucx/mpi_xfer.c && xfer=build/selftests/ucx/mpi_xfer
fi
# mpich NAME ENV...: run mpi_xfer over 2 ranks of MPICH with the library
# preloaded and ENV (-genv pairs); true when it printed ok.
mpich() {
	local name=$1
	shift
	timeout 300 mpiexec.mpich -n 2 -genv LD_PRELOAD "$lib" "$@" "$xfer" "${rounds:-2}" 1048576 \
		> "$tmp/$name.out" 2> "$tmp/$name.err" && grep -qx ok "$tmp/$name.out" && return 0
	sed 's/^/# /' "$tmp/$name.out" "$tmp/$name.err"
	return 1
}

# listening PORT: wait (up to 120 s) until a server listens on PORT;
# ucx_perftest's client does not retry, and UCX starts slowly under TCG.
listening() {
	local hex i
	hex=$(printf '%04X' "$1")
	for ((i = 0; i < 1200; i++)); do
		awk -v p=":$hex" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }' \
			/proc/net/tcp /proc/net/tcp6 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# perftest OUT ARGS...: server and client of one ucx_perftest run; true
# when both finished well; the client's report and both stderrs in OUT.*.
perftest() {
	local out=$1 spid rc
	shift
	port=$((port + 1))
	LD_PRELOAD=$lib timeout 300 ucx_perftest -p "$port" "$@" \
		> "$out.srv" 2> "$out.srv.err" &
	spid=$!
	listening "$port"
	LD_PRELOAD=$lib timeout 300 ucx_perftest 127.0.0.1 -p "$port" "$@" \
		> "$out.cli" 2> "$out.cli.err"
	rc=$?
	wait "$spid" || rc=1
	[ "$rc" = 0 ] && grep -q '^Final:' "$out.cli" && return 0
	cat "$out".* | sed 's/^/# /'
	return 1
}

if [ "$mode" = module ]; then
	if LD_PRELOAD=$lib ucx_info -d 2>&1 | grep -q 'Transport: mpichan'; then
		ok "ucx_info lists the mpichan transport"
	else
		notok "ucx_info lists the mpichan transport"
	fi
	for t in get put_bw; do
		c0=$(stat region_copies); i0=$(stat region_bytes_in); o0=$(stat region_bytes_out)
		if ! perftest "$tmp/$t" -t "$t" -x mpichan -d memory -D zcopy \
			-s "$size" -n "$iters" -w 10; then
			notok "ucx_perftest -t $t -D zcopy over mpichan"
			notok "$t: the bytes went through the module's region copies"
			continue
		fi
		ok "ucx_perftest -t $t -D zcopy over mpichan: $(awk '/^Final:/ { print $6 " MB/s" }' "$tmp/$t.cli")"
		c1=$(stat region_copies); i1=$(stat region_bytes_in); o1=$(stat region_bytes_out)
		want=$((iters * size))	# warm-up iterations come on top
		if [ "$t" = get ]; then moved=$((o1 - o0)); else moved=$((i1 - i0)); fi
		if [ $((c1 - c0)) -ge "$iters" ] && [ "$moved" -ge "$want" ]; then
			ok "$t: the bytes went through the module's region copies ($((c1 - c0)) copies, $moved bytes)"
		else
			notok "$t: the bytes went through the module's region copies ($((c1 - c0)) copies, $moved bytes, want $want)"
		fi
	done
	# 2 rounds of 64 KiB, 256 KiB, 1 MiB, each way.
	sent=$((2 * 2 * (65536 + 262144 + 1048576)))
	if [ -z "$xfer" ]; then
		ok "MPICH over mpichan, mapped # SKIP no mpicc.mpich"
		ok "MPICH over mpichan, mapped, UCX_MPICHAN_MAP_CACHE=0 # SKIP no mpicc.mpich"
		ok "MPICH over mpichan, copied # SKIP no mpicc.mpich"
	else
		# region_maps counts mappings alive, gone with the job: the
		# transport's own debug line says what it mapped.  UCX logs to
		# stdout by default, where a line of it once split rank 0's "ok"
		# ("ok[1795814456.40] ... DEBUG close ep"): one log file per
		# process instead.
		# 4 rounds: the even ones from the buffer sent before, whose
		# region the receiver's mapping cache still holds.
		if rounds=4 mpich map -genv UCX_TLS posix,mpichan,self -genv UCX_LOG_LEVEL debug \
			-genv UCX_LOG_FILE "$tmp/map.ucx.%p"; then
			maps=$(cat "$tmp"/map.ucx.* | grep -c 'uct_mpichan: mapped region')
			reused=$(cat "$tmp"/map.ucx.* | grep -c 'uct_mpichan: reused the mapping of region')
			if [ $((maps + reused)) -ge 24 ] && [ "$reused" -ge 1 ] && [ "$maps" -ge 1 ]; then
				ok "MPICH over mpichan, mapped: data checked, $maps regions mapped, $reused mappings reused"
			else
				notok "MPICH over mpichan, mapped: data checked, but $maps regions mapped and $reused mappings reused, want 24 in all, some of each"
			fi
		else
			notok "MPICH over mpichan, mapped"
		fi
		rm -f "$tmp"/map.ucx.*
		if rounds=4 mpich nocache -genv UCX_TLS posix,mpichan,self -genv UCX_LOG_LEVEL debug \
			-genv UCX_LOG_FILE "$tmp/map.ucx.%p" -genv UCX_MPICHAN_MAP_CACHE 0; then
			maps=$(cat "$tmp"/map.ucx.* | grep -c 'uct_mpichan: mapped region')
			reused=$(cat "$tmp"/map.ucx.* | grep -c 'uct_mpichan: reused the mapping of region')
			if [ "$maps" -ge 24 ] && [ "$reused" = 0 ]; then
				ok "MPICH over mpichan, mapped, UCX_MPICHAN_MAP_CACHE=0: data checked, a mapping per message ($maps)"
			else
				notok "MPICH over mpichan, mapped, UCX_MPICHAN_MAP_CACHE=0: $maps regions mapped, $reused reused, want 24 and 0"
			fi
		else
			notok "MPICH over mpichan, mapped, UCX_MPICHAN_MAP_CACHE=0"
		fi
		i0=$(stat region_bytes_in); o0=$(stat region_bytes_out)
		if mpich copy -genv UCX_TLS posix,mpichan,self -genv UCX_MPICHAN_RKEY_PTR n; then
			moved=$(( $(stat region_bytes_in) - i0 + $(stat region_bytes_out) - o0 ))
			if [ "$moved" -ge "$sent" ]; then
				ok "MPICH over mpichan, copied: data checked, $moved bytes by region copies"
			else
				notok "MPICH over mpichan, copied: data checked, but $moved bytes by region copies, want $sent"
			fi
		else
			notok "MPICH over mpichan, copied"
		fi
	fi
	if [ -z "$oxfer" ]; then
		ok "Open MPI over mpichan, mapped # SKIP no mpicc.openmpi"
	elif timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 \
		-x LD_PRELOAD="$lib" -x UCX_TLS=posix,mpichan,self -x UCX_LOG_LEVEL=debug \
		-x UCX_LOG_FILE="$tmp/ompi.ucx.%p" \
		--mca pml ucx --mca opal_common_ucx_tls any --mca opal_common_ucx_devices any \
		"$oxfer" 2 1048576 > "$tmp/ompi.out" 2>&1 && grep -qx ok "$tmp/ompi.out"; then
		maps=$(cat "$tmp"/ompi.ucx.* | grep -c 'uct_mpichan: mapped region')
		reused=$(cat "$tmp"/ompi.ucx.* | grep -c 'uct_mpichan: reused the mapping of region')
		# Open MPI sends 64 KiB eagerly: 8 of the 12 by rendezvous.
		if [ "$maps" -ge 1 ] && [ $((maps + reused)) -ge 8 ]; then
			ok "Open MPI over mpichan, mapped: data checked, $maps regions mapped, $reused mappings reused"
		else
			notok "Open MPI over mpichan, mapped: data checked, but $maps regions mapped and $reused reused, want 8 in all"
		fi
	else
		grep -v DEBUG "$tmp/ompi.out" | tail -20 | sed 's/^/# /'
		notok "Open MPI over mpichan, mapped"
	fi
	# A rank killed mid-transfer: many rounds of up to 4 MiB, one rank
	# killed once the module has moved some of them.
	for how in copied mapped; do
		if [ -z "$xfer" ]; then
			ok "MPICH, a rank killed mid-transfer ($how) # SKIP no mpicc.mpich"
			continue
		fi
		env=(-genv UCX_TLS posix,mpichan,self -genv UCX_LOG_FILE "$tmp/kill.ucx.%p")
		[ "$how" = copied ] && env+=(-genv UCX_MPICHAN_RKEY_PTR n)
		c0=$(stat region_copies)
		timeout 300 mpiexec.mpich -n 2 -genv LD_PRELOAD "$lib" "${env[@]}" "$xfer" 1000 4194304 \
			> "$tmp/kill.out" 2>&1 &
		jpid=$!
		victim="" busy=0
		for ((i = 0; i < 1200; i++)); do
			if [ "$how" = copied ]; then
				[ "$(stat region_copies)" -gt $((c0 + 4)) ] && busy=1
			else
				[ "$(stat regions)" -gt 0 ] && [ "$(stat region_maps)" -gt 0 ] && busy=1
			fi
			[ "$busy" = 1 ] && break
			sleep 0.1
		done
		# One of its two processes (the younger).
		victim=$(pgrep -n -f "$xfer 1000 4194304\$")
		[ -n "$victim" ] && [ "$busy" = 1 ] && kill -KILL "$victim"
		ended=0
		for ((i = 0; i < 1200; i++)); do
			kill -0 "$jpid" 2>/dev/null || { ended=1; break; }
			sleep 0.1
		done
		wait "$jpid"
		rc=$?
		if [ "$busy" = 1 ] && [ -n "$victim" ] && [ "$ended" = 1 ] && [ "$rc" != 0 ] &&
		   [ "$rc" != 124 ] && ! grep -qx ok "$tmp/kill.out"; then
			ok "MPICH, a rank killed mid-transfer ($how): the job ended (mpiexec status $rc)"
		else
			grep -v DEBUG "$tmp/kill.out" | tail -10 | sed 's/^/# /'
			notok "MPICH, a rank killed mid-transfer ($how): busy $busy, victim ${victim:-none}, ended $ended, status $rc"
			pkill -KILL -f "$xfer 1000 4194304\$"
		fi
	done
	mkdir -p build/selftests/ucx
	if cc -O2 -g -Wall -Wextra -Werror -Iuapi -o build/selftests/ucx/uct_fork \
		selftests/ucx/uct_fork.c -Lbuild/uct -l:libuct_mpichan.so \
		-Wl,-rpath,"$PWD/build/uct" -luct -lucs > "$tmp/fork.out" 2>&1 &&
	   timeout 120 build/selftests/ucx/uct_fork >> "$tmp/fork.out" 2>&1 &&
	   grep -qx ok "$tmp/fork.out" && grep -qx 'uct_fork: child ok' "$tmp/fork.out"; then
		ok "the mapping cache across fork(): the child maps afresh, its own memory untouched"
	else
		sed 's/^/# /' "$tmp/fork.out"
		notok "the mapping cache across fork()"
	fi
	# The module ends a dead owner's regions at once, its mappings as
	# their holders close them.
	for ((i = 0; i < 100; i++)); do
		[ "$(stat regions)" = 0 ] && [ "$(stat region_pages)" = 0 ] && break
		sleep 0.1
	done
	r=$(stat regions); p=$(stat region_pages)
	if [ "$r" = 0 ] && [ "$p" = 0 ]; then
		ok "nothing stays registered or pinned afterwards"
	else
		notok "nothing stays registered or pinned afterwards (regions $r, region_pages $p)"
	fi
fi

LD_PRELOAD=$badver ucx_info -d > "$tmp/badver" 2> "$tmp/badver.err"
if ! grep -q 'Transport: mpichan' "$tmp/badver" &&
   [ "$(grep -c 'uct_mpichan: not used: built for UCX 0.0.0, this is UCX' "$tmp/badver.err")" = 1 ]; then
	ok "built for another UCX version: refused in one line"
else
	sed 's/^/# /' "$tmp/badver.err"
	notok "built for another UCX version: refused in one line"
fi

if [ "$mode" = fallback ]; then
	if perftest "$tmp/ucp" -t ucp_get -D zcopy -s "$size" -n "$iters" -w 10 &&
	   [ "$(grep -c '^uct_mpichan: not used: /dev/mpichan: No such file or directory$' "$tmp/ucp.srv.err")" = 1 ] &&
	   [ "$(grep -c '^uct_mpichan: not used: /dev/mpichan: No such file or directory$' "$tmp/ucp.cli.err")" = 1 ]; then
		ok "without the module a UCP get runs over UCX's own transports, one line says why"
	else
		sed 's/^/# /' "$tmp"/ucp.*err
		notok "without the module a UCP get runs over UCX's own transports, one line says why"
	fi
	if [ -z "$xfer" ]; then
		ok "without the module MPICH runs over UCX's own transports # SKIP no mpicc.mpich"
	elif mpich fallback && [ "$(grep -c '^uct_mpichan: not used: /dev/mpichan: No such file or directory$' "$tmp/fallback.err")" = 2 ]; then
		ok "without the module MPICH runs over UCX's own transports, one line per rank says why"
	else
		sed 's/^/# /' "$tmp/fallback.err"
		notok "without the module MPICH runs over UCX's own transports, one line per rank says why"
	fi
fi
