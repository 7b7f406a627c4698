#!/bin/sh
# SPDX-License-Identifier: MIT
# The default engine leaves the program as it is untraced (rule 1) and
# counts what strace -f -c counts (rule 2): a process that drops its
# privileges, a fork bomb under RLIMIT_NPROC, a pid namespace of its own
# (nothing outside the command's tree is traced or killed), a program
# that traces (gdb, PTRACE_TRACEME: EPERM under any tracer, as under
# strace, never a SIGTRAP), waits with every signal but one blocked, a
# thread on a 16 KiB stack and a handler on an 8 KiB sigaltstack making
# calls, and signal calls given a bad pointer.  untouched (lib.sh) runs
# each untraced, under strace -f -c and under iotrace with no --engine.
. "$(dirname "$0")/lib.sh"

# A uid of the fork bomb's own: RLIMIT_NPROC counts every process of
# the uid, so one that nothing else runs as makes the bomb's size the
# limit's alone.
bomb_uid=61062

test_expect_success PTRACE,STRACE,ROOT 'runuser -u nobody: PATH searches, calls' '
	cmd="PATH=/nonexistent:\$PATH; cd /; ls -d /tmp; command -v cat
		cat /etc/hostname >/dev/null; id -u
		no-such-command; echo \$?" &&
	untouched untraced runuser -u nobody -- sh -c "$cmd" &&
	grep -qx 65534 got && grep -qx 127 got
'

test_expect_success PTRACE,STRACE,ROOT 'a program that calls setresuid itself' '
	untouched untraced "$HELPERS/privdrop" setuid 65534 &&
	echo "uid=65534,65534,65534 shadow=EACCES setuid0=EPERM" >expect &&
	echo "exit 0" >>expect &&
	test_cmp expect got
'

# 20 processes at most: 19 forks made, and each of the 20 processes
# fails once with EAGAIN; the clone row is compared whole, its errors
# too.
test_expect_success PTRACE,STRACE,ROOT 'a fork bomb, RLIMIT_NPROC: clone row as strace' '
	! pgrep -U $bomb_uid >/dev/null &&
	untouched untraced "$HELPERS/privdrop" bomb $bomb_uid 20 &&
	printf "processes=20\nexit 0\n" >expect &&
	test_cmp expect got &&
	table_counts s | grep "^clone " >want.clone &&
	table_counts t | grep "^clone " >got.clone &&
	echo "clone 39 20" >expect &&
	test_cmp expect want.clone &&
	test_cmp want.clone got.clone
'

test_expect_success PTRACE,STRACE,PIDNS 'unshare --pid --fork: as untraced' '
	cmd="echo \$\$; sh -c \"echo \\\$\\\$\"; cat /etc/hostname >/dev/null;
		ls / >/dev/null" &&
	untouched untraced unshare --pid --fork sh -c "$cmd" &&
	printf "1\n2\nexit 0\n" >expect &&
	test_cmp expect got
'

# tracer_of PID: the TracerPid of PID, from /proc.
tracer_of() {
	sed -n "s/^TracerPid:[[:space:]]*//p" /proc/$1/status
}

# While the command runs in its namespace (waiting on a fifo), iotrace's
# parent (this shell), a sibling of iotrace and init are traced by
# nobody, the command by iotrace; once it is over the sibling still
# runs, untraced.  What is seen is written down first and checked once
# the command is let go (a write to the fifo that gives up after 60 s,
# and iotrace killed if it did), so a failure leaves nothing behind.
test_expect_success PTRACE,PIDNS 'unshare --pid: no one outside traced, killed' '
	rm -f ready go && mkfifo go &&
	sleep 300 &
	sib=$!
	"$IOTRACE" -o t -- unshare --pid --fork sh -c ": >ready; read x <go" &
	ipid=$!
	wait_for "test -e ready" || ps -eo pid,ppid,stat,wchan:20,cmd
	parent=$(sed -n "s/^PPid:[[:space:]]*//p" /proc/$ipid/status)
	tpid=$(pgrep -P $ipid)
	{
		echo "children of iotrace: $(echo $tpid | wc -w)"
		echo "parent $(tracer_of $parent)"
		echo "sibling $(tracer_of $sib)"
		echo "init $(tracer_of 1)"
		test "$(tracer_of $tpid)" = $ipid && echo "command iotrace"
	} >tracers
	timeout 60 sh -c "echo >go" || kill -KILL $ipid
	wait $ipid
	rc=$?
	kill -0 $sib && echo "sibling runs, tracer $(tracer_of $sib)" >>tracers
	kill $sib
	echo "iotrace exit $rc" >>tracers
	test $rc = 0 || cat t
	echo "children of iotrace: 1" >expect &&
	printf "parent 0\nsibling 0\ninit 0\ncommand iotrace\n" >>expect &&
	printf "sibling runs, tracer 0\niotrace exit 0\n" >>expect &&
	test_cmp expect tracers
