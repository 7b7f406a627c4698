// SPDX-License-Identifier: MIT
/*
 * Folded stacks (--folded FILE), the text flamegraph.pl, inferno and
 * speedscope read as it is: one line per (call site, syscall),
 * "root;...;leaf;syscall N", frames outermost first, the syscall as the
 * leaf, N its calls (scaled by --stack-sample's N) or, with
 * --folded-weight=time, its nanoseconds.  Every frame is written, the C
 * library's included: a flame graph merges what stacks share itself.
 * Per syscall the lines sum to the calls that had a stack, which is all
 * of the table's calls for that syscall when every call was unwound.
 */
#include <string.h>
#include "render/render.h"

/* A frame as a folded line names it: no ';' and no spaces in it. */
static void put_frame(FILE *f, const struct profile_frame *fr)
{
	char text[PROFILE_LABEL_MAX], *c;

	if (fr->function)
		snprintf(text, sizeof(text), "%s", fr->function);
	else if (fr->object[0])
		snprintf(text, sizeof(text), "%s+0x%x",
			 profile_object_name(fr->object), fr->offset);
	else
		snprintf(text, sizeof(text), "[unknown]");
	for (c = text; *c; c++)
		if (*c == ';' || *c == ' ')
			*c = '_';
	fputs(text, f);
	fputc(';', f);
}

static void put_line(FILE *f, const struct profile *p,
		     const struct profile_callsite *c,
		     const struct profile_sub *s, const struct report_opts *o)
{
	uint64_t scale = p->stack_sample > 1 ? p->stack_sample : 1;
	uint64_t weight = o->folded_time ?
			  (o->raw_time ? s->raw_time_ns : s->time_ns) :
			  s->calls;
	char name[PROFILE_ROW_LABEL_MAX];
	struct profile_frame fr;
	unsigned i;

	if (c->flags & PCS_OTHER)
		fputs("[other call sites];", f);
	if (c->flags & PCS_TRUNCATED)
		fputs("[truncated];", f);
	for (i = c->nframes; i-- > 0;) {
		fr = profile_callsite_frame(c, i);
		put_frame(f, &fr);
	}
	if (o->folded_time)
		weight = profile_site_time(p, &p->rows[s->row], s->calls,
					   weight, o->raw_time ?
					   p->rows[s->row].raw_time_ns :
					   p->rows[s->row].time_ns);
	else
		weight *= scale;
	fprintf(f, "%s %llu\n",
		profile_row_label(&p->rows[s->row], name, sizeof(name)),
		(unsigned long long)weight);
}

int folded_render(FILE *f, const struct profile *p,
		  const struct report_opts *o)
{
	const struct profile_breakdown *b = profile_callsites(p);
	size_t i;

	for (i = 0; i < b->nsubs; i++)
		put_line(f, p, profile_key(b, b->subs[i].key), &b->subs[i], o);
	return ferror(f) ? -1 : 0;
}
