/* The backend interface: one implementation per way of running the workloads (cpu, clblast, cl),
 * a struct of function pointers per workload, in the style of ggml's backend vtable. Workloads,
 * benchmarks and tests loop over cg_backend_all() and never name a backend. */
#ifndef CLGAUGE_BACKEND_H
#define CLGAUGE_BACKEND_H

#include <stdbool.h>

#include "clgauge/device.h"
#include "clgauge/error.h"
#include "clgauge/program.h"
#include "clgauge/clock.h"
#include "clgauge/events.h"
#include "clgauge/stats.h"

/* What a backend instance runs on. */
typedef struct cg_backend_env {
  const cg_device *device; /* opened device; NULL for backends that do not use OpenCL */
  cg_program_store programs; /* where the kernel sources come from, and the binary cache */
} cg_backend_env;

/* How the program build of an instance went. */
typedef struct cg_compile_info {
  double ms;        /* NAN when nothing was compiled up front */
  const char *kind; /* "source": built from source now (the driver's own cache may have served
                       it); "cache": every program loaded from the binary cache of
                       cg_program_store; "lazy": the library compiles inside its first call, so
                       the time lands in the first run; "none": nothing to compile */
} cg_compile_info;

typedef struct cg_matmul_shape {
  int m, n, k; /* C (m x n) = A (m x k) * B (k x n), row-major fp32 */
} cg_matmul_shape;

typedef struct cg_matmul_ops {
  const char *const *variants; /* NULL-terminated; at least one */
  /* Create an instance: compile, allocate device buffers, poison C. */
  cg_rc (*prepare)(const cg_backend_env *env, const char *variant, cg_matmul_shape shape,
                   void **state, cg_compile_info *compile, cg_error *err);
  /* Copy A and B to where the products read them; returns when the copies are complete. */
  cg_rc (*upload)(void *state, const float *A, const float *B, cg_error *err);
  /* Start `products` products C = A*B and return without waiting where the backend is
   * asynchronous. Fills the events that bound the work on the device (left empty when the
   * backend has none) and the kernel launches per product (-1 where a library decides). */
  cg_rc (*enqueue)(void *state, int products, cg_device_span *span, int *launches,
                   cg_error *err);
  /* Wait until everything enqueued is complete. */
  cg_rc (*finish)(void *state, cg_error *err);
  /* Copy C back to the host; returns when complete. */
  cg_rc (*download)(void *state, float *C, cg_error *err);
  void (*release)(void *state);
} cg_matmul_ops;

/* The mlp training step of the PyTorch report, all fp32 and row-major:
 *   h1 = relu(x w1)            x: N x Din, w1: Din x H, h1: N x H
 *   h2 = relu(h1 w2)           w2: H x O,  h2: N x O
 *   y  = h2 w3                 w3: O x O,  y: N x O
 *   loss = sum((y - t)^2)      t: N x O
 *   dy = 2 (y - t)
 *   g3 += h2^T dy              accumulates across iterations, as the report's w3.grad does
 *   dz2 = (dy w3^T) * (h2 > 0)
 *   g2 = h1^T dz2
 *   dz1 = (dz2 w2^T) * (h1 > 0)    with w2 before its update
 *   g1 = x^T dz1
 *   w1 -= lr g1;  w2 -= lr g2;  and with update_w3: w3 -= lr g3, then g3 = 0 */
typedef struct cg_mlp_shape {
  int batch, din, hidden, dout; /* N, Din, H, O */
} cg_mlp_shape;

typedef struct cg_mlp_setup {
  cg_mlp_shape shape;
  float lr;
  bool update_w3;
} cg_mlp_setup;

/* Host arrays: inputs and initial weights for upload, final weights for download. */
typedef struct cg_mlp_tensors {
  float *x, *t, *w1, *w2, *w3, *g3;
} cg_mlp_tensors;

typedef struct cg_mlp_ops {
  const char *const *variants; /* NULL-terminated; at least one */
  /* Create an instance: compile, allocate. */
  cg_rc (*prepare)(const cg_backend_env *env, const char *variant, const cg_mlp_setup *setup,
                   void **state, cg_compile_info *compile, cg_error *err);
  /* Copy x, t, w1, w2, w3 (g3 is ignored) and set g3 to zero; returns when complete. */
  cg_rc (*upload)(void *state, const cg_mlp_tensors *in, cg_error *err);
  /* Start `iters` training iterations; the loss of the first one is kept for read_loss. Fills
   * the span and the kernel launches per iteration as the matmul ops do. */
  cg_rc (*enqueue)(void *state, int iters, cg_device_span *span, int *launches, cg_error *err);
  cg_rc (*finish)(void *state, cg_error *err);
  /* The loss kept by the last enqueue (blocking read). */
  cg_rc (*read_loss)(void *state, double *loss, cg_error *err);
  /* Copy w1, w2, w3 and g3 back to the host; returns when complete. */
  cg_rc (*download)(void *state, cg_mlp_tensors *out, cg_error *err);
  void (*release)(void *state);
  /* Optional (NULL where there are no kernels to tell apart): the device time of each launch
   * (or library call, all its kernels together) of the first iteration of the last enqueue, in
   * launch order, from profiling events taken on that iteration alone. Call after finish.
   * Returns the count, 0 when the driver gives no usable stamps. */
  int (*kernel_split)(void *state, cg_kernel_time *out, int max);
} cg_mlp_ops;

