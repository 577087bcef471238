/* Private to src/backends: what the two OpenCL mlp backends (cl and clblast) share: the device
 * copies of the inputs and weights with size-checked allocation, upload, download and the loss,
 * and the elementwise kernels of cl/mlp.cl with their launch helpers. */
#ifndef CLGAUGE_CL_MLP_COMMON_H
#define CLGAUGE_CL_MLP_COMMON_H

#include "clgauge/backend.h"

typedef struct cg_mlp_device {
  cl_command_queue queue;
  cg_mlp_setup setup;
  cl_mem x, t, w1, w2, w3, g3; /* the tensors of cg_mlp_tensors */
  cl_mem loss;                 /* one float: the loss kept for read_loss */
} cg_mlp_device;

/* A device buffer of `elems` floats, refused (CG_UNSUPPORTED) over the device's maximum
 * allocation with a message naming `what`. */
cg_rc cg_mlp_buffer(const cg_device *dev, const char *what, size_t elems, cl_mem *out,
                    cg_error *err);
/* Allocate x, t, w1, w2, w3, g3 and the loss for the setup's shape. */
cg_rc cg_mlp_device_create(const cg_device *dev, const cg_mlp_setup *setup, cg_mlp_device *md,
                           cg_error *err);
/* Copy x, t, w1, w2, w3 and set g3 to zero; returns when complete. */
cg_rc cg_mlp_device_upload(cg_mlp_device *md, const cg_mlp_tensors *in, cg_error *err);
cg_rc cg_mlp_device_download(cg_mlp_device *md, cg_mlp_tensors *out, cg_error *err);
cg_rc cg_mlp_device_read_loss(cg_mlp_device *md, double *loss, cg_error *err);
void cg_mlp_device_release(cg_mlp_device *md);

/* The elementwise kernels of cl/mlp.cl, with the work-group sizes this device allows them. */
typedef struct cg_mlp_eltwise {
  cl_kernel relu, relu_backward, sgd, loss_dy;
  size_t local[4];  /* per kernel, in the order above; loss_dy's is a power of two */
} cg_mlp_eltwise;

cg_rc cg_mlp_eltwise_create(cl_program program, const cg_device_info *info, cg_mlp_eltwise *ew,
                            cg_error *err);
void cg_mlp_eltwise_release(cg_mlp_eltwise *ew);
/* Each enqueues one kernel; ev (may be NULL) receives its event. */
cg_rc cg_mlp_relu(const cg_mlp_eltwise *ew, cl_command_queue q, size_t n, cl_mem v,
                  cl_event *ev, cg_error *err);
cg_rc cg_mlp_relu_backward(const cg_mlp_eltwise *ew, cl_command_queue q, size_t n, cl_mem d,
                           cl_mem h, cl_event *ev, cg_error *err);
cg_rc cg_mlp_sgd(const cg_mlp_eltwise *ew, cl_command_queue q, size_t n, float lr, cl_mem g,
                 cl_mem w, int zero_g, cl_event *ev, cg_error *err);
cg_rc cg_mlp_loss_dy(const cg_mlp_eltwise *ew, cl_command_queue q, size_t count, cl_mem y,
                     cl_mem t, cl_mem dy, cl_mem loss, int keep, cl_event *ev, cg_error *err);

#endif
