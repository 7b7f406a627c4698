#!/bin/sh
# SPDX-License-Identifier: MIT
# The traced command sees exactly what it sees without iotrace: its
# argv, environment, working directory, CPU affinity, resource limits, open
# descriptors, signal dispositions and mask, umask; its output is
# byte-identical.  And iotrace's memory does not grow with the number of
# syscalls.
. "$(dirname "$0")/lib.sh"

# same_as_untraced CMD...: CMD's stdout, traced and untraced, is equal.
same_as_untraced() {
	"$@" >want 2>&1 &&
	"$IOTRACE" -o t -- "$@" >got 2>&1 &&
	test_cmp want got
}

sigstate() {
	grep -E "^Sig(Ign|Blk|Cgt):" /proc/self/status
}

# argv as typed, argv[0] too: execvp's PATH search runs the file found
# with the words given (before, argv[0] was the resolved path: sh said
# /usr/bin/sh, dd's messages /usr/bin/dd).
test_expect_success PTRACE 'argv is as typed, argv[0] too' '
	same_as_untraced sh -c "echo \$0" &&
	echo sh >want && test_cmp want got &&
	{ dd if=/nonexistent 2>want; test $? = 1; } &&
	{ "$IOTRACE" -o t -- dd if=/nonexistent 2>got; test $? = 1; } &&
	test_cmp want got && grep -q "^dd: " got &&
	same_as_untraced cat /proc/self/cmdline &&
	printf "cat\\0/proc/self/cmdline\\0" >want &&
	test_cmp want got
'

# A file the kernel will not run (no #!) is run by /bin/sh as execvp
# runs it: /bin/sh PATH ARGS...
test_expect_success PTRACE 'a script without #! is run as execvp runs it' '
	mkdir -p bin && printf "echo \"\$0\" \"\$@\"\n" >bin/noshebang &&
	chmod +x bin/noshebang &&
	env PATH="$PWD/bin:$PATH" noshebang a "b c" >want &&
	PATH="$PWD/bin:$PATH" "$IOTRACE" -o t -- noshebang a "b c" >got &&
	test_cmp want got &&
	echo "$PWD/bin/noshebang a b c" >expect &&
	test_cmp expect got
'

test_expect_success PTRACE 'environment is identical' '
	same_as_untraced env &&
	IOTRACE_TEST_VAR="a b
c" same_as_untraced env &&
	grep -q "^IOTRACE_TEST_VAR=a b$" got
'

test_expect_success PTRACE 'empty environment stays empty' '
	env -i "$IOTRACE" -o t -- /usr/bin/env >got &&
	! test -s got
'

test_expect_success PTRACE 'working directory is identical' '
	mkdir -p "sub dir/x" && cd "sub dir/x" &&
	same_as_untraced /bin/pwd -P &&
	same_as_untraced /bin/pwd -L
'

test_expect_success PTRACE 'CPU affinity is identical' '
	command -v taskset >/dev/null || exit 0
	taskset -c 0 grep Cpus_allowed_list /proc/self/status >want &&
	taskset -c 0 "$IOTRACE" -o t -- \
		grep Cpus_allowed_list /proc/self/status >got &&
	test_cmp want got &&
	grep -q "	0$" got
'

# With --no-follow iotrace is told of no fork or thread, yet pinning must
# end with the first one: children and threads see every CPU.
test_expect_success PTRACE '--no-follow: children and threads keep the CPU mask' '
	sh -c "nproc; grep Cpus_allowed_list /proc/self/status; :" >want &&
	"$IOTRACE" --no-follow -o t -- \
		sh -c "nproc; grep Cpus_allowed_list /proc/self/status; :" >got &&
	test_cmp want got &&
	"$HELPERS/affinity" threads >want &&
	"$IOTRACE" --no-follow -o t -- "$HELPERS/affinity" threads >got &&
	test_cmp want got
'

