// SPDX-License-Identifier: MIT
/*
 * profile_clean_text(): valid UTF-8 passes untouched, every byte that
 * jansson would refuse becomes '?' (so a profile is always savable), and
 * control characters go only when asked (file names, not command lines).
 */
#include <string.h>
#include "render/render.h"
#include "tap.h"

static const struct {
	const char *title, *in, *want;
	bool controls;
} cases[] = {
	{ "ASCII", "/tmp/out", "/tmp/out", true },
	{ "two-byte", "caf\xc3\xa9", "caf\xc3\xa9", true },
	{ "four-byte", "\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80!", true },
	{ "a lone high byte", "a\xffz", "a?z", true },
	{ "overlong NUL", "\xc0\x80", "??", true },
	{ "overlong three-byte", "\xe0\x80\xaf", "???", true },
	{ "surrogate", "\xed\xa0\x80", "???", true },
	{ "past U+10FFFF", "\xf4\x90\x80\x80", "????", true },
	{ "cut at the end", "x\xe2\x82", "x??", true },
	{ "continuation alone", "\x80x", "?x", true },
	{ "newline and escape in a path", "a\nb\x1b[1m", "a?b?[1m", true },
	{ "newline kept in a command", "echo a\nb\xff", "echo a\nb?", false },
};

int main(void)
{
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", cases[i].in);
		profile_clean_text(buf, cases[i].controls);
		is_str(buf, cases[i].want, "%s", cases[i].title);
	}
	return done_testing();
}
