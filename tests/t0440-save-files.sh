#!/bin/sh
# SPDX-License-Identifier: MIT
# Saving runs with per-file I/O: the I/O table (flags, block sizes, a
# two-fd pair), the histograms, the findings and the engine line come
# back from the JSON byte for byte, and JSON -> report --format=json is
# the same file, so files and io rows survive a load whole.
. "$(dirname "$0")/lib.sh"

# Writes of 4096 with O_DIRECT, where this filesystem takes them.
if dd if=/dev/zero of=probe bs=4096 count=1 oflag=direct 2>/dev/null; then
	direct=
else
	direct=,ODIRECT
fi

# $1: the saved run, $2: the table the run printed, then report options.
round_trip() {
	json=$1 txt=$2 &&
	shift 2 &&
	"$IOTRACE" "$@" report "$json" >again.txt &&
	test_cmp "$txt" again.txt &&
	"$IOTRACE" report --format=json "$json" >again.json &&
	test_cmp "$json" again.json
}

test_expect_success "PTRACE$direct" 'dd oflag=direct: I/O table and flags' '
	"$IOTRACE" -v --histogram -o run.txt --save run.json -- \
		dd if=/dev/zero of=out bs=4096 count=50 oflag=direct \
		status=none &&
	grep -q "^write  *50  *204800 .* $PWD/out (O_DIRECT, blksize " \
		run.txt &&
	grep -q "^iotrace: engine " run.txt &&
	grep -q "\"O_DIRECT\"" run.json &&
	grep -q "\"syscall\": \"write\"" run.json &&
	round_trip run.json run.txt -v --histogram
'

# ext4 and xfs refuse a misaligned O_DIRECT write (EINVAL): a finding.
if dd if=/dev/zero of=probe bs=1130 count=1 oflag=direct 2>/dev/null; then
	einval=no
else
	einval=yes
fi

test_expect_success "PTRACE$direct" 'misaligned O_DIRECT: findings too' '
	"$IOTRACE" -o mis.txt --save mis.json -- \
		dd if=/dev/zero of=out bs=1130 count=20 oflag=direct \
		status=none 2>/dev/null
	if test $einval = yes; then
		grep -q "^- write to $PWD/out failed 1 time with EINVAL" mis.txt
	fi &&
	grep -q "\"einval\": $(test $einval = yes && echo 1 || echo 0)," \
		mis.json &&
	round_trip mis.json mis.txt
'

test_expect_success PTRACE 'splice mode=sendfile: the (source -> dest) row' '
	head -c 100000 /dev/urandom >in &&
	"$IOTRACE" -o sf.txt --save sf.json run splice if=in of=copy \
		mode=sendfile bs=16K &&
	cmp in copy &&
	grep -q "^sendfile .* 100000 .* $PWD/in .*-> $PWD/copy" sf.txt &&
	grep -q "\"file2\": [0-9]" sf.json &&
	round_trip sf.json sf.txt
'

test_expect_success PTRACE 'a newline and a non-UTF-8 byte in a file name' '
	name=$(printf "a\\nb\\377c") &&
	"$IOTRACE" -o odd.txt --save odd.json -- sh -c "echo hi >\"\$1\"" \
		sh "$name" &&
	test -f "$name" &&
	grep -q "^write .* $PWD/a?b?c (blksize" odd.txt &&
	round_trip odd.json odd.txt
'

test_expect_success PTRACE '--raw-time: the engine line says so, loaded too' '
	"$IOTRACE" -v --raw-time -o raw.txt --save raw.json -- \
		dd if=/dev/zero of=out bs=512 count=10 status=none &&
	grep -q "^iotrace: engine .*raw times" raw.txt &&
	round_trip raw.json raw.txt -v --raw-time
'

test_done