test_expect_success PTRACE 'resource limits are identical' '
	sh -c "ulimit -n 77; ulimit -s 4096; ulimit -a" >want &&
	sh -c "ulimit -n 77; ulimit -s 4096;
		\"\$IOTRACE\" -o t -- sh -c \"ulimit -a\"" >got &&
	test_cmp want got &&
	grep -q "77$" got
'

test_expect_success PTRACE 'nice value and umask are identical' '
	( umask 027; nice -n 5 sh -c "umask; nice" ) >want &&
	( umask 027; nice -n 5 "$IOTRACE" -o t -- sh -c "umask; nice" ) >got &&
	test_cmp want got
'

# Both runs write to the same file name, so the listings can be equal.
test_expect_success PTRACE 'open descriptors are identical' '
	"$HELPERS/fdlist" >o 2>&1 && mv o want &&
	"$IOTRACE" -o t -- "$HELPERS/fdlist" >o 2>&1 && mv o got &&
	test_cmp want got
'

test_expect_success PTRACE 'extra inherited descriptors are kept, -o is not' '
	exec 7>seven 9<seven &&
	"$HELPERS/fdlist" >o && mv o want &&
	"$IOTRACE" -o t -- "$HELPERS/fdlist" >o && mv o got &&
	test_cmp want got &&
	grep -q "^7 .*/seven " got && grep -q "^9 .*/seven " got &&
	! grep -q "/t\." got	# the -o temporary file
'

# iotrace's own files never take descriptors 0-2 (the table went into
# the --save JSON), and what was closed stays closed for the command.
test_expect_success PTRACE 'stdin and stderr closed: closed in the command too' '
	"$HELPERS/fdlist" >o <&- 2>&- && mv o want &&
	"$IOTRACE" --save s.json -- "$HELPERS/fdlist" >o <&- 2>&- &&
	mv o got && test_cmp want got
'

test_expect_success PTRACE 'stderr closed: --save is valid JSON, exit 0' '
	"$IOTRACE" --save x.json -- true 2>&- &&
	"$IOTRACE" report x.json >table && grep -q " total$" table &&
	"$IOTRACE" -- true 2>&- >&- <&-
'

# The signal state a command sees: WRAPPER... (sigdfl and its options,
# or nothing) starts iotrace --engine=ENGINE, which runs grep.  These
# tests pin the ptrace engine, under which it is the untraced state.
sigs_under() {
	engine=$1
	shift
	"$@" "$IOTRACE" --engine=$engine -o t -- \
		grep -E "^Sig(Ign|Blk|Cgt):" /proc/self/status
}

test_expect_success PTRACE 'signal dispositions and mask are identical' '
	sigstate >want &&
	sigs_under ptrace >got && test_cmp want got
'

test_expect_success PTRACE 'defaults everywhere: identical' '
	"$HELPERS/sigdfl" grep -E "^Sig(Ign|Blk|Cgt):" /proc/self/status \
		>want &&
	sigs_under ptrace "$HELPERS/sigdfl" >got &&
	test_cmp want got &&
	grep -q "^SigIgn:	0*$" got
'

# SIGINT ignored (nohup, a background job): iotrace must not let its own
# handling of SIGINT leak into the command.
for ign in INT TERM HUP QUIT PIPE; do
	test_expect_success PTRACE "SIG$ign ignored: still ignored in command" "
		\"\$HELPERS/sigdfl\" -i $ign grep -E '^Sig(Ign|Blk|Cgt):' \
			/proc/self/status >want &&
		sigs_under ptrace \"\$HELPERS/sigdfl\" -i $ign >got &&
		test_cmp want got &&
		! grep -q '^SigIgn:	0*\$' got
	"
done

