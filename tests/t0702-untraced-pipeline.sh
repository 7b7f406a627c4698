#!/bin/sh
# SPDX-License-Identifier: MIT
# The untraced estimate of a pipeline whose two processes share the work:
# each side does a known amount of work in registers (spinwrite, 20,000
# one-byte writes with 5,000 steps of work before each), side by side on
# a tree of three processes.  Its truth: the untraced wall is at least
# either side's user CPU time, and a traced wall bounds nothing above.
# The header says "at least" and "no ceiling", the JSON has
# "ceiling": false and a floor no higher than the untraced run measured
# by --baseline.  No timing is asserted beyond that floor, which the
# estimate keeps a tenth and a tick below the busiest side's user time.
. "$(dirname "$0")/lib.sh"

pipeline="$HELPERS/spinwrite /dev/stdout 20000 1 5000 2>/dev/null |
	{ $HELPERS/spinwrite /dev/null 20000 1 5000 2>/dev/null; cat >/dev/null; }"

test_expect_success PTRACE 'two busy sides: the header says at least, and no ceiling' '
	"$IOTRACE" -o r.txt -- sh -c "$pipeline" </dev/null &&
	sed -n 2p r.txt | grep -E "^iotrace: untraced at least [0-9.]+ (s|ms) \(estimated; [0-9.]+ (s|ms) traced\): its processes shared the work, so it has no ceiling; --baseline measures it" &&
	! grep " to .* (estimated)" r.txt
'

test_expect_success PTRACE,PYTHON3 'the JSON: no ceiling, a floor below the measured untraced wall' '
	"$IOTRACE" --baseline=1 -o r.txt --save p.json -- sh -c "$pipeline" </dev/null >/dev/null &&
	python3 - p.json <<-\PY
	import json, sys
	d = json.load(open(sys.argv[1]))
	u, b = d["untraced"], d["baseline"]
	assert u["ceiling"] is False, u
	assert u["resolved"] is False, u
	assert u["tasks_cpu_read"] >= 3, u
	assert u["busiest_task_pid"] > 0, u
	assert u["other_process_cpu_ns"] * 10 >= u["busiest_task_cpu_ns"], u
	assert 0 < u["low_ns"] <= b["wall_min_ns"], (u["low_ns"], b)
	PY
'

test_expect_success PTRACE 'one busy process under a shell: a ceiling, as before' '
	"$IOTRACE" --save q.json -o r.txt -- sh -c "$HELPERS/spinwrite /dev/null 20000 1 5000 2>/dev/null; true" </dev/null &&
	grep -E "^    \"ceiling\": true,$" q.json &&
	! grep "no ceiling" r.txt
'

test_expect_success PTRACE 'report of a saved profile says the same' '
	"$IOTRACE" -o r.txt --save s.json -- sh -c "$pipeline" </dev/null &&
	"$IOTRACE" report s.json >again.txt &&
	grep "^iotrace:" r.txt >expect && grep "^iotrace:" again.txt >actual &&
	test_cmp expect actual &&
	grep "no ceiling" actual
'

test_done
