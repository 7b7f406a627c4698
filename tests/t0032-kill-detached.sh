#!/bin/sh
# SPDX-License-Identifier: MIT
# iotrace killed by a signal it cannot catch (SIGKILL, an uncaught
# SIGUSR1) while the agent runs its command detached from ptrace (armed:
# PTRACE_O_EXITKILL cannot take an untraced process) leaves nothing
# behind: its watchdog kills what was detached, then exits.  The
# watchdog keeps out of the way: a session of its own, no descriptor but
# its socket and pidfds, deaf to the signals a terminal sends, gone
# before iotrace at a normal end.  Each command is seen running untraced
# (TracerPid 0) before the kill; the polls only pace themselves, with a
# bound against hanging, and assert no time.
. "$(dirname "$0")/lib.sh"

# The helpers, in a file: a test in a pid namespace sources them too
# (wait_for with them: lib.sh's, from tests/wait.sh).
echo ". '$TESTS_DIR/wait.sh'" >funcs.sh
cat >>funcs.sh <<\EOF
# State letter and start time of PID ("Z 12345"), nothing once it is gone.
state_of() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $1, $20 }'
}

# detached PID: PID runs untraced (the agent armed it, iotrace let go).
detached() {
	grep -q "^TracerPid:[[:space:]]*0$" "/proc/$1/status" 2>/dev/null
}

# gone PID WAS: the process PID that state_of showed as WAS is dead (a
# zombie waiting for init is dead), or its pid names another process.
gone() {
	now=$(state_of "$1")
	test -z "$now" || test "${now%% *}" = Z ||
		test "${now#* }" != "${2#* }"
}

# The processes carrying the environment entry $1 whose name is $2.
with_marker() {
	for d in /proc/[0-9]*; do
		test "$(cat "$d/comm" 2>/dev/null)" = "$2" &&
			tr "\0" "\n" 2>/dev/null <"$d/environ" | grep -qx "$1" &&
			echo "${d#/proc/}"
	done
}

# A test that fails before its kill kills iotrace itself (its watchdog
# takes what was detached): nothing it started runs on.
#
# kill_and_check SIG IPID PID...: each PID (iotrace's command, running
# detached) still runs; iotrace IPID gets SIG; each PID then dies.
# What is left is killed, so a failure leaves nothing behind either.
kill_and_check() {
	sig=$1 ipid=$2
	shift 2
	was=
	for p; do
		detached "$p" || { echo "$p is traced"; return 1; }
		was="$was $p:$(state_of "$p" | tr ' ' :)"
	done
	kill -"$sig" "$ipid"
	wait "$ipid"
	rc=0
	for pw in $was; do
		p=${pw%%:*} w=$(echo "${pw#*:}" | tr : ' ')
		wait_for "gone $p \"$w\"" || { kill -KILL "$p"; rc=1; }
	done
	return $rc
}
EOF
. ./funcs.sh

test_expect_success AGENT 'SIGKILL of iotrace: its detached command dies too' '
	rm -f out
	"$IOTRACE" --engine=agent -o /dev/null -- "$HELPERS/sigcount" >out &
	ipid=$! &&
	wait_for "grep -q ready out" &&
	tpid=$(pgrep -P $ipid) && test -n "$tpid" &&
	kill_and_check KILL $ipid $tpid ||
	{ kill -KILL $ipid 2>/dev/null; false; }
'

# sh waits in wait4, each sigcount in sigsuspend: three processes
# detached, each killed through its own pidfd.
test_expect_success AGENT 'uncaught SIGUSR1: a detached tree dies too' '
	rm -f out
	"$IOTRACE" --engine=agent -o /dev/null -- sh -c \
		"\"$HELPERS/sigcount\" & \"$HELPERS/sigcount\" & wait" >out &
	ipid=$! &&
	wait_for "test \$(grep -c ready out) = 2" &&
	sh=$(pgrep -P $ipid) && test -n "$sh" &&
	kids=$(pgrep -P $sh | tr "\n" " ") &&
	test $(echo $kids | wc -w) = 2 &&
	kill_and_check USR1 $ipid $sh $kids ||
	{ kill -KILL $ipid 2>/dev/null; false; }
'