# glibc's reserved signals (32, 33) ignored, as make leaves them: the
# first thread iotrace starts makes glibc catch 33, which the exec would
# then reset to default (before, the command saw 33 not ignored).
test_expect_success PTRACE 'reserved signals 32 and 33 ignored: still ignored' '
	"$HELPERS/sigdfl" -i 32 -i 33 grep -E "^Sig(Ign|Blk|Cgt):" \
		/proc/self/status >want &&
	grep -q "^SigIgn:	0*180000000$" want &&
	sigs_under ptrace "$HELPERS/sigdfl" -i 32 -i 33 >got &&
	test_cmp want got &&
	"$HELPERS/sigdfl" -i 32 -i 33 "$IOTRACE" -o t -- \
		grep -E "^Sig(Ign|Blk|Cgt):" /proc/self/status >got &&
	test_cmp want got
'

# The untraced runs of --baseline get the same state as the traced one.
test_expect_success PTRACE '--baseline: the untraced runs keep ignored signals' '
	"$HELPERS/sigdfl" -i 33 -i INT grep "^SigIgn:" /proc/self/status \
		>want &&
	"$HELPERS/sigdfl" -i 33 -i INT "$IOTRACE" --baseline=1 -o t -- \
		sh -c "grep ^SigIgn: /proc/self/status >>runs" &&
	test $(wc -l <runs) = 2 &&
	sort -u runs >got && test_cmp want got
'

test_expect_success PTRACE 'blocked signals stay blocked in the command' '
	"$HELPERS/sigdfl" -b USR1 -b INT -b TERM -b HUP \
		grep -E "^Sig(Ign|Blk|Cgt):" /proc/self/status >want &&
	sigs_under ptrace "$HELPERS/sigdfl" -b USR1 -b INT -b TERM -b HUP \
		>got &&
	test_cmp want got &&
	grep -q "^SigBlk:	0*4203$" got
'

test_expect_success PTRACE 'stdout is byte-identical (gzip, tar, dd)' '
	seq 1 20000 >in &&
	gzip -c in >want.gz && "$IOTRACE" -o t -- gzip -c in >got.gz &&
	cmp want.gz got.gz &&
	tar cf - in | md5sum >want && "$IOTRACE" -o t -- tar cf - in |
		md5sum >got && test_cmp want got &&
	dd if=in bs=333 2>/dev/null >want &&
	"$IOTRACE" -o t -- dd if=in bs=333 2>/dev/null >got &&
	cmp want got
'

test_expect_success PTRACE 'files written are byte-identical' '
	seq 1 20000 >in &&
	cp in want && "$IOTRACE" -o t -- cp in got && cmp want got &&
	sort -r in >want && "$IOTRACE" -o t -- sort -r -o got in &&
	cmp want got
'

test_expect_success PTRACE 'stdin passes through' '
	seq 1 1000 >in &&
	"$IOTRACE" -o t -- wc -l <in >got && echo 1000 >want &&
	test_cmp want got
'

# Max RSS of iotrace itself (GNU time reports the waited-for process),
# 10k against 1M syscalls: any per-syscall storage, even 8 bytes a call,
# grows the second run by megabytes; the bound allows 2 MiB of noise.
# The 1M run takes about 15 s (two ptrace stops a syscall); no time is
# asserted.
rss_prereq=PTRACE
test -x /usr/bin/time || rss_prereq=PTRACE,GNU_TIME
test_expect_success $rss_prereq 'memory does not grow with syscalls' '
	long=1000000
	/usr/bin/time -f %M -o small "$IOTRACE" -o t1 -- \
		"$HELPERS/spin" 10000 &&
	/usr/bin/time -f %M -o big "$IOTRACE" -o t2 -- \
		"$HELPERS/spin" $long &&
	table_counts t1 | grep -q "^getppid 10000 0$" &&
	table_counts t2 | grep -q "^getppid $long 0$" &&
	small=$(tail -1 small) && big=$(tail -1 big) &&
	echo "max RSS: 10000 syscalls $small KiB, $long syscalls $big KiB" &&
	test "$big" -le $((small + 2048))
'

test_done
