// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the parsers of command-line values (`make fuzz`):
 * every line of the input goes to dd's size parser (wl_parse_size) and to
 * -p's and --duration's (cli/attach.c); the lines after the first are
 * KEY=VALUE words for the workload the first line names ("dd",
 * "bufwrite", "splice"), through its own parse().  A parse either
 * succeeds or says which key and why.  cli/ reports a bad value with
 * usage_error(), which exits: here it jumps back instead.  Inputs with
 * a '/' are skipped, so parse()'s checks (open read-only, non-blocking,
 * stat, access) see only names in the current directory and the
 * workloads' defaults (/dev/zero, /dev/null), never a device the input
 * names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "workloads/workload.h"

#define FUZZ_ARGS_MAX 64

static jmp_buf usage_jump;

/* cli/main.c's, which exits (status 2): back to the fuzzer instead. */
void usage_error(const char *fmt, ...)
{
	(void)fmt;
	longjmp(usage_jump, 1);
}

int error(const char *fmt, ...)
{
	(void)fmt;
	return -1;
}

/* cmd_attach()'s run, which parsing never reaches. */
int trace_and_report(struct cli_opts *o, const struct tracer_target *target,
		     int argc, char **argv,
		     int (*before)(struct profile *p, void *arg), void *arg)
{
	(void)o, (void)target, (void)argc, (void)argv, (void)before, (void)arg;
	abort();
}

static void parse_cli_values(const char *word)
{
	struct cli_opts o = { .npids = 0 };
	uint64_t n;

	wl_parse_size(word, &n);
	if (!setjmp(usage_jump))
		attach_parse_duration(&o, word);
	if (!setjmp(usage_jump))
		attach_parse_pids(&o, word);
	free(o.pids);
}

static void parse_workload(char **words, int n)
{
	const struct workload *w = workload_find(words[0]);
	struct workload_args *a;

	if (!w)
		return;
	a = calloc(1, sizeof(*a));
	if (!a)
		return;
	a->wl = w;
	if (w->parse(a, n - 1, words + 1) < 0 && !a->err[0])
		__builtin_trap();	/* every refusal says why */
	free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *words[FUZZ_ARGS_MAX], *save = NULL;
	int n = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (strchr(text, '/'))
		goto out_free;
	for (words[n] = strtok_r(text, "\n", &save); words[n] &&
	     n < FUZZ_ARGS_MAX - 1; words[n] = strtok_r(NULL, "\n", &save))
		parse_cli_values(words[n++]);
	words[n] = NULL;
	if (n)
		parse_workload(words, n);
out_free:
	free(text);
	return 0;
}
