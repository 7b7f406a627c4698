#!/bin/sh
# SPDX-License-Identifier: MIT
# The default engine's counts equal strace -f -c's (issue 20): a read
# left by siglongjmp from its signal handler, reads the kernel makes
# again (SA_RESTART), 200 processes of 10 forks each, a non-dumpable
# process traced by an iotrace with no privilege; and they stay so when
# iotrace itself is stopped for a while.  iotrace killed, by SIGTERM or
# SIGKILL, leaves no process of the command's tree behind, and touches
# none outside it.
. "$(dirname "$0")/lib.sh"

# The signal helper's polling child makes as many of these as it takes.
polling="pread64(/i386)?|sched_yield(/i386)?"

# A read the handler leaves by siglongjmp never returns to its caller,
# but the kernel ends it (ERESTARTSYS): one call, one error, as strace
# counts it.  The read row is the helper's 21 reads and the loader's.
test_expect_success PTRACE,STRACE 'reads left by siglongjmp: counted as strace' '
	unsteady=$polling untouched untraced "$HELPERS/readsig" longjmp 20 &&
	printf "longjmp: signals=20 read=1\nexit 0\n" >expect &&
	test_cmp expect got &&
	grep -q "^read [0-9]* 20$" t.counts &&
	grep -q "^kill 20 0$" t.counts
'

# SA_RESTART: the program sees one read; strace counts each read made
# again after its ERESTARTSYS, and so must iotrace.
test_expect_success PTRACE,STRACE 'reads made again (SA_RESTART): counted as strace' '
	unsteady=$polling untouched untraced "$HELPERS/readsig" restart 10 &&
	printf "restart: signals=10 read=1\nexit 0\n" >expect &&
	test_cmp expect got &&
	grep -q "^read [0-9]* 10$" t.counts
'

test_expect_success PTRACE,STRACE,M32 'i386: reads left by siglongjmp or made again' '
	for how in longjmp restart; do
		unsteady=$polling untouched untraced \
			"$HELPERS32/readsig" $how 10 &&
		grep -q "^read/i386 [0-9]* 10$" t.counts || return 1
	done
'

# 200 processes forked at once, each forking 10 children one after
# another: 2,200 forks made, 2,000 getppid, 2,200 wait4; none lost.
test_expect_success PTRACE,STRACE '200 processes x 10 forks: every one counted' '
	untouched untraced "$HELPERS/forker" 10 200 &&
	grep -q "^clone 2200 0$" t.counts &&
	grep -q "^getppid 2000 0$" t.counts &&
	grep -q "^wait4 2200 0$" t.counts
'

# A process that makes itself non-dumpable, traced by an iotrace with no
# privilege (all three runs as nobody, in a directory nobody may write):
# iotrace, its tracer still, may no longer write its memory, so what
# its sched_getaffinity reads cannot be rewritten to the original mask
# while iotrace and it are pinned to one CPU (it read "cpus=1,2" on two
# CPUs: the pinned mask, then the original once its fork ended
# pinning).  Pinning ends before that call instead.
test_expect_success PTRACE,STRACE,ROOT 'non-dumpable, iotrace run as nobody: as untraced' '
	mkdir nobody && chmod 777 nobody && chmod 711 "$TRASH" && cd nobody &&
	run_as="setpriv --reuid=65534 --regid=65534 --clear-groups" \
		untouched untraced "$HELPERS/nodump" 5 &&
	grep -q "^dumpable=0 cpus=\([0-9]*\),\1 forked=1$" got
'

# iotrace stopped while the command forks (6,000 forks of 20
# processes), for a second and a half, then continued: the tasks wait
# in their stops, nothing is lost or counted twice.  The sleep only
# makes the stop long; nothing asserts a time.  strace runs in the
# background too, not under timeout (which sets them back to default):
# there sh starts with SIGINT and SIGQUIT ignored, and makes two
# rt_sigaction calls fewer.
test_expect_success PTRACE,STRACE 'iotrace stopped for 1.5 s, continued: counts unchanged' '
	cmd=": >ready; exec \"$HELPERS/forker\" 300 20"
	strace -f -c -o s sh -c "$cmd" &
	wait $! || exit 1
	rm -f ready
	"$IOTRACE" -o t -- sh -c "$cmd" &
	ipid=$!
	wait_for "test -e ready" &&
	kill -STOP $ipid &&
	wait_for "grep -q \"^State:.T\" /proc/$ipid/status" &&
	sleep 1.5 &&
	grep "^State:" /proc/$ipid/status >state
	kill -CONT $ipid
	wait $ipid &&
	grep -q "^State:.T" state &&
	made_counts s >want && made_counts t >got &&
	test_cmp want got &&
	grep -q "^clone 6020 0$" got &&
	grep -q "^wait4 6020 0$" got
'

# marked MARK: the /proc directories of the processes whose environment
# has IOTRACE_MARK=MARK, which only the command's tree (and iotrace) got.
marked() {
	for e in /proc/[0-9]*/environ; do
		grep -qxz "IOTRACE_MARK=$1" "$e" 2>/dev/null && echo "${e%/environ}"
	done
}

# marked_sleeps MARK: how many of them are sleep.
marked_sleeps() {
	for d in $(marked "$1"); do
		cat "$d/comm" 2>/dev/null
	done | grep -c "^sleep$"
}

# A tree of four sleeps: one in a session of its own (setsid), one whose
# parent has exited (a daemon's double fork: it is init's child now),
# two children of the shell.  iotrace is killed once all four run; then
# no marked process is left, and a sibling of iotrace still runs.  What
# a failure leaves is killed, by pid.
for sig in TERM:143 KILL:137; do
	rc=${sig#*:}
	sig=${sig%:*}
	test_expect_success PTRACE "SIG$sig to iotrace: none of the tree outlives it" "
		mark=t0064-\$\$-$sig &&
		sleep 300 &
		sib=\$!
		IOTRACE_MARK=\$mark \"\$IOTRACE\" -o t -- sh -c '
			(setsid sh -c \"sleep 301 & sleep 302\") &
			(sleep 303 &)
			sleep 304 &
			wait' &
		ipid=\$!
		wait_for 'test \$(marked_sleeps \$mark) = 4' &&
		kill -$sig \$ipid
		wait \$ipid
		status=\$?
		wait_for 'test -z \"\$(marked \$mark)\"'
		left=\$(marked \$mark)
		kill -0 \$sib && sibling=runs
		kill \$sib
		for d in \$left; do kill -KILL \${d#/proc/}; done
		test \$status = $rc &&
		test -z \"\$left\" &&
		test \"\$sibling\" = runs
	"
done

test_done
