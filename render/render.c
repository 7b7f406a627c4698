// SPDX-License-Identifier: MIT
/*
 * One entry point for every output format: the caller says which, each
 * format lives in its own file.
 */
#include "render/render.h"

int report_render(FILE *f, const struct profile *p, const struct report_opts *o)
{
	switch (o->format) {
	case FMT_TABLE:
		return table_render(f, p, o);
	case FMT_JSON:
		return profile_save_json(f, p);
	case FMT_CSV:
		return csv_render(f, p, o);
	case FMT_CSV_BREAKDOWN:
		return csv_breakdown_render(f, p, o);
	case FMT_PPROF:
		return pprof_render(f, p, o);
	}
	return -1;
}
