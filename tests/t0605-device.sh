#!/bin/sh
# SPDX-License-Identifier: MIT
# Findings about the device only where a block device is behind the file.
# dd with oflag=direct or oflag=sync to /dev/shm (tmpfs takes unaligned
# O_DIRECT, has no device, ~1 us a call), as a command and as the dd
# workload, says no call waited for a device and no device handles
# partial blocks, and a saved run says so again; the same runs to a file
# on a block device (this directory, when it is on one) keep the device
# findings.
. "$(dirname "$0")/lib.sh"

# tmpfs on /dev/shm that takes a misaligned O_DIRECT write (Linux 6.6+).
shm=$(mktemp -d /dev/shm/iotrace-t0605.XXXXXX 2>/dev/null)
trap 'rm -rf "$TRASH" "$shm"' EXIT
if test -n "$shm" && test "$(stat -f -c %T "$shm")" = tmpfs &&
   dd if=/dev/zero of="$shm/probe" bs=1130 count=1 oflag=direct \
	2>/dev/null; then
	SHM=
else
	SHM=,SHM_DIRECT
fi

# This directory on a block device (major of st_dev not 0) that takes
# aligned O_DIRECT writes.
dev=$(stat -c %d .)
if test $(((dev >> 8) & 0xfff)) != 0 &&
   dd if=/dev/zero of=probe bs=4096 count=1 oflag=direct 2>/dev/null; then
	BLOCK=
else
	BLOCK=,BLOCK_DIRECT
fi

# No finding in report $1 says a device waited or handled blocks.
no_device_finding() {
	sed -n "/^Findings:$/,\$p" "$1" >findings &&
	! grep "waited for the device" findings &&
	! grep "makes the device" findings &&
	! grep "device's logical block size" findings
}

test_expect_success "PTRACE$SHM" 'dd oflag=direct to /dev/shm: no device finding' '
	"$IOTRACE" -o report --save run.json -- dd if=/dev/zero \
		of="$shm/x" bs=1130 count=18560 oflag=direct 2>/dev/null &&
	grep "^write  *18560  *20972800 .* $shm/x (O_DIRECT, blksize " report &&
	no_device_finding report &&
	grep -x "^- write to $shm/x: 18,560 of 18,560 calls asked 1,130 bytes, which neither fills nor divides its block size 4096: no block device is behind this file, so no device handles partial blocks\." findings
'

test_expect_success "PTRACE$SHM" '... saved, it knows: device false, the same findings' '
	grep -A9 "\"path\": \"$shm/x\"" run.json | grep "\"device\": false" &&
	"$IOTRACE" report run.json >again &&
	sed -n "/^Findings:$/,\$p" again >again.findings &&
	test_cmp findings again.findings
'

test_expect_success "PTRACE$SHM" 'run dd oflag=direct to /dev/shm: no device finding' '
	"$IOTRACE" -o report run dd of="$shm/w" bs=1130 count=2000 \
		oflag=direct >/dev/null 2>&1 &&
	grep "^write  *2000  *2260000 .* $shm/w (O_DIRECT" report &&
	no_device_finding report &&
	grep "^- write to $shm/w: .*: no block device is behind this file" \
		findings
'

test_expect_success "PTRACE$SHM" 'dd oflag=sync to /dev/shm: no device finding' '
	"$IOTRACE" -o report -- dd if=/dev/zero of="$shm/s" bs=1130 \
		count=2000 oflag=sync 2>/dev/null &&
	grep "^write  *2000 .* $shm/s (O_SYNC" report &&
	no_device_finding report
'

test_expect_success "PTRACE$BLOCK" 'dd oflag=direct to a block device: waited for it' '
	"$IOTRACE" -o report --save dev.json -- dd if=/dev/zero of=out \
		bs=4096 count=2000 oflag=direct 2>/dev/null &&
	grep "^- 2,000 calls waited for the device (O_DIRECT or O_SYNC I/O)" \
		report &&
	grep -A9 "\"path\": \"$PWD/out\"" dev.json | grep "\"device\": true"
'

test_expect_success "PTRACE$BLOCK" 'run dd oflag=direct to a block device: waited for it' '
	"$IOTRACE" -o report run dd of=out bs=4096 count=2000 oflag=direct \
		>/dev/null 2>&1 &&
	grep "^- 2,000 calls waited for the device (O_DIRECT or O_SYNC I/O)" \
		report
'

# What the reads between the device's waits took untraced is said only
# as --truth measured it in the same run, with its figures.
test_expect_success "PTRACE$BLOCK" 'without --truth, nothing said of untraced times' '
	"$IOTRACE" -o report -- dd if=/dev/zero of=out bs=4096 count=2000 \
		oflag=direct 2>/dev/null &&
	grep -x "^- 2,000 calls waited for the device (O_DIRECT or O_SYNC I/O) and took [0-9.]*% of syscall time\." report
'

test_expect_success "PTRACE$BLOCK" 'with --truth, the reads as it measured them' '
	"$IOTRACE" -o report --truth run dd of=out bs=4096 count=2000 \
		oflag=direct >/dev/null 2>&1 &&
	{ grep "^- 2,000 calls waited for the device" report >finding ||
	  { cat report; false; }; } &&
	set -- $(awk "\$1 == \"read\" && NF == 6 { print \$3, \$6 }" report) &&
	if awk "BEGIN { exit !($2 >= 2 * $1) }"; then
		grep "; between them, read took $2 us a call traced, [0-9.]*x its $1 us untraced (--truth): " finding
	else
		! grep "between them" finding
	fi &&
	! grep "several times" finding
'

test_expect_success "PTRACE$BLOCK" 'dd bs=1130 oflag=sync to a block device: partial blocks' '
	"$IOTRACE" -o report -- dd if=/dev/zero of=out bs=1130 count=20 \
		oflag=sync 2>/dev/null &&
	grep -x "^- write to $PWD/out: 20 of 20 calls asked 1,130 bytes, which neither fills nor divides its block size [0-9]*: with O_DIRECT or O_SYNC each call makes the device handle partial blocks\." report
'

test_done
