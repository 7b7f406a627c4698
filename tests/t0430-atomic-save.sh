#!/bin/sh
# SPDX-License-Identifier: MIT
# --save under kill -9: strace injects SIGKILL into iotrace at its Nth
# write(2), for N = 1, 2, ... until a run survives, so iotrace dies
# before, between and in the middle of the writes of the report and the
# profile.  Deterministic: no sleeps, no timing.  After every run the
# target holds either the old content or a complete profile, never part
# of one.
. "$(dirname "$0")/lib.sh"

test_expect_success PTRACE,STRACE 'kill -9 at every write: old or complete' '
	echo old >run.json &&
	partial=0 n=1 &&
	while test $n -le 40; do
		rm -f run.json.* &&
		strace -o /dev/null -e trace=write \
			-e inject=write:signal=KILL:when=$n \
			"$IOTRACE" -o table.txt --save run.json -- true
		rc=$?
		if test $rc = 0; then
			break
		fi
		test $rc = 137 || { echo "n=$n: exit $rc"; exit 1; }
		test "$(cat run.json)" = old || { echo "n=$n: run.json changed"; exit 1; }
		for t in run.json.*; do
			test -s "$t" && ! "$IOTRACE" report "$t" >/dev/null 2>&1 &&
				partial=$((partial + 1))
		done
		n=$((n + 1))
	done &&
	echo "survived at write $n; killed mid-profile $partial times" &&
	test $rc = 0 &&
	"$IOTRACE" report run.json >again.txt &&
	test_cmp table.txt again.txt &&
	test $partial -ge 1
'

test_expect_success PTRACE 'a completed save replaces the old file' '
	echo old >run2.json &&
	"$IOTRACE" -o t2.txt --save run2.json -- true &&
	"$IOTRACE" report run2.json >again2.txt &&
	test_cmp t2.txt again2.txt &&
	! ls run2.json.* 2>/dev/null
'

test_done
