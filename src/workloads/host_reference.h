/* Private to the engine: the host reference computed on a thread of its own, so that a record
 * can open its device and build its programs meanwhile. */
#ifndef CLGAUGE_HOST_REFERENCE_H
#define CLGAUGE_HOST_REFERENCE_H

#include <pthread.h>
#include <stdbool.h>

#include "clgauge/workload.h"

typedef struct cg_reference_task {
  const cg_workload *workload;
  cg_workload_data *data;
  pthread_t thread;
  bool started, threaded, finished;
  cg_rc rc;
  cg_error err;
  double ms; /* the reference's own wall time */
} cg_reference_task;

/* Start computing the workload's reference (on the calling thread when no thread can be made). */
void cg_reference_start(cg_reference_task *t, const cg_workload *w, cg_workload_data *data);
/* Wait for it (nothing when it was never started or is already finished); its status, with its
 * error in err. */
cg_rc cg_reference_finish(cg_reference_task *t, cg_error *err);

#endif
