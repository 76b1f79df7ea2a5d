# SPDX-License-Identifier: GPL-2.0
#
# selftests/ucx/tap.bash: what the UCX tests share: TAP lines (ok,
# notok, numbered) and stat NAME, a counter of the module's debugfs
# stats (0 where there is none).
stats=/sys/kernel/debug/mpichan/stats
n=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); echo "not ok $n $*"; }
stat() { awk -v k="$1:" '$1 == k { print $2 }' "$stats" 2>/dev/null || echo 0; }
