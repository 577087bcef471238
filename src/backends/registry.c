/* The list of backends: the one place that names them all. */
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

const cg_backend *cg_backend_find(const char *name) {
  for (const cg_backend *const *b = cg_backend_all(); *b; ++b)
    if (strcmp((*b)->name, name) == 0) return *b;
  return NULL;
}

int cg_variant_index(const char *const *variants, const char *variant) {
  for (int i = 0; variants && variants[i]; ++i)
    if (strcmp(variants[i], variant) == 0) return i;
  return -1;
}

static bool in_list(const char *const *list, const char *name) {
  for (int i = 0; list && list[i]; ++i)
    if (strcmp(list[i], name) == 0) return true;
  return false;
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
                         cg_variants_of variants_of, cg_error *err) {
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
    CG_CHECK(variants_of(b), CG_BAD_INPUT, "--backend: backend '%s' lacks this workload",
             backends[i]);
  }
  for (int v = 0; variants && variants[v]; ++v) {
    bool found = false;
    for (const cg_backend *const *b = cg_backend_all(); *b && !found; ++b)
      if (cg_backend_selected(backends, *b) && variants_of(*b))
        found = cg_variant_index(variants_of(*b), variants[v]) >= 0;
    CG_CHECK(found, CG_BAD_INPUT, "--variant: no selected backend has a variant '%s'",
             variants[v]);
  }
cleanup:
  return rc;
}

const char *cg_transfer_name(cg_transfer transfer) {
  switch (transfer) {
  case CG_TRANSFER_PAGEABLE: return "pageable";
  case CG_TRANSFER_PINNED: return "pinned";
  case CG_TRANSFER_RESIDENT: return "resident";
  case CG_TRANSFER_HOST: return "host";
  }
  return "?";
}
