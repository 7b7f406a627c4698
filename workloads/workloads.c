// SPDX-License-Identifier: MIT
/*
 * The registry of built-in workloads: `iotrace run --list` prints them in
 * this order, `iotrace run NAME` finds one here.  A new workload is a new
 * file and one row below.
 */
#include <string.h>
#include "workloads/workload.h"

const struct workload *const workloads[] = {
	&workload_dd,
	&workload_bufwrite,
	&workload_splice,
	NULL,
};

const struct workload *workload_find(const char *name)
{
	const struct workload *const *w;

	for (w = workloads; *w; w++)
		if (!strcmp((*w)->name, name))
			return *w;
	return NULL;
}
