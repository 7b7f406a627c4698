// SPDX-License-Identifier: MIT
/*
 * The fast path as an extension of the ptrace engine's stop loop: its
 * row of loop_extensions[] (tracer/ptrace/ptrace.c), the hooks of
 * fast.c in a struct loop_hooks (tracer/ptrace/ptrace.h), so that the
 * loop calls them through the table and names none of them.
 */
#include "tracer/rewrite/fast-int.h"

/* fast_start()'s 0 or -errno, and whether it turned the fast path on. */
static int hook_start(struct loop *l, const struct tracer_target *target)
{
	int err = fast_start(l, target);

	return err < 0 ? err : l->fast != NULL;
}

const struct loop_hooks fast_hooks = {
	.prepare = fast_warm_start,
	.start = hook_start,
	.finish = fast_finish,
	.own_stop = fast_own_stop,
	.replay = fast_replay,
	.entry = fast_entry,
	.exit_stop = fast_exit,
	.exec_event = fast_exec_event,
	.spawned = fast_spawned,
	.exit_event = fast_exit_event,
	.gone = fast_gone,
	.hold_first = fast_hold_first,
	.new_task = fast_new_task,
	.any_stop = fast_any_stop,
	.stub_site = fast_stub_site,
	.signal_stop = fast_signal_stop,
};
