// SPDX-License-Identifier: MIT
/*
 * Syscall names, facts and sets, per personality.  Every name and number
 * is libseccomp's, dumped at build time into build/gen/systab.h
 * (scripts/gen-systab.c); every fact is a row of syscalls/systab.c.  Here
 * they are looked up: a call's personality from its arch and number, its
 * name, its facts, and the -e trace= sets built from names and classes.
 * Nothing is resolved at start-up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "syscalls/syscalls.h"
#include "build/gen/systab.h"

int syscall_locate_other(uint32_t arch, int nr, int *pnr)
{
	int p, found = -1;

	*pnr = nr;
	for (p = 0; p < syscall_npers; p++) {
		const struct syscall_pers *sp = &syscall_pers[p];

		if (sp->arch != arch)
			continue;
		/* A negative number (syscall(-1)) is nobody's x32 call. */
		if (!sp->nr_bit) {
			if (found < 0)
				found = p;
		} else if (nr >= 0 && (nr & sp->nr_bit)) {
			*pnr = nr & ~sp->nr_bit;
			return p;
		}
	}
	return found;
}

/* The name of a named number (offsets in gen_strs: no relocations). */
static const char *name_at(int pers, int nr)
{
	return gen_strs + gen_names[pers][nr];
}

static bool in_table(int pers, int nr)
{
	return pers >= 0 && pers < syscall_npers && nr >= 0 &&
	       nr < SYSCALL_SET_MAX;
}

const struct syscall_fact *syscall_fact(int pers, int nr)
{
	unsigned i = in_table(pers, nr) ? gen_facts[pers][nr] : 0;

	return i ? &syscall_facts[i - 1] : NULL;
}

int syscall_pers_facts(int pers, const uint16_t **nrs)
{
	if (pers < 0 || pers >= syscall_npers)
		return 0;
	*nrs = gen_fact_nrs + gen_fact_nrs_from[pers];
	return gen_fact_nrs_from[pers + 1] - gen_fact_nrs_from[pers];
}

uint32_t syscall_fact_classes(const struct syscall_fact *f)
{
	return f ? f->classes | (f->size ? SC_IO : 0) : 0;
}

const struct syscall_fact *syscall_fact_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < syscall_nfacts; i++)
		if (!strcmp(syscall_facts[i].name, name))
			return &syscall_facts[i];
	return NULL;
}

bool syscall_pers_named(int pers, int nr)
{
	return in_table(pers, nr) && gen_names[pers][nr];
}

const char *syscall_pers_name(int pers, int nr, char *buf, size_t size)
{
	if (syscall_pers_named(pers, nr))
		return name_at(pers, nr);
	snprintf(buf, size, "syscall_%d", nr);
	return buf;
}

const char *syscall_name(uint32_t arch, int nr, char *buf, size_t size)
{
	int pnr, pers = syscall_locate(arch, nr, &pnr);

	return syscall_pers_name(pers, pnr, buf, size);
}

/* pers's named numbers sorted by name, and how many there are. */
static const uint16_t *by_name(int pers, int *n)
{
	*n = gen_by_name_from[pers + 1] - gen_by_name_from[pers];
	return gen_by_name + gen_by_name_from[pers];
}

