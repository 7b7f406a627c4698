#!/bin/sh
# SPDX-License-Identifier: MIT
# The agent engine's per-file I/O: for the calls the agent counts, the
# same files, calls, bytes, short calls, errors and sizes as the ptrace
# engine finds (--format=csv-breakdown with the times cut), whatever
# happens to the fds: files opened by sh, threads, dup2, pipes, fds a
# posix_spawn or vfork child changes, -e trace= without the closes, a
# function target, a long path.  Past the agent's bounds, calls go to
# "(unattributed)" and the header says how many.  Saved and loaded back,
# and diffed against the ptrace run: nothing differs.
. "$(dirname "$0")/lib.sh"

if ! "$IOTRACE" --engine=agent -o /dev/null -- true >/dev/null 2>&1; then
	echo "1..0 # SKIP the agent engine cannot run here"
	exit 0
fi

# The per-file rows of a csv-breakdown without the two times (the 6th
# and 7th fields from the end: the keys before them may hold commas),
# pipes and sockets without their inode, sorted.
file_rows() {
	sed -e 's/,[0-9]*,[0-9]*\(,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*\)$/\1/' \
	    -e 's/\(pipe\|socket\):\[[0-9]*\]/\1:[N]/g' "$1" | sort
}

# Runs a command line under both engines, its output to out.txt both
# times: the per-file rows must agree, and the agent must have counted.
same_files() {
	"$IOTRACE" --engine=ptrace -o ptrace.csv --format=csv-breakdown "$@" >out.txt 2>&1 &&
	"$IOTRACE" --engine=agent -o agent.csv --format=csv-breakdown \
		--save agent.json "$@" >out.txt 2>&1 &&
	grep -q "\"agent_calls\": [1-9]" agent.json &&
	file_rows ptrace.csv >p &&
	file_rows agent.csv >a &&
	test_cmp p a
}

test_expect_success PTRACE 'dd of=FILE: the same rows, the writes on FILE' '
	same_files -- dd if=/dev/zero of=data bs=4k count=50 status=none &&
	grep -q "^file,write,\"$PWD/data (blksize [0-9]*.*)\",,50,0,0,50,204800,204800,0,4096,50$" a &&
	grep -q "^file,read,/dev/zero,,50,0,0,50,204800,204800,0,4096,50$" a
'

test_expect_success PTRACE 'the header no longer says there is no breakdown' '
	"$IOTRACE" --engine=agent -o agent.txt -- dd if=/dev/zero of=data bs=4k count=50 status=none &&
	grep -q "^iotrace: the agent counted" agent.txt &&
	! grep -q "no per-file breakdown" agent.txt &&
	! grep -q "could not be given a file" agent.txt &&
	grep -q "^write  *50  *204800 .* $PWD/data" agent.txt
'

test_expect_success PTRACE 'cat FILE >/dev/null: the same' '
	same_files -- sh -c "cat data >/dev/null" &&
	grep -q "^file,read,\"$PWD/data " a
'

test_expect_success PTRACE 'sh -c "exec 3>FILE": the same, through the dup' '
	same_files -- sh -c "exec 3>f3; echo a >&3; echo bb >&3; exec 3>&-; exec 3>>f3; echo c >&3; cat f3" &&
	grep -q "^file,write,\"$PWD/f3 (blksize.*)\",,2,0,0,2,5,5,0,3,1$" a &&
	grep -q "^file,write,\"$PWD/f3 (O_APPEND, blksize.*)\",,1," a
'

test_expect_success PTRACE 'two threads writing to two files at once' '
	same_files -- "$HELPERS/fdswap" threads A B 200 &&
	grep -q "^file,write,\"$PWD/A .*\",,200,0,0,200,20000,20000,0,100,200$" a &&
	grep -q "^file,write,\"$PWD/B .*\",,200,0,0,200,40000,40000,0,200,200$" a
'

test_expect_success PTRACE 'dup2 onto a used fd, then its number reused' '
	same_files -- "$HELPERS/fdswap" dup2 A B 30 &&
	grep -q "^file,write,\"$PWD/B .*\",,30,0,0,30,6000,6000,0,200,30$" a &&
	grep -q "^file,write,\"$PWD/A (O_APPEND, .*\",,30,0,0,30,9000,9000,0,300,30$" a
'

test_expect_success PTRACE 'sh redirections: 2>&1 and >>' '
	same_files -- sh -c "ls /nonexistent >log 2>&1; echo x >>log; cat log | wc -c"
'

