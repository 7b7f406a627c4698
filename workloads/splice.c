// SPDX-License-Identifier: MIT
/*
 * splice: copies if= to of= (`-` is stdout) in bs chunks four ways, the
 * fastcat seed: mode=splice (in-kernel, through an internal pipe when
 * neither end is one), rw (read/write with a bs buffer), sendfile and
 * copy_file_range.  Where the kernel refuses a mode for this pair of
 * descriptors before a byte has moved, the copier says so and falls back
 * to rw, so the output is always the input, byte for byte.  Without if=
 * the input is a generated file of size= bytes in a temporary directory,
 * made before tracing and removed after, so it is not in the table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "workloads/workload.h"

#define SP(field) offsetof(struct workload_args, u.splice.field)
#define GIB (1ull << 30)
#define GEN_CHUNK (1u << 20)

static const struct wl_word sp_modes[] = {
	{ "splice", SP_SPLICE }, { "rw", SP_RW },
	{ "sendfile", SP_SENDFILE }, { "copy_file_range", SP_COPY_FILE_RANGE },
	{ NULL, 0 },
};

static const struct wl_key sp_keys[] = {
	{ "if", WK_PATH, SP(in), 0, NULL,
	  "input file (default: a generated file of size= bytes)" },
	{ "of", WK_PATH, SP(out), 0, NULL,
	  "output file; - is stdout (default)" },
	{ "bs", WK_SIZE, SP(bs), GIB, NULL, "bytes per call (default 16K)" },
	{ "size", WK_SIZE, SP(size), 0, NULL,
	  "size of the generated input (default 16M)" },
	{ "mode", WK_CHOICE, SP(mode), 0, sp_modes,
	  "splice (default), rw, sendfile, copy_file_range" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

/* The syscall behind each mode, probed so a kernel without it is a usage
 * error rather than a fallback; rw needs nothing. */
static const long mode_syscalls[] = {
	[SP_SPLICE] = SYS_splice,
	[SP_RW] = -1,
	[SP_SENDFILE] = SYS_sendfile,
	[SP_COPY_FILE_RANGE] = SYS_copy_file_range,
};

static bool kernel_has(long nr)
{
	/*
	 * Length 0 and bad descriptors: nothing can move.  Whatever else the
	 * call answers (0, EBADF, EFAULT), only ENOSYS means it is missing.
	 */
	return nr < 0 || syscall(nr, -1, NULL, -1, NULL, 0, 0) == 0 ||
	       errno != ENOSYS;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino &&
	       S_ISREG(sa.st_mode);
}

static int sp_check_files(struct workload_args *a)
{
	struct splice_args *s = &a->u.splice;
	int err;

	if (wl_given(a, "if")) {
		err = wl_check_readable(a, "if", s->in, 0);
		if (err < 0)
			return err;
	}
	if (!strcmp(s->out, "-")) {
		if (fcntl(STDOUT_FILENO, F_GETFL) < 0)
			return wl_bad(a, "of", "stdout is closed");
		return 0;
	}
	err = wl_check_writable(a, "of", s->out);
	if (err < 0)
		return err;
	if (wl_given(a, "if") && same_file(s->in, s->out))
		return wl_bad(a, "of", "'%s' is the input file", s->out);
	return 0;
}

static int sp_parse(struct workload_args *a, int argc, char **argv)
{
	struct splice_args *s = &a->u.splice;
	int err;

	snprintf(s->out, sizeof(s->out), "-");
	s->bs = 16 << 10;
	s->size = 16 << 20;
	s->mode = SP_SPLICE;
	err = wl_parse_keys(a, argc, argv);
	if (err < 0)
		return err;
	if (wl_given(a, "if") && wl_given(a, "size"))
		return wl_bad(a, "size", "only for the generated input; "
			      "drop it or if=");
	if (!kernel_has(mode_syscalls[s->mode]))
		return wl_bad(a, "mode", "this kernel has no %s(2)",
			      sp_modes[s->mode].word);
	return sp_check_files(a);
}

