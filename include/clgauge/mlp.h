/* The mlp workload: the small training loop of the PyTorch report (y = relu(relu(x w1) w2) w3,
 * squared-error loss, SGD on w1 and w2), the loss read back every print_every iterations, each
 * read-back closing a run. What its implementations receive: */
#ifndef CLGAUGE_MLP_H
#define CLGAUGE_MLP_H

#include <stdbool.h>

/* The descriptor (workload.h); this header declares only what implementations receive. */
struct cg_workload;

enum { CG_MLP_MAX_DIM = 1 << 20 };

/* One training step, all fp32 and row-major:
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

/* The problem. Each run enqueues run->iters steps; its result's loss is that of its first one. */
typedef struct cg_mlp_setup {
  cg_mlp_shape shape;
  float lr;
  bool update_w3;
} cg_mlp_setup;

/* Host arrays: the inputs (x, t, w1, w2, w3; g3 starts at zero) to upload, and the outputs
 * (w1, w2, w3, g3) that download writes. */
typedef struct cg_mlp_tensors {
  float *x, *t, *w1, *w2, *w3, *g3;
} cg_mlp_tensors;

extern const struct cg_workload cg_workload_mlp;

#endif
