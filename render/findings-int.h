/* SPDX-License-Identifier: MIT */
/*
 * Shared by the findings' files only (findings.c: the rules table, the
 * list and the rules on syscalls and the run; findings-files.c: the rules
 * on files; findings-emit.c: what they all write with): how a rule adds
 * a finding, the syscall families and shares the rules speak of, and the
 * rules findings.c's table names from findings-files.c.  render.h is
 * what the rest of iotrace sees.
 */
#ifndef IOTRACE_FINDINGS_INT_H
#define IOTRACE_FINDINGS_INT_H

#include "render/render.h"

/*
 * What a rule writes its findings through: finding_begin() opens one,
 * about a subject, and gives the stream its text goes to; finding_end()
 * adds it, whole, to the list.  Memory running out is kept in err.
 */
struct emit {
	const char *rule;		/* the rule speaking */
	struct findings *out;
	char *about;			/* the finding being written */
	char *text;
	size_t len;
	FILE *f;			/* its text; NULL: none open */
	int err;			/* 0, or -ENOMEM */
};

/* The families the rules speak of, from the syscall facts. */
enum family { FAM_READ, FAM_WRITE, FAM_SYNC };

static inline bool in_family(const struct profile_row *r, enum family fam)
{
	const struct syscall_fact *f = profile_row_fact(r);

	if (!f)
		return false;
	switch (fam) {
	case FAM_READ:
		return f->flags & SF_READ_FAMILY;
	case FAM_WRITE:
		return f->flags & SF_WRITE_FAMILY;
	case FAM_SYNC:
		return f->classes & SC_SYNC;
	}
	return false;
}

static inline const char *plural(uint64_t n, const char *one,
				 const char *many)
{
	return n == 1 ? one : many;
}

static inline double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* A sub-row's time as o wants it: corrected, or raw. */
static inline uint64_t sub_time(const struct profile_sub *io,
				const struct report_opts *o)
{
	return o && o->raw_time ? io->raw_time_ns : io->time_ns;
}

/*
 * A finding of e's rule about what fmt says (a syscall, a file; "" for
 * the run: one finding per rule and subject), its text to the stream
 * returned, without bullet or newline.  NULL: no memory (e->err).
 */
__attribute__((format(printf, 2, 3)))
FILE *finding_begin(struct emit *e, const char *fmt, ...);
/* The finding begun, added to the list. */
void finding_end(struct emit *e);

/*
 * ns as a share of the time in syscalls as the table's % time column has
 * it (every row's time, waits too, as o wants the times) and prints it:
 * "25.57% of syscall time"; where calls that wait hold a tenth of that
 * or more, " (38% of the work, waits apart)" after it.
 */
void findings_print_share(FILE *f, const struct profile *p,
			  const struct report_opts *o, uint64_t ns);
/*
 * Time in syscalls that is the program's work: calls that wait for other
 * processes or events left out (a parent's wait4 spans its child's run).
 */
uint64_t findings_busy_time(const struct profile *p,
			    const struct report_opts *o);

/* The rules on files (findings-files.c), as struct rule's check. */
void findings_odirect_einval(struct emit *e, const struct profile *p,
			     const struct report_opts *o, double threshold);
void findings_block_misfit(struct emit *e, const struct profile *p,
			   const struct report_opts *o, double threshold);
void findings_user_copy(struct emit *e, const struct profile *p,
			const struct report_opts *o, double threshold);
void findings_peer_waits(struct emit *e, const struct profile *p,
			 const struct report_opts *o, double threshold);
void findings_after_blocking(struct emit *e, const struct profile *p,
			     const struct report_opts *o, double threshold);

/* The rules on page cache against device (findings-storage.c). */
void findings_page_cache(struct emit *e, const struct profile *p,
			 const struct report_opts *o, double threshold);
void findings_device_writes(struct emit *e, const struct profile *p,
			    const struct report_opts *o, double threshold);
void findings_sync_paid(struct emit *e, const struct profile *p,
			const struct report_opts *o, double threshold);
/* sync-paid speaks (so sync-heavy, on times, need not). */
bool findings_sync_paid_applies(const struct profile *p,
				const struct report_opts *o, double threshold);
#define SYNC_PAID_UNFLUSHED 50	/* % still in memory: the rules' line */

#endif
