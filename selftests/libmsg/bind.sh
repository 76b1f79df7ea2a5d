#!/bin/bash
# SPDX-License-Identifier: MIT
# libmsg-test: builds=plain
# mpiexec's placement as the command line asks (bind.c checks each
# rank's affinity against sysfs; its defaults run as a plain test):
# --bind-to core, hwthread or none, --map-by, and --report-bindings.
. "$(dirname "$0")/test.bash"

cases() {
	echo "core-4 --bind-to core (-n 4)"
	echo "hwthread-3 --bind-to hwthread (-n 3)"
	echo "none-2 --bind-to none (-n 2)"
	echo "socket-2 --map-by socket --bind-to core (-n 2)"
	echo "report-3 --report-bindings, a line per rank (-n 3)"
	echo "bogus-1 --bind-to bogus refused (-n 1)"
	echo "plugins-2 hwloc's I/O and GPU plugins left out, not the user's choice (-n 2)"
}

run_case() {
	local np=${1##*-} r
	case ${1%-*} in
	core) t_job 60 BIND_EXPECT=core -n "$np" --bind-to core "$bin/bind" ;;
	hwthread)
		t_job 60 BIND_EXPECT=hwthread -n "$np" --bind-to hwthread "$bin/bind" ;;
	none) t_job 60 BIND_EXPECT=none -n "$np" --bind-to none "$bin/bind" ;;
	socket)
		t_job 60 BIND_EXPECT=core -n "$np" --map-by socket --bind-to core \
			"$bin/bind" ;;
	report)
		t_job 60 -n "$np" --report-bindings "$bin/bind"
		for ((r = 0; r < np; r++)); do
			t_said "^mpiexec: rank $r \(bound to cpus\|not bound\) .*placed at .*core=[0-9]* .*pu=[0-9]*" \
				"rank $r"
		done ;;
	bogus)
		t_job 60 -n "$np" --bind-to bogus "$bin/bind"
		t_failed "--bind-to bogus"
		t_said "use hwthread, core, numa, socket or none" "--bind-to bogus"
		return ;;
	plugins)
		# mpiexec keeps hwloc's PCI, GPU and XML plugins out (it
		# reads only CPUs and NUMA nodes), and out of the ranks'
		# environment; a blacklist of the user's own goes through.
		ls /usr/lib/*/hwloc/hwloc_pci.so > /dev/null 2>&1 ||
			t_skip "hwloc's plugins are not installed"
		t_job 60 HWLOC_PLUGINS_VERBOSE=1 -n "$np" /usr/bin/env
		t_status 0 "plugins left out"
		t_said "Plugin .hwloc_pci' is blacklisted" "mpiexec's own choice"
		! grep -q "^HWLOC_PLUGINS_BLACKLIST=" "$T_OUT" ||
			t_fail "the ranks got mpiexec's blacklist"
		t_job 60 HWLOC_PLUGINS_VERBOSE=1 HWLOC_PLUGINS_BLACKLIST=hwloc_gl \
			-n "$np" /usr/bin/env
		t_said "Plugin .hwloc_gl' is blacklisted" "the user's choice"
		t_said "^HWLOC_PLUGINS_BLACKLIST=hwloc_gl$" "the user's choice"
		! grep -q "Plugin .hwloc_pci' is blacklisted" "$T_OUT" ||
			t_fail "the user's choice overridden" ;;
	*) t_fail "no case $1"; return ;;
	esac
	t_status 0 "$1"
}

t_main "$@"
