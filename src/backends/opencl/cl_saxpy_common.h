/* Private to src/backends: the saxpy workload on an OpenCL device, shared by the clblast and cl
 * backends, which differ only in the update they enqueue: buffers (y poisoned with NaN), upload,
 * the runs with their device span, download. */
#ifndef CLGAUGE_CL_SAXPY_COMMON_H
#define CLGAUGE_CL_SAXPY_COMMON_H

#include "backends/opencl/opencl_backend.h"
#include "clgauge/saxpy.h"

typedef struct cg_device_saxpy cg_device_saxpy;

/* Enqueue one update y = a*x + y on sx->queue; ev (may be NULL) receives the event of its last
 * command. */
typedef cg_rc (*cg_cl_saxpy_fn)(cg_device_saxpy *sx, cl_event *ev, cg_error *err);

struct cg_device_saxpy {
  cg_saxpy_problem problem;
  const cg_device *dev;
  cl_command_queue queue;
  cl_mem x, y;
  cg_cl_saxpy_fn update;
  int launches;       /* kernel enqueues per update; -1 where a library decides */
  cl_program program; /* the update's program and kernel, for a backend that builds one */
  cl_kernel kernel;
  size_t global, local;
  cl_program stamp_program; /* with a stamp: an empty kernel enqueued before the updates marks */
  cl_kernel stamp;          /* where their device time begins (a library's first event is not */
                            /* handed back) */
  cg_device_span span;      /* of the run in flight */
};

/* Allocate x and y on env's device and fill y with NaN, so that a run before the upload, or
 * elements an update never writes, show in verification. */
cg_rc cg_cl_saxpy_create(const cg_backend_env *env, const cg_saxpy_problem *problem,
                         cg_cl_saxpy_fn update, int launches, cg_device_saxpy **out,
                         cg_error *err);
/* Build the stamp kernel (cl/stamp.cl) that opens each run's span. */
cg_rc cg_cl_saxpy_stamp(cg_device_saxpy *sx, const cg_backend_env *env, cg_build_tally *tally,
                        cg_error *err);

/* The cg_impl entries both backends share (state: a cg_device_saxpy). */
cg_rc cg_cl_saxpy_upload(void *state, const void *inputs, cg_error *err);
cg_rc cg_cl_saxpy_enqueue(void *state, const cg_run *run, cg_error *err);
cg_rc cg_cl_saxpy_finish(void *state, cg_run_result *out, cg_error *err);
cg_rc cg_cl_saxpy_download(void *state, void *outputs, cg_error *err);
void cg_cl_saxpy_release(void *state);

#endif
