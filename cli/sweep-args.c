// SPDX-License-Identifier: MIT
/*
 * The values of `iotrace sweep` and the command line of each point:
 * KEY=V1,V2,... split with every value kept (an empty one leaves the key
 * out), KEY=value added to a workload's words, or {} replaced in every
 * word of -- CMD (an empty value drops the words NAME={}).
 */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/sweep-int.h"

static void add_value(struct sweep_opts *so, char *v)
{
	size_t i;

	for (i = 0; i < so->nvalues; i++)
		if (!strcmp(so->values[i], v))
			usage_error("sweep: %s '%s' given twice", *v ?
				    "value" : "empty value (the key left out)",
				    v);
	if (so->nvalues == SWEEP_MAX_POINTS)
		usage_error("sweep: more than %d values", SWEEP_MAX_POINTS);
	so->values[so->nvalues++] = v;
}

/*
 * KEY=V1,V2,...: every value kept, an empty one too ("iflag=,direct"
 * sweeps no iflag against iflag=direct), so a point is never dropped
 * unsaid; "bs=" alone sweeps nothing and is refused.
 */
void parse_values(struct sweep_opts *so, char *spec)
{
	char *eq = strchr(spec, '='), *v, *comma;

	if (!eq || eq == spec || !eq[1])
		usage_error("sweep: expected KEY=V1,V2,... but got '%s'", spec);
	*eq = '\0';
	so->key = spec;
	for (v = eq + 1; v; v = comma) {
		comma = strchr(v, ',');
		if (comma)
			*comma++ = '\0';
		add_value(so, v);
	}
}

/* "dd" "bs={}" -> "dd" "bs=4K": every {} of every word, for -- CMD. */
static char *substitute(const char *word, const char *value)
{
	size_t vlen = strlen(value), n = 0;
	const char *p;
	char *out, *o;

	for (p = word; (p = strstr(p, "{}")); p += 2)
		n++;
	out = malloc(strlen(word) + n * vlen + 1);
	if (!out)
		return NULL;
	for (o = out; *word;) {
		if (word[0] == '{' && word[1] == '}') {
			memcpy(o, value, vlen);
			o += vlen;
			word += 2;
		} else {
			*o++ = *word++;
		}
	}
	*o = '\0';
	return out;
}

void free_argv(char **argv)
{
	char **a;

	for (a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

/*
 * A word an empty value leaves out: NAME={} whole, NAME letters, digits
 * and "_.-" ("iflag={}", "--size={}"), so the command runs without the
 * key; "dd iflag={}" inside sh -c is a script, not a key, and stays.
 */
bool key_word(const char *word)
{
	size_t n = strspn(word, "abcdefghijklmnopqrstuvwxyz"
			  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");

	return n > 0 && !strcmp(word + n, "={}");
}

/* Whether the value's point leaves word out of the command. */
static bool dropped(const struct sweep_opts *so, const char *value,
		    const char *word)
{
	return !so->run && !*value && key_word(word);
}

char **point_argv(const struct sweep_opts *so, const char *value,
			 int *argc)
{
	char **argv = calloc((size_t)so->argc + 2, sizeof(*argv));
	int i, n = 0;

	if (!argv)
		return NULL;
	for (i = 0; i < so->argc; i++) {
		if (dropped(so, value, so->argv[i]))
			continue;
		if (!(argv[n++] = so->run ? strdup(so->argv[i]) :
					    substitute(so->argv[i], value)))
			goto out_free;
	}
	if (so->run && *value) {
		if (asprintf(&argv[n], "%s=%s", so->key, value) < 0) {
			argv[n] = NULL;
			goto out_free;
		}
		n++;
	}
	*argc = n;
	return argv;
out_free:
	free_argv(argv);
	return NULL;
}

static bool has_placeholder(const struct sweep_opts *so,
			    bool (*ok)(const char *))
{
	int i;

	for (i = 0; i < so->argc; i++)
		if (strstr(so->argv[i], "{}") && (!ok || ok(so->argv[i])))
			return true;
	return false;
}

static bool has_empty(const struct sweep_opts *so)
{
	size_t i;

	for (i = 0; i < so->nvalues; i++)
		if (!so->values[i][0])
			return true;
	return false;
}

void check_placeholders(const struct sweep_opts *so)
{
	if (!has_placeholder(so, NULL))
		usage_error("sweep: no {} in the command for the values of '%s'",
			    so->key);
	if (has_empty(so) && !has_placeholder(so, key_word))
		usage_error("sweep: an empty value leaves '%s' out, but no "
			    "word of the command is NAME={} to drop", so->key);
}

