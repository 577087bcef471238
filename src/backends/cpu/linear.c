/* The cpu backend's implementation of the linear workload, variant "openblas": the reference SGD
 * step of src/reference on the host, batch by batch, in the host mode. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backends.h"
#include "clgauge/linear.h"
#include "clgauge/reference.h"

typedef struct cpu_linear {
  cg_linear_setup setup;
  cg_linear_tensors data;
  float *w, *b, *xb, *logits;
  int *batch_labels;
  int batches;
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

static cg_rc cpu_linear_prepare(const cg_backend_env *env, const char *variant, const char *mode,
                                const void *problem, void **state, cg_prepared *out,
                                cg_error *err) {
  cg_rc rc = CG_OK;
  cpu_linear *l = NULL;
  CG_CHECK(!mode || strcmp(mode, "host") == 0, CG_UNSUPPORTED,
           "the cpu backend runs the linear workload on the host only, not in %s mode", mode);
  l = calloc(1, sizeof *l);
  CG_CHECK(l, CG_ERROR, "out of memory");
  l->setup = *(const cg_linear_setup *)problem;
  const cg_linear_shape s = l->setup.shape;
  const size_t rows = (size_t)(s.batch < s.samples ? s.batch : s.samples);
  l->batches = (s.samples + s.batch - 1) / s.batch;
  l->w = malloc((size_t)s.classes * s.features * sizeof(float));
  l->b = malloc((size_t)s.classes * sizeof(float));
  l->xb = malloc(rows * s.features * sizeof(float));
  l->logits = malloc(rows * s.classes * sizeof(float));
  l->batch_labels = malloc(rows * sizeof(int));
  CG_CHECK(l->w && l->b && l->xb && l->logits && l->batch_labels, CG_ERROR,
           "out of host memory for the linear model");
  out->compile_ms = NAN;
  out->compile_kind = "none";
  memset(&out->config, 0, sizeof out->config);
  *state = l;
  l = NULL;
cleanup:
  cpu_linear_release(l);
  return rc;
}

static cg_rc cpu_linear_upload(void *state, const void *inputs, cg_error *err) {
  cpu_linear *l = state;
  const cg_linear_tensors *data = inputs;
  const cg_linear_shape s = l->setup.shape;
  l->data = *data;
  memcpy(l->w, data->w, (size_t)s.classes * s.features * sizeof(float));
  memcpy(l->b, data->b, (size_t)s.classes * sizeof(float));
  return CG_OK;
}

static cg_rc cpu_linear_enqueue(void *state, const cg_run *run, cg_error *err) {
  cg_rc rc = CG_OK;
  cpu_linear *l = state;
  const cg_linear_shape s = l->setup.shape;
  const int *order = run->arg;
  CG_CHECK(order, CG_BAD_INPUT, "a linear run needs the order of its epoch");
  CG_CHECK(run->iters == l->batches, CG_BAD_INPUT,
           "a linear run is one epoch of %d batches, not %d", l->batches, run->iters);
  l->epoch_loss = 0;
  for (int start = 0; start < s.samples; start += s.batch) {
    const int n = s.samples - start < s.batch ? s.samples - start : s.batch;
    l->epoch_loss += cg_ref_linear_step(&l->setup, l->data.x, l->data.labels, order + start, n,
                                        l->w, l->b, l->xb, l->logits, l->batch_labels);
  }
cleanup:
  return rc;
}

/* The epoch ran inside enqueue: only its loss to hand over. */
static cg_rc cpu_linear_finish(void *state, cg_run_result *out, cg_error *err) {
  out->loss = ((cpu_linear *)state)->epoch_loss;
  out->launches = -1;
  return CG_OK;
}

static cg_rc cpu_linear_download(void *state, void *outputs, cg_error *err) {
  cpu_linear *l = state;
  cg_linear_tensors *out = outputs;
  const cg_linear_shape s = l->setup.shape;
  memcpy(out->w, l->w, (size_t)s.classes * s.features * sizeof(float));
  memcpy(out->b, l->b, (size_t)s.classes * sizeof(float));
  return CG_OK;
}

static const char *const cpu_linear_variants[] = {"openblas", NULL};
static const char *const cpu_linear_modes[] = {"host", NULL};
const cg_impl cg_cpu_linear = {
    .workload = "linear",
    .backend = &cg_backend_cpu,
    .variants = cpu_linear_variants,
    .modes = cpu_linear_modes,
    .kernel_params = NULL,
    .prepare = cpu_linear_prepare,
    .upload = cpu_linear_upload,
    .enqueue = cpu_linear_enqueue,
    .finish = cpu_linear_finish,
    .download = cpu_linear_download,
    .release = cpu_linear_release,
};
