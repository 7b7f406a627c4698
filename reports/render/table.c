// SPDX-License-Identifier: MIT
/*
 * The text report: a header line that ties the syscall table to the wall
 * clock, then strace -c's table, column for column (same headers, widths,
 * dashed rules and total row) so any strace -c parser reads it; with -U,
 * the columns chosen, laid out as strace 6 lays out the same -U.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "reports/render/render.h"

const char *fmt_thousands(char *buf, size_t size, uint64_t n)
{
	char tmp[32];
	size_t len, i, o = 0;

	len = (size_t)snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)n);
	for (i = 0; i < len && o + 1 < size; i++) {
		if (i && (len - i) % 3 == 0 && o + 2 < size)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

static const char *signame(int sig, char *buf, size_t size)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, size, "SIG%s", abbrev);
	else
		snprintf(buf, size, "signal %d", sig);
	return buf;
}

static const char *command_name(const struct profile *p)
{
	const char *slash;

	if (!p->argc)
		return "command";
	slash = strrchr(p->argv[0], '/');
	return slash && slash[1] ? slash + 1 : p->argv[0];
}

/* "dd exited 0", "dd killed by SIGSEGV (core dumped)" */
static void print_ending(FILE *f, const struct profile *p)
{
	const struct profile_exit *e = &p->exit;
	char sig[32];

	if (e->fatal_signal)
		fprintf(f, "%s killed by iotrace on %s", command_name(p),
			signame(e->fatal_signal, sig, sizeof(sig)));
	else if (e->signal)
		fprintf(f, "%s killed by %s%s", command_name(p),
			signame(e->signal, sig, sizeof(sig)),
			e->core ? " (core dumped)" : "");
	else
		fprintf(f, "%s exited %d", command_name(p), e->code);
}

/* What the times are: the engine and the calibration behind them. */
static void print_timing(FILE *f, const struct profile *p,
			 const struct report_opts *o)
{
	struct profile_totals t;

	if (!p->engine[0])
		return;
	profile_totals(p, &t);
	fprintf(f, "iotrace: engine %s; ", p->engine);
	if (!t.timed)
		fputs("counted only: one stop per call, no times\n", f);
	else if (o && o->raw_time)
		fprintf(f, "raw times (stop overhead %.1f us/call not "
			"subtracted)\n", (double)p->overhead_ns / 1e3);
	else if (p->calibrated)
		fprintf(f, "timing: %.1f us/call of stop overhead subtracted "
			"(calibrated; --raw-time to keep it)\n",
			(double)p->overhead_ns / 1e3);
	else
		fprintf(f, "times not corrected for stop overhead\n");
}

