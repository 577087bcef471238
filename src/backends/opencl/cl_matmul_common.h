/* Private to src/backends: the matmul workload on an OpenCL device, shared by the clblast and cl
 * backends, which differ only in the product they enqueue: buffers (C poisoned with NaN), upload,
 * the runs with their device span, download. */
#ifndef CLGAUGE_CL_MATMUL_COMMON_H
#define CLGAUGE_CL_MATMUL_COMMON_H

#include "backends/opencl/opencl_backend.h"
#include "clgauge/matmul.h"

typedef struct cg_device_matmul cg_device_matmul;

/* Enqueue one product C = A*B on mm->queue; ev (may be NULL) receives the event of its last
 * command. */
typedef cg_rc (*cg_cl_product_fn)(cg_device_matmul *mm, cl_event *ev, cg_error *err);

struct cg_device_matmul {
  cg_matmul_shape shape;
  const cg_device *dev;
  cl_command_queue queue;
  cl_mem a, b, c;
  cg_cl_product_fn product;
  int launches;       /* kernel enqueues per product; -1 where a library decides */
  cl_program program; /* the product's program and kernel, for a backend that builds one */
  cl_kernel kernel;
  size_t global[2], local[2];
  cl_kernel sum;  /* where a product's last blocks are split along k: the kernel that adds their */
  cl_mem partial; /* parts into C, enqueued after `kernel`, and the parts */
  size_t sum_global, sum_local;
  cl_program stamp_program; /* with a stamp: an empty kernel enqueued before the products marks */
  cl_kernel stamp;          /* where their device time begins (a library's first event is not */
                            /* handed back) */
  cg_device_span span;      /* of the run in flight */
};

/* Allocate A, B and C on env's device and fill C with NaN, so that elements a product never
 * writes show in verification. */
cg_rc cg_cl_matmul_create(const cg_backend_env *env, const cg_matmul_shape *shape,
                          cg_cl_product_fn product, int launches, cg_device_matmul **out,
                          cg_error *err);
/* Build the stamp kernel (cl/stamp.cl) that opens each run's span. */
cg_rc cg_cl_matmul_stamp(cg_device_matmul *mm, const cg_backend_env *env, cg_build_tally *tally,
                         cg_error *err);

/* The cg_impl entries both backends share (state: a cg_device_matmul). */
cg_rc cg_cl_matmul_upload(void *state, const void *inputs, cg_error *err);
cg_rc cg_cl_matmul_enqueue(void *state, const cg_run *run, cg_error *err);
cg_rc cg_cl_matmul_finish(void *state, cg_run_result *out, cg_error *err);
cg_rc cg_cl_matmul_download(void *state, void *outputs, cg_error *err);
void cg_cl_matmul_release(void *state);

#endif
