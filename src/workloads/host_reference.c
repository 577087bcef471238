/* The host reference on a thread of its own, beside a record's context creation and compile. */
#include "workloads/host_reference.h"

#include <string.h>

#include "clgauge/clock.h"

static void *compute(void *arg) {
  cg_reference_task *t = arg;
  const uint64_t t0 = cg_now_ns();
  t->rc = t->workload->reference(t->data, &t->err);
  t->ms = cg_ns_to_ms(cg_now_ns() - t0);
  return NULL;
}

void cg_reference_start(cg_reference_task *t, const cg_workload *w, cg_workload_data *data) {
  memset(t, 0, sizeof *t);
  t->workload = w;
  t->data = data;
  t->started = true;
  t->threaded = pthread_create(&t->thread, NULL, compute, t) == 0;
  if (!t->threaded) compute(t);
}

cg_rc cg_reference_finish(cg_reference_task *t, cg_error *err) {
  if (!t->started) return CG_OK;
  if (t->threaded && !t->finished) pthread_join(t->thread, NULL);
  t->finished = true;
  if (t->rc != CG_OK && err) *err = t->err;
  return t->rc;
}
