#!/bin/sh
# SPDX-License-Identifier: MIT
# Page cache against device (issue 22): 128 MiB written by dd to a file
# on a block device, without sync, gets the page-cache finding (most of
# it still dirty in memory at exit); with conv=fsync the sync-paid one
# (on the device at exit, the flush paid); with oflag=direct the
# device-writes one.  Decided by bytes (write_bytes at the tasks' exits,
# dirty memory before and after), never times, so in every run.  To a
# pipe or /dev/null none of them; a saved run says the same again; a
# run whose io could not be read, or an older file, says nothing.
. "$(dirname "$0")/lib.sh"

# This directory on a block device (major of st_dev not 0) that takes
# aligned O_DIRECT writes, and per-task io accounting readable here.
dev=$(stat -c %d .)
if test $(((dev >> 8) & 0xfff)) != 0 &&
   dd if=/dev/zero of=probe bs=4096 count=1 oflag=direct 2>/dev/null &&
   grep -q "^write_bytes:" /proc/$$/task/$$/io 2>/dev/null; then
	BLOCK=
else
	BLOCK=,BLOCK_IO
fi
rm -f probe

dd128="dd if=/dev/zero of=out bs=1M count=128 status=none"

# The findings of report $1, one per line.
findings() {
	sed -n "/^Findings:$/,\$p" "$1"
}

# Runs dd with $1 traced, from a clean start: no dirty data of ours.
traced_dd() {
	rm -f out && sync &&
	"$IOTRACE" -o t --save t.json -- $dd128 $1 &&
	findings t >f
}

test_expect_success PTRACE$BLOCK 'dd without sync: the page cache absorbed it' '
	traced_dd "" &&
	grep -q "^- 128.0 MiB written, [0-9]*% of it reached the device before exit .*: the page cache absorbed the writes" f &&
	! grep -q "paid for earlier writes" f &&
	! grep -q "written with O_DIRECT" f
'

test_expect_success PTRACE$BLOCK 'saved: the same finding again' '
	"$IOTRACE" report t.json >r &&
	findings r >rf &&
	test_cmp f rf
'

test_expect_success PTRACE$BLOCK 'unreadable io or an older file: no finding' '
	sed "s/\"tasks_io\": [0-9]*/\"tasks_io\": 0/" t.json >noio.json &&
	"$IOTRACE" report noio.json >r &&
	! grep -q "reached the device" r &&
	sed "/\"storage\": {/,/}/d" t.json >old.json &&
	"$IOTRACE" report old.json >r &&
	! grep -q "reached the device" r
'

test_expect_success PTRACE$BLOCK 'dd conv=fsync: the fsync paid for the writes' '
	traced_dd conv=fsync &&
	grep -q "^- fsync paid for earlier writes: 128.0 MiB written through the page cache, [0-9]*% of it on the device before exit; the calls that wait for a flush took fsync [0-9.]* s (1 call), .*write [0-9.]* s (128 calls)" f &&
	! grep -q "the page cache absorbed" f
'

test_expect_success PTRACE$BLOCK 'sh -c "dd; sync": the sync paid' '
	rm -f out && sync &&
	"$IOTRACE" -o t -- sh -c "$dd128; sync" &&
	findings t >f &&
	grep -q "^- sync paid for earlier writes: 128.0 MiB written" f &&
	! grep -q "the page cache absorbed" f
'

test_expect_success PTRACE$BLOCK 'dd oflag=direct: the writes waited for the device' '
	traced_dd oflag=direct &&
	grep -q "^- 128.0 MiB written with O_DIRECT or O_SYNC, [0-9]*% of it on the device before exit: each write waited for the device" f &&
	! grep -q "the page cache absorbed" f &&
	! grep -q "paid for earlier writes" f
'

test_expect_success PTRACE 'to a pipe or /dev/null: none of them' '
	"$IOTRACE" -o t -- sh -c "dd if=/dev/zero bs=1M count=128 status=none | cat >/dev/null" &&
	"$IOTRACE" -o t2 -- dd if=/dev/zero of=/dev/null bs=1M count=128 status=none &&
	! grep -q "reached the device\|on the device before exit" t t2
'

# One task (echo is the shell's), whose calls moved 2 bytes: "x\n".
test_expect_success PTRACE 'the JSON has the tasks'"'"' io and the memory' '
	"$IOTRACE" -o /dev/null --save s.json -- sh -c "echo x >x" &&
	grep -q "\"storage\": {" s.json &&
	grep -q "\"tasks\": 1," s.json &&
	grep -q "\"wchar\": 2," s.json &&
	grep -q "\"dirty_before\":" s.json
'

rm -f out
test_done
