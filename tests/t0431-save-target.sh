#!/bin/sh
# SPDX-License-Identifier: MIT
# What a save does to an existing target: its mode and owner are kept, a
# symlink is written through (the link stays, its file gets the content),
# a dangling symlink is refused, and a new file gets 0666 less the umask.
. "$(dirname "$0")/lib.sh"

test_expect_success PTRACE 'an existing target keeps its mode' '
	echo old >m.json && chmod 600 m.json &&
	echo old >m.txt && chmod 640 m.txt &&
	"$IOTRACE" -o m.txt --save m.json -- true &&
	"$IOTRACE" report m.json >/dev/null &&
	test "$(stat -c %a m.json)" = 600 &&
	test "$(stat -c %a m.txt)" = 640
'

test_expect_success PTRACE 'a new file: 0666 less the umask' '
	(umask 027 && "$IOTRACE" -o n.txt --save n.json -- true) &&
	test "$(stat -c %a n.json)" = 640 &&
	test "$(stat -c %a n.txt)" = 640
'

test_expect_success PTRACE,ROOT 'an existing target keeps its owner' '
	echo old >o.json && chown 65534:65534 o.json &&
	"$IOTRACE" --save o.json -o o.txt -- true &&
	"$IOTRACE" report o.json >/dev/null &&
	test "$(stat -c %u:%g o.json)" = 65534:65534
'

test_expect_success PTRACE 'a symlink is written through' '
	mkdir d && echo old >d/real.json && chmod 604 d/real.json &&
	ln -s d/real.json link.json &&
	"$IOTRACE" -o s.txt --save link.json -- true &&
	test -L link.json &&
	test "$(readlink link.json)" = d/real.json &&
	"$IOTRACE" report d/real.json >again && test_cmp s.txt again &&
	test "$(stat -c %a d/real.json)" = 604 &&
	ls -A d >left && echo real.json >expect && test_cmp expect left
'

test_expect_success PTRACE 'a dangling symlink is refused before running' '
	ln -s nowhere dangling.json &&
	! "$IOTRACE" --save dangling.json -- sh -c "echo ran >ran" 2>err &&
	grep -q "^iotrace: cannot write .dangling.json.: dangling symlink$" err &&
	! test -e ran && test -L dangling.json
'

test_done
