#!/bin/sh
# SPDX-License-Identifier: MIT
# `iotrace run dd`: byte and call counts for several bs/count pairs as
# iotrace's table shows them, GNU dd's results for skip/seek/notrunc,
# O_DIRECT as this machine's filesystem really behaves, and ENOSPC/EIO.
# status=none keeps the closing lines' write(2) out of the counts.
. "$(dirname "$0")/lib.sh"


# dd_counts BS COUNT BYTES: BYTES written in COUNT reads and COUNT writes.
dd_counts() {
	test_expect_success PTRACE "dd bs=$1 count=$2: $3 bytes, $2 calls" "
		\"\$IOTRACE\" -o table run dd of=out bs=$1 count=$2 \
			status=none &&
		test \$(wc -c <out) = $3 &&
		test \$(table_calls write table) = $2 &&
		test \$(table_calls read table) = $2
	"
}
dd_counts 1130 100 113000
dd_counts 1024 200 204800
dd_counts 4K 64 262144
dd_counts 1M 3 3145728
dd_counts 1 1000 1000

# The buffer's posix_memalign may grow the heap the child inherits
# from iotrace (brk, and its trim), or not, by what iotrace allocated
# before the fork: that call is the workload's own, not a loader's.
# Under the sanitizers the child also carries their runtime's calls.
test_expect_success PTRACE,UNSANITIZED 'the table holds the workload, not a loader' '
	"$IOTRACE" -o table run dd bs=4K count=10 status=none &&
	table_counts table | grep -v "^brk " >actual &&
	printf "%s\n" "close 2 0" "openat 2 0" "read 10 0" "write 10 0" \
		>expect &&
	test_cmp expect actual
'

test_expect_success PTRACE 'size= sets count=ceil(size/bs)' '
	"$IOTRACE" -o table run dd of=out bs=1130 size=1M status=none &&
	test $(table_calls write table) = 928 &&
	test $(wc -c <out) = $((928 * 1130))
'

test_expect_success PTRACE 'closing lines like GNU dd, in one write(2)' '
	"$IOTRACE" -o table run dd of=out bs=1000 count=3 2>err &&
	sed -n 1,2p err >actual &&
	printf "%s\n" "3+0 records in" "3+0 records out" >expect &&
	test_cmp expect actual &&
	grep -E "^3000 bytes \(3\.0 kB, 2\.9 KiB\) copied, [0-9.e-]+ s, " err &&
	test $(table_calls write table) = 4
'

test_expect_success PTRACE 'a short last block counts as a partial record' '
	head -c 10000 /dev/zero >in &&
	"$IOTRACE" -o table run dd if=in of=out bs=4096 2>err &&
	grep "^2+1 records in$" err && grep "^2+1 records out$" err &&
	test $(table_calls read table) = 4 && cmp in out
'

test_expect_success PTRACE 'skip, seek and notrunc give GNU dd bytes' '
	awk "BEGIN { for (i = 0; i < 3000; i++) printf \"%c\", 65 + i % 26 }" \
		>in &&
	printf "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz" >mine &&
	cp mine gnu &&
	dd if=in of=gnu bs=100 skip=3 seek=2 count=5 conv=notrunc \
		status=none &&
	"$IOTRACE" -o table run dd if=in of=mine bs=100 skip=3 seek=2 \
		count=5 conv=notrunc status=none &&
	cmp gnu mine &&
	dd if=in of=gnu bs=100 skip=1 seek=4 count=2 status=none &&
	"$IOTRACE" -o table run dd if=in of=mine bs=100 skip=1 seek=4 \
		count=2 status=none &&
	cmp gnu mine
'

test_expect_success PTRACE 'conv=fsync and conv=fdatasync sync once' '
	"$IOTRACE" -o table run dd of=out bs=4K count=4 conv=fsync \
		status=none &&
	test $(table_calls fsync table) = 1 &&
	"$IOTRACE" -o table run dd of=out bs=4K count=4 conv=fdatasync \
		status=none &&
	test $(table_calls fdatasync table) = 1
'

# What does O_DIRECT do in this scratch directory?  Ask GNU dd first.
if dd if=/dev/zero of=probe bs=4096 count=1 oflag=direct 2>/dev/null; then
	direct=yes
	dd if=/dev/zero of=probe bs=1130 count=1 oflag=direct 2>/dev/null &&
		misaligned=accepted || misaligned=refused
fi
rm -f probe

# lib.sh has no skip of its own: say why, in TAP.
test_skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count # skip $1 ($2)"
}

if test -z "$direct"; then
	test_skip "O_DIRECT tests" "no O_DIRECT in $TRASH"
	test_skip "O_DIRECT misaligned" "no O_DIRECT in $TRASH"
else
	test_expect_success PTRACE 'O_DIRECT, aligned sizes' '
		"$IOTRACE" -o table run dd of=out bs=4K count=8 oflag=direct \
			status=none &&
		test $(table_calls write table) = 8 &&
		test $(wc -c <out) = 32768
	'
fi

if test "$misaligned" = refused; then
	test_expect_success PTRACE 'O_DIRECT bs=1130 refused: says why, stops' '
		{ "$IOTRACE" -o table run dd of=out bs=1130 count=3 \
			oflag=direct status=none 2>err; test $? = 1; } &&
		grep "O_DIRECT write of 1130 bytes to .out. refused (EINVAL)" \
			err &&
		grep "multiples of [0-9]* bytes" err &&
		test $(wc -c <out) = 0 &&
		table_counts table | grep "^write [0-9]* 1$"
	'
elif test "$misaligned" = accepted; then
	test_expect_success PTRACE 'O_DIRECT bs=1130 accepted here, as by dd' '
		"$IOTRACE" -o table run dd of=out bs=1130 count=3 \
			oflag=direct status=none &&
		test $(wc -c <out) = 3390
	'
fi

test_expect_success PTRACE 'ENOSPC: dd stops and says how many bytes made it' '
	{ "$IOTRACE" -o table run dd of=/dev/full bs=4K count=3 2>err;
	  test $? = 1; } &&
	grep "error writing ./dev/full. after 0 bytes: No space left" err &&
	grep "^0+0 records out$" err
'

test_expect_success PTRACE 'EIO mid-run: the bytes before it are counted' '
	{ IOTRACE_EIO_AFTER=10000 LD_PRELOAD=$HELPERS/eio.so \
		"$IOTRACE" -o table run dd of=out bs=4K count=10 2>err;
	  test $? = 1; } &&
	grep "after 10000 bytes: Input/output error" err &&
	grep "^2+1 records out$" err && test $(wc -c <out) = 10000
'

test_expect_success PTRACE 'run dd with no keys ends: 1 MiB from /dev/zero' '
	"$IOTRACE" -o table run dd 2>err &&
	test $(table_calls read table) = 2048 &&
	test $(table_calls write table) = 2049 &&
	grep "^1048576 bytes" err &&
	"$IOTRACE" -o table run dd bs=4K 2>err &&
	test $(table_calls read table) = 256 && grep "^1048576 bytes" err
'

test_expect_success 'run dd --help says what the default copies' '
	"$IOTRACE" run dd --help >help &&
	grep "without if=, 1M worth" help
'

test_done
