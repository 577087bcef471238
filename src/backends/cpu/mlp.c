/* The mlp workload on the cpu backend: the host reference step (OpenBLAS and plain loops), timed
 * like the others. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backends.h"
#include "clgauge/mlp.h"
#include "clgauge/reference.h"

typedef struct cpu_mlp {
  cg_mlp_setup setup;
  cg_ref_mlp ref;
  bool ready;
  double first_loss; /* of the last run */
} cpu_mlp;

static cg_rc cpu_mlp_prepare(const cg_backend_env *env, const char *variant, const char *mode,
                             const void *problem, void **state, cg_prepared *out,
                             cg_error *err) {
  cg_rc rc = CG_OK;
  cpu_mlp *m = calloc(1, sizeof *m);
  CG_CHECK(m, CG_ERROR, "out of memory");
  m->setup = *(const cg_mlp_setup *)problem;
  m->first_loss = NAN;
  out->compile_ms = NAN;
  out->compile_kind = "none";
  memset(&out->config, 0, sizeof out->config);
  *state = m;
cleanup:
  return rc;
}

static cg_rc cpu_mlp_upload(void *state, const void *inputs, cg_error *err) {
  cg_rc rc = CG_OK;
  cpu_mlp *m = state;
  if (m->ready) cg_ref_mlp_free(&m->ref);
  m->ready = cg_ref_mlp_init(&m->ref, &m->setup, inputs);
  CG_CHECK(m->ready, CG_ERROR, "out of host memory for the mlp tensors");
cleanup:
  return rc;
}

static cg_rc cpu_mlp_enqueue(void *state, const cg_run *run, cg_error *err) {
  cpu_mlp *m = state;
  for (int i = 0; i < run->iters; ++i) {
    const double loss = cg_ref_mlp_step(&m->ref);
    if (i == 0) m->first_loss = loss;
  }
  return CG_OK;
}

/* The steps ran inside enqueue: only the loss to hand over. */
static cg_rc cpu_mlp_finish(void *state, cg_run_result *out, cg_error *err) {
  out->loss = ((const cpu_mlp *)state)->first_loss;
  out->launches = -1;
  return CG_OK;
}

static cg_rc cpu_mlp_download(void *state, void *outputs, cg_error *err) {
  cg_ref_mlp_read(&((const cpu_mlp *)state)->ref, outputs);
  return CG_OK;
}

static void cpu_mlp_release(void *state) {
  cpu_mlp *m = state;
  if (!m) return;
  if (m->ready) cg_ref_mlp_free(&m->ref);
  free(m);
}

static const char *const cpu_mlp_variants[] = {"openblas", NULL};
const cg_impl cg_cpu_mlp = {
    .workload = "mlp",
    .backend = &cg_backend_cpu,
    .variants = cpu_mlp_variants,
    .prepare = cpu_mlp_prepare,
    .upload = cpu_mlp_upload,
    .enqueue = cpu_mlp_enqueue,
    .finish = cpu_mlp_finish,
    .download = cpu_mlp_download,
    .release = cpu_mlp_release,
};