'

# gdb cannot trace its inferior under a tracer (strace's run says the
# same): it says so and exits 1, it does not hang.  futex and munmap
# are left out: the threads' meetings and the arenas' trimming vary
# from run to run under strace alone.  So are wait4 and rt_sigsuspend:
# where gdb's waitpid(WNOHANG) finds its child not yet gone, it waits
# in sigsuspend for SIGCHLD and asks again (wait4 5 2 and rt_sigsuspend
# 1 1 against 4 2 and none, in 1 of 5 runs of this script here and
# none of 12 of gdb under strace: timing, not a call made or lost).
test_expect_success PTRACE,STRACE,GDB 'gdb -batch -ex run: as under strace' '
	unsteady="futex|munmap|wait4|rt_sigsuspend" untouched strace \
		gdb -q -batch -ex run --args /bin/true &&
	grep -q "ptrace: Operation not permitted" got &&
	tail -1 got >status && echo "exit 1" >expect && test_cmp expect status
'

test_expect_success PTRACE,STRACE 'PTRACE_TRACEME: EPERM as under strace' '
	"$HELPERS/traceme" child >untraced &&
	printf "traceme=0\nstopped SIGTRAP\nexited 0\n" >expect &&
	test_cmp expect untraced &&
	untouched strace "$HELPERS/traceme" child &&
	printf "traceme=EPERM\nexited 0\nexit 0\n" >expect &&
	test_cmp expect got
'

# Had its PTRACE_TRACEME worked, the shell would be its tracer and see
# it stopped by its SIGUSR1.
test_expect_success PTRACE,STRACE 'PTRACE_TRACEME under sh -c: no stop seen' '
	cmd="\"$HELPERS/traceme\" self; echo \"status \$?\"" &&
	untouched strace sh -c "$cmd" &&
	printf "traceme=EPERM usr1=1\nstatus 0\nexit 0\n" >expect &&
	test_cmp expect got
'

test_expect_success PTRACE,STRACE 'waits with all but SIGUSR1 blocked' '
	for how in sigsuspend ppoll pselect; do
		untouched untraced "$HELPERS/sigwait" $how &&
		printf "%s: usr1=1\nexit 0\n" $how >expect &&
		test_cmp expect got || return 1
	done
'

test_expect_success PTRACE,STRACE,M32 'i386: waits with all but SIGUSR1 blocked' '
	for how in sigsuspend ppoll pselect; do
		untouched untraced "$HELPERS32/sigwait" $how &&
		printf "%s: usr1=1\nexit 0\n" $how >expect &&
		test_cmp expect got || return 1
	done
'

test_expect_success PTRACE,STRACE 'a handler on an 8 KiB sigaltstack' '
	untouched untraced "$HELPERS/sigwait" altstack 100 &&
	printf "altstack=100 onstack=100\nexit 0\n" >expect &&
	test_cmp expect got &&
	table_counts t | grep -q "^rt_sigreturn 100 0$"
'

test_expect_success PTRACE,STRACE 'a thread on a 16 KiB stack' '
	untouched untraced "$HELPERS/sigwait" thread 100 &&
	printf "thread=100\nexit 0\n" >expect &&
	test_cmp expect got &&
	grep -q "^getpid 100 0$" t.counts
'

test_expect_success PTRACE,STRACE 'rt_sig* with a bad pointer: EFAULT' '
	untouched untraced "$HELPERS/sigwait" badptr &&
	{
		printf "rt_sigprocmask(set)=EFAULT"
		printf " rt_sigprocmask(oldset)=EFAULT"
		printf " rt_sigaction(act)=EFAULT rt_sigaction(oldact)=EFAULT\n"
		echo "exit 0"
	} >expect &&
	test_cmp expect got
'

test_done