test_expect_success PTRACE 'a pipe, then its fd numbers reused by files' '
	same_files -- "$HELPERS/fdswap" pipe A B 40 &&
	grep -q "^file,read,pipe:\[N\],,40,0,0,40,4000,4000,0,100,40$" a &&
	same_files -- sh -c "echo abc | cat | cat >/dev/null"
'

test_expect_success PTRACE 'posix_spawn file actions change no fd of the parent' '
	same_files -- "$HELPERS/fdswap" spawn A B 5 &&
	grep -q "^file,write,\"$PWD/A .*\",,5,0,0,5,500,500,0,100,5$" a
'

test_expect_success PTRACE 'a vfork child writing through its own dup2' '
	same_files -- "$HELPERS/fdswap" vfork A B 10 &&
	grep -q "^file,write,\"$PWD/A .*\",,10,0,0,10,1000,1000,0,100,10$" a &&
	grep -q "^file,write,\"$PWD/B .*\",,10,0,0,10,2000,2000,0,200,10$" a
'

test_expect_success PTRACE '-e trace=write: fds change through calls not counted' '
	same_files -e trace=write -- sh -c "exec 3>f3; echo a >&3; exec 3>&-; exec 3>f4; echo b >&3" &&
	grep -q "^file,write,\"$PWD/f4 " a
'

test_expect_success PTRACE 'run bufwrite (a function target): the same' '
	same_files run bufwrite buf=0 total=300 &&
	grep -q "^file,write,.*,,300,0,0,300,300,300,0,1,300$" a
'

test_expect_success PTRACE 'a long path: its end, as ptrace shows it' '
	d=$PWD/$(printf "%0200d" 0)/$(printf "%0100d" 1) &&
	mkdir -p "$d" &&
	same_files -- dd if=/dev/zero of="$d/long-file-name" bs=1k count=3 status=none &&
	grep -q "^file,write,\"\.\.\..*/long-file-name (blksize.*,,3," a
'

test_expect_success PTRACE 'an fd past the agent s map: described at each call' '
	same_files -- "$HELPERS/fdswap" high A B 20 &&
	grep -q "^file,write,\"$PWD/A .*\",,20,0,0,20,2000,2000,0,100,20$" a &&
	grep -q "^file,write,\"$PWD/B .*\",,20,0,0,20,4000,4000,0,200,20$" a
'

# Every read on a file row adds up to the read row: calls are the 11th
# field from the end of a csv-breakdown row, the 4th of a csv row.
test_expect_success PTRACE 'more files than the agent keeps: unattributed, counted' '
	mkdir many &&
	i=0 && while [ $i -lt 600 ]; do echo $i >many/f$i; i=$((i + 1)); done &&
	"$IOTRACE" --engine=agent -o many.txt --save many.json -- sh -c "cat many/* >/dev/null" &&
	grep -q "^iotrace: [1-9][0-9]* data calls the agent counted could not be given a file (its tables were full)" many.txt &&
	grep -q "^read  *[1-9][0-9]* .* (unattributed)$" many.txt &&
	"$IOTRACE" report --format=csv-breakdown many.json >many.csv &&
	awk -F, "/^file,read,/ { n += \$(NF - 10) } END { print n }" many.csv >sum &&
	"$IOTRACE" report --format=csv many.json >rows.csv &&
	awk -F, "\$6 == \"read\" { print \$4 }" rows.csv >expect &&
	test_cmp expect sum
'

test_expect_success PTRACE 'saved and loaded back: the same I/O table' '
	"$IOTRACE" --engine=agent -o run.txt --save run.json -- "$HELPERS/fdswap" threads A B 20 &&
	grep -q "\"agent_unattributed_calls\": 0" run.json &&
	"$IOTRACE" report run.json >again.txt &&
	sed -n "/^I\/O /,\$p" run.txt >expect &&
	sed -n "/^I\/O /,\$p" again.txt >actual &&
	test -s expect &&
	test_cmp expect actual
'

test_expect_success PTRACE 'diff against the ptrace run: no file differs' '
	"$IOTRACE" --engine=ptrace -o /dev/null --save p.json -- "$HELPERS/fdswap" dup2 A B 20 &&
	"$IOTRACE" --engine=agent -o /dev/null --save a.json -- "$HELPERS/fdswap" dup2 A B 20 &&
	"$IOTRACE" diff --format=json p.json a.json >d.json &&
	grep -q "\"breakdowns\": \[\]" d.json
'

test_expect_success PTRACE 'a run saved before: the old line, no breakdown' '
	grep -v "\"agent_unattributed_calls\"" run.json >old.json &&
	"$IOTRACE" report old.json >old.txt &&
	grep -q "^iotrace: calls the agent counted have no per-file breakdown" old.txt
'

test_done
