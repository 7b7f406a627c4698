// SPDX-License-Identifier: MIT
/*
 * The registry of engines, the default first.  A new engine is a new file
 * with a const struct tracer_engine (tracer.h says what each function
 * promises) and one row below.
 */
#include <string.h>
#include "tracer/ptrace/ptrace-int.h"

const struct tracer_engine *const tracer_engines[] = {
	&ptrace_engine,
	NULL,
};

const struct tracer_engine *tracer_engine_find(const char *name)
{
	const struct tracer_engine *const *e;

	for (e = tracer_engines; *e; e++)
		if (!strcmp((*e)->name, name))
			return *e;
	return NULL;
}