/* Deterministic bytes (xorshift), so a misplaced block cannot compare equal. */
static int generate(int fd, uint64_t size)
{
	static uint64_t chunk[GEN_CHUNK / 8];
	uint64_t x = 0x9e3779b97f4a7c15ull, left = size;
	size_t i, n;
	int err;

	while (left) {
		for (i = 0; i < GEN_CHUNK / 8; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			chunk[i] = x;
		}
		n = left < GEN_CHUNK ? (size_t)left : GEN_CHUNK;
		if (wl_write_all(NULL, fd, chunk, n, &err) < n)
			return -err;
		left -= n;
	}
	return 0;
}

static int sp_prepare(struct workload_args *a)
{
	struct splice_args *s = &a->u.splice;
	const char *tmp = getenv("TMPDIR");
	int fd, err;

	if (wl_given(a, "if"))
		return 0;
	if ((size_t)snprintf(s->tmpdir, sizeof(s->tmpdir),
			     "%s/iotrace-splice.XXXXXX",
			     tmp && *tmp ? tmp : "/tmp") >= sizeof(s->in) - 6) {
		s->tmpdir[0] = '\0';
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(s->tmpdir)) {
		s->tmpdir[0] = '\0';
		return -errno;
	}
	if ((size_t)snprintf(s->in, sizeof(s->in), "%s/input", s->tmpdir) >=
	    sizeof(s->in))
		return -ENAMETOOLONG;
	fd = open(s->in, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = generate(fd, s->size);
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

static void sp_cleanup(struct workload_args *a)
{
	struct splice_args *s = &a->u.splice;

	if (!s->tmpdir[0])
		return;
	unlink(s->in);
	rmdir(s->tmpdir);
	s->tmpdir[0] = '\0';
}

/* A copy in progress: what moved, and whether a refusal may fall back. */
struct copy {
	const struct workload_args *a;
	int in, out;
	uint64_t moved;		/* bytes that reached out */
	int refused;		/* errno of a refusal that lost nothing */
};

/* The errors with which a kernel says "not for these descriptors". */
static bool is_refusal(int err)
{
	return err == EINVAL || err == EXDEV || err == EOPNOTSUPP ||
	       err == ENOSYS || err == EBADF || err == ESPIPE;
}

static int copy_rw(struct copy *c)
{
	size_t bs = (size_t)c->a->u.splice.bs, done;
	char *buf = malloc(bs);
	ssize_t n;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		n = wl_read(c->a->truth, c->in, buf, bs);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		done = wl_write_all(c->a->truth, c->out, buf, (size_t)n, &err);
		c->moved += done;
		if (err) {
			err = -err;
			break;
		}
	}
	free(buf);
	return err;
}

/*
 * Bytes already in the internal pipe when the output end refused them:
 * read them back and write them, so the fallback loses nothing.
 */
static int drain_pipe(struct copy *c, int pipe_rd, size_t n)
{
	char buf[4096];
	ssize_t got;
	size_t done;
	int err;

	while (n) {
		got = read(pipe_rd, buf, n < sizeof(buf) ? n : sizeof(buf));
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		done = wl_write_all(c->a->truth, c->out, buf, (size_t)got,
				    &err);
		c->moved += done;
		if (err)
			return -err;
		n -= (size_t)got;
	}
	return 0;
}

/* Moves n bytes from the internal pipe to out. */
static int pipe_out(struct copy *c, int pipe_rd, size_t n)
{
	int err, drained;
	ssize_t m;

	while (n) {
		m = wl_splice(c->a->truth, pipe_rd, c->out, n);
		if (m <= 0) {
			err = m < 0 ? errno : EIO;
			if (c->moved || !is_refusal(err))
				return -err;
			/* Refused, but the bytes must still get out. */
			drained = drain_pipe(c, pipe_rd, n);
			if (drained < 0)
				return drained;
			c->refused = err;
			return -err;
		}
		c->moved += (uint64_t)m;
		n -= (size_t)m;
	}
	return 0;
}

static bool is_pipe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* splice(2) needs a pipe at one end: file -> pipe -> file otherwise. */
static int copy_splice(struct copy *c)
{
	size_t bs = (size_t)c->a->u.splice.bs;
	bool direct = is_pipe(c->in) || is_pipe(c->out);
	int p[2] = { -1, -1 }, err = 0;
	ssize_t n;

	if (!direct && pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	for (;;) {
		n = wl_splice(c->a->truth, c->in, direct ? c->out : p[1], bs);
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			if (n < 0 && !c->moved && is_refusal(errno))
				c->refused = errno;
			break;
		}
		if (direct)
			c->moved += (uint64_t)n;
		else if ((err = pipe_out(c, p[0], (size_t)n)) < 0)
			break;
	}
	if (!direct) {
		close(p[0]);
		close(p[1]);
	}
	return err;
}

/* sendfile and copy_file_range: the same loop around another call. */
static int copy_calls(struct copy *c, bool cfr)
{
	size_t bs = (size_t)c->a->u.splice.bs;
	ssize_t n;

	for (;;) {
		n = cfr ? wl_copy_file_range(c->a->truth, c->in, c->out, bs) :
			  wl_sendfile(c->a->truth, c->out, c->in, bs);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return 0;
		if (n < 0) {
			if (!c->moved && is_refusal(errno))
				c->refused = errno;
			return -errno;
		}
		c->moved += (uint64_t)n;
	}
}

static int copy_sendfile(struct copy *c)
{
	return copy_calls(c, false);
}

static int copy_cfr(struct copy *c)
{
	return copy_calls(c, true);
}

static int (*const copiers[])(struct copy *c) = {
	[SP_SPLICE] = copy_splice,
	[SP_RW] = copy_rw,
	[SP_SENDFILE] = copy_sendfile,
	[SP_COPY_FILE_RANGE] = copy_cfr,
};

/* Runs the mode; a refusal before any byte moved falls back to rw. */
static int copy_mode(struct copy *c)
{
	const struct splice_args *s = &c->a->u.splice;
	int err = copiers[s->mode](c);

	if (err < 0 && c->refused && s->mode != SP_RW) {
		wl_say(c->a->truth, "splice: mode=%s cannot copy from '%s' to "
			"'%s' (%s); falling back to mode=rw\n",
			sp_modes[s->mode].word, s->in,
			strcmp(s->out, "-") ? s->out : "stdout",
			strerror(c->refused));
		err = copy_rw(c);
	}
	if (err < 0)
		wl_say(c->a->truth, "splice: mode=%s failed after %llu bytes: "
			"%s\n", sp_modes[s->mode].word,
			(unsigned long long)c->moved, strerror(-err));
	return err;
}

static int sp_run(const struct workload_args *a)
{
	const struct splice_args *s = &a->u.splice;
	struct copy c = { .a = a, .out = STDOUT_FILENO };
	int err;

	c.in = open(s->in, O_RDONLY | O_CLOEXEC);
	if (c.in < 0) {
		err = -errno;
		wl_say(a->truth, "splice: cannot open '%s': %s\n", s->in,
			strerror(-err));
		return err;
	}
	if (strcmp(s->out, "-"))
		c.out = open(s->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0666);
	if (c.out < 0) {
		err = -errno;
		wl_say(a->truth, "splice: cannot open '%s': %s\n", s->out,
			strerror(-err));
		goto out_close_in;
	}
	err = copy_mode(&c);
	if (c.out != STDOUT_FILENO && close(c.out) < 0 && !err)
		err = -errno;
out_close_in:
	close(c.in);
	return err;
}

const struct workload workload_splice = {
	.name = "splice",
	.summary = "copies a file four ways: splice, rw, sendfile, "
		   "copy_file_range",
	.usage = "iotrace run splice if=big.bin of=- bs=16K mode=splice",
	.keys = sp_keys,
	.parse = sp_parse,
	.prepare = sp_prepare,
	.run = sp_run,
	.cleanup = sp_cleanup,
};