/* The first of pers's names-sorted numbers whose name is not below name. */
static int lower_bound(int pers, const char *name)
{
	int lo = 0, hi, mid;
	const uint16_t *sorted = by_name(pers, &hi);

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(name_at(pers, sorted[mid]), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int syscall_pers_number(int pers, const char *name)
{
	const uint16_t *sorted;
	int i, n;

	if (pers < 0 || pers >= syscall_npers)
		return -1;
	sorted = by_name(pers, &n);
	i = lower_bound(pers, name);
	if (i < n && !strcmp(name_at(pers, sorted[i]), name))
		return sorted[i];
	return -1;
}

int syscall_number(const char *name)
{
	return syscall_pers_number(0, name);
}

int syscall_pers_find(const char *word)
{
	int p;

	for (p = 0; p < syscall_npers; p++)
		if (!strcmp(syscall_pers[p].name, word))
			return p;
	return -1;
}

/* "syscall_N": 0 and N; -1 for anything else. */
static int unnamed_number(const char *name, int *nr)
{
	const char *digits = name + strlen("syscall_");
	char *end;
	long n;

	if (strncmp(name, "syscall_", strlen("syscall_")) ||
	    !*(digits + (*digits == '-')))
		return -1;
	errno = 0;
	n = strtol(digits, &end, 10);
	if (*end || errno || n < INT32_MIN || n > INT32_MAX)
		return -1;
	*nr = (int)n;
	return 0;
}

int syscall_pers_lookup(int pers, const char *name, int *nr)
{
	*nr = syscall_pers_number(pers, name);
	return *nr >= 0 ? 0 : unnamed_number(name, nr);
}

int syscall_lookup(const char *label, int *pers, int *nr)
{
	char name[SYSCALL_NAME_MAX];
	const char *slash = strchr(label, '/');
	size_t len = slash ? (size_t)(slash - label) : strlen(label);
	int p;

	if (len >= sizeof(name))
		return -1;
	memcpy(name, label, len);
	name[len] = '\0';
	if (slash) {
		*pers = syscall_pers_find(slash + 1);
		return *pers < 0 ? -1 : syscall_pers_lookup(*pers, name, nr);
	}
	for (p = 0; p < syscall_npers; p++) {
		*nr = syscall_pers_number(p, name);
		if (*nr >= 0) {
			*pers = p;
			return 0;
		}
	}
	*pers = 0;
	return unnamed_number(name, nr);
}

/* --- sets --- */

bool syscall_set_has(const struct syscall_set *set, uint32_t arch, int nr)
{
	int pnr, pers = syscall_locate(arch, nr, &pnr);

	return syscall_set_has_pers(set, pers, pnr);
}

static void bit_set(struct syscall_set *set, int pers, int nr, bool on)
{
	uint8_t *b = &set->bits[pers][nr / 8];

	if (on)
		*b |= (uint8_t)(1u << (nr % 8));
	else
		*b &= (uint8_t)~(1u << (nr % 8));
}

/* Every number called name, in every personality; -1 when none. */
static int set_name(struct syscall_set *set, const char *name, bool on)
{
	const uint16_t *sorted;
	int p, i, n, nr, found = -1;

	for (p = 0; p < syscall_npers; p++) {
		sorted = by_name(p, &n);
		for (i = lower_bound(p, name); i < n; i++) {
			nr = sorted[i];
			if (strcmp(name_at(p, nr), name))
				break;
			bit_set(set, p, nr, on);
			found = 0;
		}
	}
	return found;
}

static int set_class(struct syscall_set *set, const char *cls, bool on)
{
	const struct syscall_class *c;
	const uint16_t *nrs;
	int p, i, n, nr;

	for (c = syscall_classes; c->name && strcmp(c->name, cls); c++)
		;
	if (!c->name)
		return -1;
	for (p = 0; p < syscall_npers; p++) {
		n = syscall_pers_facts(p, &nrs);
		for (i = 0; i < n; i++) {
			nr = nrs[i];
			if (syscall_fact_classes(syscall_fact(p, nr)) &
			    c->mask)
				bit_set(set, p, nr, on);
		}
	}
	return 0;
}

static int set_word(struct syscall_set *set, const char *word, bool on)
{
	if (!strcmp(word, "all")) {
		memset(set->bits, on ? 0xff : 0, sizeof(set->bits));
		set->other = on;
		return 0;
	}
	if (!strcmp(word, "none"))
		return 0;
	if (word[0] == '%')
		return set_class(set, word + 1, on);
	/* strace's "?name": a name this arch may lack is no error. */
	if (word[0] == '?')
		return (set_name(set, word + 1, on), 0);
	return set_name(set, word, on);
}

static void set_negate(struct syscall_set *set)
{
	size_t p, i;

	for (p = 0; p < SYSCALL_PERS_MAX; p++)
		for (i = 0; i < sizeof(set->bits[p]); i++)
			set->bits[p][i] = (uint8_t)~set->bits[p][i];
	set->other = !set->other;
}

int syscall_set_parse(struct syscall_set *set, const char *spec,
		      char *bad, size_t badsize)
{
	bool negate = spec[0] == '!';
	char word[128];
	const char *p, *end;

	memset(set, 0, sizeof(*set));
	if (negate)
		spec++;
	if (!*spec) {
		snprintf(bad, badsize, "%s", "(empty)");
		return -1;
	}
	for (p = spec;; p = end + 1) {
		end = strchrnul(p, ',');
		if ((size_t)(end - p) >= sizeof(word) || end == p) {
			snprintf(bad, badsize, "%.*s", (int)(end - p), p);
			return -1;
		}
		snprintf(word, sizeof(word), "%.*s", (int)(end - p), p);
		if (set_word(set, word, true) < 0) {
			snprintf(bad, badsize, "%s", word);
			return -1;
		}
		if (!*end)
			break;
	}
	if (negate)
		set_negate(set);
	return 0;
}
