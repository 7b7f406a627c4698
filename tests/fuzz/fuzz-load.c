// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the loaders of saved runs (`make fuzz`): the JSON
 * profile loader when built with -DFUZZ_JSON, the strace -c table reader
 * otherwise.  Whatever the input, a load either fails cleanly or gives a
 * profile every renderer can print; ASan and UBSan watch both.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "render/render.h"

static void render_all(const struct profile *p)
{
	static const enum report_format formats[] = { FMT_TABLE, FMT_JSON,
						      FMT_CSV };
	/* Findings and histograms read files and io rows: fuzz them too. */
	struct report_opts o = { .format = FMT_TABLE, .findings = true,
				 .histogram = true };
	FILE *null = fopen("/dev/null", "w");
	size_t i;

	for (i = 0; null && i < sizeof(formats) / sizeof(formats[0]); i++) {
		o.format = formats[i];
		report_render(null, p, &o);
	}
	if (null)
		fclose(null);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct load_error e;
	struct profile p;
	int err;

	profile_init(&p);
#ifdef FUZZ_JSON
	err = profile_from_json(&p, (const char *)data, size, &e);
#else
	err = profile_from_strace_text(&p, (const char *)data, size, &e);
#endif
	if (!err)
		render_all(&p);
	else if (!e.line || !e.msg[0])
		__builtin_trap();	/* every failure names line and why */
	profile_release(&p);
	return 0;
}
