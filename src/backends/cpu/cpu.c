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

/* ---- linear ---- */

typedef struct cpu_linear {
  cg_linear_setup setup;
  cg_linear_tensors data;
  float *w, *b, *xb, *logits;
  int *batch_labels;
  double epoch_loss;
} cpu_linear;

static void cpu_linear_release(void *state) {
  cpu_linear *l = state;
  if (!l) return;
  free(l->w);
  free(l->b);
  free(l->xb);
  free(l->logits);
  free(l->batch_labels);
  free(l);
}

static cg_rc cpu_linear_prepare(const cg_backend_env *env, const char *variant,
                                const cg_linear_setup *setup, void **state,
                                cg_compile_info *compile, cg_error *err) {
  cg_rc rc = CG_OK;
  cpu_linear *l = calloc(1, sizeof *l);
  CG_CHECK(l, CG_ERROR, "out of memory");
  l->setup = *setup;
  const cg_linear_shape s = setup->shape;
  const size_t rows = (size_t)(s.batch < s.samples ? s.batch : s.samples);
  l->w = malloc((size_t)s.classes * s.features * sizeof(float));
  l->b = malloc((size_t)s.classes * sizeof(float));
  l->xb = malloc(rows * s.features * sizeof(float));
  l->logits = malloc(rows * s.classes * sizeof(float));
  l->batch_labels = malloc(rows * sizeof(int));
  CG_CHECK(l->w && l->b && l->xb && l->logits && l->batch_labels, CG_ERROR,
           "out of host memory for the linear model");
  compile->ms = NAN;
  compile->kind = "none";
  *state = l;
  l = NULL;
cleanup:
  cpu_linear_release(l);
  return rc;
}

static cg_rc cpu_linear_upload(void *state, const cg_linear_tensors *data, cg_error *err) {
  cpu_linear *l = state;
  const cg_linear_shape s = l->setup.shape;
  l->data = *data;
  memcpy(l->w, data->w, (size_t)s.classes * s.features * sizeof(float));
  memcpy(l->b, data->b, (size_t)s.classes * sizeof(float));
  return CG_OK;
}

static cg_rc cpu_linear_enqueue_epoch(void *state, const int *order, cg_device_span *span,
                                      int *launches, cg_error *err) {
  cpu_linear *l = state;
  const cg_linear_shape s = l->setup.shape;
  l->epoch_loss = 0;
  for (int start = 0; start < s.samples; start += s.batch) {
    const int n = s.samples - start < s.batch ? s.samples - start : s.batch;
    l->epoch_loss += cg_ref_linear_step(&l->setup, l->data.x, l->data.labels, order + start, n,
                                        l->w, l->b, l->xb, l->logits, l->batch_labels);
  }
  *launches = -1;
  return CG_OK;
}

static cg_rc cpu_linear_read_epoch_loss(void *state, double *loss, cg_error *err) {
  *loss = ((cpu_linear *)state)->epoch_loss;
  return CG_OK;
}

static cg_rc cpu_linear_download(void *state, cg_linear_tensors *out, cg_error *err) {
  cpu_linear *l = state;
  const cg_linear_shape s = l->setup.shape;
  memcpy(out->w, l->w, (size_t)s.classes * s.features * sizeof(float));
  memcpy(out->b, l->b, (size_t)s.classes * sizeof(float));
  return CG_OK;
}

static const char *const cpu_variants[] = {"openblas", NULL};
static const cg_transfer cpu_transfers[] = {CG_TRANSFER_HOST};
static const cg_linear_ops cpu_linear_ops = {
    .variants = cpu_variants,
    .transfers = cpu_transfers,
    .prepare = cpu_linear_prepare,
    .upload = cpu_linear_upload,
    .enqueue_epoch = cpu_linear_enqueue_epoch,
    .finish = cpu_matmul_finish,
    .read_epoch_loss = cpu_linear_read_epoch_loss,
    .epoch_times = NULL,
    .download = cpu_linear_download,
    .release = cpu_linear_release,
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
    .linear = &cpu_linear_ops,
};
