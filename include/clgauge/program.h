/* OpenCL programs: kernel sources embedded from the .cl files of cl/ at build time (or read from a directory
 * at run time), built for one device with options; a failed build returns its build log. */
#ifndef CLGAUGE_PROGRAM_H
#define CLGAUGE_PROGRAM_H

#include <CL/cl.h>
#include <stddef.h>

#include "clgauge/device.h"
#include "clgauge/error.h"

typedef struct cg_embedded_kernel {
  const char *name; /* file name in cl/, e.g. "matmul.cl" */
  const char *source;
  size_t size;
} cg_embedded_kernel;

/* The table generated at build time, ended by an entry whose name is NULL. */
extern const cg_embedded_kernel cg_embedded_kernels[];

/* The embedded source of cl/<name>, or NULL. */
const cg_embedded_kernel *cg_embedded_kernel_find(const char *name);

/* Source of cl/<name>: read from kernel_dir when it is given, else the embedded copy.
 * *source is malloc'd and NUL-terminated; the caller frees it. */
cg_rc cg_kernel_source(const char *kernel_dir, const char *name, char **source, size_t *size,
                       cg_error *err);

/* Build cl/<name> for the device with the given options (may be NULL). On a build failure the
 * error message is followed by the build log, whose line numbers are those of the .cl file. */
cg_rc cg_program_build(const cg_device *dev, const char *kernel_dir, const char *name,
                       const char *options, cl_program *out, cg_error *err);

#endif
