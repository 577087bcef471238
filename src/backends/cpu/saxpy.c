/* The cpu backend's saxpy: OpenBLAS cblas_saxpy on the host, on a copy of y of its own so that
 * the inputs stay as they are for the other backends. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backends.h"
#include "clgauge/reference.h"
#include "clgauge/saxpy.h"

typedef struct cpu_saxpy {
  cg_saxpy_problem problem;
  const float *x;
  float *y;
} cpu_saxpy;

static void cpu_saxpy_release(void *state) {
  cpu_saxpy *sx = state;
  if (!sx) return;
  free(sx->y);
  free(sx);
}

static cg_rc cpu_saxpy_prepare(const cg_backend_env *env, const char *variant, const char *mode,
                               const void *problem, void **state, cg_prepared *out,
                               cg_error *err) {
  cg_rc rc = CG_OK;
  cpu_saxpy *sx = calloc(1, sizeof *sx);
  CG_CHECK(sx, CG_ERROR, "out of memory");
  sx->problem = *(const cg_saxpy_problem *)problem;
  const size_t n = (size_t)sx->problem.n;
  sx->y = malloc(n * sizeof *sx->y);
  CG_CHECK(sx->y, CG_ERROR, "out of host memory for y (%zu floats)", n);
  for (size_t i = 0; i < n; ++i) sx->y[i] = NAN;
  *state = sx;
  sx = NULL;
cleanup:
  cpu_saxpy_release(sx);
  return rc;
}

/* x is read in place; y is updated in place, so it is copied. */
static cg_rc cpu_saxpy_upload(void *state, const void *inputs, cg_error *err) {
  cpu_saxpy *sx = state;
  const cg_saxpy_inputs *in = inputs;
  sx->x = in->x;
  memcpy(sx->y, in->y, (size_t)sx->problem.n * sizeof *sx->y);
  return CG_OK;
}

static cg_rc cpu_saxpy_enqueue(void *state, const cg_run *run, cg_error *err) {
  cpu_saxpy *sx = state;
  for (int i = 0; i < run->iters; ++i) cg_ref_saxpy(sx->problem.n, sx->problem.a, sx->x, sx->y);
  return CG_OK;
}

/* The updates ran inside enqueue. */
static cg_rc cpu_saxpy_finish(void *state, cg_run_result *out, cg_error *err) { return CG_OK; }

static cg_rc cpu_saxpy_download(void *state, void *outputs, cg_error *err) {
  cpu_saxpy *sx = state;
  cg_saxpy_outputs *out = outputs;
  memcpy(out->y, sx->y, (size_t)sx->problem.n * sizeof *out->y);
  return CG_OK;
}

static const char *const cpu_variants[] = {"openblas", NULL};

const cg_impl cg_cpu_saxpy = {
    .workload = "saxpy",
    .backend = &cg_backend_cpu,
    .variants = cpu_variants,
    .prepare = cpu_saxpy_prepare,
    .upload = cpu_saxpy_upload,
    .enqueue = cpu_saxpy_enqueue,
    .finish = cpu_saxpy_finish,
    .download = cpu_saxpy_download,
    .release = cpu_saxpy_release,
};
