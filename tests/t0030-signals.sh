#!/bin/sh
# SPDX-License-Identifier: MIT
# Signals: those sent to the traced command reach it exactly once; Ctrl-C
# (SIGINT to the whole process group) is the command's to handle while
# iotrace prints the table and exits with its status; SIGTERM and SIGHUP
# sent to iotrace alone kill the command and still print the partial
# table, exit 128+N.
. "$(dirname "$0")/lib.sh"

# A test that starts iotrace in the background with >out removes the out
# of the test before it first: the job's redirection is made in the job,
# maybe after wait_for (lib.sh) has read the old "ready" (a busy machine).

# guard PID: kills iotrace PID (PTRACE_O_EXITKILL takes its tracees with
# it) if it still runs after 60 s, so a tracer that loses a signal fails
# its test instead of hanging the suite or leaving processes behind.  It
# first shows where iotrace and its tracee are stuck.
guard() {
	( sleep 60; show_stuck "$1"; kill -KILL "$1" ) 2>&1 &
	watchdog=$!
}

show_stuck() {
	echo "iotrace $1 still running after 60 s:"
	ps -o pid,stat,wchan:24,args -p "$1"
	for p in $(pgrep -P "$1"); do
		ps -o pid,stat,wchan:24,args -p "$p" | tail -1
		grep -E "^(State|SigPnd|ShdPnd|SigBlk|SigCgt)" /proc/$p/status
	done
}

# finish PID: waits for the guarded job PID and returns its status.
finish() {
	wait "$1"
	rc=$?
	kill $watchdog 2>/dev/null
	return $rc
}

# The traced command: iotrace's only child (fork, then exec in place).
tracee_of() {
	pgrep -P "$1" | head -1
}

test_expect_success PTRACE 'SIGUSR1, SIGTERM, SIGPIPE reach the tracee once' '
	"$IOTRACE" -o t -- "$HELPERS/sigcount" >out &
	ipid=$! && guard $ipid &&
	wait_for "grep -q ready out" &&
	tpid=$(tracee_of $ipid) && test -n "$tpid" &&
	kill -USR1 $tpid && wait_for "grep -q USR1 out" &&
	kill -TERM $tpid && wait_for "grep -q TERM out" &&
	kill -PIPE $tpid && wait_for "grep -q PIPE out" &&
	kill -USR1 $tpid && wait_for "test \$(grep -c USR1 out) = 2" &&
	kill -USR2 $tpid &&
	finish $ipid &&
	printf "ready\nUSR1\nTERM\nPIPE\nUSR1\n" >want &&
	test_cmp want out &&
	grep -q "^iotrace: sigcount exited 0 " t
'

test_expect_success PTRACE 'a signal the tracee sends itself arrives once' '
	"$IOTRACE" -o t -- sh -c "trap \"echo got >>got\" USR1;
		kill -USR1 \$\$; kill -USR1 \$\$; echo end >>got" &&
	printf "got\ngot\nend\n" >want &&
	test_cmp want got
'

