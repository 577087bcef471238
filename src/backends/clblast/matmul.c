/* The clblast backend's matmul: CLBlastSgemm as the product of the shared OpenCL matmul. */
#include <clblast_c.h>
#include <math.h>
#include <stdlib.h>

#include "backends/backends.h"
#include "backends/clblast/prebuild.h"
#include "backends/clblast/xgemm_override.h"
#include "backends/opencl/cl_matmul_common.h"
#include "backends/opencl/opencl_backend.h"
#include "clgauge/clock.h"
#include "clgauge/xgemm_tuner.h"

static cg_rc sgemm_product(cg_device_matmul *mm, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_matmul_shape s = mm->shape;
  CG_CL(CLBlastSgemm, (CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, (size_t)s.m,
                       (size_t)s.n, (size_t)s.k, 1.0f, mm->a, 0, (size_t)s.k, mm->b, 0,
                       (size_t)s.n, 0.0f, mm->c, 0, (size_t)s.n, &mm->queue, ev));
cleanup:
  return rc;
}

static cg_rc clblast_matmul_prepare(const cg_backend_env *env, const char *variant,
                                    const char *mode, const void *problem, void **state,
                                    cg_prepared *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_device_matmul *mm = NULL;
  /* CLBlast picks direct or indirect GEMM, with padding kernels, per shape: launches unknown. */
  CG_TRY(cg_cl_matmul_create(env, problem, sgemm_product, -1, &mm, err));
  /* CLBlast hands back the event of its last kernel only: a stamp opens each run's span. */
  cg_build_tally tally = {0};
  CG_TRY(cg_cl_matmul_stamp(mm, env, &tally, err));
  /* CLBlast's GEMM program built now (with the Xgemm parameters a tuning or an override gives
   * it), so that the compile phase shows it, not the first run */
  const uint64_t t0 = cg_now_ns();
  CG_TRY(cg_clblast_xgemm_apply(env, &out->config, err));
  const double apply_ms = cg_ns_to_ms(cg_now_ns() - t0);
  CG_TRY(cg_clblast_prebuild(env, mm->queue, CG_CLBLAST_SGEMM, &out->compile_ms, err));
  out->compile_ms += apply_ms;
  out->compile_kind = "library";
  *state = mm;
  mm = NULL;
cleanup:
  cg_cl_matmul_release(mm);
  return rc;
}

static const char *const clblast_variants[] = {"sgemm", NULL};

const cg_impl cg_clblast_matmul = {
    .workload = "matmul",
    .backend = &cg_backend_clblast,
    .variants = clblast_variants,
    .kernel_params = cg_xgemm_params, /* CLBlast's Xgemm: from clgauge tune --backend clblast */
    .prepare = clblast_matmul_prepare,
    .upload = cg_cl_matmul_upload,
    .enqueue = cg_cl_matmul_enqueue,
    .finish = cg_cl_matmul_finish,
    .download = cg_cl_matmul_download,
    .release = cg_cl_matmul_release,
};
