#!/bin/sh
# SPDX-License-Identifier: MIT
# --truth: the workload runs untraced and self-timed first, then traced.
# The truth travels through shared memory, so the traced table must be
# exactly the table without --truth; the section under it shows the
# untraced calls of each I/O syscall and both wall times.  Only shapes of
# times are checked, never values.
. "$(dirname "$0")/lib.sh"

head -c 200000 /dev/urandom >in

# same_table TITLE ARGS...: the syscall counts with and without --truth.
same_table() {
	title=$1
	shift
	args=$*		# the body runs inside test_expect_success: no "$@"
	test_expect_success PTRACE "--truth adds no syscall: $title" '
		"$IOTRACE" -o plain run $args >/dev/null &&
		"$IOTRACE" --truth -o truth run $args >/dev/null &&
		table_counts plain >expect &&
		table_counts truth >actual &&
		test_cmp expect actual &&
		grep "^ground truth" truth && ! grep "^ground truth" plain
	'
}

same_table bufwrite bufwrite total=10000 buf=64 of=out fsync=end
same_table dd dd of=out bs=1130 count=50 conv=fdatasync
same_table splice splice if=in of=out mode=splice
same_table 'generated input' splice size=64K of=out mode=sendfile
same_table 'copy_file_range fallback' splice if=in mode=copy_file_range

test_expect_success PTRACE 'the section: untraced calls, mean, median, wall' '
	"$IOTRACE" --truth -o truth run bufwrite total=10000 buf=64 \
		of=out fsync=end &&
	us="[0-9]+\.[0-9]{3}" &&
	grep -E "^write +157 +$us +$us +157 +$us$" truth &&
	grep -E "^fsync +1 +$us +$us +1 +$us$" truth &&
	grep -E "^wall: untraced [0-9.]+ s, traced [0-9.]+ s \([0-9.]+x\)$" \
		truth
'

# The true share: the calls' time over the untraced wall less its two
# clock reads a call (157 writes and an fsync: 316), as the saved truth
# has them, and the same line from the saved run.
test_expect_success PTRACE 'the true share in calls, its clock reads taken out' '
	"$IOTRACE" --truth -o truth --save t.json run bufwrite total=10000 \
		buf=64 of=out fsync=end &&
	grep -E "^in calls: [0-9]+\.[0-9]% of the untraced wall, its 316 clock reads \([1-9][0-9]* ns each\) taken out: [0-9.]+ s$" truth &&
	tr -d " \n" <t.json | sed "s/.*\"truth\":{//; s/\"untraced\".*//" >tj &&
	wall=$(sed "s/.*\"wall_ns\":\([0-9]*\).*/\1/" tj) &&
	clock=$(sed "s/.*\"clock_ns\":\([0-9]*\).*/\1/" tj) &&
	in=$(grep -o "\"total_ns\":[0-9]*" tj | cut -d: -f2 |
	     awk "{ s += \$1 } END { print s }") &&
	pct=$(awk -v w="$wall" -v c="$clock" -v i="$in" \
		"BEGIN { printf \"%.1f\", 100 * i / (w - 316 * c) }") &&
	grep -q "^in calls: $pct% " truth &&
	"$IOTRACE" report t.json >again &&
	grep "^in calls: " truth >want &&
	grep "^in calls: " again >got &&
	test_cmp want got
'

test_expect_success PTRACE 'messages are timed too: counts agree' '
	"$IOTRACE" --truth -o truth run dd of=out bs=1130 count=50 2>/dev/null &&
	grep -E "^write +51 +[0-9.]+ +[0-9.]+ +51 " truth &&
	grep -E "^read +50 +[0-9.]+ +[0-9.]+ +50 " truth
'

test_expect_success PTRACE 'both runs do the work: the file is whole' '
	"$IOTRACE" --truth -o truth run splice if=in of=out mode=rw &&
	cmp in out &&
	grep -E "^read +14 " truth && grep -E "^write +13 " truth
'

test_done
