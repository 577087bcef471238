/* The mlp step's products on the pipelined matmul kernel where it fits (see mlp_products.h). */
#include "backends/cl/mlp_products.h"

#include <stdlib.h>
#include <string.h>

/* The g1 kernel's parameters as a record names them: G1_ and the kernel's own name, in the order
 * of cg_cl_pipelined_params. */
static const char *const g1_names[] = {"G1_MWG", "G1_NWG", "G1_KWG", "G1_WM",
                                       "G1_WN",  "G1_VW",  "G1_PAD", NULL};
static const char *const d1_names[] = {"D1_MWG", "D1_NWG", "D1_KWG", "D1_WM",
                                       "D1_WN",  "D1_VW",  "D1_PAD", NULL};

/* Products from this k on run split over it. mlp_gemm walks k in tiles of 16 on one work-group
 * per 16 x 16 outputs, about 0.9 us a tile where there are few work-groups per compute unit (on
 * the H200: h1 w2 at 64 x 5000 x 5000 x 8, 313 tiles on 4 work-groups, 285 us; at 1024 x 128 x
 * 8192 x 64, 512 tiles on 256 work-groups, 484 us; bench/RESULTS.md). From 16 tiles on, the
 * split's product (a few tiles per work-group, over the whole device) and its sum's launch take
 * a fraction of that. Below, the products are a few tiles long either way, and a sum's launch
 * would cost more than the split saves. */
#define SPLITK_MIN_K 256
/* dz1 = dz2 w2^T on the pipelined kernel from this many multiply-adds on. On mlp_gemm it ran at
 * 5.9 TFLOP/s on the H200 (1024 x 8192 outputs, k = 64: 182 us), where the pipelined kernel
 * reaches 30 and more; below 2^26 (about 20 us on mlp_gemm) the launch of w2's transpose would
 * take much of what it saves. */
#define DZ1P_MIN_MADDS 67108864.0

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
  CG_TRY(cg_cl_pipelined_build(env, mm, false, &own, tally, err));
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

/* The step's products that neither h1's nor g1's kernel takes, as cl_mlp_common.c's step
 * issues them: m, n, k, and whether it is dz1 = dz2 w2^T. */
static const struct {
  char m, n, k; /* of the shape: 'N' batch, 'D' din, 'H' hidden, 'O' dout */
  bool dz1;
} others[] = {{'N', 'O', 'H', false}, {'N', 'O', 'O', false}, {'O', 'O', 'N', false},
              {'N', 'O', 'O', false}, {'H', 'O', 'N', false}, {'N', 'H', 'O', true}};

static size_t dim(const cg_mlp_shape s, char d) {
  return (size_t)(d == 'N' ? s.batch : d == 'D' ? s.din : d == 'H' ? s.hidden : s.dout);
}

/* The split of a product that goes to the split-K kernel, or a count of 0. */
static cg_mlp_split split_of(const cg_mlp_products *p, size_t m, size_t n, size_t k) {
  if (!p->sk.product || p->splitk == 0 || (p->splitk == 1 && k < SPLITK_MIN_K))
    return (cg_mlp_split){0};
  return cg_mlp_splitk_plan(&p->sk, m, n, k);
}

/* A value from --kernel-param within lo..hi (cg_kernel_override_in), named in the
 * configuration. */
