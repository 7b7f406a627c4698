#!/bin/sh
# SPDX-License-Identifier: MIT
# `iotrace run` refuses bad input before anything runs: one line on
# stderr naming the key and the problem, exit 2, no file created and an
# existing output file left as it was.
. "$(dirname "$0")/lib.sh"

# The runs happen in w/, whose listing must not change.
mkdir w w/adir && echo precious >w/keep && echo precious >expect

# bad TITLE TEXT ARGS... (no spaces in ARGS): exit 2, one line that
# contains TEXT, no new file, keep unchanged.
bad() {
	title=$1 want=$2
	shift 2
	args=$*		# the body runs inside test_expect_success: no "$@"
	test_expect_success "$title" '
		ls -A w >before &&
		{ (cd w && "$IOTRACE" -o ../table run $args) >out 2>err
		  test $? = 2; } &&
		test $(wc -l <err) = 1 &&
		grep -F -- "$want" err &&
		ls -A w >after && test_cmp before after &&
		test_cmp expect w/keep && ! test -e table
	'
}

bad 'unknown workload' "unknown workload 'nosuch'" nosuch of=keep
bad 'no workload' "no workload named"
bad 'unknown key' "unknown key 'colour'" dd of=keep colour=red
bad 'not KEY=VALUE' "'bs' is not KEY=VALUE" dd of=keep bs
bad 'non-numeric size' "key 'bs': '12abc' is not a size" dd of=keep bs=12abc
bad 'zero size' "key 'bs': must be more than 0" dd of=keep bs=0
bad 'bs over 1 GiB' "key 'bs': '2G' is larger than 1073741824" \
	dd of=keep bs=2G
bad 'negative count' "key 'count': '-5' must not be negative" \
	dd of=keep count=-5
bad 'count and size' "key 'size': give count= or size=" \
	dd of=keep count=1 size=1M
bad 'unknown flag' "key 'oflag': unknown word 'direkt'" \
	dd of=keep oflag=direkt
bad 'unreadable if' "key 'if': cannot read 'missing'" dd if=missing of=new
bad 'if is a directory' "key 'if': 'adir' is a directory" dd if=adir of=new
bad 'of in no directory' "key 'of': cannot create 'nodir/x'" dd of=nodir/x
bad 'of is a directory' "key 'of': 'adir' is a directory" bufwrite of=adir
bad 'unit=0' "key 'unit': must be more than 0" bufwrite of=keep unit=0
bad 'a choice takes one word' "key 'fsync': takes one word" \
	bufwrite of=keep fsync=end,every
bad 'unknown splice mode' "key 'mode': unknown word 'mmap'" \
	splice if=keep of=new mode=mmap
bad 'splice of the input itself' "key 'of': 'keep' is the input file" \
	splice if=keep of=keep
bad 'size= with if=' "key 'size': only for the generated input" \
	splice if=keep of=new size=1M
bad 'skip past the largest offset' \
	"key 'skip': 17179869184 blocks of 1073741824 bytes is past the largest file offset" \
	dd if=keep of=new bs=1G skip=17179869184 count=0
bad 'seek past the largest offset' \
	"key 'seek': 8589934592 blocks of 1073741824 bytes is past the largest file offset" \
	dd of=keep bs=1G seek=8589934592 count=0
bad 'skip times bs past 64 bits' "key 'skip': " \
	dd if=keep of=new bs=2 skip=9223372036854775808 count=0
bad 'empty file name' "key 'of': empty file name" bufwrite of=

test_expect_success 'no -o report file is left by a usage error' '
	{ "$IOTRACE" -o report run dd bs=0; test $? = 2; } &&
	! test -e report
'

test_done
