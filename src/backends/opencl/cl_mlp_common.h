/* Private to src/backends: what the two OpenCL mlp implementations (cl and clblast) share: the
 * device copies of the inputs and weights, the events of a run and the sampling of its first
 * iteration, the elementwise kernels of cl/mlp.cl, and the per-op training step, written once
 * with a pluggable matrix product (the cl backend's mlp_gemm kernel or a CLBlast call). */
#ifndef CLGAUGE_CL_MLP_COMMON_H
#define CLGAUGE_CL_MLP_COMMON_H

#include <stdbool.h>

#include "backends/opencl/opencl_backend.h"
#include "clgauge/mlp.h"

/* ---- sampling: the commands of one iteration, each with the span of its events ---- */

/* While `on`, each command takes the next span: one of our kernels spans its own event (begin and
 * end the same event); a library call spans whatever events bound it. Off, commands take no
 * events, so that the loop runs unprofiled. */
typedef struct cg_mlp_sampler {
  bool on;
  int n;
  cg_device_span spans[CG_MAX_SPLIT];
  const char *names[CG_MAX_SPLIT];
} cg_mlp_sampler;

/* The span of the next command while sampling, else NULL (also when every span is taken). */
cg_device_span *cg_mlp_sample(cg_mlp_sampler *s, const char *name);
/* The event slot of one of our kernels: its span's begin while sampling, else `other`. */
cl_event *cg_mlp_kernel_event(cg_mlp_sampler *s, const char *name, cl_event *other);
/* After the sampled iteration: a kernel's span ends where it begins, *last (may be NULL)
 * receives the event of the last command, and sampling stops. */
void cg_mlp_sampler_close(cg_mlp_sampler *s, cl_event *last);
/* The sampled commands' device times into out->split (nsplit 0 when any has no usable stamps),
 * and release them. */
void cg_mlp_sampler_split(cg_mlp_sampler *s, cg_run_result *out);
void cg_mlp_sampler_release(cg_mlp_sampler *s);

/* ---- the device side of one instance ---- */

typedef struct cg_mlp_device {
  cl_command_queue queue;
  cg_mlp_setup setup;
  cl_mem x, t, w1, w2, w3, g3; /* the tensors of cg_mlp_tensors */
  cl_mem loss;                 /* one float: the loss of a run's first iteration */
  cg_device_span span;         /* the last run's span, from its first command to its last */
  cg_mlp_sampler sampler;      /* the commands of its first iteration */
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
/* Before a run is enqueued: release the events an unfinished earlier run left. */
void cg_mlp_device_run_begin(cg_mlp_device *md);
/* Wait for the run, then its loss, device time, split and `launches` per iteration into out. */
cg_rc cg_mlp_device_finish(cg_mlp_device *md, int launches, cg_run_result *out, cg_error *err);
cg_rc cg_mlp_device_download(cg_mlp_device *md, cg_mlp_tensors *out, cg_error *err);
void cg_mlp_device_release(cg_mlp_device *md);

/* Enqueue cl/stamp.cl's empty kernel (one work-item); ev receives its event. */
cg_rc cg_mlp_stamp(cl_command_queue q, cl_kernel stamp, cl_event *ev, cg_error *err);

/* ---- the elementwise kernels of cl/mlp.cl ---- */

/* With the work-group sizes this device allows them. */
typedef struct cg_mlp_eltwise {
  cl_kernel relu, relu_backward, sgd, loss_dy, loss_sum;
  size_t local[5]; /* per kernel, in the order above; the loss kernels' are powers of two */
  /* The most work-groups of mlp_loss_dy (1..CG_MLP_LOSS_PARTS); 0: CG_MLP_LOSS_PARTS. One gives
   * the loss in one launch, as before the partials. */
  int loss_groups;
} cg_mlp_eltwise;

/* The most partial sums of the loss: the floats of cg_mlp_step's buffer of them. */
enum { CG_MLP_LOSS_PARTS = 1024 };

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
/* The work-groups of mlp_loss_dy for `count` elements: a few elements per work-item, within
 * ew->loss_groups. */
int cg_mlp_loss_groups(const cg_mlp_eltwise *ew, size_t count);
/* dy = 2 (y - t) over count elements; with keep, also loss[0] = sum((y - t)^2) through the
 * partials in `part` (CG_MLP_LOSS_PARTS floats) where there is more than one work-group: one
 * launch, or two with keep and several work-groups (a fixed-order sum, the same on every run).
 * span (may be NULL) receives the events of the first and the last. */
cg_rc cg_mlp_loss_dy(const cg_mlp_eltwise *ew, cl_command_queue q, size_t count, cl_mem y,
                     cl_mem t, cl_mem dy, cl_mem part, cl_mem loss, int keep,
                     cg_device_span *span, cg_error *err);

/* ---- the per-op step with a pluggable product ---- */

/* C (m x n, row-major, rows of n) = op(A) op(B) + beta C, op(A) m x k and op(B) k x n. A is
 * stored m x k (k x m when ta) in rows of lda, B k x n (n x k when tb) in rows of ldb. */
typedef struct cg_mlp_gemm {
  bool ta, tb;
  size_t m, n, k;
  cl_mem a, b, c;
  size_t lda, ldb;
  float beta;
} cg_mlp_gemm;

/* g's operands as arguments at..at+7 of a product kernel that reads A and B through a row and a
 * column stride (mlp_gemm, mlp_splitk): A and its two strides, B and its two strides, then c
 * and beta (given: a split product writes its partials elsewhere). A transposed operand is the
 * stored one read the other way. */
cg_rc cg_mlp_gemm_set_operands(cl_kernel k, cl_uint at, const cg_mlp_gemm *g, cl_mem c,
                               float beta, cg_error *err);

typedef struct cg_mlp_product {
  /* Enqueue one product on q. Each kernel it launches takes a span of sm (cg_mlp_sample: NULL
   * outside the sampled iteration), in launch order, the product's own named `name`, and sets
   * the events that bound its commands there (a library call: one span over its commands). */
  cg_rc (*gemm)(void *ctx, cl_command_queue q, const cg_mlp_gemm *g, cg_mlp_sampler *sm,
                const char *name, cg_error *err);
  void *ctx;
  bool clblast; /* the products are CLBlast calls, and their launch names say so */
} cg_mlp_product;

/* One training step of cg_mlp_setup as a sequence of commands: the 8 products through the
 * product, and 7 elementwise kernels (8 with update_w3) between them. */
typedef struct cg_mlp_step {
  cg_mlp_product product;
  cg_mlp_eltwise ew;
  cl_mem h1, h2, y, dy, d2, d1, g1, g2;
  cl_mem loss_part; /* the loss's partial sums (CG_MLP_LOSS_PARTS floats) */
  /* A stamp kernel enqueued first marks where a run begins (begin at its end), for products
   * whose first command hands back no event; NULL: a run begins at its first command's start. */
  cl_kernel stamp;
} cg_mlp_step;

/* The step's intermediate buffers for md's shape (st->product and st->stamp left as they are). */
cg_rc cg_mlp_step_create(const cg_device *dev, const cg_mlp_device *md, cg_mlp_step *st,
                         cg_error *err);
/* A run of `iters` steps into md's span, its first iteration sampled. */
cg_rc cg_mlp_step_enqueue(cg_mlp_step *st, cg_mlp_device *md, int iters, cg_error *err);
/* Release the buffers and the elementwise kernels (not the stamp). */
void cg_mlp_step_release(cg_mlp_step *st);

#endif
