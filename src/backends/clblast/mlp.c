/* The mlp workload with every matrix product through CLBlast and the elementwise parts through
 * the per-op kernels of cl/mlp.cl. */
#include <clblast_c.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backends/backends.h"
#include "backends/opencl/cl_mlp_common.h"
#include "clgauge/program.h"
#include "clgauge/clock.h"
#include "clgauge/events.h"
#include "clgauge/stats.h"

enum { MAX_SAMPLED = 24 };

typedef struct clblast_mlp {
  cg_mlp_device md;
  cl_program program, stamp_program;
  cl_kernel stamp;
  cg_mlp_eltwise ew;
  cl_mem h1, h2, y, dy, d2, d1, g1, g2;
  /* the commands of the first iteration of the last enqueue, for kernel_split: a kernel of ours
   * spans its own start to end; a CLBlast call, which hands back the event of its last kernel
   * only, spans from the end of a stamp enqueued just before it to that event's end, and so
   * covers every kernel of the call on the in-order queue, and any time the device waited for
   * CLBlast's host side to submit them */
  bool sampling;
  int nsampled;
  cg_device_span sampled[MAX_SAMPLED];
  const char *sampled_name[MAX_SAMPLED];
} clblast_mlp;

static void drop_samples(clblast_mlp *m) {
  for (int i = 0; i < m->nsampled; ++i) cg_device_span_release(&m->sampled[i]);
  m->nsampled = 0;
}

/* The span of the next command while the sampled iteration runs, else NULL. */
static cg_device_span *sample(clblast_mlp *m, const char *name) {
  if (!m->sampling || m->nsampled == MAX_SAMPLED) return NULL;
  cg_device_span *span = &m->sampled[m->nsampled];
  *span = (cg_device_span){0};
  m->sampled_name[m->nsampled++] = name;
  return span;
}

/* The event of one of our kernels: its sample's, or `other` outside the sampled iteration. The
 * sample's end is set from its begin once the kernel is enqueued (close_samples). */
static cl_event *kernel_event(clblast_mlp *m, const char *name, cl_event *other) {
  cg_device_span *span = sample(m, name);
  return span ? &span->begin : other;
}

/* After the sampled iteration: a kernel's span ends where it begins, and the event the
 * iteration was to hand back as `last` is that of its last command. */
static void close_samples(clblast_mlp *m, cl_event *last) {
  for (int i = 0; i < m->nsampled; ++i) {
    cg_device_span *span = &m->sampled[i];
    if (!span->end && span->begin) clRetainEvent(span->end = span->begin);
  }
  if (last && m->nsampled > 0 && m->sampled[m->nsampled - 1].end)
    clRetainEvent(*last = m->sampled[m->nsampled - 1].end);
}

static void clblast_mlp_release(void *state) {
  clblast_mlp *m = state;
  if (!m) return;
  drop_samples(m);
  cg_mlp_device_release(&m->md);
  cg_mlp_eltwise_release(&m->ew);
  if (m->stamp) clReleaseKernel(m->stamp);
  cl_mem bufs[] = {m->h1, m->h2, m->y, m->dy, m->d2, m->d1, m->g1, m->g2};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
    if (bufs[i]) clReleaseMemObject(bufs[i]);
  if (m->program) clReleaseProgram(m->program);
  if (m->stamp_program) clReleaseProgram(m->stamp_program);
  free(m);
}

