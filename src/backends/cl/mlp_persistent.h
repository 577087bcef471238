/* Private to src/backends/cl: the fused mlp variant's persistent path, a run's iterations in one
 * launch of cl/mlp_persistent.cl where its work-groups are resident at once (PERSIST=1; see
 * persistent.h), with the fused launches of mlp.c as the fallback. */
#ifndef CLGAUGE_CL_MLP_PERSISTENT_H
#define CLGAUGE_CL_MLP_PERSISTENT_H

#include <stdbool.h>

#include "backends/opencl/cl_mlp_common.h"

typedef struct cg_cl_mlp_persistent cg_cl_mlp_persistent;

/* Decide for the instance; *out is NULL when the launches run (config->path says why), else the
 * persistent path's state. The build's time goes to *compile_ms, its builds to *tally. */
cg_rc cg_cl_mlp_persistent_setup(const cg_backend_env *env, const cg_mlp_device *md,
                                 cg_kernel_config *config, double *compile_ms,
                                 cg_build_tally *tally,
                                 cg_cl_mlp_persistent **out, cg_error *err);
/* Whether the next run goes through the persistent launch (false after one failed). */
bool cg_cl_mlp_persistent_on(const cg_cl_mlp_persistent *p);
/* A run of `iters` iterations in one launch, into md's span. */
cg_rc cg_cl_mlp_persistent_enqueue(cg_cl_mlp_persistent *p, cg_mlp_device *md, int iters,
                                   cg_error *err);
/* After the run has finished: *redo when its launch failed (a barrier timed out), with the
 * weights restored to what they were before it and the path switched to launches; *iters the
 * run's iterations, for the redo. */
cg_rc cg_cl_mlp_persistent_check(cg_cl_mlp_persistent *p, cg_mlp_device *md, bool *redo,
                                 int *iters, cg_error *err);
/* The record's path when it changed during the run, else NULL. */
const char *cg_cl_mlp_persistent_path(const cg_cl_mlp_persistent *p);
void cg_cl_mlp_persistent_release(cg_cl_mlp_persistent *p);

#endif
