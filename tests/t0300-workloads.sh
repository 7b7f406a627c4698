#!/bin/sh
# SPDX-License-Identifier: MIT
# `iotrace run`: the workload list and help, and bufwrite's write(2)
# counts as iotrace's own table shows them (the Java buffer seed):
# ceil(total/buf) calls for buf >= unit, one per application write for
# buf=0 and buf=1.  buf=0 and buf=1 use total=20000 to keep the suite
# short; IOTRACE_TEST_LONG=1 runs the seed's full 1,000,000.
. "$(dirname "$0")/lib.sh"


test_expect_success '--list names every workload with its keys' '
	"$IOTRACE" run --list >out &&
	grep "^  dd " out && grep "^  bufwrite " out && grep "^  splice " out &&
	grep "^    oflag " out && grep "^    flush " out &&
	grep "^    mode " out
'

test_expect_success 'WORKLOAD --help shows its keys and runs nothing' '
	"$IOTRACE" run bufwrite --help of=made >out &&
	grep "^usage: iotrace \[OPTIONS\] run bufwrite" out &&
	grep "^    fsync " out &&
	! test -e made
'

bufwrite_count() {
	total=$1 buf=$2 want=$3
	test_expect_success PTRACE \
		"bufwrite total=$total buf=$buf: $want writes" "
		\"\$IOTRACE\" -o table run bufwrite total=$total unit=1 \
			buf=$buf of=out &&
		test \$(table_calls write table) = $want &&
		test \$(table_calls openat table) = 1 &&
		test \$(table_calls close table) = 1 &&
		test \$(wc -c <out) = $total
	"
}

if [ -n "$IOTRACE_TEST_LONG" ]; then
	bufwrite_count 1000000 0 1000000
	bufwrite_count 1000000 1 1000000
else
	bufwrite_count 20000 0 20000
	bufwrite_count 20000 1 20000
fi
bufwrite_count 1000000 64 15625
bufwrite_count 1000000 512 1954
bufwrite_count 1000000 8192 123
bufwrite_count 1000000 65536 16

test_expect_success PTRACE 'units that do not divide buf still give ceil' '
	"$IOTRACE" -o table run bufwrite total=30 unit=3 buf=10 of=out &&
	test $(table_calls write table) = 3 && test $(wc -c <out) = 30
'

test_expect_success PTRACE 'units as large as buf go straight to write(2)' '
	"$IOTRACE" -o table run bufwrite total=1000 unit=100 buf=64 of=out &&
	test $(table_calls write table) = 10 && test $(wc -c <out) = 1000
'

test_expect_success PTRACE 'the last application write may be short' '
	"$IOTRACE" -o table run bufwrite total=20 unit=7 buf=0 of=out &&
	test $(table_calls write table) = 3 && test $(wc -c <out) = 20
'

test_expect_success PTRACE 'flush=never loses the tail and says how much' '
	"$IOTRACE" -o table run bufwrite total=1000 unit=1 buf=512 \
		flush=never of=out 2>err &&
	test $(wc -c <out) = 512 &&
	grep "flush=never: 488 bytes lost" err &&
	test $(table_calls write table) = 2
'

test_expect_success PTRACE 'fsync=every: one fsync per write(2)' '
	"$IOTRACE" -o table run bufwrite total=100000 buf=8192 fsync=every \
		of=out &&
	test $(table_calls write table) = 13 &&
	test $(table_calls fsync table) = 13
'

test_expect_success PTRACE 'fsync=end: one fsync' '
	"$IOTRACE" -o table run bufwrite total=100000 buf=8192 fsync=end \
		of=out &&
	test $(table_calls write table) = 13 &&
	test $(table_calls fsync table) = 1
'

test_expect_success PTRACE 'ENOSPC ends the loop with the bytes that made it' '
	{ "$IOTRACE" -o table run bufwrite of=/dev/full 2>err; test $? = 1; } &&
	grep "failed after 0 bytes reached it: No space left on device" err &&
	table_counts table | grep "^write 2 1$" # the ENOSPC, the message
'

test_expect_success PTRACE 'EIO mid-run (LD_PRELOAD shim) likewise' '
	{ IOTRACE_EIO_AFTER=10000 LD_PRELOAD=$HELPERS/eio.so \
		"$IOTRACE" -o table run bufwrite total=20000 buf=4096 \
		of=out 2>err; test $? = 1; } &&
	grep "failed after 10000 bytes reached it: Input/output error" err &&
	test $(wc -c <out) = 10000
'

test_expect_success PTRACE 'options go before run, like for -- CMD' '
	"$IOTRACE" -o table -S calls run bufwrite total=1000 buf=100 of=out &&
	head -1 table | grep "^iotrace: bufwrite exited 0 after" &&
	awk "/^------/ { getline; print; exit }" table | grep " write$"
'

test_done
