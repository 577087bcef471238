/* The clblast backend's implementation of the linear workload, variant "sgemm": the logits
 * product and the weight update through CLBlastSgemm, the softmax, the bias update and
 * (resident) the gather of the rows through the kernels of cl/linear.cl, in the transfer modes of
 * cl_linear_common. */
#include <clblast_c.h>

#include "backends/backends.h"
#include "backends/clblast/prebuild.h"
#include "backends/clblast/xgemm_override.h"
#include "backends/opencl/cl_linear_common.h"

/* The first command of a pinned batch must wait for the batch's upload on the other queue, and
 * CLBlast takes no wait list: a barrier on the compute queue waits instead (OpenCL 1.2), or on
 * 1.1 devices the host, which loses the overlap but keeps the order. */
static cg_rc wait_for_upload(cg_linear_device *l, cl_event upload, cg_error *err) {
  cg_rc rc = CG_OK;
  if (l->cl12)
    CG_CL(clEnqueueBarrierWithWaitList, (l->queue, 1, &upload, NULL));
  else
    CG_CL(clWaitForEvents, (1, &upload));
cleanup:
  return rc;
}

/* CLBlast rows must be dense: copy the resident rows of the batch, and their labels, into the
 * batch buffer. */
static cg_rc gather_rows(cg_linear_device *l, const cg_cl_linear_batch *bt, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_int n = bt->n, F = l->setup.shape.features;
  cl_kernel k = l->gather;
  CG_CL(clSetKernelArg, (k, 0, sizeof n, &n));
  CG_CL(clSetKernelArg, (k, 1, sizeof F, &F));
  CG_CL(clSetKernelArg, (k, 2, sizeof(cl_mem), &l->x));
  CG_CL(clSetKernelArg, (k, 3, sizeof(cl_mem), &l->labels));
  CG_CL(clSetKernelArg, (k, 4, sizeof(cl_mem), &l->order));
  CG_CL(clSetKernelArg, (k, 5, sizeof bt->off, &bt->off));
  CG_CL(clSetKernelArg, (k, 6, sizeof(cl_mem), &l->dev_batch[0]));
  CG_CL(clSetKernelArg, (k, 7, sizeof(cl_mem), &l->dev_batch[0]));
  const size_t local[2] = {l->gather_local, 1};
  const size_t global[2] = {((size_t)F + 1 + l->gather_local - 1) / l->gather_local *
                                l->gather_local,
                            (size_t)n};
  CG_CL(clEnqueueNDRangeKernel, (l->queue, k, 2, NULL, global, local, 0, NULL,
                                 cg_cl_linear_event(l, CG_CL_LINEAR_KERNEL)));
cleanup:
  return rc;
}

/* One batch: [gather,] logits = xb w^T (CLBlast), softmax with the bias, w -= lr g^T xb
 * (CLBlast), then the bias update with the loss accumulation. The device times of the CLBlast
 * calls come from the events CLBlast hands back, which belong to the last kernel of each call:
 * where CLBlast splits a product into several kernels (padding, transposes) the others' time is
 * missing from compute_ms, though not from the span. */
