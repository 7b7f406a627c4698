// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for `iotrace diff` on loaded pairs (`make fuzz`):
 * the input is a --fail-if line (expressions separated by ';', one per
 * --fail-if), a -S key line ('!' first: --raw-time), then BASE and NEW
 * separated by a line "====".  Each side is read as JSON when it
 * starts with '{' after blanks, as an strace -c table otherwise, as
 * `iotrace diff` reads files.  Whatever loads is compared, sorted,
 * checked against the terms that parse and rendered both ways, as
 * cli/diff.c does; ASan and UBSan watch.  tests/fuzz/replay.c runs the
 * same entry on the seeds in `make check`.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "compare/compare.h"

static const char separator[] = "\n====\n";

/* Loads one side the way profile_load() tells JSON from a table. */
static int load_side(struct profile *p, const char *text, size_t len)
{
	struct load_error e;
	size_t i = strspn(text, " \t\r\n");

	profile_init(p);
	if (i < len && text[i] == '{')
		return profile_from_json(p, text, len, &e);
	return profile_from_strace_text(p, text, len, &e);
}

/* Every --fail-if of the line; stops at the first that cannot parse. */
static void parse_terms(struct fail_if *f, char *line)
{
	char bad[160], *expr, *save = NULL;
	int err;

	f->n = 0;
	for (expr = strtok_r(line, ";", &save); expr;
	     expr = strtok_r(NULL, ";", &save)) {
		bad[0] = '\0';
		err = fail_if_parse(f, expr, bad, sizeof(bad));
		if (err == -EINVAL && !bad[0])
			__builtin_trap();	/* a refusal says why */
		if (err < 0) {
			f->n = 0;	/* cli/diff.c stops here (exit 2) */
			return;
		}
	}
}

static void compare(struct profile *base, struct profile *new,
		    struct fail_if *f, const char *key, bool raw)
{
	struct report_opts o = { .format = FMT_TABLE, .raw_time = raw };
	int results[FAIL_IF_MAX] = { 0 };
	char what[160], headline[512];
	FILE *null = fopen("/dev/null", "w");
	struct diff d;
	size_t i;

	if (!null || diff_build(&d, base, new, &o) < 0)
		goto out_close;
	d.base_name = "base";
	d.new_name = "new";
	if (diff_sort(&d, key) < 0)
		diff_sort(&d, "time");
	for (i = 0; i < f->n; i++)
		results[i] = fail_if_eval(f, i, &d, what, sizeof(what)) > 0;
	diff_headline(&d, headline, sizeof(headline));
	diff_render_table(null, &d);
	diff_render_json(null, &d, f->n ? f : NULL, results);
	diff_release(&d);
out_close:
	if (null)
		fclose(null);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *expr, *key, *base, *new, *sep;
	struct profile pb, pn;
	struct fail_if f;
	bool raw;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	expr = text;
	key = strchr(expr, '\n');
	base = key ? strchr(key + 1, '\n') : NULL;
	sep = base ? strstr(base, separator) : NULL;
	if (!sep)
		goto out_free;
	*key++ = *base++ = *sep = '\0';
	new = sep + strlen(separator);
	parse_terms(&f, expr);
	raw = *key == '!';
	if (load_side(&pb, base, (size_t)(sep - base)) < 0)
		goto out_free;
	if (load_side(&pn, new, size - (size_t)(new - text)) == 0) {
		compare(&pb, &pn, &f, key + raw, raw);
		profile_release(&pn);
	}
	profile_release(&pb);
out_free:
	free(text);
	return 0;
}
