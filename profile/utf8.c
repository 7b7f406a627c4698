// SPDX-License-Identifier: MIT
/*
 * Text a run takes from the system (file names from /proc, the command
 * line) is bytes, while a JSON string is UTF-8: jansson refuses to write
 * anything else, which would make the whole profile unsavable.  Such
 * text is cleaned once, when it enters the profile, so the table a run
 * prints and the table of its saved profile are the same.  The check is
 * jansson's: no overlong forms, no surrogates, nothing past U+10FFFF.
 */
#include "profile/profile.h"

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	static const struct {
		unsigned char lo, hi;		/* lead bytes */
		unsigned char min2, max2;	/* allowed second byte */
		size_t len;
	} seqs[] = {
		{ 0xc2, 0xdf, 0x80, 0xbf, 2 }, { 0xe0, 0xe0, 0xa0, 0xbf, 3 },
		{ 0xe1, 0xec, 0x80, 0xbf, 3 }, { 0xed, 0xed, 0x80, 0x9f, 3 },
		{ 0xee, 0xef, 0x80, 0xbf, 3 }, { 0xf0, 0xf0, 0x90, 0xbf, 4 },
		{ 0xf1, 0xf3, 0x80, 0xbf, 4 }, { 0xf4, 0xf4, 0x80, 0x8f, 4 },
	};
	size_t i, k;

	for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		if (s[0] < seqs[i].lo || s[0] > seqs[i].hi)
			continue;
		if (s[1] < seqs[i].min2 || s[1] > seqs[i].max2)
			return 0;
		for (k = 2; k < seqs[i].len; k++)
			if (s[k] < 0x80 || s[k] > 0xbf)
				return 0;
		return seqs[i].len;
	}
	return 0;
}

void profile_clean_text(char *text, bool controls)
{
	unsigned char *s = (unsigned char *)text;
	size_t n;

	while (*s) {
		if (*s >= 0x80) {
			n = utf8_len(s);
			if (n) {
				s += n;
				continue;
			}
			*s = '?';
		} else if (controls && (*s < 0x20 || *s == 0x7f)) {
			*s = '?';
		}
		s++;
	}
}
