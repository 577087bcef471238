/* The lists of backends and of their implementations: the one place that names them all, and
 * the selection of backends and variants. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "backends/backends.h"

const cg_backend *const *cg_backend_all(void) {
  static const cg_backend *const all[] = {&cg_backend_cpu, &cg_backend_clblast, &cg_backend_cl,
                                          NULL};
  return all;
}

/* One line per workload: its implementations, in backend order. */
const cg_impl *const *cg_impl_all(void) {
  static const cg_impl *const all[] = {
      &cg_cpu_matmul, &cg_clblast_matmul, &cg_cl_matmul,
      &cg_cpu_mlp,    &cg_clblast_mlp,    &cg_cl_mlp,
      &cg_cpu_linear, &cg_clblast_linear, &cg_cl_linear,
      &cg_cpu_saxpy,  &cg_clblast_saxpy,  &cg_cl_saxpy,
      NULL};
  return all;
}

const cg_backend *cg_backend_find(const char *name) {
  for (const cg_backend *const *b = cg_backend_all(); *b; ++b)
    if (strcmp((*b)->name, name) == 0) return *b;
  return NULL;
}

const cg_impl *cg_impl_find(const cg_backend *backend, const char *workload) {
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i)
    if ((*i)->backend == backend && strcmp((*i)->workload, workload) == 0) return *i;
  return NULL;
}

int cg_variant_index(const char *const *variants, const char *variant) {
  for (int i = 0; variants && variants[i]; ++i)
    if (strcmp(variants[i], variant) == 0) return i;
  return -1;
}

static bool in_list(const char *const *list, const char *name) {
  return cg_variant_index(list, name) >= 0;
}

bool cg_impl_has_mode(const cg_impl *impl, const char *mode) {
  return !mode || !impl->modes || in_list(impl->modes, mode);
}

const char *cg_impl_mode_unsupported(const cg_impl *impl, const char *variant, const char *mode) {
  return impl->mode_unsupported && mode ? impl->mode_unsupported(variant, mode) : NULL;
}

const cg_tune_space *cg_impl_tune_space(const cg_impl *impl, const char *variant) {
  for (const cg_tune_space *t = impl->tune_spaces; t && t->variant; ++t)
    if (strcmp(t->variant, variant) == 0) return t;
  return NULL;
}

void cg_run_result_init(cg_run_result *r) {
  memset(r, 0, sizeof *r);
  r->device_ms = r->loss = r->batch_upload_ms = r->batch_compute_ms = r->hidden_share = NAN;
  r->batch_gather_ms = NAN;
  r->launches = -1;
  r->launches_at_least = -1;
}

bool cg_backend_selected(const char *const *requested, const cg_backend *backend) {
  return !requested || in_list(requested, backend->name);
}

bool cg_variant_selected(const char *const *requested, const char *const *available,
                         const char *variant) {
  if (!requested) return true;
  for (int i = 0; available && available[i]; ++i)
    if (in_list(requested, available[i])) return in_list(requested, variant);
  return true;
}

cg_rc cg_selection_check(const char *const *backends, const char *const *variants,
                         const char *const *workloads, cg_error *err) {
  cg_rc rc = CG_OK;
  for (int i = 0; backends && backends[i]; ++i) {
    const cg_backend *b = cg_backend_find(backends[i]);
    if (!b) {
      char names[128] = "";
      for (const cg_backend *const *k = cg_backend_all(); *k; ++k)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 k == cg_backend_all() ? "" : ", ", (*k)->name);
      CG_CHECK(0, CG_BAD_INPUT, "--backend: unknown backend '%s' (backends: %s)", backends[i],
               names);
    }
    bool any = false;
    for (int w = 0; workloads[w]; ++w) any |= cg_impl_find(b, workloads[w]) != NULL;
    CG_CHECK(any, CG_BAD_INPUT, "--backend: backend '%s' lacks this workload", backends[i]);
  }
  for (int v = 0; variants && variants[v]; ++v) {
    bool found = false;
    for (const cg_impl *const *i = cg_impl_all(); *i && !found; ++i) {
      bool listed = false;
      for (int w = 0; workloads[w]; ++w) listed |= strcmp((*i)->workload, workloads[w]) == 0;
      found = listed && cg_backend_selected(backends, (*i)->backend) &&
              in_list((*i)->variants, variants[v]);
    }
    CG_CHECK(found, CG_BAD_INPUT, "--variant: no selected backend has a variant '%s'",
             variants[v]);
  }
cleanup:
  return rc;
}
