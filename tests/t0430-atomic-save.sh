#!/bin/sh
# SPDX-License-Identifier: MIT
# --save under kill -9: strace injects SIGKILL into iotrace at its Nth
# write(2), for N = 1, 2, ... until a run survives, so iotrace dies
# before, between and in the middle of the writes of the report and the
# profile.  Deterministic: no sleeps, no timing.  After every run the
# target holds either the old content or a complete profile, never part
# of one, and no temporary file is left (the profile is an unnamed file
# until complete).  The profile takes several writes, so at least two
# kills leave the old content: one of them mid-profile.
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
		# The profile is saved before the table: old, or complete.
		test "$(cat run.json)" = old ||
			"$IOTRACE" report run.json >/dev/null 2>&1 ||
			{ echo "n=$n: run.json partial"; exit 1; }
		! ls run.json.* 2>/dev/null ||
			{ echo "n=$n: temporary file left"; exit 1; }
		test "$(cat run.json)" = old && partial=$((partial + 1))
		n=$((n + 1))
	done &&
	echo "survived at write $n; old content kept $partial times" &&
	test $rc = 0 &&
	"$IOTRACE" report run.json >again.txt &&
	test_cmp table.txt again.txt &&
	test $partial -ge 2
'

test_expect_success PTRACE 'a completed save replaces the old file' '
	echo old >run2.json &&
	"$IOTRACE" -o t2.txt --save run2.json -- true &&
	"$IOTRACE" report run2.json >again2.txt &&
	test_cmp t2.txt again2.txt &&
	! ls run2.json.* 2>/dev/null
'

# A table written to a pipe nobody reads (fd 5: the fifo's only reader,
# fd 4, is closed before iotrace starts): SIGPIPE must not lose --save.
test_expect_success PTRACE 'report to a closed pipe: --save written, no temp' '
	rm -f pipe.json && mkfifo fifo &&
	{ exec 4<>fifo 5>fifo 4<&-
	  "$IOTRACE" --save pipe.json -- true 2>&5; echo $? >rc; } &&
	exec 5>&- &&
	test "$(cat rc)" != 141 &&
	"$IOTRACE" report pipe.json >t && grep -q " total$" t &&
	! ls pipe.json.* 2>/dev/null
'

# SIGPIPE sent to iotrace ends the run as SIGTERM does, profile saved.
test_expect_success PTRACE 'SIGPIPE sent to iotrace: as SIGTERM, --save kept' '
	rm -f sent.json &&
	{ "$IOTRACE" -o t --save sent.json -- \
		sh -c "kill -PIPE \$PPID; exec sleep 30"; echo $? >rc; } &&
	test "$(cat rc)" = 141 &&
	grep -q "^iotrace: sh killed by iotrace on SIGPIPE " t &&
	"$IOTRACE" report sent.json >again && test_cmp t again &&
	! ls sent.json.* 2>/dev/null
'

# kill -9 in the middle of a run, -o and --save open: the command
# itself sends it, so no timing.  Nothing is left behind: the files are
# unnamed until the end.
test_expect_success PTRACE 'kill -9 during the run: no temporary file left' '
	mkdir k9 && echo old >k9/old.json &&
	{ "$IOTRACE" -o k9/t.txt --save k9/old.json -- \
		sh -c "kill -KILL \$PPID; exec sleep 30"; echo $? >rc; } &&
	test "$(cat rc)" = 137 &&
	{ "$IOTRACE" -o k9/t2.txt --save k9/new.json -- \
		sh -c "kill -KILL \$PPID; exec sleep 30"; echo $? >rc; } &&
	test "$(cat rc)" = 137 &&
	ls -A k9 >left &&
	echo old.json >expect && test_cmp expect left &&
	test "$(cat k9/old.json)" = old
'

test_done
