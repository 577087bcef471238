/* Private to src/backends/cl: the products of the mlp training step, each on a kernel that suits
 * its shape. The step's two large products, h1 = x w1 (batch x din times din x hidden) and g1 =
 * x^T dz1 (din x batch times batch x hidden), run on the pipelined matmul kernel (cl/matmul.cl,
 * matmul_pipelined.c), g1 on a copy of x transposed once at upload (x does not change during
 * training); so does dz1 = dz2 w2^T where it is large, on w2 transposed before it (w2 changes
 * every step). Products with a long k (h1 w2 and h1^T dz2 over the hidden layer or the batch)
 * run split over k on the register-blocked kernel of mlp_splitk.c; every other product goes to
 * a fallback product. --kernel-param SPLITK=0 and DZ1P=0 send them back to the fallback,
 * SPLITK=2 sends every product there to the split-K kernel, SPLITS=S splits each in S. */
#ifndef CLGAUGE_CL_MLP_PRODUCTS_H
#define CLGAUGE_CL_MLP_PRODUCTS_H

#include "backends/cl/matmul_pipelined.h"
#include "backends/cl/mlp_splitk.h"
#include "backends/opencl/cl_mlp_common.h"

typedef struct cg_mlp_products {
  const cg_mlp_device *md;
  cg_device_matmul h1, g1; /* the pipelined kernels of x w1 and x^T dz1 (shape, program, sizes) */
  cg_device_matmul d1;     /* and of dz2 w2^T, where dz1p */
  cl_mem xt;               /* x transposed: din x batch */
  cl_mem w2t;              /* w2 transposed (dout x hidden), where dz1p */
  int splitk;              /* to the split-K kernel: 0 no product, 1 those with a long k, 2 all */
  bool dz1p;               /* dz1 on the pipelined kernel */
  cg_mlp_splitk sk;        /* the split-K kernels (built where splitk or dz1p) */
  cl_mem part;             /* the split products' partials (NULL where none is split) */
  int launches;            /* launches per step beyond one per product */
  cg_mlp_product other;    /* the products no other kernel takes */
} cg_mlp_products;

/* Build the kernels for md's shape and allocate x^T and the partials. The h1 kernel's parameters
 * go into config under the kernel's names (MWG, ...), the g1 kernel's under G1_MWG, ..., the dz1
 * kernel's under D1_MWG, ...; the routing under SPLITK and DZ1P, the split-K kernel's under
 * SPLITS, SK_BM, SK_BN and SK_KT. */
cg_rc cg_mlp_products_create(const cg_backend_env *env, const cg_mlp_device *md,
                             cg_mlp_product other, cg_mlp_products *p, cg_kernel_config *config,
                             cg_build_tally *tally, cg_error *err);
/* Write x^T (batch x din x, row-major) to the device; returns when complete. */
cg_rc cg_mlp_products_upload(cg_mlp_products *p, const float *x, cg_error *err);
/* The product function of cg_mlp_product (ctx: the cg_mlp_products). */
cg_rc cg_mlp_products_gemm(void *ctx, cl_command_queue q, const cg_mlp_gemm *g,
                           cg_mlp_sampler *sm, const char *name, cg_error *err);
void cg_mlp_products_release(cg_mlp_products *p);

#endif
