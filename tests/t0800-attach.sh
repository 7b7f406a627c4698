#!/bin/sh
# SPDX-License-Identifier: MIT
# iotrace -p: attach to running processes (every thread), count their
# calls exactly from the attach on, detach leaving them running, and
# refuse with one line a pid that may not be traced, touching nothing.
. "$(dirname "$0")/lib.sh"

# wait_tracer PID WANT: until /proc/PID/status says TracerPid is (WANT
# "0") or is not (WANT "x") 0.  A bound, not a timing assertion.
wait_tracer() {
	i=0
	while [ $i -lt 3000 ]; do
		t=$(awk '/^TracerPid:/ { print $2 }' "/proc/$1/status") ||
			return 1
		if [ "$2" = 0 ] && [ "$t" = 0 ]; then return 0; fi
		if [ "$2" = x ] && [ "$t" != 0 ]; then return 0; fi
		sleep 0.01
		i=$((i + 1))
	done
	return 1
}

# perl -e "$SIGINT_DFL" COMMAND...: COMMAND with SIGINT at its default,
# which an asynchronous command of a non-interactive shell ignores.
SIGINT_DFL='$SIG{INT} = "DEFAULT"; exec @ARGV or die'

# running_untraced PID: alive, not in a tracing stop, no tracer.
running_untraced() {
	kill -0 "$1" &&
	! grep -q "^State:.*tracing stop" "/proc/$1/status" &&
	grep -q "^TracerPid:[[:space:]]*0$" "/proc/$1/status"
}

test_expect_success PTRACE '--duration: writes counted, left running' '
	rm -f go stop &&
	: >go &&
	{ "$HELPERS/attachee" go stop 0 16 1 & } &&
	pid=$! &&
	"$IOTRACE" -o t -p $pid --duration 1 &&
	test "$(table_calls write t)" -gt 0 &&
	grep "^iotrace: attached for .* to pid $pid, then detached" t &&
	running_untraced $pid &&
	: >stop &&
	{ wait $pid; test $? = 3; }
'

test_expect_success PTRACE 'until it exits: exactly K writes' '
	rm -f go stop &&
	{ "$HELPERS/attachee" go - 7 100 1 & } &&
	pid=$! &&
	{ "$IOTRACE" -o t -p $pid & } &&
	ipid=$! &&
	wait_tracer $pid x &&
	: >go &&
	wait $ipid &&
	test "$(table_calls write t)" = 7 &&
	grep "^iotrace: attached for .* to pid $pid, until it exited" t &&
	{ wait $pid; test $? = 3; }
'

test_expect_success PTRACE 'threads: the calls of every thread' '
	rm -f go stop &&
	{ "$HELPERS/attachee" go - 5 10 4 & } &&
	pid=$! &&
	while [ "$(ls /proc/$pid/task | wc -l)" -lt 4 ]; do sleep 0.01; done &&
	{ "$IOTRACE" -o t -p $pid & } &&
	ipid=$! &&
	wait_tracer $pid x &&
	for tid in $(ls /proc/$pid/task); do wait_tracer $tid x; done &&
	: >go &&
	wait $ipid &&
	test "$(table_calls write t)" = 20 &&
	{ wait $pid; test $? = 3; }
'

test_expect_success PTRACE 'two pids, one -p each and a list: all counted' '
	rm -f go stop &&
	{ "$HELPERS/attachee" go - 3 1 1 & } &&
	a=$! &&
	{ "$HELPERS/attachee" go - 4 1 2 & } &&
	b=$! &&
	{ "$IOTRACE" -o t -p $a -p $b,$a & } &&
	ipid=$! &&
	wait_tracer $a x && wait_tracer $b x &&
	: >go &&
	wait $ipid &&
	test "$(table_calls write t)" = 11 &&
	{ wait $a; test $? = 3; } && { wait $b; test $? = 3; }
'

test_expect_success PTRACE 'SIGINT to iotrace detaches: exit 0' '
	rm -f go stop &&
	: >go &&
	{ "$HELPERS/attachee" go stop 0 16 1 & } &&
	pid=$! &&
	{ perl -e "$SIGINT_DFL" "$IOTRACE" -o t -p $pid & } &&
	ipid=$! &&
	wait_tracer $pid x &&
	kill -INT $ipid &&
	wait $ipid &&
	grep "then detached" t &&
	running_untraced $pid &&
	: >stop &&
	{ wait $pid; test $? = 3; }
'

test_expect_success PTRACE 'SIGTERM to iotrace detaches too, never kills' '
	rm -f go stop &&
	: >go &&
	{ "$HELPERS/attachee" go stop 0 16 1 & } &&
	pid=$! &&
	{ "$IOTRACE" -o t -p $pid & } &&
	ipid=$! &&
	wait_tracer $pid x &&
	kill -TERM $ipid &&
	wait $ipid &&
	running_untraced $pid &&
	: >stop &&
	{ wait $pid; test $? = 3; }
'

test_expect_failure_code 2 '-p 0: usage' '"$IOTRACE" -p 0'
test_expect_failure_code 2 '-p notanumber: usage' '"$IOTRACE" -p notanumber'
test_expect_failure_code 2 '-p with a command: usage' '"$IOTRACE" -p 1 -- true'
test_expect_failure_code 2 '--duration without -p: usage' \
	'"$IOTRACE" --duration 1 -- true'

test_expect_success 'no such process: one line, exit 1' '
	{ "$IOTRACE" -p 999999999 2>err; test $? = 1; } &&
	test "$(wc -l <err)" = 1 &&
	grep "pid .999999999.: no such process" err
'

test_expect_success 'a zombie: one line, exit 1' '
	{ ( sh -c "echo \$\$ >zpid" & exec sleep 5 ) & } &&
	parent=$! &&
	while ! [ -s zpid ] ||
	      ! grep -q "^State:.Z" /proc/$(cat zpid)/status 2>/dev/null; do
		sleep 0.01
	done &&
	{ "$IOTRACE" -p $(cat zpid) 2>err; test $? = 1; } &&
	kill $parent &&
	test "$(wc -l <err)" = 1 &&
	grep "zombie" err
'

test_expect_success PTRACE,STRACE 'already traced: one line, exit 1, the others untouched' '
	rm -f go stop &&
	: >go &&
	{ "$HELPERS/attachee" go stop 0 1 1 & } &&
	a=$! &&
	{ "$HELPERS/attachee" go stop 0 1 1 & } &&
	b=$! &&
	{ strace -o /dev/null -p $a & } &&
	spid=$! &&
	wait_tracer $a x &&
	{ "$IOTRACE" -p $b,$a 2>err; test $? = 1; } &&
	test "$(wc -l <err)" = 1 &&
	grep "pid .$a.: already traced" err &&
	running_untraced $b &&
	kill $spid && wait $spid;
	wait_tracer $a 0 &&
	: >stop &&
	{ wait $a; test $? = 3; } && { wait $b; test $? = 3; }
'

test_expect_success 'iotrace itself: refused' '
	{ "$IOTRACE" -p self 2>err; test $? = 2; } &&
	sh -c "exec \"\$0\" -p \$\$ 2>err" "$IOTRACE";
	test $? = 1 && grep "iotrace itself" err
'

test_done
