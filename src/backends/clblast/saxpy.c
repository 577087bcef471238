/* The clblast backend's saxpy: CLBlastSaxpy as the update of the shared OpenCL saxpy. */
#include <clblast_c.h>
#include <math.h>
#include <stdlib.h>

#include "backends/backends.h"
#include "backends/clblast/prebuild.h"
#include "backends/opencl/cl_saxpy_common.h"

static cg_rc clblast_update(cg_device_saxpy *sx, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  CG_CL(CLBlastSaxpy, ((size_t)sx->problem.n, sx->problem.a, sx->x, 0, 1, sx->y, 0, 1,
                       &sx->queue, ev));
cleanup:
  return rc;
}

static cg_rc clblast_saxpy_prepare(const cg_backend_env *env, const char *variant,
                                   const char *mode, const void *problem, void **state,
                                   cg_prepared *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_device_saxpy *sx = NULL;
  /* CLBlast picks among its axpy kernels per size and device: launches unknown. */
  CG_TRY(cg_cl_saxpy_create(env, problem, clblast_update, -1, &sx, err));
  /* CLBlast hands back the event of its last kernel only: a stamp opens each run's span. */
  cg_build_tally tally = {0};
  CG_TRY(cg_cl_saxpy_stamp(sx, env, &tally, err));
  /* CLBlast's AXPY program built now, so that the compile phase shows it, not the first run */
  CG_TRY(cg_clblast_prebuild(env, sx->queue, CG_CLBLAST_SAXPY, &out->compile_ms, err));
  out->compile_kind = "library";
  *state = sx;
  sx = NULL;
cleanup:
  cg_cl_saxpy_release(sx);
  return rc;
}

static const char *const clblast_variants[] = {"saxpy", NULL};

const cg_impl cg_clblast_saxpy = {
    .workload = "saxpy",
    .backend = &cg_backend_clblast,
    .variants = clblast_variants,
    .prepare = clblast_saxpy_prepare,
    .upload = cg_cl_saxpy_upload,
    .enqueue = cg_cl_saxpy_enqueue,
    .finish = cg_cl_saxpy_finish,
    .download = cg_cl_saxpy_download,
    .release = cg_cl_saxpy_release,
};
