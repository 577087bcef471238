/* OpenCL programs: kernel sources embedded from the .cl files of cl/ at build time (or read from a directory
 * at run time), built for one device with options; a failed build returns its build log. */
#ifndef CLGAUGE_PROGRAM_H
#define CLGAUGE_PROGRAM_H

#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>

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
 * *source is malloc'd and NUL-terminated; the caller frees it. A line that is exactly
 * `#include "OTHER.cl"` (at its start) is replaced by OTHER.cl from the same place, so that
 * kernel files share device code without copies and without the driver's own include path
 * (embedded sources have no directory); the included text is numbered from line 1 and the
 * including file's numbering resumes after it (#line), so build logs keep both files' line
 * numbers. One level only: an included file that includes another is refused. */
cg_rc cg_kernel_source(const char *kernel_dir, const char *name, char **source, size_t *size,
                       cg_error *err);

/* Where programs come from: the sources, and a directory of built binaries of our own. */
typedef struct cg_program_store {
  const char *kernel_dir;   /* read cl/<name> from here; NULL or "": the embedded copies */
  const char *binary_cache; /* keep built binaries here and load them on later builds; NULL or
                               "": build from source every time */
} cg_program_store;

/* Where a build's program came from. */
typedef enum cg_build_origin {
  CG_BUILT_FROM_SOURCE, /* compiled now (the driver's own cache may still have served it) */
  CG_BUILT_FROM_CACHE   /* loaded from the binary cache of cg_program_store */
} cg_build_origin;

/* How a build went. */
typedef struct cg_build_result {
  cg_build_origin origin;
  char warning[1024]; /* what went wrong without failing the build (a cache entry rebuilt, or
                         its binary not stored in the binary cache), one line; empty when
                         nothing did */
} cg_build_result;

/* Build cl/<name> for the device with the given options (may be NULL). With a binary cache, a
 * binary built earlier for the same source, options, device and driver is loaded instead, and
 * a source build stores its binary there (whole or not at all), with a description beside it
 * (binary_cache.h). A missing entry is built from source; one that is not whole, damaged (its
 * checksum does not hold), of another format or program, or refused by the driver is rebuilt
 * from source and replaced, with a warning in the result naming the entry and what was wrong.
 * A binary that cannot be stored leaves the build successful, with a warning in the result. On a build failure the error message is followed by the build log, whose line
 * numbers are those of the .cl file. result may be NULL. */
cg_rc cg_program_build(const cg_device *dev, const cg_program_store *store, const char *name,
                       const char *options, cl_program *out, cg_build_result *result,
                       cg_error *err);

/* An entry of the binary cache is one header line, then the binary as the driver gave it:
 *   clgauge-program-binary 2 <key> <size> <sum>\n<size bytes>
 * key (of the source, options, device and driver) and sum (64-bit FNV-1a of the bytes) in 16
 * lowercase hexadecimal digits, size in decimal. The parsing below is pure (no device, no file),
 * so that it can be tested and fuzzed alone. */
typedef struct cg_cache_entry {
  uint64_t key;
  const unsigned char *body; /* inside the parsed bytes */
  size_t size;
} cg_cache_entry;

typedef enum cg_cache_verdict {
  CG_ENTRY_OK,
  CG_ENTRY_FOREIGN,   /* not an entry of this format (another file, another version) */
  CG_ENTRY_TRUNCATED, /* shorter than its header or its header says */
  CG_ENTRY_DAMAGED    /* a malformed header, bytes past the size, or a checksum that fails */
} cg_cache_verdict;

/* Check size bytes of data as an entry; on CG_ENTRY_OK, fills entry (untouched otherwise). */
cg_cache_verdict cg_cache_entry_parse(const void *data, size_t size, cg_cache_entry *entry);
/* The header line of an entry for that body into buf (snprintf's contract: the length it
 * needs, NUL not counted). */
int cg_cache_entry_header(char *buf, size_t cap, uint64_t key, const void *body, size_t size);

/* Whether the driver keeps a disk cache of compiled kernels of its own, which can turn a
 * "source" build into a cache hit: "on", "off" (switched off through its environment
 * variable), or "unknown" for drivers whose cache clgauge does not know. */
const char *cg_driver_cache_state(const cg_device_info *info);

/* Switch off the disk caches of the drivers clgauge knows (NVIDIA: CUDA_CACHE_DISABLE, PoCL:
 * POCL_KERNEL_CACHE, Mesa: MESA_SHADER_CACHE_DISABLE), so that builds are cold. Only effective
 * before the first OpenCL call of the process. */
void cg_driver_caches_disable(void);

#endif
