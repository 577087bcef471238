/* Private to src/backends: the device buffers of one matrix product, shared by the OpenCL
 * backends (allocation with size checks, poisoning, upload, download). */
#ifndef CLGAUGE_CL_MATRICES_H
#define CLGAUGE_CL_MATRICES_H

#include "clgauge/backend.h"

typedef struct cg_cl_matrices {
  cl_command_queue queue;
  cl_mem a, b, c;
  cg_matmul_shape shape;
} cg_cl_matrices;

/* Allocate A, B and C on the device (refusing sizes over its maximum allocation) and fill C with
 * NaN, so that elements a kernel never writes show in verification. */
cg_rc cg_cl_matrices_create(const cg_device *dev, cg_matmul_shape shape, cg_cl_matrices *mx,
                            cg_error *err);
cg_rc cg_cl_matrices_upload(cg_cl_matrices *mx, const float *A, const float *B, cg_error *err);
cg_rc cg_cl_matrices_download(cg_cl_matrices *mx, float *C, cg_error *err);
void cg_cl_matrices_release(cg_cl_matrices *mx);

#endif
