/* The cpu backend: the OpenBLAS reference path, timed with the same harness as the others. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backends.h"
#include "clgauge/reference.h"

typedef struct cpu_matmul {
  cg_matmul_shape shape;
  const float *a, *b;
  float *c;
} cpu_matmul;

static cg_rc cpu_matmul_prepare(const cg_backend_env *env, const char *variant,
                                cg_matmul_shape shape, void **state, cg_compile_info *compile,
                                cg_error *err) {
  cg_rc rc = CG_OK;
  cpu_matmul *mm = calloc(1, sizeof *mm);
  CG_CHECK(mm, CG_ERROR, "out of memory");
  mm->shape = shape;
  size_t elems = (size_t)shape.m * (size_t)shape.n;
  mm->c = malloc(elems * sizeof *mm->c);
  CG_CHECK(mm->c, CG_ERROR, "out of host memory for C (%zu floats)", elems);
  for (size_t i = 0; i < elems; ++i) mm->c[i] = NAN;
  compile->ms = NAN;
  compile->kind = "none";
  *state = mm;
  mm = NULL;
cleanup:
  if (mm) free(mm->c);
  free(mm);
  return rc;
}

/* OpenBLAS reads the caller's arrays in place: there is nothing to copy. */
static cg_rc cpu_matmul_upload(void *state, const float *A, const float *B, cg_error *err) {
  cpu_matmul *mm = state;
  mm->a = A;
  mm->b = B;
  return CG_OK;
}

static cg_rc cpu_matmul_enqueue(void *state, int products, cg_device_span *span, int *launches,
                                cg_error *err) {
  cpu_matmul *mm = state;
  for (int i = 0; i < products; ++i)
    cg_ref_sgemm(mm->shape.m, mm->shape.n, mm->shape.k, mm->a, mm->b, mm->c);
  *launches = -1;
  return CG_OK;
}

static cg_rc cpu_matmul_finish(void *state, cg_error *err) { return CG_OK; }

static cg_rc cpu_matmul_download(void *state, float *C, cg_error *err) {
  cpu_matmul *mm = state;
  memcpy(C, mm->c, (size_t)mm->shape.m * (size_t)mm->shape.n * sizeof *C);
  return CG_OK;
}

static void cpu_matmul_release(void *state) {
  cpu_matmul *mm = state;
  if (!mm) return;
  free(mm->c);
  free(mm);
}

/* ---- mlp ---- */

typedef struct cpu_mlp {
  cg_mlp_setup setup;
  cg_ref_mlp ref;
  bool ready;
  double first_loss;
} cpu_mlp;

static cg_rc cpu_mlp_prepare(const cg_backend_env *env, const char *variant,
                             const cg_mlp_setup *setup, void **state, cg_compile_info *compile,
                             cg_error *err) {
  cg_rc rc = CG_OK;
  cpu_mlp *m = calloc(1, sizeof *m);
  CG_CHECK(m, CG_ERROR, "out of memory");
  m->setup = *setup;
  m->first_loss = NAN;
  compile->ms = NAN;
  compile->kind = "none";
  *state = m;
cleanup:
  return rc;
}

static cg_rc cpu_mlp_upload(void *state, const cg_mlp_tensors *in, cg_error *err) {
  cg_rc rc = CG_OK;
  cpu_mlp *m = state;
  if (m->ready) cg_ref_mlp_free(&m->ref);
  m->ready = cg_ref_mlp_init(&m->ref, &m->setup, in);
  CG_CHECK(m->ready, CG_ERROR, "out of host memory for the mlp tensors");
cleanup:
  return rc;
}

static cg_rc cpu_mlp_enqueue(void *state, int iters, cg_device_span *span, int *launches,
                             cg_error *err) {
  cpu_mlp *m = state;
  for (int i = 0; i < iters; ++i) {
    double loss = cg_ref_mlp_step(&m->ref);
    if (i == 0) m->first_loss = loss;
  }
  *launches = -1;
  return CG_OK;
}

static cg_rc cpu_mlp_read_loss(void *state, double *loss, cg_error *err) {
  *loss = ((cpu_mlp *)state)->first_loss;
  return CG_OK;
}

static cg_rc cpu_mlp_download(void *state, cg_mlp_tensors *out, cg_error *err) {
  cg_ref_mlp_read(&((cpu_mlp *)state)->ref, out);
  return CG_OK;
}

static void cpu_mlp_release(void *state) {
  cpu_mlp *m = state;
  if (!m) return;
  if (m->ready) cg_ref_mlp_free(&m->ref);
  free(m);
}

static const char *const cpu_variants[] = {"openblas", NULL};
static const cg_mlp_ops cpu_mlp_ops = {
    .variants = cpu_variants,
    .prepare = cpu_mlp_prepare,
    .upload = cpu_mlp_upload,
    .enqueue = cpu_mlp_enqueue,
    .finish = cpu_matmul_finish,
    .read_loss = cpu_mlp_read_loss,
    .download = cpu_mlp_download,
    .release = cpu_mlp_release,
    .kernel_split = NULL, /* no kernels */
};

static const cg_matmul_ops cpu_matmul_ops = {
    cpu_variants,       cpu_matmul_prepare,  cpu_matmul_upload, cpu_matmul_enqueue,
    cpu_matmul_finish,  cpu_matmul_download, cpu_matmul_release,
};

const cg_backend cg_backend_cpu = {
    .name = "cpu",
    .summary = "OpenBLAS on the host CPU (the reference)",
    .uses_opencl = false,
    .matmul = &cpu_matmul_ops,
    .mlp = &cpu_mlp_ops,
};
