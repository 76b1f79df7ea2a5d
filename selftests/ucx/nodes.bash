# SPDX-License-Identifier: GPL-2.0
#
# selftests/ucx/nodes.bash: two "machines" on one, for jobs that span
# nodes.  nodes_up DIR NODE... starts, for each NODE, a process in new
# IPC, UTS and mount namespaces: its host name is NODE, and its
# /etc/hosts (bound over the real one) gives every node an address of
# its own on the loopback (127.0.1.1, 127.0.1.2, ...), so that an MPI
# launcher sees the others as remote hosts and reaches them through
# nodesh.  The network namespace is shared: TCP between the nodes runs
# over the loopback.  UCX decides that two processes share a machine by
# boot id and IPC namespace, so its shared-memory transports (posix,
# mpichan) stay within a node and TCP carries what goes between them,
# as on a cluster; /dev/mpichan is the same device in both.
# nodes_run NODE CMD... runs a command in NODE; nodes_down ends them.
# Entering a node keeps the root directory and the working directory
# (nsenter --root --wd): joining a mount namespace alone would move the
# process to the namespace's root, outside a chroot such as the VM's.
# Needs root (namespaces, the bind mount) and util-linux.

NODES=()
nodes_up() {
	local dir=$1 node i=0
	shift
	export MPICHAN_NODES_DIR=$dir
	mkdir -p "$dir"
	echo "127.0.0.1 localhost" > "$dir/hosts"
	for node in "$@"; do
		i=$((i + 1))
		echo "127.0.1.$i $node" >> "$dir/hosts"
	done
	NODES=()
	for node in "$@"; do
		rm -f "$dir/$node.pid" "$dir/$node.ready"
		# unshare execs the shell in place: its pid holds the namespaces.
		unshare --ipc --uts --mount --propagation private /bin/sh -c '
			hostname "$1" && mount --bind "$2/hosts" /etc/hosts &&
				touch "$2/$1.ready" && exec sleep 100000' sh "$node" "$dir" \
			> "$dir/$node.log" 2>&1 &
		echo $! > "$dir/$node.pid"
		NODES+=("$node")
	done
	for node in "$@"; do
		for ((i = 0; i < 100; i++)); do
			[ -f "$dir/$node.ready" ] && break
			sleep 0.1
		done
		if [ ! -f "$dir/$node.ready" ]; then
			echo "# nodes_up: node $node did not start:" >&2
			sed 's/^/#   /' "$dir/$node.log" >&2
			nodes_down
			return 1
		fi
	done
}

nodes_run() {
	local node=$1
	shift
	nsenter -t "$(cat "$MPICHAN_NODES_DIR/$node.pid")" --ipc --uts --mount --root \
		--wd="$PWD" -- "$@"
}

nodes_down() {
	local node pid
	for node in "${NODES[@]}"; do
		pid=$(cat "$MPICHAN_NODES_DIR/$node.pid")
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	NODES=()
}