static cg_rc clblast_mlp_prepare(const cg_backend_env *env, const char *variant,
                                 const cg_mlp_setup *setup, void **state,
                                 cg_compile_info *compile, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  clblast_mlp *m = calloc(1, sizeof *m);
  CG_CHECK(m, CG_ERROR, "out of memory");
  const cg_device *dev = env->device;
  const cg_device_info *info = cg_device_get_info(dev);
  CG_TRY(cg_mlp_device_create(dev, setup, &m->md, err));
  const cg_mlp_shape s = setup->shape;
  const size_t N = (size_t)s.batch, Din = (size_t)s.din, H = (size_t)s.hidden,
               O = (size_t)s.dout;
  CG_TRY(cg_mlp_buffer(dev, "h1 (batch x hidden)", N * H, &m->h1, err));
  CG_TRY(cg_mlp_buffer(dev, "h2 (batch x dout)", N * O, &m->h2, err));
  CG_TRY(cg_mlp_buffer(dev, "y (batch x dout)", N * O, &m->y, err));
  CG_TRY(cg_mlp_buffer(dev, "dy (batch x dout)", N * O, &m->dy, err));
  CG_TRY(cg_mlp_buffer(dev, "dz2 (batch x dout)", N * O, &m->d2, err));
  CG_TRY(cg_mlp_buffer(dev, "dz1 (batch x hidden)", N * H, &m->d1, err));
  CG_TRY(cg_mlp_buffer(dev, "g1 (din x hidden)", Din * H, &m->g1, err));
  CG_TRY(cg_mlp_buffer(dev, "g2 (hidden x dout)", H * O, &m->g2, err));

  /* The elementwise kernels are those of the cl backend's per-op variant; the program's gemm
   * kernel goes unused, and its edge only has to be one the device accepts. */
  size_t ts = 16;
  while (ts > 1 && ts * ts > info->max_work_group) ts /= 2;
  char options[32];
  snprintf(options, sizeof options, "-DTS=%zu", ts);
  uint64_t t0 = cg_now_ns();
  cg_build_tally tally = {0};
  CG_TRY(cg_backend_build(env, "mlp.cl", options, &m->program, &tally, err));
  CG_TRY(cg_mlp_eltwise_create(m->program, info, &m->ew, err));
  /* CLBlast hands back the event of its last kernel only; an empty kernel enqueued just before
   * the batch marks where its device time begins. */
  CG_TRY(cg_backend_build(env, "stamp.cl", NULL, &m->stamp_program, &tally, err));
  m->stamp = clCreateKernel(m->stamp_program, "stamp", &code);
  CG_CL_CHECK(clCreateKernel, code);
  /* Our kernels are built now; CLBlast compiles its own inside the first call, whose time lands
   * in the first run. */
  compile->ms = cg_ns_to_ms(cg_now_ns() - t0);
  compile->kind = cg_build_tally_kind(&tally);
  *state = m;
  m = NULL;
cleanup:
  clblast_mlp_release(m);
  return rc;
}

static cg_rc clblast_mlp_upload(void *state, const cg_mlp_tensors *in, cg_error *err) {
  clblast_mlp *m = state;
  return cg_mlp_device_upload(&m->md, in, err);
}

/* C (m x n) = op(A) op(B) + beta C, row-major, through CLBlastSgemm; in the sampled iteration
 * bracketed by a stamp and CLBlast's event. */
static cg_rc sgemm(clblast_mlp *m, const char *name, bool ta, bool tb, size_t M, size_t N,
                   size_t K, cl_mem A, size_t lda, cl_mem B, size_t ldb, float beta, cl_mem C,
                   cg_error *err) {
  cg_rc rc = CG_OK;
  cg_device_span *span = sample(m, name);
  if (span) {
    const size_t one = 1;
    CG_CL(clEnqueueNDRangeKernel,
          (m->md.queue, m->stamp, 1, NULL, &one, &one, 0, NULL, &span->begin));
    span->begin_at_end = true;
  }
  CG_CL(CLBlastSgemm, (CLBlastLayoutRowMajor, ta ? CLBlastTransposeYes : CLBlastTransposeNo,
                       tb ? CLBlastTransposeYes : CLBlastTransposeNo, M, N, K, 1.0f, A, 0, lda,
                       B, 0, ldb, beta, C, 0, N, &m->md.queue, span ? &span->end : NULL));
cleanup:
  return rc;
}

