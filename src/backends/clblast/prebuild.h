/* CLBlast's programs built before the timed runs: one small call of each routine a record uses. */
#ifndef CLGAUGE_CLBLAST_PREBUILD_H
#define CLGAUGE_CLBLAST_PREBUILD_H

#include <CL/cl.h>

#include "clgauge/backend.h"
#include "clgauge/error.h"

/* The routines, as flags. */
enum { CG_CLBLAST_SGEMM = 1u, CG_CLBLAST_SAXPY = 2u };

/* Build the programs of the routines (flags above) on the record's device and queue, by one
 * call of each on one-element buffers of their own, waited for; *ms is the time it took. The
 * compile phase then shows what CLBlast compiles (kind "library") instead of the first run. */
cg_rc cg_clblast_prebuild(const cg_backend_env *env, cl_command_queue queue, unsigned routines,
                          double *ms, cg_error *err);

#endif