static uint64_t minus_u64(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static const char *secs(char *buf, size_t size, uint64_t ns)
{
	double s = (double)ns / 1e9;

	snprintf(buf, size, s >= 10 ? "%.1f s" : s >= 0.01 ? "%.2f s" :
		 "%.4f s", s);
	return buf;
}

/*
 * The untraced picture: what the run would have taken without iotrace,
 * as a range, and what share of it the syscalls were.  When the range is
 * wide the share is not printed: the traced run cannot tell it.
 */
/* "8,255 stops", and the calls through the fast path. */
void print_added(FILE *f, const struct profile *p)
{
	char n[32];

	fprintf(f, "%s stops", fmt_thousands(n, sizeof(n), p->stops));
	if (p->fast.on && p->fast.calls)
		fprintf(f, ", %s calls through the fast path",
			fmt_thousands(n, sizeof(n), p->fast.calls));
}

static void print_untraced(FILE *f, const struct profile *p)
{
	struct profile_estimate e;
	char a[32], b[32], c[32], d[32];

	profile_untraced(p, &e);
	/* A measured untraced wall (--baseline) says it better. */
	if (!e.known || p->baseline.runs)
		return;
	secs(b, sizeof(b), e.wall_lo_ns);
	secs(c, sizeof(c), e.wall_hi_ns);
	secs(d, sizeof(d), e.added_ns);
	if (!e.resolved) {
		/* An attached process cannot be run again untraced. */
		fprintf(f, "iotrace: untraced, this run would take between %s "
			"and %s: tracing added ~%s (", b, c, d);
		print_added(f, p);
		fprintf(f, "), too much to resolve the program's own time%s\n",
			p->exit.attached ? "" : "; --baseline measures it");
		return;
	}
	fprintf(f, "iotrace: untraced, this run would take ~%s (%s to %s): "
		"tracing added ~%s (", secs(a, sizeof(a), e.wall_ns), b, c, d);
	print_added(f, p);
	fprintf(f, "); %ssyscalls %.0f%% of it",
		p->trace_expr[0] ? "traced " : "",
		e.wall_ns ? 100.0 * (double)(e.syscall_ns < e.wall_ns ?
		e.syscall_ns : e.wall_ns) / (double)e.wall_ns : 0.0);
	if (p->cost.cpu_known)
		fprintf(f, ", user CPU %s", secs(a, sizeof(a),
						  p->cost.user_ns));
	fputc('\n', f);
}

/* Waiting calls are kept out of shares; say how much they were. */
static void print_waits(FILE *f, const struct profile *p)
{
	struct profile_estimate e;
	char a[32];

	profile_untraced(p, &e);
	/* Older files printed no such line: their report stays as it was. */
	if (!e.known || !e.wait_ns || e.wait_ns * 100 < p->wall_ns)
		return;		/* under 1% of the wall: not worth a line */
	fprintf(f, "iotrace: %s of that in calls that wait for other "
		"processes or events (wait4, poll, futex...), left out of "
		"shares\n", secs(a, sizeof(a), e.wait_ns));
}

/* Share of wall in syscalls, waits apart; never over 100%. */
static void print_share(FILE *f, const struct profile *p,
			const struct report_opts *o,
			const struct profile_totals *t)
{
	struct profile_estimate e;
	uint64_t busy;

	if (!p->wall_ns)
		return;
	if (!p->cost.known) {
		fprintf(f, " (%.1f%% of wall)", 100.0 *
			(double)totals_time(t, o) / (double)p->wall_ns);
		return;
	}
	profile_untraced(p, &e);
	busy = minus_u64(totals_time(t, o), e.wait_ns);
	if (busy > p->wall_ns)
		fputs(" (processes in parallel: more than the wall)", f);
	else
		fprintf(f, " (%.1f%% of the traced wall)",
			100.0 * (double)busy / (double)p->wall_ns);
}

void table_render_header(FILE *f, const struct profile *p,
			 const struct report_opts *o)
{
	struct profile_totals t;
	double secs, wall = (double)p->wall_ns / 1e9;

	profile_totals(p, &t);
	secs = (double)totals_time(&t, o) / 1e9;
	if (!p->exit.known) {
		fprintf(f, "%s: %llu syscalls", p->source,
			(unsigned long long)t.calls);
		if (!t.timed && t.calls)
			fputs(", counted only (not timed; no wall time "
			      "recorded)\n", f);
		else if (t.timed < t.calls)
			fprintf(f, " (%llu counted only); the timed ones took "
				"%.3f s (no wall time recorded)\n",
				(unsigned long long)(t.calls - t.timed), secs);
		else
			fprintf(f, " took %.3f s (no wall time recorded)\n",
				secs);
		return;
	}
	fputs("iotrace: ", f);
	if (p->exit.attached) {
		/* iotrace -p: argv is "-p" and the pids. */
		fprintf(f, "attached for %.3f s to pid %s, %s", wall,
			p->argc > 1 ? p->argv[1] : "?",
			p->exit.detached ? "then detached (still running)" :
					   "until it exited");
	} else {
		print_ending(f, p);
		fprintf(f, " after %.3f s wall", wall);
	}
	fprintf(f, "; %llu syscalls", (unsigned long long)t.calls);
	if (p->trace_expr[0])
		fprintf(f, " of -e trace=%s", p->trace_expr);
	if (!t.timed && t.calls) {
		fputs(", counted only (not timed)\n", f);
		print_timing(f, p, o);
		fast_render_header(f, p);
		return;
	}
	if (t.timed < t.calls)
		fprintf(f, " (%llu counted only); the timed ones",
			(unsigned long long)(t.calls - t.timed));
	fprintf(f, " took %.3f s", secs);
	print_share(f, p, o, &t);
	fputc('\n', f);
	print_waits(f, p);
	print_untraced(f, p);
	print_timing(f, p, o);
	fast_render_header(f, p);
}

#define CELL_MAX 64

/*
 * The table's columns (-U's, or strace's six) and their widths, as
 * strace 6's count.c lays them out: each at least its historical width,
 * grown to its widest cell (the total's included); the name column
 * left-aligned, one wider than the longest name, and unpadded when last.
 * One space between columns.
 */
struct layout {
	const struct column *col[REPORT_COLUMNS_MAX];
	int width[REPORT_COLUMNS_MAX];
	size_t n;
	struct cell_ctx x;
};

static void row_cells(char (*buf)[CELL_MAX], const struct layout *l,
		      const struct profile_row *r, bool total)
{
	const struct column *c;
	size_t i;

	for (i = 0; i < l->n; i++) {
		c = l->col[i];
		(total && c->total ? c->total : c->text)(buf[i], CELL_MAX, r,
							 &l->x);
	}
}

/* strace measures names over the syscalls only, not "total". */
static void widen(struct layout *l, const struct profile_row *r, bool total)
{
	char buf[REPORT_COLUMNS_MAX][CELL_MAX];
	bool left;
	size_t i;
	int len;

	row_cells(buf, l, r, total);
	for (i = 0; i < l->n; i++) {
		left = l->col[i]->flags & COLF_LEFT;
		if (left && total)
			continue;
		len = (int)strlen(buf[i]) + left;
		if (len > l->width[i])
			l->width[i] = len;
	}
}

static void print_cells(FILE *f, const struct layout *l,
			const char *const *cells)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (i)
			fputc(' ', f);
		if (!(l->col[i]->flags & COLF_LEFT))
			fprintf(f, "%*s", l->width[i], cells[i]);
		else if (i + 1 < l->n)
			fprintf(f, "%-*s", l->width[i], cells[i]);
		else
			fputs(cells[i], f);
	}
	fputc('\n', f);
}