static cg_rc step(clblast_mlp *m, int keep, cl_event *last, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_device *d = &m->md;
  const cg_mlp_shape s = d->setup.shape;
  const size_t N = (size_t)s.batch, Din = (size_t)s.din, H = (size_t)s.hidden,
               O = (size_t)s.dout;
  const cl_command_queue q = d->queue;
  const float lr = d->setup.lr;
  const bool w3 = d->setup.update_w3;
  /* forward */
  CG_TRY(sgemm(m, "h1 = x w1 (CLBlast)", false, false, N, H, Din, d->x, Din, d->w1, H, 0.0f,
               m->h1, err));
  CG_TRY(cg_mlp_relu(&m->ew, q, N * H, m->h1, kernel_event(m, "relu h1", NULL), err));
  CG_TRY(sgemm(m, "h2 = h1 w2 (CLBlast)", false, false, N, O, H, m->h1, H, d->w2, O, 0.0f,
               m->h2, err));
  CG_TRY(cg_mlp_relu(&m->ew, q, N * O, m->h2, kernel_event(m, "relu h2", NULL), err));
  CG_TRY(sgemm(m, "y = h2 w3 (CLBlast)", false, false, N, O, O, m->h2, O, d->w3, O, 0.0f, m->y,
               err));
  CG_TRY(cg_mlp_loss_dy(&m->ew, q, N * O, m->y, d->t, m->dy, d->loss, keep,
                        kernel_event(m, "loss, dy", NULL), err));
  /* backward */
  CG_TRY(sgemm(m, "g3 += h2^T dy (CLBlast)", true, false, O, O, N, m->h2, O, m->dy, O, 1.0f,
               d->g3, err));
  CG_TRY(sgemm(m, "dy w3^T (CLBlast)", false, true, N, O, O, m->dy, O, d->w3, O, 0.0f, m->d2,
               err));
  CG_TRY(cg_mlp_relu_backward(&m->ew, q, N * O, m->d2, m->h2,
                              kernel_event(m, "relu' dz2", NULL), err));
  CG_TRY(sgemm(m, "g2 = h1^T dz2 (CLBlast)", true, false, H, O, N, m->h1, H, m->d2, O, 0.0f,
               m->g2, err));
  CG_TRY(sgemm(m, "dz2 w2^T (CLBlast)", false, true, N, H, O, m->d2, O, d->w2, O, 0.0f, m->d1,
               err));
  CG_TRY(cg_mlp_relu_backward(&m->ew, q, N * H, m->d1, m->h1,
                              kernel_event(m, "relu' dz1", NULL), err));
  CG_TRY(sgemm(m, "g1 = x^T dz1 (CLBlast)", true, false, Din, H, N, d->x, Din, m->d1, H, 0.0f,
               m->g1, err));
  /* updates */
  CG_TRY(cg_mlp_sgd(&m->ew, q, Din * H, lr, m->g1, d->w1, 0, kernel_event(m, "sgd w1", NULL),
                    err));
  CG_TRY(cg_mlp_sgd(&m->ew, q, H * O, lr, m->g2, d->w2, 0,
                    kernel_event(m, "sgd w2", w3 ? NULL : last), err));
  if (w3)
    CG_TRY(cg_mlp_sgd(&m->ew, q, O * O, lr, d->g3, d->w3, 1, kernel_event(m, "sgd w3", last),
                      err));
  if (m->sampling) close_samples(m, last);
cleanup:
  return rc;
}

static cg_rc clblast_mlp_enqueue(void *state, int iters, cg_device_span *span, int *launches,
                                 cg_error *err) {
  cg_rc rc = CG_OK;
  clblast_mlp *m = state;
  const size_t one = 1;
  CG_CHECK(iters >= 1, CG_BAD_INPUT, "mlp enqueue of %d iterations", iters);
  CG_CL(clEnqueueNDRangeKernel,
        (m->md.queue, m->stamp, 1, NULL, &one, &one, 0, NULL, &span->begin));
  span->begin_at_end = true;
  drop_samples(m);
  for (int i = 0; i < iters; ++i) {
    m->sampling = i == 0; /* events on the first iteration only, so the loop runs unprofiled */
    CG_TRY(step(m, i == 0, i == iters - 1 ? &span->end : NULL, err));
  }
  /* Unknown, as for the matmul: CLBlast picks direct or indirect GEMM, with padding and
   * transposition kernels, per shape, next to our 6 (7 with update_w3) elementwise kernels and
   * 6 CLBlastSgemm calls per iteration. */
  *launches = -1;
cleanup:
  m->sampling = false;
  return rc;
}

static int clblast_mlp_kernel_split(void *state, cg_kernel_time *out, int max) {
  clblast_mlp *m = state;
  const int n = m->nsampled < max ? m->nsampled : max;
  bool ok = n > 0;
  for (int i = 0; i < n; ++i) {
    const char *why = NULL;
    out[i].name = m->sampled_name[i];
    ok = cg_device_span_ms(&m->sampled[i], &out[i].ms, &why) && ok;
  }
  drop_samples(m);
  return ok ? n : 0;
}

static cg_rc clblast_mlp_finish(void *state, cg_error *err) {
  cg_rc rc = CG_OK;
  clblast_mlp *m = state;
  CG_CL(clFinish, (m->md.queue));
cleanup:
  return rc;
}

static cg_rc clblast_mlp_read_loss(void *state, double *loss, cg_error *err) {
  clblast_mlp *m = state;
  return cg_mlp_device_read_loss(&m->md, loss, err);
}

static cg_rc clblast_mlp_download(void *state, cg_mlp_tensors *out, cg_error *err) {
  clblast_mlp *m = state;
  return cg_mlp_device_download(&m->md, out, err);
}

static const char *const clblast_mlp_variants[] = {"sgemm", NULL};
const cg_mlp_ops cg_clblast_mlp_ops = {
    .variants = clblast_mlp_variants,
    .prepare = clblast_mlp_prepare,
    .upload = clblast_mlp_upload,
    .enqueue = clblast_mlp_enqueue,
    .finish = clblast_mlp_finish,
    .read_loss = clblast_mlp_read_loss,
    .download = clblast_mlp_download,
    .release = clblast_mlp_release,
    .kernel_split = clblast_mlp_kernel_split,
};
