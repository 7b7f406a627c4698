# SPDX-License-Identifier: MIT
# wait_for 'CONDITION': polls until CONDITION holds, for up to 20 s; the
# sleeps only pace the polling, no assertion depends on time.  Sourced by
# lib.sh, and by scripts a test runs elsewhere (a pid namespace of its
# own) where lib.sh is not.
wait_for() {
	n=0
	until eval "$1"; do
		n=$((n + 1))
		test $n -lt 400 || { echo "timed out: $1"; return 1; }
		sleep 0.05
	done
}
