/* The linear workload: per-batch SGD training of a linear classifier with softmax cross-entropy,
 * as in the PyTorch DataLoader report, under three ways of getting batches to the device (its
 * modes: pageable, pinned, resident). Each epoch is one run. What its implementations receive: */
#ifndef CLGAUGE_LINEAR_H
#define CLGAUGE_LINEAR_H

#include <stdint.h>

/* The descriptor (workload.h); this header declares only what implementations receive. */
struct cg_workload;

enum { CG_LINEAR_MAX_DIM = 1 << 24 };

/* For each batch (rows idx[0..B) of the epoch's order):
 *   logits = X[idx] W^T + b          X: S x F, W: C x F, b: C
 *   p = softmax(logits) per row (stable: max subtracted), loss = mean over rows of
 *       -log p[label] (computed as logsumexp - logit[label])
 *   g = (p - onehot(label)) / B
 *   W -= lr g^T X[idx];  b -= lr sum_rows(g)
 * the epoch's loss is the sum of its batch losses; the last batch holds the remainder. */
typedef struct cg_linear_shape {
  int samples, features, classes, batch; /* S, F, C, B */
} cg_linear_shape;

/* The problem. Each run is one epoch: run->arg is its order (a permutation of 0..S-1, valid
 * until finish) and run->iters its batches; its result's loss is the epoch's summed loss. */
typedef struct cg_linear_setup {
  cg_linear_shape shape;
  float lr;
} cg_linear_setup;

/* The modes, by the names of the workload's --transfer option. */
typedef enum cg_transfer {
  CG_TRANSFER_PAGEABLE, /* each batch gathered on the host, written from ordinary memory */
  CG_TRANSFER_PINNED,   /* pinned staging buffers gathered a group ahead, upload overlapping compute */
  CG_TRANSFER_RESIDENT, /* dataset uploaded once, batches gathered on the device by index */
  CG_TRANSFER_HOST      /* no device: the host backend */
} cg_transfer;
const char *cg_transfer_name(cg_transfer transfer);
/* The mode of that name; CG_TRANSFER_HOST for NULL or an unknown name. */
cg_transfer cg_transfer_from_name(const char *name);

/* The inputs: the dataset and the initial model. Upload reads x, labels, w, b (valid until
 * release); download writes the final w and b. */
typedef struct cg_linear_tensors {
  const float *x;    /* S x F */
  const int *labels; /* S, each in 0..C-1 */
  float *w;          /* C x F */
  float *b;          /* C */
} cg_linear_tensors;

/* The epoch orders: `epochs` permutations of 0..samples-1 from a seeded generator (Fisher-Yates),
 * the same for every backend. Returns a malloc'd epochs x samples array, or NULL. */
int *cg_linear_orders(int samples, int epochs, uint64_t seed);

extern const struct cg_workload cg_workload_linear;

#endif
