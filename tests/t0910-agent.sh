#!/bin/sh
# SPDX-License-Identifier: MIT
# The agent engine (--engine=agent): counts per syscall identical to the
# ptrace engine's and to strace -f -c's, with the agent really counting
# (the header says how many); processes it cannot enter fall back to
# ptrace with the reason in the header, exact counts, and unchanged
# behaviour; the program sees no LD_PRELOAD, no extra fd, its own SIGSYS.
. "$(dirname "$0")/lib.sh"

if ! "$IOTRACE" --engine=agent -o /dev/null -- true >/dev/null 2>&1; then
	echo "1..0 # SKIP the agent engine cannot run here"
	exit 0
fi

# The comparable table of FILE.  The agent cannot time rt_sigreturn (it
# never returns to it): it counts it as taking no time, without the
# errors ptrace counts when the call restores an -EINTR: calls only.
counts() {
	table_counts "$1" | sed 's/^rt_sigreturn \([0-9]*\) .*/rt_sigreturn \1/'
}

# How many calls the agent counted, from the header.
agent_calls() {
	sed -n 's/^iotrace: the agent counted \([0-9]*\) calls.*/\1/p' "$1"
}

# Runs a command line under both engines (and strace with STRACE):
# the tables must agree and the agent must have counted at least MIN.
agrees() {
	min=$1
	shift
	"$IOTRACE" --engine=ptrace -o ptrace.txt "$@" >ptrace.out 2>&1
	"$IOTRACE" --engine=agent -o agent.txt "$@" >agent.out 2>&1
	grep -q "engine agent" agent.txt &&
	test "$(agent_calls agent.txt)" -ge "$min" &&
	counts ptrace.txt >p &&
	counts agent.txt >a &&
	test -s a &&
	test_cmp p a
}

# engines CMD...: CMD traced by each engine, the tables in ptrace.txt and
# agent.txt, its stdout in ptrace.out and agent.out.
engines() {
	"$IOTRACE" --engine=ptrace -o ptrace.txt -- "$@" >ptrace.out &&
	"$IOTRACE" --engine=agent -o agent.txt -- "$@" >agent.out
}

# The same against strace -f -c (the command after --).
agrees_strace() {
	shift
	strace -f -c -o strace.txt "$@" >strace.out 2>&1 &&
	counts strace.txt >s &&
	test_cmp s a
}

test_expect_success PTRACE 'dd: agent, ptrace and strace count the same' '
	agrees 6000 -- dd if=/dev/zero of=out bs=512 count=3000
'

# What tracing added is mostly the agent's dispatch, not ptrace's stops,
# and ptrace's stop overhead is said to be that of its own calls.
test_expect_success PTRACE 'the header says what the agent dispatched' '
	grep -q "^iotrace: untraced, .*tracing added ~.* ([0-9,]* stops, [0-9,]* calls dispatched to the agent)" agent.txt &&
	grep -q "stop overhead subtracted from the calls ptrace timed" agent.txt &&
	! grep -q "dispatched" ptrace.txt
'

