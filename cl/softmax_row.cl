/* One row's softmax cross-entropy by one work-item, for the kernels of the linear workload that
 * hold a batch's logits where a work-item sees them all (cl/linear.cl's epoch kernel in global
 * memory, cl/linear_persistent.cl in local memory). Included with `#include "softmax_row.cl"`
 * (src/opencl/program.c). A macro, not a function: OpenCL C 1.2 has no generic address space,
 * and the rows are in a different one in each kernel.
 *
 * z: the row's C logits, overwritten with g = (p - onehot) * inv_n; label: the row's class;
 * LOSS (a float lvalue) receives logsumexp(z) - z[label], computed relative to the row maximum
 * so that large logits neither overflow nor lose the digits of the log. */
#ifndef CG_SOFTMAX_ROW_CL
#define CG_SOFTMAX_ROW_CL

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

#endif