test_expect_success PTRACE 'SIGPIPE from a closed pipe: as without iotrace' '
	( "$IOTRACE" -o t -- sh -c "yes | head -1 >/dev/null;
		echo \$? >st" ); test $? = 0 &&
	test "$(cat st)" = 0 &&
	( yes; echo $? >st2 ) | head -1 >/dev/null;
	( "$IOTRACE" -o t2 -- yes; echo $? >st3 ) | head -1 >/dev/null;
	test "$(cat st2)" = 141 && test "$(cat st3)" = 141 &&
	grep -q "^iotrace: yes killed by SIGPIPE after " t2
'

# SIGTERM/SIGHUP to iotrace alone: the command dies, the table is printed.
for sig in TERM:15 HUP:1; do
	num=${sig#*:}
	sig=${sig%:*}
	test_expect_success PTRACE "SIG$sig to iotrace: command killed, table" "
		rm -f out
		\"\$IOTRACE\" -o t -- \"\$HELPERS/sigcount\" >out &
		ipid=\$! && guard \$ipid &&
		wait_for 'grep -q ready out' &&
		tpid=\$(tracee_of \$ipid) && test -n \"\$tpid\" &&
		kill -$sig \$ipid;
		finish \$ipid; rc=\$? &&
		test \$rc = $((128 + num)) &&
		! kill -0 \$tpid 2>/dev/null &&
		grep -q '^iotrace: sigcount killed by iotrace on SIG$sig ' t &&
		grep -q '^100\.00 .* total\$' t &&
		table_counts t | grep -q '^write 1 0\$' &&
		test \"\$(cat out)\" = ready
	"
done

test_expect_success PTRACE 'SIGTERM to iotrace kills the whole family' '
	rm -f out
	"$IOTRACE" -o t -- sh -c "sleep 300 & sleep 300 & echo ready; wait" \
		>out &
	ipid=$! && guard $ipid &&
	wait_for "grep -q ready out" &&
	tpid=$(tracee_of $ipid) &&
	wait_for "test \$(pgrep -P $tpid -x sleep | wc -l) = 2" &&
	kids=$(pgrep -P $tpid -x sleep) &&
	kill -TERM $ipid;
	finish $ipid; rc=$? &&
	test $rc = 143 &&
	for k in $tpid $kids; do
		wait_for "! kill -0 $k 2>/dev/null" || exit 1
	done
'

# Ctrl-C: the terminal sends SIGINT to the foreground process group.
# iotrace runs in its own session (setsid) with SIGINT at its default, as
# a shell with job control starts it; sigdfl undoes the test shell's
# ignoring SIGINT in background jobs.  dash's kill has no "--": env runs
# kill(1).
test_expect_success PTRACE 'Ctrl-C: command handles SIGINT, iotrace reports' '
	rm -f out
	setsid "$HELPERS/sigdfl" "$IOTRACE" -o t -- "$HELPERS/sigcount" \
		>out &
	ipid=$! && guard $ipid &&
	wait_for "grep -q ready out" &&
	pgid=$(ps -o pgid= -p $ipid | tr -d " ") &&
	test "$pgid" = "$ipid" &&
	env kill -INT -- -$pgid;
	finish $ipid; rc=$? &&
	test $rc = 5 &&
	printf "ready\nINT\n" >want && test_cmp want out &&
	grep -q "^iotrace: sigcount exited 5 after " t &&
	grep -q "^100\.00 .* total$" t
'

test_expect_success PTRACE 'Ctrl-C: command killed by SIGINT, exit 130' '
	rm -f out
	setsid "$HELPERS/sigdfl" "$IOTRACE" -o t -- sh -c \
		"echo ready; exec sleep 300" >out &
	ipid=$! && guard $ipid &&
	wait_for "grep -q ready out && pgrep -P $ipid -x sleep >/dev/null" &&
	env kill -INT -- -$ipid;
	finish $ipid; rc=$? &&
	test $rc = 130 &&
	grep -q "^iotrace: sh killed by SIGINT after " t &&
	grep -q "^100\.00 .* total$" t
'

test_expect_success PTRACE 'stopped and continued tracee goes on' '
	rm -f out
	"$IOTRACE" -o t -- "$HELPERS/sigcount" >out &
	ipid=$! && guard $ipid &&
	wait_for "grep -q ready out" &&
	tpid=$(tracee_of $ipid) &&
	kill -STOP $tpid &&
	wait_for "grep -q \"^State:.[tT]\" /proc/$tpid/status" &&
	kill -CONT $tpid &&
	kill -USR1 $tpid && wait_for "grep -q USR1 out" &&
	kill -USR2 $tpid && finish $ipid &&
	printf "ready\nUSR1\n" >want && test_cmp want out
'

# The first process exits, a child goes on; once iotrace has reaped the
# first, its pid is free for anyone: SIGTERM to iotrace must not signal it
# (strace, not following children, shows iotrace's own kill calls).
test_expect_success PTRACE,STRACE 'SIGTERM after the first process is reaped spares its pid' '
	strace -o st -e trace=kill,pidfd_send_signal -- "$IOTRACE" -o t -- \
		sh -c "echo \$\$ >leader; exec >/dev/null; sleep 30 & exit 0" &
	spid=$! && guard $spid &&
	wait_for "test -s leader" && leader=$(cat leader) &&
	wait_for "! test -d /proc/$leader" &&
	ipid=$(pgrep -P $spid | head -1) && test -n "$ipid" &&
	kill -TERM $ipid &&
	{ finish $spid || :; } &&
	grep -q "killed by SIGTERM\|SIGTERM" t &&
	! grep "($leader, SIGKILL)" st
'

test_done