static void print_row(FILE *f, const struct layout *l,
		      const struct profile_row *r, bool total)
{
	char buf[REPORT_COLUMNS_MAX][CELL_MAX];
	const char *cells[REPORT_COLUMNS_MAX];
	size_t i;

	row_cells(buf, l, r, total);
	for (i = 0; i < l->n; i++)
		cells[i] = buf[i];
	print_cells(f, l, cells);
}

static void print_rule(FILE *f, const struct layout *l)
{
	size_t i;
	int j;

	for (i = 0; i < l->n; i++) {
		if (i)
			fputc(' ', f);
		for (j = 0; j < l->width[i]; j++)
			fputc('-', f);
	}
	fputc('\n', f);
}

static void print_headers(FILE *f, const struct layout *l)
{
	const char *cells[REPORT_COLUMNS_MAX];
	size_t i;

	for (i = 0; i < l->n; i++)
		cells[i] = l->col[i]->header;
	print_cells(f, l, cells);
}

/*
 * The total line is a row of its own whose cells are the sums of the
 * rows' cells: its seconds the rows' seconds added up, as printed, and
 * its usecs/call those seconds over all the calls; shortest and longest
 * the rows' extremes, its percentiles from the rows' buckets together.
 */
static void total_row(struct profile_row *tr, const struct profile *p,
		      const struct profile_totals *t)
{
	const struct profile_row *r;
	size_t b;

	memset(tr, 0, sizeof(*tr));
	tr->pers = PROFILE_PERS_NONE;
	snprintf(tr->unknown, sizeof(tr->unknown), "total");
	tr->calls = t->calls;
	tr->errors = t->errors;
	tr->timed = t->timed;
	tr->time_ns = t->time_us * 1000;
	tr->raw_time_ns = t->raw_time_us * 1000;
	tr->min_ns = UINT64_MAX;
	for (r = p->rows; r < p->rows + p->nrows; r++) {
		tr->bytes_done += r->bytes_done;
		if (!r->timed)
			continue;
		tr->min_ns = r->min_ns < tr->min_ns ? r->min_ns : tr->min_ns;
		tr->max_ns = r->max_ns > tr->max_ns ? r->max_ns : tr->max_ns;
		for (b = 0; b < PROFILE_HIST_BUCKETS; b++)
			tr->hist[b] += r->hist[b];
	}
	if (!tr->timed)
		tr->min_ns = 0;
}

