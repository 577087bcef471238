/* Private to src/backends/cl: the kernels of cl/mlp_splitk.cl for the mlp's products step: a
 * register-blocked product over slices of k (split-K) with a fixed-order sum of the slices, for
 * products with few outputs and a long k (h1 w2: 1024 x 64 outputs over k = 8192 are 16 blocks
 * of 64 x 64 for a device of 132 compute units), and a transpose. Built once per run for any
 * product: sizes and strides are arguments. */
#ifndef CLGAUGE_CL_MLP_SPLITK_H
#define CLGAUGE_CL_MLP_SPLITK_H

#include "backends/opencl/cl_mlp_common.h"

typedef struct cg_mlp_splitk {
  cl_program program;
  cl_kernel product, sum, transpose;
  int bm, bn, kt;      /* block of C per work-group and k per tile (the -D macros) */
  size_t tedge;        /* edge of the transpose's square work-group */
  long units;          /* the device's compute units */
  int splits;          /* --kernel-param SPLITS: slices of every product; 0: by shape */
} cg_mlp_splitk;

/* The most slices of one product, --kernel-param SPLITS included. */
enum { CG_MLP_MAX_SPLITS = 256 };

/* Slices of k for one product: count, and the k of each but the last. */
typedef struct cg_mlp_split {
  int count, slice;
} cg_mlp_split;

/* Build for this device: 64 x 64 blocks, smaller where the kernel's work-items or local memory
 * do not fit them; the block goes into config. splits: the slices of every product (0: by
 * shape, else 1..CG_MLP_MAX_SPLITS). */
cg_rc cg_mlp_splitk_create(const cg_backend_env *env, int splits, cg_mlp_splitk *sk,
                           cg_kernel_config *config, cg_build_tally *tally, cg_error *err);
/* The slices for an m x n product over k: enough work-groups for two per compute unit, each
 * slice at least a few tiles long (or SPLITS, at most a slice per tile). */
cg_mlp_split cg_mlp_splitk_plan(const cg_mlp_splitk *sk, size_t m, size_t n, size_t k);
/* Enqueue g in the slices of `split`: one launch, or with several slices, the partials into
 * `part` (at least count x m x n floats) and a second launch that sums them into g->c. Each
 * takes a span of sm (the product's named `name`). */
cg_rc cg_mlp_splitk_gemm(const cg_mlp_splitk *sk, cl_command_queue q, const cg_mlp_gemm *g,
                         cg_mlp_split split, cl_mem part, cg_mlp_sampler *sm, const char *name,
                         cg_error *err);
/* dst (cols x rows) = src (rows x cols)^T; ev (may be NULL) receives the event. */
cg_rc cg_mlp_splitk_transpose(const cg_mlp_splitk *sk, cl_command_queue q, size_t rows,
                              size_t cols, cl_mem src, cl_mem dst, cl_event *ev, cg_error *err);
void cg_mlp_splitk_release(cg_mlp_splitk *sk);

#endif