# What dispatch adds is subtracted per call: getppid's calibrated
# correction from openat and close, the larger one of calls moving data
# (calibrated on 1-byte writes) from read and write.  A row none of whose
# calls was faster than its correction (min_ns > 0: 64 KiB reads and
# writes, as a rule) had it subtracted whole from each call; a row with
# one that was (it reads 0; a calibration on a busy machine) is not
# checked, but one row of each kind must be.
test_expect_success PTRACE 'calls moving data have a correction of their own' '
	"$IOTRACE" --engine=agent --format=json -o d.json -- dd if=/dev/zero \
		of=out bs=64K count=50 2>/dev/null &&
	corr=$(sed -n "s/.*\"agent_correction_ns\": \([0-9]*\).*/\1/p" d.json) &&
	io=$(sed -n "s/.*\"agent_correction_io_ns\": \([0-9]*\).*/\1/p" d.json) &&
	test "$io" -ge "$corr" &&
	"$IOTRACE" report --format=csv d.json >d.csv &&
	awk -F, -v c="$corr" -v io="$io" "
		\$6 == \"write\" || \$6 == \"read\" { w = \$12 * io; k = \"data\" }
		\$6 == \"openat\" || \$6 == \"close\" { w = \$12 * c; k = \"other\" }
		w && \$15 > 0 { n[k]++; if (\$14 - \$13 != w) bad++ }
		{ w = 0 } END { exit !(n[\"data\"] && n[\"other\"] && !bad) }" d.csv ||
	{ echo "corrections $corr, $io ns"; cut -d, -f6,12-15 d.csv; false; }
'

test_expect_success STRACE 'dd: ... and strace -f -c' '
	agrees_strace -- dd if=/dev/zero of=out bs=512 count=3000
'

test_expect_success PTRACE 'sh with children: the same, every process armed' '
	agrees 20 -- sh -c "for i in 1 2 3; do cat /etc/hostname; done >/dev/null" &&
	grep -q "^iotrace: the agent counted [0-9]* calls in 4 processes" agent.txt &&
	! grep -q "measured by ptrace alone" agent.txt
'

test_expect_success STRACE 'sh with children: ... and strace -f -c' '
	agrees_strace -- sh -c "for i in 1 2 3; do cat /etc/hostname; done >/dev/null"
'

# futex calls depend on how the threads meet: left out.
test_expect_success PTRACE 'threads: 400 writes from 4 threads, all the agent s' '
	agrees 400 -- "$HELPERS/threads" 4 100 ||
	{ grep -v ^futex p >p2 && grep -v ^futex a >a2 && test_cmp p2 a2; } &&
	grep -q "^write 400 0$" a
'

test_expect_success PTRACE 'tar: the same' '
	mkdir -p tree/sub && echo a >tree/a && echo b >tree/sub/b &&
	agrees 10 -- tar cf t.tar tree
'

test_expect_success PTRACE '-e trace=write: write only, 324 calls' '
	agrees 300 -e trace=write -- dd if=/dev/zero of=out bs=100 count=321 &&
	echo "write 324 0" >expect &&
	test_cmp expect a
'

# dash's vfork child first clears its mask: armed late (see "a child met
# before..." below), it left SIGSYS blocked for its new program, which
# then fell back to ptrace, or was killed by SIGSYS.
test_expect_success PTRACE 'execve chain sh -c "sh -c ...": the same' '
	agrees 10 -- sh -c "sh -c \"sh -c true; echo x\"; echo y" &&
	! grep -q "ptrace alone" agent.txt
'

# The header's processes and tasks, each once, as strace -f sees them: a
# process that execs stays one process (its pid); one seized again to
# exec, its agent arming it again in the new program, is not counted
# again (the chain above said 5 processes, 300 background sleeps 557).
# A thread that execs takes its leader's pid: one process, two tasks.
header_counts() {
	sed -n "s/^iotrace: the agent counted [0-9]* calls in \([0-9]*\) process\(es\)\{0,1\} (\([0-9]*\) tasks\{0,1\}).*/\1 \3/p" "$1"
}

# The commands, one a line, for both tests below.
cat >counted.sh <<\EOF
sh -c "sh -c \"sh -c true; echo x\"; echo y" >/dev/null
sh -c "true & true & wait"
sh -c "for i in 1 2 3; do cat /etc/hostname; done >/dev/null"
sh -c "for i in \$(seq 30); do sleep 0 & done; wait"
"$HELPERS/threads" 4 10
"$HELPERS/threxec" /bin/true
EOF

test_expect_success PTRACE 'the header counts each process and task once' '
	n=0 &&
	while read -r cmd; do
		n=$((n + 1)) &&
		eval "\"\$IOTRACE\" --engine=agent -o h$n.txt -- $cmd" &&
		header_counts h$n.txt || exit 1
	done <counted.sh >actual &&
	printf "3 3\n3 3\n4 4\n32 32\n1 5\n1 2\n" >expect &&
	test_cmp expect actual
'

# strace -f names each task (its pid is a tid): as many as the header's
# tasks; as many as its processes where the command makes no thread.
test_expect_success STRACE '... as many as strace -f sees' '
	n=0 &&
	while read -r cmd; do
		n=$((n + 1)) &&
		eval "strace -f -o s$n.txt -- $cmd" &&
		tasks=$(cut -d" " -f1 s$n.txt | sort -u | wc -l) &&
		case $cmd in
		*threads*|*threxec*) echo "$tasks" ;;
		*) echo "$tasks $tasks" ;;
		esac || exit 1
	done <counted.sh >strace &&
	sed "5s/^1 //;6s/^1 //" actual >mine &&
	test_cmp strace mine
'

test_expect_success PTRACE 'a background process outliving the first: counted' '
	agrees 10 -- sh -c "(sleep 0.2; echo late >&2) & echo now" &&
	grep -q "^clock_nanosleep 1 0$" a
'

# iotrace waits for the processes it detached through a pidfd each, up
# to 256 at once; past them, an armed task stays traced (before, it was
# detached all the same, and the calls it made after the last waited-for
# process were lost: 255 clock_nanosleep of 300).
test_expect_success PTRACE 'more detached processes than iotrace waits for: counted' '
	cat >many.sh <<-\EOF &&
	i=0
	while [ $i -lt 300 ]; do
		if [ $i -lt 255 ]; then sleep 1 & else sleep 2 & fi
		i=$((i + 1))
	done
	EOF
	"$IOTRACE" --engine=agent -o many.txt -- sh many.sh &&
	counts many.txt >a &&
	grep -q "^clock_nanosleep 300 0$" a &&
	! grep -q "could not be traced" many.txt
'

# Past 256 processes in a run, each still runs detached: the slots of
# those that have exited are taken back once all are taken (before, the
# first process kept the loop from freeing them while it lived: from the
# 257th on, each process stayed traced, a stop per call, and 300 /bin/true
# made 6,438 stops, 16 each up to the 256th and 51 after).  Each process
# makes as many stops as the last: 100 more, as many more.
run_stops() {
	sed -n 's/.*(\([0-9,]*\) stops, .*/\1/p' "$1" | tr -d ,
}

test_expect_success PTRACE 'past 256 processes in a run, each runs detached' '
	for n in 100 200 300; do
		"$IOTRACE" --engine=agent -o seq$n.txt -- \
			sh -c "for i in \$(seq $n); do /bin/true; done" || exit 1
	done &&
	a=$(run_stops seq100.txt) && b=$(run_stops seq200.txt) &&
	c=$(run_stops seq300.txt) &&
	test -n "$a" && test $((c - b)) = $((b - a))
'

# An armed program whose request to be traced again is not answered yet
# (here iotrace is stopped for over a second) waits for it, as a program
# under a stopped strace does, and its execve and the program it starts
# are counted (before, it went on after a second, untraced and lost).
# Files, not time, say when each step is done.
test_expect_success PTRACE 'iotrace stopped over a second: nothing is lost' '
	rm -f go ready started && mkfifo go &&
	"$IOTRACE" --engine=agent -o u.txt -- \
		sh -c ">ready; read x <go; exec /bin/sh -c \">started\"" &
	ipid=$! &&
	n=0 && while [ ! -e ready ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done &&
	kill -STOP $ipid &&
	echo >go &&
	sleep 1.5 &&
	kill -CONT $ipid &&
	wait $ipid &&
	test -e started &&
	! grep -q "could not be traced again" u.txt &&
	counts u.txt >c && grep -q "^execve 2 0$" c
'

# A command that makes a pid namespace of its own: its pid 1 is no pid of
# iotrace's. Run here in a namespace of the test's own, where pid 1 is the
# test's shell (outside the command's tree): iotrace never seizes it (a
# sampler reads its TracerPid throughout), finishes, and counts the
# namespace's calls as the ptrace engine does (its tasks stay traced, and
# their agents never signal iotrace's pid, which in there may be another
# process's: one was killed by iotrace's SIGRTMIN+5). Before, the
# namespace's requests named pid 1, which iotrace seized.
test_expect_success PTRACE,PIDNS 'a pid namespace in the command: no outside pid seized' '
	cat >ns.sh <<-\EOF &&
	"$IOTRACE" --engine=$1 -o ns-$1.txt -- unshare --pid --fork \
		sh -c "for i in 1 2 3 4 5; do /bin/true; done" 2>err-$1 &
	ipid=$!
	while kill -0 $ipid 2>/dev/null; do
		grep -q "^TracerPid:	0$" /proc/1/status || echo seized >>seized
	done
	wait $ipid
	EOF
	rm -f seized &&
	timeout -s KILL 60 unshare --pid --fork --kill-child --mount-proc \
		sh ns.sh agent &&
	! test -e seized &&
	timeout -s KILL 60 unshare --pid --fork --kill-child --mount-proc \
		sh ns.sh ptrace &&
	test_cmp err-ptrace err-agent &&
	counts ns-agent.txt | grep -E "^(execve|clone|wait4|exit_group) " >a &&
	counts ns-ptrace.txt | grep -E "^(execve|clone|wait4|exit_group) " >p &&
	test_cmp p a
'

# A process that gives up root (runuser: setgroups, setgid, setuid, then
# an exec) could no longer signal a root iotrace: its agent hands it back
# to ptrace before the first of those calls, and nothing is lost (before:
# each of its requests waited a second, and its calls after went
# uncounted: 635 of 791 counted).
test_expect_success PTRACE,ROOT 'a process that drops root stays traced, its calls counted' '
	command -v runuser >/dev/null || exit 0
	timeout 60 "$IOTRACE" --engine=agent -o ru-a.txt -- runuser -u nobody -- \
		sh -c "for i in 1 2 3; do /bin/true; done; cat /dev/null" &&
	timeout 60 "$IOTRACE" --engine=ptrace -o ru-p.txt -- runuser -u nobody -- \
		sh -c "for i in 1 2 3; do /bin/true; done; cat /dev/null" &&
	! grep -q "could not be traced again" ru-a.txt &&
	counts ru-a.txt | grep -E "^(execve|clone|setuid|setgid|exit_group) " >a &&
	counts ru-p.txt | grep -E "^(execve|clone|setuid|setgid|exit_group) " >p &&
	test_cmp p a
'

# 200 processes forking 10 children each, at once: more requests to be
# traced again than slots (64). Each asker claims a slot of its own and
# waits for one to free (before, a 65th overwrote one in use: 0-136 tasks
# lost a run). Successful forks, execs and the children's getppid as the
# ptrace engine counts them (a fork interrupted by SIGCHLD is restarted:
# how many were is the run's).
test_expect_success PTRACE 'more requests at once than slots: none lost' '
	for e in agent ptrace; do
		timeout 120 "$IOTRACE" --engine=$e -o fk-$e.txt -- sh -c \
			"for i in \$(seq 200); do \"$HELPERS/forker\" 10 & done; wait" ||
			exit 1
		counts fk-$e.txt | awk "\$1 == \"clone\" { print \$1, \$2 - \$3 }
			\$1 == \"execve\" || \$1 == \"getppid\" { print \$1, \$2 }" >fk-$e
	done &&
	! grep -q "could not be traced again" fk-agent.txt &&
	grep -q "^getppid 2001$" fk-ptrace &&
	test_cmp fk-ptrace fk-agent
'

test_expect_success PTRACE 'SIGTERM kills processes running detached too' '
	"$IOTRACE" --engine=agent -o t.txt -- sh -c "sleep 30 & echo \$! >bg.pid; sleep 31" &
	ipid=$! &&
	n=0 && while [ ! -s bg.pid ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done &&
	sleep 0.2 &&
	kill -TERM $ipid &&
	{ wait $ipid; test $? = 143; } &&
	n=0 && while kill -0 "$(cat bg.pid)" 2>/dev/null && [ $n -lt 40 ]; do sleep 0.05; n=$((n + 1)); done &&
	! kill -0 "$(cat bg.pid)" 2>/dev/null
'

test_expect_success PTRACE 'signals: handlers with a full sa_mask, rt_sigreturn' '
	agrees 5 -- "$HELPERS/sigsys" signals 5 &&
	echo signals=5 >expect &&
	test_cmp expect agent.out &&
	grep -q "^rt_sigreturn 5$" a
'

# Signals land anywhere, also inside the agent's handler (its clock
# read): the program's handler runs there, and its calls, rt_sigreturn
# too, are counted and made as untraced.  And between a probe
# (agent/probe.c: a call sent back once to its syscall instruction) and
# the call again: the handler runs first, the call is made once.
test_expect_success PTRACE 'signals every 50 us, inside the handler too: exact' '
	"$IOTRACE" --engine=agent --format=json -o storm.json -- \
		"$HELPERS/sigsys" storm 20000 >storm.out &&
	grep -q "^storm=20000 signals=[1-9]" storm.out &&
	"$IOTRACE" report storm.json >storm.txt &&
	counts storm.txt >a &&
	grep -q "^getppid 20000 0$" a &&
	sigs=$(sed -n "s/^rt_sigreturn \([0-9]*\)$/\1/p" a) &&
	test "$sigs" -gt 0 &&
	grep -q "^write $((sigs + 1)) 0$" a &&
	grep -q "\"agent_probe_samples\": [1-9]" storm.json
'

# A task asks to be traced again before each fork; a signal stopping it
# between iotrace's seize and its marker let it go again, and the fork
# and everything after went uncounted (5 runs of 5 before).  Each clone a
# signal restarts is counted again, with an error: calls less errors.
test_expect_success PTRACE 'forks while signals come: every fork counted' '
	"$IOTRACE" --engine=agent -o forks.txt -- "$HELPERS/sigsys" forks 300 >forks.out &&
	echo forks=300 >expect &&
	test_cmp expect forks.out &&
	! grep -q "could not be traced" forks.txt &&
	table_counts forks.txt >a &&
	awk "\$1 == \"clone\" { print \$2 - \$3 }" a >made &&
	echo 300 >expect &&
	test_cmp expect made &&
	grep -q "^wait4 300 0$" a
'

# int $0x80 from a 64-bit program: issued as a native call it was another
# one (i386 getpid, 20, is writev: "int80=wrong" before).  The process
# goes back to ptrace, which counts it per personality, as strace does.
test_expect_success PTRACE 'i386 and x32 calls of a 64-bit program: ptrace' '
	"$HELPERS/int80" 5 >expect &&
	grep -q "^int80=ok$" expect &&
	agrees 0 -- "$HELPERS/int80" 5 &&
	test_cmp expect agent.out &&
	grep -q "^getpid/i386 5 0$" a &&
	grep -q "^getpid/x32 1 [01]$" a &&
	grep -q "measured by ptrace alone: pid [0-9]* (i386, x32 or unknown calls)" agent.txt
'

# A call counts once it returns, as ptrace and strace count it: not a
# pause() whose thread another thread's execve ends (counted before).
# What the dying threads make besides (futex, rt_sigprocmask) depends on
# how far they get before the execve: only pause and execve compared.
test_expect_success PTRACE 'a call that never returns is not counted' '
	"$IOTRACE" --engine=ptrace -o ptrace.txt -- "$HELPERS/threxec" "$HELPERS/forker" 3 \
		>/dev/null 2>&1 &&
	"$IOTRACE" --engine=agent -o agent.txt -- "$HELPERS/threxec" \
		"$HELPERS/forker" 3 >/dev/null 2>&1 &&
	test "$(agent_calls agent.txt)" -ge 10 &&
	counts ptrace.txt | grep -E "^(pause|execve) " >p &&
	counts agent.txt | grep -E "^(pause|execve) " >a &&
	test_cmp p a &&
	! grep -q "^pause" a
'

# The marker filter is a seccomp filter: PR_GET_SECCOMP read 2 and strict
# mode failed with EINVAL under the agent ("strict: Invalid argument",
# exit 3).  The agent hands such a process to ptrace, which answers as
# under its own filter (ownfilter.c).
test_expect_success PTRACE 'PR_GET_SECCOMP and strict mode: as untraced' '
	for how in prctl seccomp; do
		{ "$HELPERS/seccomp-strict" $how 2 >expect; echo "exit $?" >>expect; } &&
		agrees 0 -- "$HELPERS/seccomp-strict" $how 2 &&
		echo "exit 0" >>agent.out &&
		test_cmp expect agent.out &&
		grep -q "^PR_GET_SECCOMP: 0$" agent.out || return 1
	done
'

# Numbers outside the agent's table were issued uncounted; ptrace counts
# them as syscall_N (t0520), so the process goes back to it.
test_expect_success PTRACE 'calls of unknown numbers: ptrace, counted' '
	agrees 0 -- "$HELPERS/oddcalls" &&
	grep -q "^syscall_5000 1 1$" a &&
	grep -q "^syscall_-1 1 1$" a &&
	grep -q "measured by ptrace alone: pid [0-9]* (i386, x32 or unknown calls)" agent.txt
'

test_expect_success PTRACE 'EINTR: a read interrupted by a signal' '
	agrees 1 -- "$HELPERS/sigsys" eintr &&
	echo eintr=1 >expect &&
	test_cmp expect agent.out &&
	grep -q "^read [0-9]* 1$" a
'

test_expect_success PTRACE 'posix_spawn and vfork: the same, no fallback' '
	agrees 10 -- "$HELPERS/sigsys" spawn 3 &&
	! grep -q "measured by ptrace alone" agent.txt
'

test_expect_success PTRACE 'run bufwrite (a function target): the agent counts' '
	agrees 1000 run bufwrite buf=0 total=1000 &&
	grep -q "^write 1000 0$" a
'

# The agent is mapped in by iotrace, not by a dynamic loader: a static
# binary has it as any other program (before: ptrace alone, "static
# binary").
test_expect_success PTRACE 'static binary: the agent counts it, as ptrace does' '
	agrees 3 -- "$HELPERS/static-sigsys" block 3 &&
	! grep -q "measured by ptrace alone" agent.txt &&
	echo "blocked=1 pending=1" >expect &&
	test_cmp expect agent.out
'

test_expect_success PTRACE 'SIGSYS ignored at start: ptrace, as untraced' '
	"$HELPERS/sigdfl" -i SYS "$HELPERS/sigsys" env >expect &&
	agrees 0 -- "$HELPERS/sigdfl" -i SYS "$HELPERS/sigsys" env &&
	grep -q "pid [0-9]* (SIGSYS ignored at start)" agent.txt &&
	test_cmp expect agent.out
'

test_expect_success PTRACE 'SIGSYS blocked at start: ptrace, as untraced' '
	agrees 0 -- "$HELPERS/sigdfl" -b SYS "$HELPERS/sigsys" block 3 &&
	grep -q "pid [0-9]* (SIGSYS blocked at start)" agent.txt &&
	echo "blocked=1 pending=1" >expect &&
	test_cmp expect agent.out
'

# A program the agent falls back from as it boots (SIGSYS blocked or
# ignored at start) runs without it: iotrace takes the agent's mapping
# away again (its fallback marker becomes the munmap).
test_expect_success PTRACE 'fallen back at start: the agent is taken away again' '
	"$HELPERS/sigdfl" -b SYS "$HELPERS/anonmaps" >expect &&
	"$IOTRACE" --engine=agent -o fb.txt -- "$HELPERS/sigdfl" -b SYS \
		"$HELPERS/anonmaps" >actual &&
	test_cmp expect actual &&
	grep -q "pid [0-9]* (SIGSYS blocked at start)" fb.txt &&
	"$HELPERS/sigdfl" -i SYS "$HELPERS/anonmaps" >expect &&
	"$IOTRACE" --engine=agent -o fb.txt -- "$HELPERS/sigdfl" -i SYS \
		"$HELPERS/anonmaps" >actual &&
	test_cmp expect actual
'

test_expect_success PTRACE 'SIGSYS blocked by the program: it reads it blocked' '
	agrees 3 -- "$HELPERS/sigsys" block 3 &&
	echo "blocked=1 pending=1" >expect &&
	test_cmp expect agent.out &&
	! grep -q "measured by ptrace alone" agent.txt
'

# The agent keeps a blocked SIGSYS per thread in a table (it has no TLS):
# a fork child and a new thread find it blocked, and so does the program
# a fork child runs (iotrace copies the parent's entry to each new task),
# which then starts with SIGSYS blocked and so falls back to ptrace.
test_expect_success PTRACE 'SIGSYS blocked: forks, threads and execve inherit it' '
	"$HELPERS/sigsys" inherit 3 >expect &&
	test $(grep -c "^blocked=1$" expect) = 6 &&
	test $(grep -c "^exec blocked=1$" expect) = 3 &&
	engines "$HELPERS/sigsys" inherit 3 &&
	test_cmp expect agent.out &&
	# pthread_join waits in futex or not, as the thread is quick; the
	# arena of printf in the thread is trimmed by one munmap or two, as ASLR
	# placed it (strace -f: 5 in 1 run of 10, 6 in the others)
	counts ptrace.txt | grep -v "^futex \|^munmap " >p &&
	counts agent.txt | grep -v "^futex \|^munmap " >a &&
	test_cmp p a &&
	# the programs the children run start with SIGSYS blocked: ptrace
	grep -q "3 processes measured by ptrace alone" agent.txt &&
	test $(grep -o "(SIGSYS blocked at start)" agent.txt | wc -l) = 3
'

# A new task's first stop may reach iotrace before its parent's fork
# event (the child ran on the other CPU, and waitpid reports the newest
# tracee first): it waits in that stop for the event, and is then armed
# as its parent's, with the SIGSYS its parent blocked.  The helper forks
# from a second process (the first one's events are reported first) and
# by syscall(2), so that each child's first call reads its mask: armed
# after that, it read the real mask (in 10 runs of 10, some of the 20
# children did; and a child armed at its execve's stop had dispatch in
# its new program, and was killed by SIGSYS at its first call).
test_expect_success PTRACE 'a child met before its parent'"'"'s fork event: armed as its parent'"'"'s' '
	"$HELPERS/sigsys" rawfork 20 >expect &&
	test $(grep -c "^blocked=1$" expect) = 20 &&
	test $(grep -c "^exec blocked=1$" expect) = 20 &&
	engines "$HELPERS/sigsys" rawfork 20 &&
	test_cmp expect ptrace.out &&
	test_cmp expect agent.out &&
	counts ptrace.txt >p &&
	counts agent.txt >a &&
	test_cmp p a
'

test_expect_success PTRACE 'own SIGSYS handler: ptrace, the handler runs' '
	agrees 0 -- "$HELPERS/sigsys" handler 3 &&
	grep -q "pid [0-9]* (own SIGSYS handler)" agent.txt &&
	echo handled=1 >expect &&
	test_cmp expect agent.out
'

test_expect_success PTRACE 'own SIGSYS handler with a second thread: both to ptrace' '
	"$IOTRACE" --engine=agent -o agent.txt -- "$HELPERS/sigsys" thandler 20 >agent.out &&
	grep -q "pid [0-9]* (own SIGSYS handler)" agent.txt &&
	echo handled=1 >expect &&
	test_cmp expect agent.out &&
	counts agent.txt >a &&
	grep -q "^write 23 0$" a
'

test_expect_success PTRACE 'own seccomp filter: ptrace, counts the same' '
	agrees 0 -- "$HELPERS/seccomp-self" 50 &&
	grep -q "pid [0-9]* (own seccomp filter)" agent.txt &&
	grep -q "^write 50 0$" a
'

# A filter inherited across execve: the new program is ptrace's from its
# start (the agent is not mapped in: the filter could refuse the mapping,
# and its traps are SIGSYS too), and the process is named once.
test_expect_success PTRACE 'a seccomp filter inherited across execve: ptrace, named once' '
	agrees 0 -- "$HELPERS/seccomp-self" 5 "$HELPERS/sigsys" block 3 &&
	grep -q "^iotrace: 1 process measured by ptrace alone: pid [0-9]* (own seccomp filter)$" agent.txt &&
	echo "blocked=1 pending=1" >expect &&
	test_cmp expect agent.out &&
	grep -q "^write 9 0$" a
'

test_expect_success PTRACE 'the program sees no LD_PRELOAD, no extra fd, SIGSYS default' '
	"$HELPERS/sigsys" env >expect &&
	"$IOTRACE" --engine=agent -o agent.txt -- "$HELPERS/sigsys" env >actual &&
	grep -q "sigsys=dfl" actual &&
	test_cmp expect actual &&
	test "$(agent_calls agent.txt)" -gt 0
'

test_expect_success PTRACE 'a user LD_PRELOAD is kept, through an execve too' '
	lib=$(ldd "$HELPERS/sigsys" | sed -n "s/.*=> \(\/[^ ]*libc\.so[^ ]*\).*/\1/p") &&
	test -n "$lib" &&
	LD_PRELOAD=$lib "$HELPERS/sigsys" env >expect &&
	LD_PRELOAD=$lib "$IOTRACE" --engine=agent -o agent.txt -- sh -c "\"$HELPERS/sigsys\" env" >actual &&
	test_cmp expect actual
'

test_expect_success PTRACE 'a program reading /proc/self/maps runs as untraced' '
	"$IOTRACE" --engine=agent -o agent.txt -- sh -c "cat /proc/self/maps >/dev/null && echo ok" >actual &&
	echo ok >expect &&
	test_cmp expect actual
'

# Same-CPU placement stays invisible: the agent has the CPU mask calls
# run under ptrace.
test_expect_success PTRACE 'the CPU mask the program sees is its own' '
	"$HELPERS/affinity" threads >expect &&
	"$IOTRACE" --engine=agent -o agent.txt -- "$HELPERS/affinity" threads >actual &&
	test_cmp expect actual &&
	nproc >expect &&
	"$IOTRACE" --engine=agent -o agent.txt -- nproc >actual &&
	test_cmp expect actual
'

test_expect_success M32 'an i386 program: ptrace alone, no loader message' '
	agrees 0 -- sh -c "\"$HELPERS32/oddcalls\" >/dev/null" &&
	grep -q "pid [0-9]* (not an x86_64 program)" agent.txt &&
	! grep -q "ld.so" agent.out
'

test_expect_success ROOT 'a set-user-ID program: ptrace alone' '
	cp "$HELPERS/writeloop" suid && chown nobody suid && chmod 4755 suid &&
	agrees 0 -e trace=write -- ./suid /dev/null 55 1 &&
	grep -q "pid [0-9]* (set-user-ID or set-group-ID program)" agent.txt &&
	echo "write 55 0" >expect &&
	test_cmp expect a
'

test_expect_success PTRACE 'JSON: "engines" saved and loaded back' '
	"$IOTRACE" --engine=agent -o /dev/null --save run.json -- "$HELPERS/threads" 2 10 &&
	grep -q "\"agent_calls\"" run.json &&
	"$IOTRACE" report run.json >report.txt &&
	grep -q "^iotrace: the agent counted" report.txt &&
	grep -q "engine agent" report.txt
'

test_expect_success '--engine: bad values and -p are usage errors' '
	test_expect_code() { "$@"; test $? = 2; } &&
	test_expect_code "$IOTRACE" --engine=bogus -- true 2>err &&
	grep -q "expected ptrace, agent or auto" err &&
	test_expect_code "$IOTRACE" --engine=agent -p 1 2>err &&
	grep -q "agent is loaded only as a program starts" err
'

test_expect_success PTRACE '-k: the agent unwinds' '
	"$IOTRACE" --engine=agent -k --folded auto.folded -o auto.txt -- \
		dd if=/dev/zero of=/dev/null bs=512 count=300 2>/dev/null &&
	grep -q "^iotrace: engine agent" auto.txt &&
	grep -q "^Call sites (-k)" auto.txt &&
	grep -q ";dd+0x[0-9a-f]*;write;write 300$" auto.folded &&
	test "$(awk "/;write [0-9]*\$/ { s += \$NF } END { print s }" \
		auto.folded)" = 303
'

# A pipeline the agent timed: dispatch, its processes' own CPU time, is
# taken out in proportion to their parallelism, and the header says so
# (20,000 one-byte calls each way: dispatch is most of the wall).
test_expect_success PTRACE 'a tree: the estimate says what it assumes' '
	"$IOTRACE" --engine=agent -o tree.txt --save tree.json -- \
		sh -c "dd if=/dev/zero bs=1 count=20000 status=none | cat >/dev/null" &&
	grep "^iotrace: untraced, this run would take between .* (~.* if its processes ran as much side by side as traced)" tree.txt &&
	grep -q "\"many_tasks\": true" tree.json &&
	"$IOTRACE" report tree.json | grep -q "if its processes ran as much side by side"
'

# auto is the ptrace engine: the agent runs armed tasks detached from
# ptrace, which programs can notice (iotrace(1), LIMITATIONS).
test_expect_success PTRACE '--engine=auto is the ptrace engine, filtered' '
	"$IOTRACE" --engine=auto -o auto.txt -- true &&
	grep -q "^iotrace: engine seccomp-bpf" auto.txt &&
	! grep -q "agent" auto.txt
'

# auto is the default; -e trace= and --no-seccomp are ptrace's choices
# (its filter lets the other calls run untouched; stopping at all).
# Mapping the agent into a program takes a few stops (execve's exit, two
# calls of iotrace's, the boot's markers); the boot's own calls take none
# (they stopped twice each: 35 stops for true, now 12).
# Where process_vm_readv and _writev are refused (a container's seccomp
# profile), iotrace reaches the program's memory word by word with
# ptrace: the agent goes in, and a blocked SIGSYS is still inherited.
test_expect_success PTRACE 'process_vm_* refused: the agent goes in all the same' '
	LD_PRELOAD="$HELPERS/novm.so" "$IOTRACE" --engine=agent -o nv.txt -- \
		dd if=/dev/zero of=/dev/null bs=100 count=321 2>/dev/null &&
	! grep -q "measured by ptrace alone" nv.txt &&
	test "$(agent_calls nv.txt)" -gt 642 &&
	counts nv.txt >a &&
	grep -q "^write 324 0$" a &&
	"$HELPERS/sigsys" inherit 2 >expect &&
	LD_PRELOAD="$HELPERS/novm.so" "$IOTRACE" --engine=agent -o nv.txt -- \
		"$HELPERS/sigsys" inherit 2 >actual &&
	test_cmp expect actual
'

# Where iotrace cannot write the agent in (nor could mprotect make it
# executable), the program is ptrace's, and the memory mapped for the
# agent is taken away again: it has the anonymous memory it has untraced.
test_expect_success PTRACE 'the agent cannot be written in: ptrace, and nothing left behind' '
	LD_PRELOAD="$HELPERS/nopoke.so" "$HELPERS/anonmaps" >expect &&
	LD_PRELOAD="$HELPERS/nopoke.so" "$IOTRACE" --engine=agent -o np.txt -- \
		"$HELPERS/anonmaps" >actual &&
	test_cmp expect actual &&
	grep -q "measured by ptrace alone: pid [0-9]* (agent not loaded)" np.txt
'

test_expect_success PTRACE 'the agent goes in with a few stops' '
	"$IOTRACE" --engine=agent -o st.txt -- true &&
	n=$(sed -n "s/.*(\([0-9,]*\) stops, [0-9,]* calls dispatched to the agent).*/\1/p" st.txt) &&
	test -n "$n" && test "$n" -le 16
'

test_expect_success PTRACE 'the default is the ptrace engine, for commands and workloads' '
	"$IOTRACE" -o d.txt -- true &&
	grep -q "^iotrace: engine seccomp-bpf" d.txt &&
	"$IOTRACE" --no-seccomp -o n.txt -- true &&
	grep -q "^iotrace: engine ptrace" n.txt &&
	"$IOTRACE" -o run.txt run bufwrite buf=0 total=100 of=/dev/null &&
	grep -q "^iotrace: engine seccomp-bpf" run.txt &&
	"$IOTRACE" -k -o run.txt run bufwrite buf=0 total=100 of=/dev/null &&
	grep -q "^iotrace: engine seccomp-bpf" run.txt &&
	grep -q "^  100\.0%  *100 calls " run.txt &&
	mkdir -p sw &&
	"$IOTRACE" -o sweep.txt sweep --repeat 1 --save-dir sw bs=1k run dd \
		size=8k of=/dev/null &&
	grep -q "\"engine\": \"seccomp-bpf\"" sw/bs=1k.json &&
	"$IOTRACE" -o st.txt -- "$HELPERS/static-sigsys" block 3 >/dev/null &&
	grep -q "^iotrace: engine seccomp-bpf" st.txt &&
	! grep -q "agent" d.txt n.txt run.txt sweep.txt st.txt
'

test_expect_success PTRACE 'the agent, asked for: a static command is its' '
	"$IOTRACE" --engine=agent -o ag.txt -- "$HELPERS/static-sigsys" block 3 \
		>/dev/null &&
	grep -q "engine agent" ag.txt &&
	grep -q "agent counted" ag.txt
'

test_expect_success PTRACE,M32 '--engine=auto: an i386 command is ptrace'"'"'s, filtered' '
	"$IOTRACE" --engine=auto -o auto.txt -- "$HELPERS32/compat" 2 &&
	grep -q "engine seccomp-bpf" auto.txt
'

test_done
