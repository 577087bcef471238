/* CLBlast's programs built before the timed runs (prebuild.h). CLBlast compiles a routine's
 * program inside its first call, one program per routine and precision that holds every kernel
 * the routine may pick whatever the sizes and transpositions (GEMM's direct and indirect ones
 * with their padding and transposing kernels; AXPY's fast and general ones), and keeps it for
 * the rest of the process: a call of one element builds what later calls of any size use.
 * CLBlastFillCache (clblast_c.h) would build the programs of every routine in every precision,
 * far more than a record needs. */
#include "backends/clblast/prebuild.h"

#include <clblast_c.h>

#include "backends/opencl/opencl_backend.h"
#include "clgauge/clock.h"

cg_rc cg_clblast_prebuild(const cg_backend_env *env, cl_command_queue queue, unsigned routines,
                          double *ms, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_mem one[3] = {NULL, NULL, NULL};
  cl_int code = CL_SUCCESS;
  /* each holds a zero, so that no uninitialised value is read (Oclgrind reports one) */
  float zero = 0.0f;
  const uint64_t t0 = cg_now_ns();
  for (int i = 0; i < 3; ++i) {
    one[i] = clCreateBuffer(cg_device_context(cg_cl_env_device(env)),
                            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero, &code);
    CG_CL_CHECK(clCreateBuffer, code);
  }
  if (routines & CG_CLBLAST_SGEMM)
    CG_CL(CLBlastSgemm, (CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, 1, 1, 1,
                         1.0f, one[0], 0, 1, one[1], 0, 1, 0.0f, one[2], 0, 1, &queue, NULL));
  if (routines & CG_CLBLAST_SAXPY)
    CG_CL(CLBlastSaxpy, (1, 1.0f, one[0], 0, 1, one[2], 0, 1, &queue, NULL));
  CG_CL(clFinish, (queue));
  *ms = cg_ns_to_ms(cg_now_ns() - t0);
cleanup:
  for (int i = 0; i < 3; ++i) cg_cl_release_mem(&one[i]);
  return rc;
}
