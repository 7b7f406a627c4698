#!/bin/sh
# SPDX-License-Identifier: MIT
# `iotrace run splice`: every mode copies the input byte for byte, to a
# file, to a pipe and to stdout redirected to a file; a mode the pair of
# descriptors refuses falls back to rw with a message; the generated
# input of size= bytes is made outside the trace and removed after.
. "$(dirname "$0")/lib.sh"


# 300000 bytes: not a multiple of bs, so the last chunk is short.
head -c 300000 /dev/urandom >in

for mode in splice rw sendfile copy_file_range; do
	test_expect_success PTRACE "mode=$mode: file to file is identical" "
		\"\$IOTRACE\" -o table run splice if=in of=out.$mode \
			mode=$mode bs=16K 2>err &&
		cmp in out.$mode && ! test -s err
	"
	test_expect_success PTRACE "mode=$mode: to a pipe is identical" "
		\"\$IOTRACE\" -o table run splice if=in mode=$mode |
			cat >piped &&
		cmp in piped
	"
	test_expect_success PTRACE "mode=$mode: to stdout as a file" "
		\"\$IOTRACE\" -o table run splice if=in of=- mode=$mode >file &&
		cmp in file
	"
done

test_expect_success PTRACE 'splice file to file goes through one pipe' '
	"$IOTRACE" -o table run splice if=in of=out bs=16K &&
	test $(table_calls pipe2 table) = 1 &&
	test $(table_calls splice table) = $((2 * 19 + 1)) &&
	test $(table_calls read table) = 0 &&
	test $(table_calls write table) = 0
'

test_expect_success PTRACE 'splice file to a pipe needs no pipe of its own' '
	"$IOTRACE" -o table run splice if=in bs=16K | cat >piped &&
	test $(table_calls pipe2 table) = 0 &&
	test $(table_calls splice table) = 20
'

test_expect_success PTRACE 'rw: bs-sized reads, one write each' '
	"$IOTRACE" -o table run splice if=in of=out mode=rw bs=100000 &&
	test $(table_calls read table) = 4 &&
	test $(table_calls write table) = 3
'

test_expect_success PTRACE 'copy_file_range to a pipe falls back, says so' '
	"$IOTRACE" -o table run splice if=in mode=copy_file_range 2>err |
		cat >piped &&
	cmp in piped &&
	grep "mode=copy_file_range cannot copy from .in. to .stdout." err &&
	grep "falling back to mode=rw" err &&
	table_counts table | grep "^copy_file_range 1 1$"
'

test_expect_success PTRACE 'sendfile from a pipe falls back, says so' '
	cat in | "$IOTRACE" -o table run splice if=/dev/stdin of=out \
		mode=sendfile 2>err &&
	cmp in out && grep "falling back to mode=rw" err
'

test_expect_success PTRACE 'O_APPEND stdout: pipe contents kept on fallback' '
	: >app &&
	"$IOTRACE" -o table run splice if=in mode=splice bs=16K 2>err >>app &&
	cmp in app &&
	grep "mode=splice cannot copy from .in. to .stdout." err &&
	table_counts table | grep "^splice 2 1$"
'

test_expect_success PTRACE 'generated input: size= bytes, made untraced' '
	TMPDIR=$PWD "$IOTRACE" -o table run splice size=100K of=out &&
	test $(wc -c <out) = 102400 &&
	test $(table_calls openat table) = 2 &&
	test $(table_calls write table) = 0 &&
	! ls -d iotrace-splice.* 2>/dev/null
'

test_expect_success PTRACE 'ENOSPC ends the copy with the bytes moved' '
	{ "$IOTRACE" -o table run splice if=in of=/dev/full mode=rw 2>err;
	  test $? = 1; } &&
	grep "mode=rw failed after 0 bytes: No space left on device" err
'

test_done
