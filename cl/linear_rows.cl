/* What the linear kernels that run many batches in one launch share (cl/linear.cl's epoch
 * kernel, cl/linear_persistent.cl), included with `#include "linear_rows.cl"`
 * (src/opencl/program.c).
 *
 * CG_SOFTMAX_ROW: one row's softmax cross-entropy by one work-item, where it sees all the row's
 * logits (in global memory in the one kernel, in local memory in the other). A macro, not a
 * function: OpenCL C 1.2 has no generic address space.
 * z: the row's C logits, overwritten with g = (p - onehot) * inv_n; label: the row's class;
 * LOSS (a float lvalue) receives logsumexp(z) - z[label], computed relative to the row maximum
 * so that large logits neither overflow nor lose the digits of the log. */
#ifndef CG_LINEAR_ROWS_CL
#define CG_LINEAR_ROWS_CL

#define CG_SOFTMAX_ROW(z, C, label, inv_n, LOSS)                                                  \
  do {                                                                                            \
    float m_ = -INFINITY;                                                                         \
    for (int c_ = 0; c_ < (C); ++c_) m_ = fmax(m_, (z)[c_]);                                      \
    float s_ = 0.0f;                                                                              \
    for (int c_ = 0; c_ < (C); ++c_) s_ += exp((z)[c_] - m_);                                     \
    const float zl_ = (z)[(label)], inv_s_ = 1.0f / s_;                                           \
    for (int c_ = 0; c_ < (C); ++c_)                                                              \
      (z)[c_] = (exp((z)[c_] - m_) * inv_s_ - (c_ == (label) ? 1.0f : 0.0f)) * (inv_n);           \
    LOSS = log(s_) - (zl_ - m_);                                                                  \
  } while (0)

/* A batch's mean loss v into the epoch's compensated (Kahan) pair, sum and its running error
 * (the total is their difference), set instead on the epoch's first batch: the sum linear_update
 * keeps in global memory, here in a work-item's registers. */
inline void cg_loss_add(float *sum, float *err, const float v, const int first) {
  if (first) {
    *sum = v;
    *err = 0.0f;
  } else {
    const float y = v - *err, t = *sum + y;
    *err = (t - *sum) - y;
    *sum = t;
  }
}

#endif
