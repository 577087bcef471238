/* The mlp workload with every matrix product through CLBlast and the elementwise parts through
 * the per-op kernels of cl/mlp.cl: the shared per-op step with CLBlastSgemm as its product. */
#include <clblast_c.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backends.h"
#include "backends/clblast/prebuild.h"
#include "backends/clblast/xgemm_override.h"
#include "backends/opencl/cl_mlp_common.h"
#include "clgauge/clock.h"

typedef struct clblast_mlp {
  cg_mlp_device md;
  cg_mlp_step step;
  cl_program program, stamp_program;
  cl_kernel stamp;
} clblast_mlp;

static void clblast_mlp_release(void *state) {
  clblast_mlp *m = state;
  if (!m) return;
  cg_mlp_device_release(&m->md);
  cg_mlp_step_release(&m->step);
  if (m->stamp) clReleaseKernel(m->stamp);
  if (m->program) clReleaseProgram(m->program);
  if (m->stamp_program) clReleaseProgram(m->stamp_program);
  free(m);
}

/* The product through CLBlastSgemm. CLBlast hands back the event of its last kernel only, so a
 * sampled call spans from the end of a stamp enqueued just before it to that event's end: on the
 * in-order queue this covers every kernel of the call, and any time the device waited for
 * CLBlast's host side to submit them. */
static cg_rc sgemm(void *ctx, cl_command_queue q, const cg_mlp_gemm *g, cg_mlp_sampler *sm,
                   const char *name, cg_error *err) {
  cg_rc rc = CG_OK;
  clblast_mlp *m = ctx;
  cg_device_span *span = cg_mlp_sample(sm, name);
  cl_command_queue queue = q;
  if (span) {
    CG_TRY(cg_mlp_stamp(q, m->stamp, &span->begin, err));
    span->begin_at_end = true;
  }
  CG_CL(CLBlastSgemm, (CLBlastLayoutRowMajor, g->ta ? CLBlastTransposeYes : CLBlastTransposeNo,
                       g->tb ? CLBlastTransposeYes : CLBlastTransposeNo, g->m, g->n, g->k, 1.0f,
                       g->a, 0, g->lda, g->b, 0, g->ldb, g->beta, g->c, 0, g->n, &queue,
                       span ? &span->end : NULL));
cleanup:
  return rc;
}

static cg_rc clblast_mlp_prepare(const cg_backend_env *env, const char *variant,
                                 const char *mode, const void *problem, void **state,
                                 cg_prepared *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_mlp_setup *setup = problem;
  clblast_mlp *m = calloc(1, sizeof *m);
  CG_CHECK(m, CG_ERROR, "out of memory");
  cg_clblast_xgemm_warn(env);
  const cg_device *dev = cg_cl_env_device(env);
  const cg_device_info *info = cg_device_get_info(dev);
  CG_TRY(cg_mlp_device_create(dev, setup, &m->md, err));
  CG_TRY(cg_mlp_step_create(dev, &m->md, &m->step, err));

  /* The elementwise kernels are those of the cl backend's per-op variant; the program's gemm
   * kernel goes unused, and its edge only has to be one the device accepts. */
  size_t ts = 16;
  while (ts > 1 && ts * ts > info->max_work_group) ts /= 2;
  memset(&out->config, 0, sizeof out->config);
  snprintf(out->config.build_options, sizeof out->config.build_options, "-DTS=%zu", ts);
  uint64_t t0 = cg_now_ns();
  cg_build_tally tally = {0};
  CG_TRY(cg_backend_build(env, "mlp.cl", out->config.build_options, &m->program, &tally, err));
  CG_TRY(cg_mlp_eltwise_create(m->program, info, &m->step.ew, err));
  /* An empty kernel marks where the device time of a run and of a sampled CLBlast call begins. */
  CG_TRY(cg_backend_build(env, "stamp.cl", NULL, &m->stamp_program, &tally, err));
  m->stamp = clCreateKernel(m->stamp_program, "stamp", &code);
  CG_CL_CHECK(clCreateKernel, code);
  /* Our kernels are built now, and CLBlast's GEMM program (every product's, whatever its
   * transpositions) beside them rather than inside the first run */
  double library_ms = 0;
  CG_TRY(cg_clblast_prebuild(env, m->md.queue, CG_CLBLAST_SGEMM, &library_ms, err));
  out->compile_ms = cg_ns_to_ms(cg_now_ns() - t0);
  out->compile_kind = "library";
  m->step.product = (cg_mlp_product){.gemm = sgemm, .ctx = m, .clblast = true};
  m->step.stamp = m->stamp;
  *state = m;
  m = NULL;
cleanup:
  clblast_mlp_release(m);
  return rc;
}

static cg_rc clblast_mlp_upload(void *state, const void *inputs, cg_error *err) {
  clblast_mlp *m = state;
  return cg_mlp_device_upload(&m->md, inputs, err);
}

static cg_rc clblast_mlp_enqueue(void *state, const cg_run *run, cg_error *err) {
  clblast_mlp *m = state;
  return cg_mlp_step_enqueue(&m->step, &m->md, run->iters, err);
}

static cg_rc clblast_mlp_finish(void *state, cg_run_result *out, cg_error *err) {
  clblast_mlp *m = state;
  /* Unknown, as for the matmul: CLBlast picks direct or indirect GEMM, with padding and
   * transposition kernels, per shape, next to our 7 (8 with update_w3) elementwise kernels and
   * 8 CLBlastSgemm calls per iteration: at least 15 (16) launches, a call counting one. */
  const cg_rc rc = cg_mlp_device_finish(&m->md, -1, out, err);
  out->launches_at_least = m->md.setup.update_w3 ? 16 : 15;
  return rc;
}

static cg_rc clblast_mlp_download(void *state, void *outputs, cg_error *err) {
  clblast_mlp *m = state;
  return cg_mlp_device_download(&m->md, outputs, err);
}

static const char *const clblast_mlp_variants[] = {"sgemm", NULL};
const cg_impl cg_clblast_mlp = {
    .workload = "mlp",
    .backend = &cg_backend_clblast,
    .variants = clblast_mlp_variants,
    .prepare = clblast_mlp_prepare,
    .upload = clblast_mlp_upload,
    .enqueue = clblast_mlp_enqueue,
    .finish = clblast_mlp_finish,
    .download = clblast_mlp_download,
    .release = clblast_mlp_release,
};
