/* Names of OpenCL error codes and CLBlast status codes, and the failure of a call that returned
 * one. */
#include <CL/cl.h>
#include <clblast_c.h>
#include <stdbool.h>
#include <stdio.h>

#include "clgauge/error.h"

typedef struct code_name {
  int code;
  const char *name;
} code_name;

/* OpenCL 1.0-3.0 and the ICD loader's codes, then the codes CLBlast adds to them (CLBlast reuses
 * the OpenCL numbers for the errors the two have in common, so one table serves both). */
static const code_name names[] = {
    {0, "CL_SUCCESS"},
    {-1, "CL_DEVICE_NOT_FOUND"},
    {-2, "CL_DEVICE_NOT_AVAILABLE"},
    {-3, "CL_COMPILER_NOT_AVAILABLE"},
    {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    {-5, "CL_OUT_OF_RESOURCES"},
    {-6, "CL_OUT_OF_HOST_MEMORY"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
    {-8, "CL_MEM_COPY_OVERLAP"},
    {-9, "CL_IMAGE_FORMAT_MISMATCH"},
    {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
    {-11, "CL_BUILD_PROGRAM_FAILURE"},
    {-12, "CL_MAP_FAILURE"},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
    {-15, "CL_COMPILE_PROGRAM_FAILURE"},
    {-16, "CL_LINKER_NOT_AVAILABLE"},
    {-17, "CL_LINK_PROGRAM_FAILURE"},
    {-18, "CL_DEVICE_PARTITION_FAILED"},
    {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
    {-30, "CL_INVALID_VALUE"},
    {-31, "CL_INVALID_DEVICE_TYPE"},
    {-32, "CL_INVALID_PLATFORM"},
    {-33, "CL_INVALID_DEVICE"},
    {-34, "CL_INVALID_CONTEXT"},
    {-35, "CL_INVALID_QUEUE_PROPERTIES"},
    {-36, "CL_INVALID_COMMAND_QUEUE"},
    {-37, "CL_INVALID_HOST_PTR"},
    {-38, "CL_INVALID_MEM_OBJECT"},
    {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
    {-40, "CL_INVALID_IMAGE_SIZE"},
    {-41, "CL_INVALID_SAMPLER"},
    {-42, "CL_INVALID_BINARY"},
    {-43, "CL_INVALID_BUILD_OPTIONS"},
    {-44, "CL_INVALID_PROGRAM"},
    {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
    {-46, "CL_INVALID_KERNEL_NAME"},
    {-47, "CL_INVALID_KERNEL_DEFINITION"},
    {-48, "CL_INVALID_KERNEL"},
    {-49, "CL_INVALID_ARG_INDEX"},
    {-50, "CL_INVALID_ARG_VALUE"},
    {-51, "CL_INVALID_ARG_SIZE"},
    {-52, "CL_INVALID_KERNEL_ARGS"},
    {-53, "CL_INVALID_WORK_DIMENSION"},
    {-54, "CL_INVALID_WORK_GROUP_SIZE"},
    {-55, "CL_INVALID_WORK_ITEM_SIZE"},
    {-56, "CL_INVALID_GLOBAL_OFFSET"},
    {-57, "CL_INVALID_EVENT_WAIT_LIST"},
    {-58, "CL_INVALID_EVENT"},
    {-59, "CL_INVALID_OPERATION"},
    {-60, "CL_INVALID_GL_OBJECT"},
    {-61, "CL_INVALID_BUFFER_SIZE"},
    {-62, "CL_INVALID_MIP_LEVEL"},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
    {-64, "CL_INVALID_PROPERTY"},
    {-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
    {-66, "CL_INVALID_COMPILER_OPTIONS"},
    {-67, "CL_INVALID_LINKER_OPTIONS"},
    {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
    {-69, "CL_INVALID_PIPE_SIZE"},
    {-70, "CL_INVALID_DEVICE_QUEUE"},
    {-71, "CL_INVALID_SPEC_ID"},
    {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    /* CLBlast's own status codes */
    {CLBlastNotImplemented, "CLBlastNotImplemented"},
    {CLBlastInvalidMatrixA, "CLBlastInvalidMatrixA"},
    {CLBlastInvalidMatrixB, "CLBlastInvalidMatrixB"},
    {CLBlastInvalidMatrixC, "CLBlastInvalidMatrixC"},
    {CLBlastInvalidVectorX, "CLBlastInvalidVectorX"},
    {CLBlastInvalidVectorY, "CLBlastInvalidVectorY"},
    {CLBlastInvalidDimension, "CLBlastInvalidDimension"},
    {CLBlastInvalidLeadDimA, "CLBlastInvalidLeadDimA"},
    {CLBlastInvalidLeadDimB, "CLBlastInvalidLeadDimB"},
    {CLBlastInvalidLeadDimC, "CLBlastInvalidLeadDimC"},
    {CLBlastInvalidIncrementX, "CLBlastInvalidIncrementX"},
    {CLBlastInvalidIncrementY, "CLBlastInvalidIncrementY"},
    {CLBlastInsufficientMemoryA, "CLBlastInsufficientMemoryA"},
    {CLBlastInsufficientMemoryB, "CLBlastInsufficientMemoryB"},
    {CLBlastInsufficientMemoryC, "CLBlastInsufficientMemoryC"},
    {CLBlastInsufficientMemoryX, "CLBlastInsufficientMemoryX"},
    {CLBlastInsufficientMemoryY, "CLBlastInsufficientMemoryY"},
    {CLBlastInsufficientMemoryTemp, "CLBlastInsufficientMemoryTemp"},
    {CLBlastInvalidBatchCount, "CLBlastInvalidBatchCount"},
    {CLBlastInvalidOverrideKernel, "CLBlastInvalidOverrideKernel"},
    {CLBlastMissingOverrideParameter, "CLBlastMissingOverrideParameter"},
    {CLBlastInvalidLocalMemUsage, "CLBlastInvalidLocalMemUsage"},
    {CLBlastNoHalfPrecision, "CLBlastNoHalfPrecision"},
    {CLBlastNoDoublePrecision, "CLBlastNoDoublePrecision"},
    {CLBlastInvalidVectorScalar, "CLBlastInvalidVectorScalar"},
    {CLBlastInsufficientMemoryScalar, "CLBlastInsufficientMemoryScalar"},
    {CLBlastDatabaseError, "CLBlastDatabaseError"},
    {CLBlastUnknownError, "CLBlastUnknownError"},
    {CLBlastUnexpectedError, "CLBlastUnexpectedError"},
};

const char *cg_cl_error_name(int code) {
  static _Thread_local char unknown[40];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (names[i].code == code) return names[i].name;
  snprintf(unknown, sizeof unknown, "CL_UNKNOWN_ERROR(%d)", code);
  return unknown;
}

cg_rc cg_fail_cl(cg_error *err, int code, const char *call, const char *file, int line) {
  /* Codes that say the device cannot do it, rather than that something broke. */
  const bool unsupported = code == CLBlastNotImplemented || code == CLBlastInvalidLocalMemUsage ||
                           code == CLBlastNoDoublePrecision || code == CLBlastNoHalfPrecision;
  const cg_rc rc = unsupported ? CG_UNSUPPORTED : CG_ERROR;
  cg_fail(err, rc, file, line, "%s failed: %s", call, cg_cl_error_name(code));
  if (err) err->code = code;
  return rc;
}
