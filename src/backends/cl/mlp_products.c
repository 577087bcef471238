/* The mlp step's products on the pipelined matmul kernel where it fits (see mlp_products.h). */
#include "backends/cl/mlp_products.h"

#include <stdlib.h>
#include <string.h>

/* The g1 kernel's parameters as a record names them: G1_ and the kernel's own name, in the order
 * of cg_cl_pipelined_params. */
static const char *const g1_names[] = {"G1_MWG", "G1_NWG", "G1_KWG", "G1_WM",
                                       "G1_WN",  "G1_VW",  "G1_PAD", NULL};

static void release_kernel(cg_device_matmul *mm) {
  if (mm->kernel) clReleaseKernel(mm->kernel);
  if (mm->program) clReleaseProgram(mm->program);
  mm->kernel = NULL;
  mm->program = NULL;
}

/* Build the pipelined kernel of C (m x n) = A (m x k) B (k x n) for this shape, with its
 * parameters into `into` (renamed by `names` when not NULL). */
static cg_rc build(const cg_backend_env *env, const cg_device *dev, int m, int n, int k,
                   cg_device_matmul *mm, const char *const *names, cg_kernel_config *into,
                   cg_build_tally *tally, cg_error *err) {
  cg_rc rc = CG_OK;
  memset(mm, 0, sizeof *mm);
  mm->dev = dev;
  mm->shape = (cg_matmul_shape){.m = m, .n = n, .k = k};
  cg_kernel_config own = {0};
  CG_TRY(cg_cl_pipelined_build(env, mm, &own, tally, err));
  for (int i = 0; i < own.nparams; ++i) {
    const char *name = own.params[i].name;
    for (int j = 0; names && cg_cl_pipelined_params[j]; ++j)
      if (strcmp(name, cg_cl_pipelined_params[j]) == 0) name = names[j];
    cg_kernel_config_set(into, name, own.params[i].value, own.params[i].origin);
  }
  const cl_int args[3] = {m, n, k};
  for (cl_uint i = 0; i < 3; ++i) CG_CL(clSetKernelArg, (mm->kernel, i, sizeof(cl_int), &args[i]));
cleanup:
  return rc;
}

cg_rc cg_mlp_products_create(const cg_backend_env *env, const cg_mlp_device *md,
                             cg_mlp_product other, cg_mlp_products *p, cg_kernel_config *config,
                             cg_build_tally *tally, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_device *dev = cg_cl_env_device(env);
  const cg_mlp_shape s = md->setup.shape;
  memset(p, 0, sizeof *p);
  p->md = md;
  p->other = other;
  CG_TRY(build(env, dev, s.batch, s.hidden, s.din, &p->h1, NULL, config, tally, err));
  CG_TRY(build(env, dev, s.din, s.hidden, s.batch, &p->g1, g1_names, config, tally, err));
  CG_TRY(cg_mlp_buffer(dev, "x^T (din x batch)", (size_t)s.din * (size_t)s.batch, &p->xt, err));
cleanup:
  return rc;
}

cg_rc cg_mlp_products_upload(cg_mlp_products *p, const float *x, cg_error *err) {
  cg_rc rc = CG_OK;
  const size_t N = (size_t)p->md->setup.shape.batch, D = (size_t)p->md->setup.shape.din;
  float *t = malloc(N * D * sizeof *t);
  CG_CHECK(t, CG_ERROR, "out of host memory for x^T (%zu floats)", N * D);
  for (size_t n = 0; n < N; ++n)
    for (size_t d = 0; d < D; ++d) t[d * N + n] = x[n * D + d];
  CG_CL(clEnqueueWriteBuffer,
        (p->md->queue, p->xt, CL_TRUE, 0, N * D * sizeof *t, t, 0, NULL, NULL));
cleanup:
  free(t);
  return rc;
}

/* The pipelined kernel that computes g, with its A operand, or NULL: x w1 as it is, and x^T dz1
 * from x^T. It takes dense row-major operands, no transposes, and no accumulation. */
static cg_device_matmul *kernel_for(cg_mlp_products *p, const cg_mlp_gemm *g, cl_mem *a) {
  const cg_mlp_device *md = p->md;
  if (g->tb || g->beta != 0.0f || g->a != md->x) return NULL;
  cg_device_matmul *mm = g->ta ? &p->g1 : &p->h1;
  const cg_matmul_shape s = mm->shape;
  if (g->m != (size_t)s.m || g->n != (size_t)s.n || g->k != (size_t)s.k || g->ldb != g->n)
    return NULL;
  *a = g->ta ? p->xt : md->x;
  return mm;
}

cg_rc cg_mlp_products_gemm(void *ctx, cl_command_queue q, const cg_mlp_gemm *g,
                           cg_device_span *span, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_mlp_products *p = ctx;
  cl_mem a = NULL;
  cg_device_matmul *mm = kernel_for(p, g, &a);
  if (!mm) return p->other.gemm(p->other.ctx, q, g, span, err);
  CG_CL(clSetKernelArg, (mm->kernel, 3, sizeof a, &a));
  CG_CL(clSetKernelArg, (mm->kernel, 4, sizeof g->b, &g->b));
  CG_CL(clSetKernelArg, (mm->kernel, 5, sizeof g->c, &g->c));
  CG_CL(clEnqueueNDRangeKernel,
        (q, mm->kernel, 2, NULL, mm->global, mm->local, 0, NULL, span ? &span->begin : NULL));
cleanup:
  return rc;
}

void cg_mlp_products_release(cg_mlp_products *p) {
  release_kernel(&p->h1);
  release_kernel(&p->g1);
  cg_cl_release_mem(&p->xt);
}