static void layout_init(struct layout *l, const struct profile *p,
			const struct profile_row *const *rows,
			const struct profile_row *total)
{
	size_t i;

	l->n = report_columns(l->x.o, false, l->col);
	for (i = 0; i < l->n; i++) {
		l->width[i] = l->col[i]->width;
		if ((int)strlen(l->col[i]->header) > l->width[i])
			l->width[i] = (int)strlen(l->col[i]->header);
	}
	for (i = 0; i < p->nrows; i++)
		if (rows[i]->calls)
			widen(l, rows[i], false);
	widen(l, total, true);
}

/*
 * What the table's cells cannot say.  "-" marks rows counted only
 * (-e count=, --count-only); a row of which the engine timed some
 * calls only is numbers, its seconds those of the timed calls: a line
 * says which rows, after the table, where strace -c parsers look no
 * more.
 */
static void print_notes(FILE *f, const struct profile *p,
			const struct profile_row *const *rows)
{
	char name[PROFILE_ROW_LABEL_MAX];
	const struct profile_row *r;
	bool dash = false;
	size_t i;

	for (i = 0; i < p->nrows; i++)
		dash |= rows[i]->calls && !rows[i]->timed;
	if (dash)
		fputs("(-: counted only, without an exit stop, so no time "
		      "and no errors; see -e count=)\n", f);
	for (i = 0; i < p->nrows; i++) {
		r = rows[i];
		if (!r->timed || r->timed == r->calls)
			continue;
		fprintf(f, "(%s: %llu of %llu calls counted only, not timed; "
			"its seconds are of the %llu timed, its usecs/call "
			"over all %llu)\n",
			profile_row_label(r, name, sizeof(name)),
			(unsigned long long)(r->calls - r->timed),
			(unsigned long long)r->calls,
			(unsigned long long)r->timed,
			(unsigned long long)r->calls);
	}
}

/* Each shown column's note: what its cells are over, where it says. */
static void print_column_notes(FILE *f, const struct layout *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->col[i]->note)
			l->col[i]->note(f, &l->x);
}

int table_render(FILE *f, const struct profile *p, const struct report_opts *o)
{
	const struct profile_row **rows = profile_sorted(p, o);
	struct profile_totals t;
	struct profile_row total;
	struct layout l;
	size_t i;

	if (!rows)
		return -1;
	profile_totals(p, &t);
	cell_ctx_init(&l.x, p, &t, o);
	total_row(&total, p, &t);
	layout_init(&l, p, rows, &total);
	table_render_header(f, p, o);
	baseline_render_header(f, p, o);
	print_headers(f, &l);
	print_rule(f, &l);
	for (i = 0; i < p->nrows; i++)
		if (rows[i]->calls)
			print_row(f, &l, rows[i], false);
	print_rule(f, &l);
	print_row(f, &l, &total, true);
	print_notes(f, p, rows);
	print_column_notes(f, &l);
	truth_render(f, p, o);
	free(rows);
	if (breakdown_render(f, p, o) < 0 || histogram_render(f, p, o) < 0 ||
	    findings_render(f, p, o) < 0)
		return -1;
	return ferror(f) ? -1 : 0;
}
