/* Private to src/backends/cl: the fused linear variant's persistent path, one launch of
 * cl/linear_persistent.cl per epoch (resident mode) or per uploaded group of batches (pinned
 * mode) where its work-groups are resident at once, with the two launches per batch of
 * cl/linear.cl as the fallback. */
#ifndef CLGAUGE_CL_LINEAR_PERSISTENT_H
#define CLGAUGE_CL_LINEAR_PERSISTENT_H

#include "backends/opencl/cl_linear_common.h"

/* Decide for the instance (resident or pinned mode) and, when the persistent path runs, build
 * its kernel and take over l's epoch (compute_epoch and check_epoch, or compute_group and
 * check_groups; ext); otherwise l stays as it is. The
 * record's path and parameters go to config, the build's time to *compile_ms. */
cg_rc cg_cl_linear_persistent_setup(const cg_backend_env *env, cg_linear_device *l,
                                    cg_kernel_config *config, double *compile_ms,
                                    cg_build_tally *tally, cg_error *err);

#endif
