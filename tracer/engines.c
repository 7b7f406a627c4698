// SPDX-License-Identifier: MIT
/*
 * The registry of engines, the default first, and the choice among them:
 * a new engine is a new file with a const struct tracer_engine (tracer.h
 * says what each function promises, and what its fallbacks are) and one
 * row below; --engine=auto then tries it in its turn, and nothing
 * outside tracer/ names it.
 */
#include <errno.h>
#include <string.h>
#include "tracer/ptrace/ptrace.h"

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

/* Engine e's probe, its fallbacks taken in order while it refuses. */
static void try_engine(const struct tracer_engine *e,
		       struct tracer_opts *opts,
		       const struct tracer_target *target,
		       struct tracer_choice *c)
{
	const struct tracer_fallback *f;

	memset(c, 0, sizeof(*c));
	c->engine = e;
	c->why = e->probe(opts, target);
	for (f = e->fallbacks; c->why && f && f->what; f++) {
		if (!f->give_up(opts))
			continue;
		c->gave_up = f;
		c->gave_up_why = c->why;
		c->why = e->probe(opts, target);
	}
}

int tracer_engine_choose(const char *name, struct tracer_opts *opts,
			 const struct tracer_target *target,
			 struct tracer_choice *c)
{
	const struct tracer_engine *const *e;
	struct tracer_opts given = *opts, tried;
	struct tracer_choice other;

	if (name && strcmp(name, "auto")) {
		memset(c, 0, sizeof(*c));
		c->engine = tracer_engine_find(name);
		if (!c->engine) {
			c->why = "no such engine";
			return -EINVAL;
		}
		try_engine(c->engine, opts, target, c);
		return c->why ? -EINVAL : 0;
	}
	try_engine(tracer_engines[0], opts, target, c);
	for (e = tracer_engines + 1; c->why && *e; e++) {
		tried = given;
		try_engine(*e, &tried, target, &other);
		if (!other.why) {
			*opts = tried;
			*c = other;
		}
	}
	return c->why ? -EINVAL : 0;
}