static cg_rc param(const cg_backend_env *env, const char *name, int dflt, int lo, int hi,
                   const char *what, int *out, cg_kernel_config *config, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_origin origin;
  CG_TRY(cg_kernel_override_in(env->overrides, name, dflt, lo, hi, what, out, &origin, err));
  cg_kernel_config_set(config, name, *out, origin);
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
  /* the switches first, so that a bad one is refused before anything is built */
  int on = 0, splits = 0;
  CG_TRY(param(env, "SPLITK", 1, 0, 2, "must be 0 (off), 1 (by k) or 2 (every product)",
               &p->splitk, config, err));
  const double madds = (double)s.batch * (double)s.hidden * (double)s.dout;
  CG_TRY(param(env, "DZ1P", madds >= DZ1P_MIN_MADDS, 0, 1, "must be 0 or 1", &on, config, err));
  p->dz1p = on;
  CG_TRY(param(env, "SPLITS", 0, 0, CG_MLP_MAX_SPLITS,
               "out of range (0: by shape, or 1..256 slices of k)", &splits, config, err));
  _Static_assert(CG_MLP_MAX_SPLITS == 256, "the range in the message of SPLITS");
  CG_TRY(build(env, dev, s.batch, s.hidden, s.din, &p->h1, NULL, config, tally, err));
  CG_TRY(build(env, dev, s.din, s.hidden, s.batch, &p->g1, g1_names, config, tally, err));
  CG_TRY(cg_mlp_buffer(dev, "x^T (din x batch)", (size_t)s.din * (size_t)s.batch, &p->xt, err));
  /* built only where a product goes there (or w2 is transposed): the shapes where none does
   * pay no compile for it */
  bool used = p->dz1p;
  for (size_t i = 0; i < sizeof others / sizeof others[0]; ++i)
    used |= p->splitk == 2 || (p->splitk == 1 && dim(s, others[i].k) >= SPLITK_MIN_K);
  if (used) CG_TRY(cg_mlp_splitk_create(env, splits, &p->sk, config, tally, err));
  if (p->dz1p) {
    CG_TRY(build(env, dev, s.batch, s.hidden, s.dout, &p->d1, d1_names, config, tally, err));
    CG_TRY(cg_mlp_buffer(dev, "w2^T (dout x hidden)", (size_t)s.dout * (size_t)s.hidden,
                         &p->w2t, err));
    p->launches += 1; /* the transpose */
  }
  size_t part = 0;
  for (size_t i = 0; i < sizeof others / sizeof others[0]; ++i) {
    if (others[i].dz1 && p->dz1p) continue;
    const size_t m = dim(s, others[i].m), n = dim(s, others[i].n), k = dim(s, others[i].k);
    const cg_mlp_split sp = split_of(p, m, n, k);
    if (sp.count > 1) {
      p->launches += 1; /* the sum */
      if ((size_t)sp.count * m * n > part) part = (size_t)sp.count * m * n;
    }
  }
  if (part) CG_TRY(cg_mlp_buffer(dev, "split-K partials", part, &p->part, err));
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
                           cg_mlp_sampler *sm, const char *name, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_mlp_products *p = ctx;
  const cg_mlp_device *md = p->md;
  cl_mem a = NULL, b = g->b;
  cg_device_matmul *mm = kernel_for(p, g, &a);
  if (!mm && p->dz1p && !g->ta && g->tb && g->b == md->w2 && g->beta == 0.0f && g->lda == g->k &&
      g->m == (size_t)p->d1.shape.m && g->n == (size_t)p->d1.shape.n &&
      g->k == (size_t)p->d1.shape.k) {
    /* dz2 w2^T: the pipelined kernel takes B as it is stored, so w2 (hidden x dout) is
     * transposed first, into the dout x hidden B it wants */
    CG_TRY(cg_mlp_splitk_transpose(&p->sk, q, g->n, g->k, md->w2, p->w2t,
                                   cg_mlp_kernel_event(sm, "w2^T", NULL), err));
    mm = &p->d1;
    a = g->a;
    b = p->w2t;
  }
  if (!mm) {
    const cg_mlp_split sp = split_of(p, g->m, g->n, g->k);
    if (sp.count > 0) return cg_mlp_splitk_gemm(&p->sk, q, g, sp, p->part, sm, name, err);
    return p->other.gemm(p->other.ctx, q, g, sm, name, err);
  }
  CG_CL(clSetKernelArg, (mm->kernel, 3, sizeof a, &a));
  CG_CL(clSetKernelArg, (mm->kernel, 4, sizeof b, &b));
  CG_CL(clSetKernelArg, (mm->kernel, 5, sizeof g->c, &g->c));
  CG_CL(clEnqueueNDRangeKernel, (q, mm->kernel, 2, NULL, mm->global, mm->local, 0, NULL,
                                 cg_mlp_kernel_event(sm, name, NULL)));
cleanup:
  return rc;
}

void cg_mlp_products_release(cg_mlp_products *p) {
  release_kernel(&p->h1);
  release_kernel(&p->g1);
  release_kernel(&p->d1);
  cg_mlp_splitk_release(&p->sk);
  cg_cl_release_mem(&p->xt);
  cg_cl_release_mem(&p->w2t);
  cg_cl_release_mem(&p->part);
}
