/* Private to src/backends/cl: the products of the mlp training step through the project's best
 * matrix-product kernel where it fits. The step's two large products, h1 = x w1 (batch x din
 * times din x hidden) and g1 = x^T dz1 (din x batch times batch x hidden), run on the pipelined
 * matmul kernel (cl/matmul.cl, matmul_pipelined.c), g1 on a copy of x transposed once at upload
 * (x does not change during training); every other product goes to a fallback product. */
#ifndef CLGAUGE_CL_MLP_PRODUCTS_H
#define CLGAUGE_CL_MLP_PRODUCTS_H

#include "backends/cl/matmul_pipelined.h"
#include "backends/opencl/cl_mlp_common.h"

typedef struct cg_mlp_products {
  const cg_mlp_device *md;
  cg_device_matmul h1, g1; /* the pipelined kernels of x w1 and x^T dz1 (shape, program, sizes) */
  cl_mem xt;               /* x transposed: din x batch */
  cg_mlp_product other;    /* the products the pipelined kernel does not take */
} cg_mlp_products;

/* Build both pipelined kernels for md's shape and allocate x^T. The h1 kernel's parameters go
 * into config under the kernel's names (MWG, ...), the g1 kernel's under G1_MWG, ... */
cg_rc cg_mlp_products_create(const cg_backend_env *env, const cg_mlp_device *md,
                             cg_mlp_product other, cg_mlp_products *p, cg_kernel_config *config,
                             cg_build_tally *tally, cg_error *err);
/* Write x^T (batch x din x, row-major) to the device; returns when complete. */
cg_rc cg_mlp_products_upload(cg_mlp_products *p, const float *x, cg_error *err);
/* The product function of cg_mlp_product (ctx: the cg_mlp_products). */
cg_rc cg_mlp_products_gemm(void *ctx, cl_command_queue q, const cg_mlp_gemm *g,
                           cg_device_span *span, cg_error *err);
void cg_mlp_products_release(cg_mlp_products *p);

#endif
