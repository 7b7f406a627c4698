// SPDX-License-Identifier: MIT
/*
 * The agent engine's per-file counts, iotrace's side (the agent's is
 * agent/files.c; the layout agent/agent-abi.h, struct agent_files).
 * Before the run, agent_files_fill() gives the agent, per native syscall
 * number, what the facts (tracer/systab.c) say: the fds a call moves
 * data through (a column in each file's cells) and what it does to the
 * fd table.  After it, agent_files_deliver() turns each (file, call)
 * cell into an aggregate with the file described as fd_describe() would
 * have described it (path, flags, kind and block sizes from the stat the
 * agent took), so the sink keys it as it keys the ptrace engine's calls.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "tracer/agent-int.h"

_Static_assert(AGENT_FILES_MAX <= 1024, "a pair's key has 10 bits a file");
_Static_assert(AGENT_IO_COLS <= 2048, "and 11 its column");

static uint8_t fx_of(uint8_t fx)
{
	switch (fx) {
	case FX_RET:
		return AGENT_FX_RET;
	case FX_ARG0:
		return AGENT_FX_ARG0;
	case FX_ARG1:
		return AGENT_FX_ARG1;
	case FX_RANGE:
		return AGENT_FX_RANGE;
	case FX_FCNTL:
		return AGENT_FX_FCNTL;
	default:	/* exec: a new agent; a child: a copy of the map */
		return AGENT_FX_NONE;
	}
}

/*
 * A column per call that moves data through an fd in an argument (the
 * facts' fd, as the sink's profile_add_files() reads it); past
 * AGENT_IO_COLS, none: such calls would go to no file.  0, or -ENOSPC
 * when a call was left without a column.
 */
int agent_files_fill(struct agent_files *af)
{
	const struct syscall_fact *f;
	unsigned col = 0;
	int nr, err = 0;

	for (nr = 0; nr < AGENT_NR_MAX; nr++) {
		struct agent_nr_files *n = &af->nr[nr];

		f = syscall_fact(0, nr);
		n->fd_arg = n->fd2_arg = -1;
		if (!f)
			continue;
		n->fx = fx_of(f->fx);
		if (!f->fd || f->fd > 6 || f->fd2 > 6)
			continue;
		if (col == AGENT_IO_COLS) {
			err = -ENOSPC;
			continue;
		}
		n->col = (uint8_t)++col;
		n->fd_arg = (int8_t)(f->fd - 1);
		n->fd2_arg = (int8_t)(f->fd2 ? f->fd2 - 1 : -1);
	}
	return err;
}

/* What the agent saw of slot i, as fd_describe() gives it. */
static void file_desc(const struct agent_files *af, unsigned i,
		      struct tracer_file *tf)
{
	const struct agent_file_id *id = &af->file[i].id;
	struct stat st;

	memset(tf, 0, sizeof(*tf));
	if (i == AGENT_FILE_UNRESOLVED || i == AGENT_FILE_UNATTRIBUTED ||
	    !__atomic_load_n(&af->file[i].ready, __ATOMIC_ACQUIRE)) {
		tf->state = i == AGENT_FILE_UNRESOLVED ?
			    TRACER_FILE_UNRESOLVED : TRACER_FILE_UNATTRIBUTED;
		return;
	}
	tf->state = TRACER_FILE_DESC;
	memcpy(tf->desc.path, id->path, id->len < AGENT_PATH_MAX ?
	       id->len : AGENT_PATH_MAX - 1);
	tf->desc.truncated = id->cut;
	tf->desc.open_flags = id->flags;
	memset(&st, 0, sizeof(st));
	st.st_mode = id->mode;
	st.st_dev = id->dev;
	st.st_ino = id->ino;
	st.st_rdev = id->rdev;
	st.st_blksize = id->blksize;
	fd_desc_set_stat(&tf->desc, id->stat_ok ? &st : NULL, id->fstype);
}

/* The native number of each column. */
static void col_nrs(const struct agent_files *af, int *nrs)
{
	int nr;

	for (nr = 0; nr < AGENT_NR_MAX; nr++)
		if (af->nr[nr].col)
			nrs[af->nr[nr].col - 1] = nr;
}

/* One cell to the sink, as the share of file (and file2) of call nr. */
static void deliver_cell(struct agent_run *ar, const struct agent_io *io,
			 int nr, const struct tracer_file *file,
			 const struct tracer_file *file2)
{
	struct tracer_aggregate a;

	memset(&a, 0, sizeof(a));
	a.arch = syscall_pers[0].arch;
	a.nr = nr;
	a.calls = io->calls;
	a.timed = io->timed;
	a.errors = io->errors;
	a.einval = io->einval;
	a.time_ns = io->time_ns;
	a.raw_time_ns = io->raw_time_ns;
	a.bytes_req = io->bytes_req;
	a.bytes_done = io->bytes_done;
	a.short_calls = io->short_calls;
	a.size_max = io->size_max;
	a.size_max_calls = io->size_max_calls;
	a.file = file;
	a.file2 = file2;
	if (file->state == TRACER_FILE_UNATTRIBUTED ||
	    (file2 && file2->state == TRACER_FILE_UNATTRIBUTED))
		ar->use->unattributed += io->calls;
	if (ar->sink->aggregate)
		ar->sink->aggregate(ar->sink->ctx, &a);
}

/* The cells of one-fd calls, file by file. */
static void deliver_files(struct agent_run *ar, const int *nrs)
{
	const struct agent_files *af = &ar->shm->files;
	uint32_t n = af->nfiles + AGENT_FILE_FIRST, i, c;
	struct tracer_file tf;
	bool described;

	for (i = 0; i < n && i < AGENT_FILES_MAX; i++) {
		described = false;
		for (c = 0; c < AGENT_IO_COLS; c++) {
			if (!af->file[i].io[c].calls)
				continue;
			if (!described)
				file_desc(af, i, &tf);
			described = true;
			deliver_cell(ar, &af->file[i].io[c], nrs[c], &tf, NULL);
		}
	}
}

/* The cells of two-fd calls, by (file, file2, column). */
static void deliver_pairs(struct agent_run *ar, const int *nrs)
{
	const struct agent_files *af = &ar->shm->files;
	struct tracer_file f1, f2;
	uint32_t key, i;

	for (i = 0; i < AGENT_PAIRS_MAX; i++) {
		key = af->pairs[i].key;
		if (!key-- || !af->pairs[i].io.calls)
			continue;
		file_desc(af, key & 1023, &f1);
		file_desc(af, key >> 10 & 1023, &f2);
		if (key >> 20 < AGENT_IO_COLS)
			deliver_cell(ar, &af->pairs[i].io, nrs[key >> 20], &f1,
				     &f2);
	}
}

void agent_files_deliver(struct agent_run *ar)
{
	int nrs[AGENT_IO_COLS];

	memset(nrs, 0, sizeof(nrs));
	col_nrs(&ar->shm->files, nrs);
	ar->use->files = true;
	deliver_files(ar, nrs);
	deliver_pairs(ar, nrs);
}
