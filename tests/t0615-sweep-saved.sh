#!/bin/sh
# SPDX-License-Identifier: MIT
# iotrace sweep --from DIR: the table and chart drawn again from saved
# points (tests/fixtures/sweep, known walls, spreads and calls; gen.py
# writes them), so what they say of noise and what the chart shows are
# checked without a run: a tie where spreads overlap, no best with one
# run per point, the SVG's axes, labels and failed points by xmllint.
. "$(dirname "$0")/lib.sh"

F=$FIXTURES/sweep

# What an XPath expression over the chart gives (SVG's namespace aside).
svg_q() {
	xmllint --xpath "$1" "$2" 2>/dev/null
}

test_expect_success 'overlapping spreads: a tie, never a best' '
	"$IOTRACE" sweep --from "$F/tie" bs=64,512,700,1024,1130 >t.txt &&
	! grep "^\*" t.txt &&
	grep -E "^~ +1024 " t.txt && grep -E "^~ +1130 " t.txt &&
	grep -E "^  +512 " t.txt &&
	grep "^~ tie: bs=1024,1130 are within noise, their spreads over the untraced runs overlap: no best (highest median MB/s: bs=1024;" t.txt &&
	grep -E "^ +700 +- +- +failed " t.txt
'

test_expect_success 'spreads apart: the best is marked' '
	"$IOTRACE" sweep --from "$F/clear" bs=512,4K >t.txt &&
	grep -E "^\* +4K " t.txt && grep -E "^  +512 " t.txt &&
	grep "^\* best: highest throughput .*, its spread over the untraced runs clear of every other point.s$" t.txt
'

test_expect_success 'one run per point: the best is not told from noise' '
	"$IOTRACE" sweep --from "$F/one" bs=512,4K >t.txt &&
	! grep -E "^[*~]" t.txt &&
	grep "^best: not told from noise with 1 run per point (highest MB/s: bs=4K); --repeat 3 or more gives each point a spread$" t.txt
'

test_expect_success 'an empty value reads (none); a long one widens its column' '
	"$IOTRACE" sweep --from "$F/modes" mode=,splice,a-copier-with-a-long-name >t.txt &&
	grep -E "^  +\(none\) +0\.100 " t.txt &&
	grep -E "^  a-copier-with-a-long-name +0\.200 " t.txt &&
	grep -E "^\* +splice +0\.050 " t.txt
'

test_expect_success 'chart: well-formed, log MB/s over a 40x span, round ticks' '
	"$IOTRACE" sweep --from "$F/tie" --svg tie.svg bs=64,512,700,1024,1130 >/dev/null &&
	xmllint --noout tie.svg &&
	test "$(svg_q "string(//*[@id=\"mbps-axis\"]/@class)" tie.svg)" = "axis log" &&
	svg_q "//*[@id=\"mbps-axis\"]/*[@class=\"tick\"]/text()" tie.svg |
		tr " " "\n" | grep . >ticks &&
	test -s ticks && ! grep -vE "^(0|[125]0*|0\.[0-9]*[125])[KMG]?$" ticks &&
	grep -x 1K ticks && grep -x 10 ticks
'

test_expect_success 'chart: 1024 and 1130 labelled on different rows' '
	y1=$(svg_q "string(//*[@class=\"x-label\"][.=\"1024\"]/@y)" tie.svg) &&
	y2=$(svg_q "string(//*[@class=\"x-label\"][.=\"1130\"]/@y)" tie.svg) &&
	test -n "$y1" && test -n "$y2" && test "$y1" != "$y2" &&
	test "$(svg_q "count(//*[@class=\"x-label\"])" tie.svg)" = 5
'

test_expect_success 'chart: the failed point is marked failed, not plotted as data' '
	test "$(svg_q "count(//*[@class=\"failed\"])" tie.svg)" = 1 &&
	test "$(svg_q "string(//*[@class=\"failed\"]/*[local-name()=\"text\"])" tie.svg)" = "failed (exit 1)" &&
	test "$(svg_q "count(//*[@id=\"calls\"]/*[@class=\"point\"])" tie.svg)" = 4 &&
	test "$(svg_q "count(//*[@id=\"mbps\"]/*[@class=\"point\"])" tie.svg)" = 4 &&
	test "$(svg_q "count(//*[@id=\"mbps\"]/*[@class=\"line\"])" tie.svg)" = 2
'

test_expect_success 'chart: a tie is said once, never "best"' '
	test "$(svg_q "count(//*[@class=\"verdict\"])" tie.svg)" = 1 &&
	test "$(svg_q "string(//*[@class=\"verdict\"])" tie.svg)" = tie &&
	test "$(svg_q "count(//*[@class=\"tie\"])" tie.svg)" = 2
'

test_expect_success 'chart: one run per point, no best marker' '
	"$IOTRACE" sweep --from "$F/one" --svg one.svg bs=512,4K >/dev/null &&
	test "$(svg_q "count(//*[@class=\"verdict\"])" one.svg)" = 0 &&
	svg_q "string(//*[@id=\"verdict\"])" one.svg | grep "not told from noise"
'

test_expect_success 'chart: names are not joined, a long one cut to fit' '
	"$IOTRACE" sweep --from "$F/modes" --svg modes.svg \
		mode=,splice,a-copier-with-a-long-name >/dev/null &&
	xmllint --noout modes.svg &&
	test "$(svg_q "count(//*[@class=\"line\"])" modes.svg)" = 0 &&
	test "$(svg_q "count(//*[@id=\"mbps\"]/*[@class=\"point\"])" modes.svg)" = 3 &&
	svg_q "string(//*[@class=\"x-label\"][*[local-name()=\"title\"]]/*[local-name()=\"title\"])" modes.svg >full &&
	test "$(cat full)" = a-copier-with-a-long-name &&
	svg_q "//*[@class=\"x-label\"]/text()" modes.svg | grep "a-copier-with-a…" &&
	svg_q "//*[@class=\"x-label\"]/text()" modes.svg | grep -x "(none)" &&
	test "$(svg_q "string(//*[@id=\"mbps-axis\"]/@class)" modes.svg)" = "axis linear"
'

test_expect_failure_code 2 'sweep --from: a missing point is an error' '
	"$IOTRACE" sweep --from "$F/clear" bs=512,8K
'

test_expect_success 'sweep --from runs nothing: a command or --repeat refused' '
	"$IOTRACE" sweep --from "$F/clear" bs=512 -- touch ran 2>err;
	test $? = 2 && ! test -e ran && test $(wc -l <err) = 1 &&
	"$IOTRACE" sweep --from "$F/clear" --repeat 3 bs=512 2>err;
	test $? = 2 && grep -- "--repeat" err
'

test_done
