/* Error reporting for the library: status codes, a message buffer, OpenCL/CLBlast code names,
 * and the CG_TRY family of macros that record a failure and jump to a function's cleanup label. */
#ifndef CLGAUGE_ERROR_H
#define CLGAUGE_ERROR_H

#include <stddef.h>

/* What a library call returns. Library code never exits or prints; the front end decides. */
typedef enum cg_rc {
  CG_OK = 0,
  CG_ERROR = 1,       /* a runtime or driver failure */
  CG_UNSUPPORTED = 2, /* the device or driver cannot do what was asked */
  CG_BAD_INPUT = 3    /* the caller asked for something invalid */
} cg_rc;

typedef struct cg_error {
  cg_rc rc;
  int code;        /* OpenCL/CLBlast code when the failure came from one, else 0 */
  char msg[4096];  /* one line, possibly followed by a build log */
} cg_error;

/* Name of an OpenCL error code or a CLBlast status code ("CL_BUILD_PROGRAM_FAILURE",
 * "CLBlastInvalidLocalMemUsage"); "CL_UNKNOWN_ERROR(-9999)"-style for others (static buffer). */
const char *cg_cl_error_name(int code);

/* Record a failure of kind rc with a printf-style message and the source location. Returns rc. */
cg_rc cg_fail(cg_error *err, cg_rc rc, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Record the failure of an OpenCL or CLBlast call: "<call> failed: <NAME> (<file>:<line>)". */
cg_rc cg_fail_cl(cg_error *err, int code, const char *call, const char *file, int line);
/* Append text (a build log, a hint) to the message already recorded. */
void cg_error_append(cg_error *err, const char *text);
void cg_error_clear(cg_error *err);

#define CG_FAIL(err, rc, ...) cg_fail((err), (rc), __FILE__, __LINE__, __VA_ARGS__)

/* The functions that use these declare `cg_rc rc = CG_OK;`, take `cg_error *err`, and end with
 * one `cleanup:` label that releases whatever was acquired. */
#define CG_TRY(expr)                                                                               \
  do {                                                                                             \
    if ((rc = (expr)) != CG_OK) goto cleanup;                                                      \
  } while (0)
/* Call an OpenCL/CLBlast function that returns its status: CG_CL(clFinish, (queue)). */
#define CG_CL(fn, args)                                                                            \
  do {                                                                                             \
    int cg_code_ = (int)(fn args);                                                                 \
    if (cg_code_ != 0) {                                                                           \
      rc = cg_fail_cl(err, cg_code_, #fn, __FILE__, __LINE__);                                     \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)
/* Check the status an OpenCL creator function left in its errcode_ret argument. */
#define CG_CL_CHECK(fn, code)                                                                      \
  do {                                                                                             \
    if ((code) != 0) {                                                                             \
      rc = cg_fail_cl(err, (int)(code), #fn, __FILE__, __LINE__);                                  \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)
#define CG_CHECK(cond, kind, ...)                                                                  \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      rc = CG_FAIL(err, (kind), __VA_ARGS__);                                                      \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)

#endif
