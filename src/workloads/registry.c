/* The list of workloads: the one place that names them all, and what their verify functions
 * share. */
#include <math.h>
#include <string.h>

#include "clgauge/linear.h"
#include "clgauge/matmul.h"
#include "clgauge/mlp.h"
#include "clgauge/saxpy.h"
#include "clgauge/workload.h"

const cg_workload *const *cg_workload_all(void) {
  static const cg_workload *const all[] = {&cg_workload_matmul, &cg_workload_mlp,
                                           &cg_workload_linear, &cg_workload_saxpy, NULL};
  return all;
}

const cg_workload *cg_workload_find(const char *name) {
  for (const cg_workload *const *w = cg_workload_all(); *w; ++w)
    if (strcmp((*w)->name, name) == 0) return *w;
  return NULL;
}

const cg_sweep_desc *cg_workload_sweep(const cg_workload *w, const char *option) {
  for (const cg_sweep_desc *sw = w->sweeps; sw && sw->option; ++sw)
    if (strcmp(sw->option, option) == 0) return sw;
  return NULL;
}

double cg_loss_error(const double *got, const double *want, int n) {
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    const double e = fabs(got[i] - want[i]) / (fabs(want[i]) > 0 ? fabs(want[i]) : 1.0);
    if (!(e <= worst)) worst = e; /* NaN sticks */
  }
  return worst;
}

void cg_verify_verdict(cg_record *rec, double tolerance) {
  rec->verify_tolerance = tolerance;
  if (rec->verify_error <= tolerance) return;
  if (rec->nlosses > 0)
    cg_record_set_status(rec, CG_STATUS_ERROR,
                         "wrong result: relative error %.3g (losses %.3g, weights %.3g) exceeds "
                         "the tolerance %.3g",
                         rec->verify_error, rec->verify_loss_error, rec->verify_weights_error,
                         tolerance);
  else
    cg_record_set_status(rec, CG_STATUS_ERROR,
                         "wrong result: relative error %.3g exceeds the tolerance %.3g",
                         rec->verify_error, tolerance);
}