static cg_rc sgemm_compute(cg_linear_device *l, const cg_cl_linear_batch *batch, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_linear_shape s = l->setup.shape;
  const size_t F = (size_t)s.features, C = (size_t)s.classes;
  cg_cl_linear_batch bt = *batch;
  if (bt.gather) {
    CG_TRY(gather_rows(l, &bt, err));
    bt.gather = 0;
    bt.x = bt.labels = l->dev_batch[0];
    bt.off = 0;
    bt.loff = (cl_ulong)bt.n * F;
  }
  if (bt.wait) CG_TRY(wait_for_upload(l, bt.wait, err));
  const size_t n = (size_t)bt.n;
  CG_CL(CLBlastSgemm, (CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeYes, n, C, F,
                       1.0f, bt.x, bt.off * F, F, l->w, 0, F, 0.0f, l->g, 0, C, &l->queue,
                       cg_cl_linear_event(l, CG_CL_LINEAR_KERNEL)));

  const cl_int nn = bt.n, CC = s.classes;
  cl_kernel k = l->softmax;
  CG_CL(clSetKernelArg, (k, 0, sizeof nn, &nn));
  CG_CL(clSetKernelArg, (k, 1, sizeof CC, &CC));
  CG_CL(clSetKernelArg, (k, 2, sizeof(cl_mem), &bt.labels));
  CG_CL(clSetKernelArg, (k, 3, sizeof bt.loff, &bt.loff));
  CG_CL(clSetKernelArg, (k, 4, sizeof(cl_mem), &l->b));
  CG_CL(clSetKernelArg, (k, 5, sizeof(cl_mem), &l->g));
  CG_CL(clSetKernelArg, (k, 6, sizeof(cl_mem), &l->rowloss));
  CG_CL(clSetKernelArg, (k, 7, l->rows_local * sizeof(float), NULL));
  const size_t local = l->rows_local, global = n * local;
  CG_CL(clEnqueueNDRangeKernel, (l->queue, k, 1, NULL, &global, &local, 0, NULL,
                                 cg_cl_linear_event(l, CG_CL_LINEAR_KERNEL)));

  CG_CL(CLBlastSgemm, (CLBlastLayoutRowMajor, CLBlastTransposeYes, CLBlastTransposeNo, C, F, n,
                       -l->setup.lr, l->g, 0, C, bt.x, bt.off * F, F, 1.0f, l->w, 0, F, &l->queue,
                       cg_cl_linear_event(l, CG_CL_LINEAR_KERNEL)));
  /* The update kernel over the bias column only. */
  CG_TRY(cg_cl_linear_enqueue_update(l, &bt, s.features, 0, NULL, err));
cleanup:
  return rc;
}

static cg_rc clblast_linear_prepare(const cg_backend_env *env, const char *variant,
                                    const char *mode, const void *problem, void **state,
                                    cg_prepared *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_linear_device *l = NULL;
  const bool resident = cg_transfer_from_name(mode) == CG_TRANSFER_RESIDENT;
  const unsigned kernels =
      CG_CL_LINEAR_ROWS | CG_CL_LINEAR_UPDATE | (resident ? CG_CL_LINEAR_GATHER : 0u);
  /* compile covers cl/linear.cl, and CLBlast's GEMM program (both products'), built here
   * rather than inside the first epoch */
  cg_clblast_xgemm_warn(env);
  CG_TRY(cg_cl_linear_create(env, mode, problem, true, kernels, &l, out, err));
  double library_ms = 0;
  CG_TRY(cg_clblast_prebuild(env, l->queue, CG_CLBLAST_SGEMM, &library_ms, err));
  out->compile_ms += library_ms;
  out->compile_kind = "library";
  l->compute = sgemm_compute;
  /* Our own kernels plus one per CLBlast call (CLBlast may launch more than one kernel per
   * call, depending on the shape): sgemm, softmax, sgemm, bias, and the gather when resident. */
  l->launches = resident ? 5 : 4;
  *state = l;
  l = NULL;
cleanup:
  if (l) cg_cl_linear_release(l);
  return rc;
}

static const char *const clblast_linear_variants[] = {"sgemm", NULL};
const cg_impl cg_clblast_linear = {
    .workload = "linear",
    .backend = &cg_backend_clblast,
    .variants = clblast_linear_variants,
    .modes = cg_cl_linear_modes,
    .kernel_params = cg_cl_linear_kernel_params,
    .prepare = clblast_linear_prepare,
    .upload = cg_cl_linear_upload,
    .enqueue = cg_cl_linear_enqueue,
    .finish = cg_cl_linear_finish,
    .download = cg_cl_linear_download,
    .release = cg_cl_linear_release,
};