/* The linear workload of the PyTorch DataLoader report, fp32, row-major:
 *   for each batch (rows idx[0..B) of the epoch's order):
 *     logits = X[idx] W^T + b          X: S x F, W: C x F, b: C
 *     p = softmax(logits) per row (stable: max subtracted), loss = mean over rows of
 *         -log p[label] (computed as logsumexp - logit[label])
 *     g = (p - onehot(label)) / B
 *     W -= lr g^T X[idx];  b -= lr sum_rows(g)
 *   the epoch's loss is the sum of its batch losses; the last batch holds the remainder. */
typedef enum cg_transfer {
  CG_TRANSFER_PAGEABLE, /* each batch gathered on the host, written from ordinary memory */
  CG_TRANSFER_PINNED,   /* pinned staging buffers, double-buffered, upload overlapping compute */
  CG_TRANSFER_RESIDENT, /* dataset uploaded once, batches gathered on the device by index */
  CG_TRANSFER_HOST      /* no device: the host backend */
} cg_transfer;
const char *cg_transfer_name(cg_transfer transfer);

typedef struct cg_linear_shape {
  int samples, features, classes, batch; /* S, F, C, B */
} cg_linear_shape;

typedef struct cg_linear_setup {
  cg_linear_shape shape;
  float lr;
  cg_transfer transfer;
} cg_linear_setup;

/* The dataset and the model. Upload reads x, labels, w, b; download writes w and b. */
typedef struct cg_linear_tensors {
  const float *x;    /* S x F */
  const int *labels; /* S, each in 0..C-1 */
  float *w;          /* C x F */
  float *b;          /* C */
} cg_linear_tensors;

/* Where an epoch's time went on the device, from profiling events (NAN when unavailable). A
 * backend may time only some epochs command by command, so that events do not slow the loop;
 * the per-batch fields are NAN for the others. */
typedef struct cg_linear_epoch_times {
  double batch_upload_ms;  /* device time of the epoch's uploads, per batch */
  double batch_compute_ms; /* device time of its kernels, per batch */
  double span_ms;          /* from the epoch's first command's start to its last one's end */
  double hidden_share;     /* share of the upload time during which a kernel ran (0..1) */
} cg_linear_epoch_times;

typedef struct cg_linear_ops {
  const char *const *variants; /* NULL-terminated; at least one */
  const cg_transfer *transfers; /* the transfer modes it supports, ended by CG_TRANSFER_HOST
                                   (the host backend lists only CG_TRANSFER_HOST) */
  cg_rc (*prepare)(const cg_backend_env *env, const char *variant, const cg_linear_setup *setup,
                   void **state, cg_compile_info *compile, cg_error *err);
  /* Copy the model to the device, and with `resident` the whole dataset; the host arrays stay
   * valid until release. Returns when complete. */
  cg_rc (*upload)(void *state, const cg_linear_tensors *data, cg_error *err);
  /* Start one epoch over the samples in `order` (a permutation of 0..S-1, valid until finish).
   * The per-batch uploads of pageable and pinned happen in here. */
  cg_rc (*enqueue_epoch)(void *state, const int *order, cg_device_span *span, int *launches,
                         cg_error *err);
  cg_rc (*finish)(void *state, cg_error *err);
  /* The summed loss of the epoch last finished (blocking read). */
  cg_rc (*read_epoch_loss)(void *state, double *loss, cg_error *err);
  /* Device times of the epoch last finished; may be NULL when the backend has none. */
  cg_rc (*epoch_times)(void *state, cg_linear_epoch_times *times, cg_error *err);
  cg_rc (*download)(void *state, cg_linear_tensors *out, cg_error *err);
  void (*release)(void *state);
} cg_linear_ops;

typedef struct cg_backend {
  const char *name;
  const char *summary;
  bool uses_opencl;
  const cg_matmul_ops *matmul; /* NULL when the backend lacks the workload */
  const cg_mlp_ops *mlp;       /* likewise */
  const cg_linear_ops *linear; /* likewise */
} cg_backend;

/* Every backend, NULL-terminated, in report order. */
const cg_backend *const *cg_backend_all(void);
/* The backend of that name, or NULL. */
const cg_backend *cg_backend_find(const char *name);
/* Index of variant in a NULL-terminated list, or -1. */
int cg_variant_index(const char *const *variants, const char *variant);

/* Selection of backends and variants from the command line, the same for every workload.
 * `requested` lists are NULL-terminated, and a NULL list selects everything. A backend runs the
 * requested variants it has, or all of its variants when it has none of them (so that
 * `--variant tiled` narrows the cl backend and leaves the single-variant backends alone). */
typedef const char *const *(*cg_variants_of)(const cg_backend *backend); /* NULL: no workload */
bool cg_backend_selected(const char *const *requested, const cg_backend *backend);
bool cg_variant_selected(const char *const *requested, const char *const *available,
                         const char *variant);
/* CG_BAD_INPUT for an unknown backend, or a variant that no selected backend has. */
cg_rc cg_selection_check(const char *const *backends, const char *const *variants,
                         cg_variants_of variants_of, cg_error *err);

#endif
