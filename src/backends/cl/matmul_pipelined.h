/* Private to src/backends/cl: the parameters of the pipelined matmul kernel (cl/matmul.cl's
 * matmul_pipelined): the default for a device and shape (by the device's compute units),
 * --kernel-param overrides, and the fallback to smaller parameters where the device's limits
 * require it. */
#ifndef CLGAUGE_CL_MATMUL_PIPELINED_H
#define CLGAUGE_CL_MATMUL_PIPELINED_H

#include <stdbool.h>

#include "backends/opencl/cl_matmul_common.h"

/* Build mm->program and mm->kernel (matmul_pipelined) for mm's shape, record the parameters that
 * ran in config, and set mm->local and mm->global. With `split_tail`, the blocks of a last wave
 * that would leave compute units idle may be split along k (parameters SPLITS and TAIL, recorded
 * always): then the kernel's arguments after C are set, and mm->sum adds the parts into C after
 * mm->kernel (mm->launches 2). The caller sets the arguments M, N, K, A, B and C. */
cg_rc cg_cl_pipelined_build(const cg_backend_env *env, cg_device_matmul *mm, bool split_tail,
                            cg_kernel_config *config, cg_build_tally *tally, cg_error *err);

/* The names of its parameters, NULL-terminated (the -D macros of cl/matmul.cl). */
extern const char *const cg_cl_pipelined_params[];
enum { CG_CL_PIPELINED_NPARAMS = 7 };

/* The parameters the build starts from for that device and shape (in the order of
 * cg_cl_pipelined_params), before overrides, tuned values and the device's limits: on a GPU, the
 * block of C with the least time by a model of wave quantisation over the device's compute
 * units (with `split_tail`, a block whose last wave's blocks split along k where that gains
 * enough); on a CPU device, one block for every shape. *splits (may be NULL): the parts each
 * split block takes, 1 where none is split. */
void cg_cl_pipelined_default(const cg_device_info *info, const cg_matmul_shape *shape,
                             bool split_tail, int values[CG_CL_PIPELINED_NPARAMS], int *splits);

/* The parts each of the tail's blocks takes at that shape, for the block in values, with a tuned
 * SPLITS of `splits`: those parts (fewer where k is short), 1 where the shape leaves no tail or
 * `splits` is 1, and 0 where the model puts the split behind none (then the build runs its
 * default split). */
int cg_cl_pipelined_tuned_splits(const cg_device_info *info, const cg_matmul_shape *shape,
                                 const int values[CG_CL_PIPELINED_NPARAMS], int splits);

/* The parameters the build chooses by itself at that shape (cg_cl_pipelined_default, with the
 * split of its last wave as SPLITS), into out (origins DEFAULT). */
void cg_cl_pipelined_own_choice(const cg_device_info *info, const cg_matmul_shape *shape,
                                cg_kernel_overrides *out);

/* Whether a tuned block in values keeps its tuned parameters at that shape: on a GPU, where it
 * fills at least 0.85 of the share of its waves that the default fills, its tail split as
 * `split_origin` says (override: `splits` parts of `tail` blocks, 0 for the model's tail; tuned:
 * as cg_cl_pipelined_tuned_splits; default: none); always on a CPU device. */
bool cg_cl_pipelined_fills_waves(const cg_device_info *info, const cg_matmul_shape *shape,
                                 const int values[CG_CL_PIPELINED_NPARAMS], cg_origin split_origin,
                                 int splits, int tail);

#endif