# The workload is iotrace's only child once it reads /dev/zero (before,
# the watchdog's first fork, a child of iotrace too, could be found).
test_expect_success AGENT 'SIGKILL of iotrace: its detached workload dies too' '
	"$IOTRACE" --engine=agent -o /dev/null run dd count=1000000000 &
	ipid=$! &&
	wait_for "w=\$(pgrep -P $ipid) && test \$(echo \$w | wc -w) = 1 &&
		detached \$w && readlink /proc/\$w/fd/* | grep -q /dev/zero" &&
	kill_and_check KILL $ipid $w ||
	{ kill -KILL $ipid 2>/dev/null; false; }
'

# watchdog_ok IPID MARKER: iotrace IPID has one watchdog, in a session of
# its own, with no fd but its socket and pidfds (iotrace's, and one of
# the command, detached: no terminal, none of the command's); the signals a terminal or a group kill sends
# (blocked) neither end nor stop it: SIGKILL of iotrace still kills the
# command, then the watchdog goes.
watchdog_ok() {
	wd=$(with_marker "$2" iotrace | grep -vx "$1") &&
	test $(echo $wd | wc -w) = 1 &&
	wdwas=$(state_of $wd) &&
	for fd in /proc/$wd/fd/*; do readlink $fd; done | sort >fds &&
	printf "anon_inode:[pidfd]\nanon_inode:[pidfd]\nsocket:\n" >expect &&
	sed "s/^socket:.*/socket:/" fds >actual &&
	test_cmp expect actual &&
	test "$(sed "s/.*) //" /proc/$wd/stat | cut -d" " -f4)" = $wd &&
	for s in INT QUIT TERM HUP TSTP TTIN TTOU PIPE USR1 USR2 ALRM; do
		kill -$s $wd || return 1
	done &&
	kill_and_check KILL "$1" $(pgrep -P "$1") &&
	wait_for "gone $wd \"$wdwas\""
}

test_expect_success AGENT 'the watchdog: own session, its fds only, deaf to a terminal' '
	rm -f out
	T0032=wd "$IOTRACE" --engine=agent -o /dev/null -- \
		"$HELPERS/sigcount" >out &
	ipid=$! &&
	wait_for "grep -q ready out" &&
	{ watchdog_ok $ipid T0032=wd || { kill -TERM $ipid; false; }; }
'

# A process that takes the pid of one that has exited, while the first
# process lives on (the loop frees no slot meanwhile), gets a slot and a
# watchdog's pidfd of its own (before, it was taken for the one tracked
# under its pid, and ran on).  The pid is reused through ns_last_pid, in
# a pid namespace where nothing else takes pids (ns.sh forks nothing
# until reuse.sh has forked: it waits on a fifo; before, its polling's
# grep and sleep took the pid now and then); the namespace's end kills
# whatever is left (a hung ns.sh too, after 60 s: unshare ignores
# SIGTERM).
cat >reuse.sh <<\EOF
sleep 0 & x=$!
wait $x
echo $((x - 1)) >/proc/sys/kernel/ns_last_pid
"$HELPERS/sigcount" >ready & echo $! >reused
echo $x >first
echo >forked
wait
EOF
cat >ns.sh <<\EOF
. ./funcs.sh
rm -f forked && mkfifo forked || exit 1
"$IOTRACE" --engine=agent -o /dev/null -- sh reuse.sh &
ipid=$!
read x <forked
wait_for "grep -q ready ready" || exit 1
test "$(cat reused)" = "$(cat first)" || { echo "pid not reused"; exit 1; }
kill_and_check KILL $ipid $(cat reused)
EOF

test_expect_success ROOT,PIDNS,AGENT 'a detached process on a reused pid dies too' '
	timeout -s KILL 60 unshare --pid --fork --kill-child --mount-proc sh ns.sh
'

# iotrace waits until the watchdog has let go of everything: a process
# that has exited has no environment left to read.
test_expect_success AGENT 'a normal end: no watchdog left, none in the header' '
	T0032=end "$IOTRACE" --engine=agent -o t.txt -- true &&
	test -z "$(with_marker T0032=end iotrace)" &&
	grep -q "^iotrace: the agent counted [0-9]* calls in 1 process (1 task)" t.txt
'

test_done
