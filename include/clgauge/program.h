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

/* Where programs come from: the sources, and a directory of built binaries of our own. */
typedef struct cg_program_store {
  const char *kernel_dir;   /* read cl/<name> from here; NULL or "": the embedded copies */
  const char *binary_cache; /* keep built binaries here and load them on later builds; NULL or
                               "": build from source every time */
} cg_program_store;

/* How a build went. */
typedef enum cg_build_origin {
  CG_BUILT_FROM_SOURCE, /* compiled now (the driver's own cache may still have served it) */
  CG_BUILT_FROM_CACHE   /* loaded from the binary cache of cg_program_store */
} cg_build_origin;

/* Build cl/<name> for the device with the given options (may be NULL). With a binary cache, a
 * binary built earlier for the same source, options, device and driver is loaded instead, and
 * a source build stores its binary there (whole or not at all); an unusable cached binary is
 * rebuilt from source. On a build failure the error message is followed by the build log, whose
 * line numbers are those of the .cl file. origin may be NULL. */
cg_rc cg_program_build(const cg_device *dev, const cg_program_store *store, const char *name,
                       const char *options, cl_program *out, cg_build_origin *origin,
                       cg_error *err);

/* Whether the driver keeps a disk cache of compiled kernels of its own, which can turn a
 * "source" build into a cache hit: "on", "off" (switched off through its environment
 * variable), or "unknown" for drivers whose cache clgauge does not know. */
const char *cg_driver_cache_state(const cg_device_info *info);

/* Switch off the disk caches of the drivers clgauge knows (NVIDIA: CUDA_CACHE_DISABLE, PoCL:
 * POCL_KERNEL_CACHE, Mesa: MESA_SHADER_CACHE_DISABLE), so that builds are cold. Only effective
 * before the first OpenCL call of the process. */
void cg_driver_caches_disable(void);

#endif
