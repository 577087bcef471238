/* The cpu backend's matmul: OpenBLAS cblas_sgemm on the host, timed with the same harness as the
 * others. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backends.h"
#include "clgauge/matmul.h"
#include "clgauge/reference.h"

typedef struct cpu_matmul {
  cg_matmul_shape shape;
  const float *a, *b;
  float *c;
} cpu_matmul;

static void cpu_matmul_release(void *state) {
  cpu_matmul *mm = state;
  if (!mm) return;
  free(mm->c);
  free(mm);
}

static cg_rc cpu_matmul_prepare(const cg_backend_env *env, const char *variant, const char *mode,
                                const void *problem, void **state, cg_prepared *out,
                                cg_error *err) {
  cg_rc rc = CG_OK;
  cpu_matmul *mm = calloc(1, sizeof *mm);
  CG_CHECK(mm, CG_ERROR, "out of memory");
  mm->shape = *(const cg_matmul_shape *)problem;
  const size_t elems = (size_t)mm->shape.m * (size_t)mm->shape.n;
  mm->c = malloc(elems * sizeof *mm->c);
  CG_CHECK(mm->c, CG_ERROR, "out of host memory for C (%zu floats)", elems);
  for (size_t i = 0; i < elems; ++i) mm->c[i] = NAN;
  *state = mm;
  mm = NULL;
cleanup:
  cpu_matmul_release(mm);
  return rc;
}

/* OpenBLAS reads the caller's arrays in place: there is nothing to copy. */
static cg_rc cpu_matmul_upload(void *state, const void *inputs, cg_error *err) {
  cpu_matmul *mm = state;
  const cg_matmul_inputs *in = inputs;
  mm->a = in->a;
  mm->b = in->b;
  return CG_OK;
}

static cg_rc cpu_matmul_enqueue(void *state, const cg_run *run, cg_error *err) {
  cpu_matmul *mm = state;
  for (int i = 0; i < run->iters; ++i)
    cg_ref_sgemm(mm->shape.m, mm->shape.n, mm->shape.k, mm->a, mm->b, mm->c);
  return CG_OK;
}

/* The products ran inside enqueue. */
static cg_rc cpu_matmul_finish(void *state, cg_run_result *out, cg_error *err) { return CG_OK; }

static cg_rc cpu_matmul_download(void *state, void *outputs, cg_error *err) {
  cpu_matmul *mm = state;
  cg_matmul_outputs *out = outputs;
  memcpy(out->c, mm->c, (size_t)mm->shape.m * (size_t)mm->shape.n * sizeof *out->c);
  return CG_OK;
}

static const char *const cpu_variants[] = {"openblas", NULL};

const cg_impl cg_cpu_matmul = {
    .workload = "matmul",
    .backend = &cg_backend_cpu,
    .variants = cpu_variants,
    .prepare = cpu_matmul_prepare,
    .upload = cpu_matmul_upload,
    .enqueue = cpu_matmul_enqueue,
    .finish = cpu_matmul_finish,
    .download = cpu_matmul_download,
    .release = cpu_matmul_release,
};
