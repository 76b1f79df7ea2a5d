# SPDX-License-Identifier: GPL-2.0
# Shared by the test drivers: results are lines "pass|fail|skip NAME"
# appended to $MPICHAN_RESULTS; tools/test/check adds them up at the end.

_suite_failed=0

record() {
	local verdict=$1 name=$2
	[ "$verdict" = fail ] && _suite_failed=1
	[ -n "${MPICHAN_RESULTS:-}" ] && echo "$verdict $name" >> "$MPICHAN_RESULTS"
	return 0
}

# run_tap SUITE CMD...: run a TAP-speaking program, echo its output and
# record one result per test case.  Cases the plan announced but that
# never reported (the program crashed) count as failures, and so does a
# non-zero exit with no failing case.
run_tap() {
	local suite=$1 log rc verdict name
	shift
	log=$(mktemp)
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	awk -v rc="$rc" '
		/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0 }
		/^ok [0-9]+ / {
			n++; name = $0; sub(/^ok [0-9]+ /, "", name)
			if (name ~ /# *[Ss][Kk][Ii][Pp]/) { sub(/ *# *[Ss][Kk][Ii][Pp].*/, "", name); print "skip", name }
			else print "pass", name
		}
		/^not ok [0-9]+ / {
			n++; bad++; name = $0; sub(/^not ok [0-9]+ /, "", name)
			sub(/ *#.*/, "", name); print "fail", name
		}
		END {
			if (n < plan) print "fail", (plan - n) " case(s) never reported"
			else if (rc != 0 && !bad) print "fail", "exit status " rc
			if (!plan && !n && rc == 0) print "fail", "no test ran"
		}' "$log" > "$log.res"
	while read -r verdict name; do
		record "$verdict" "$suite: $name"
	done < "$log.res"
	rm -f "$log" "$log.res"
}

# run_cmd NAME CMD...: one result from one command's exit status.
run_cmd() {
	local name=$1
	shift
	if "$@"; then
		record pass "$name"
	else
		record fail "$name"
	fi
}

# The closing line: "N passed, N failed[, N skipped]"; true if none failed.
summary() {
	local pass fail skip line
	pass=$(grep -c '^pass ' "$MPICHAN_RESULTS")
	fail=$(grep -c '^fail ' "$MPICHAN_RESULTS")
	skip=$(grep -c '^skip ' "$MPICHAN_RESULTS")
	if [ "$fail" != 0 ]; then
		echo "failed:"
		grep '^fail ' "$MPICHAN_RESULTS" | sed 's/^fail /  /'
	fi
	line="$pass passed, $fail failed"
	[ "$skip" != 0 ] && line="$line, $skip skipped"
	echo "$line"
	[ "$fail" = 0 ]
}

# A step's heading says when it began (seconds since the script started),
# so a run's log shows where its time went.
step() { echo; echo "==== $* (at ${SECONDS}s)"; }

# Build the module for another kernel tree from a copy of the sources
# (out-of-tree objects live beside them): build/kmod-NAME/kernel/mpichan.ko.
build_module_copy() {
	local kdir=$1 name=$2 obj=build/kmod-$2
	rm -rf "$obj" && mkdir -p "$obj" && cp -r Kbuild kernel uapi "$obj"/
	(cd "$obj" && rm -f kernel/*.o kernel/*.ko kernel/*.mod* kernel/.*.cmd)
	make -s -C "$kdir" M="$PWD/$obj" modules
}

finish_quiet() {
	exit $_suite_failed
}
