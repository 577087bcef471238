/* Sizes of a job checked before anything runs, for the workload descriptors' validate
 * functions: each array's element count against the int indexes of the hand-written kernels, its
 * bytes against size_t and the device's largest allocation, and the sums against the device's
 * memory and the host's. Every refusal names the options that set the sizes, the array, what it
 * needs and the limit. */
#ifndef CLGAUGE_SIZES_H
#define CLGAUGE_SIZES_H

#include <stdint.h>

#include "clgauge/device.h"
#include "clgauge/error.h"

/* The largest element count, and so offset + 1, that an OpenCL C `int` index reaches. */
#define CG_INT_INDEX_MAX 2147483647ull

/* Where an array lives (flags of cg_size_array). */
enum {
  CG_ON_HOST = 1,    /* in the host's memory */
  CG_ON_DEVICE = 2,  /* one allocation in the device's memory (checked only with a device) */
  CG_INT_INDEXED = 4 /* indexed with int by the kernels of cl/ (checked only with a device) */
};

/* The arrays of one job, described one by one, then their sums. */
typedef struct cg_size_check {
  char options[256];            /* the options that set the sizes, for the messages */
  const char *arrays;           /* what the device arrays are together: "the matrices" */
  const cg_device_info *device; /* NULL when no OpenCL backend runs */
  uint64_t host_memory;         /* bytes; 0 when unknown (then not checked) */
  uint64_t host_bytes, device_bytes; /* UINT64_MAX once a sum overflows */
  const char *host_largest;     /* the largest host array so far, and its bytes */
  uint64_t host_largest_bytes;
} cg_size_check;

/* Start a check for a device (NULL: the host alone) with the host's memory from
 * cg_host_memory(); `arrays` names the device arrays together, the rest is printf-style: the
 * options ("--n 50000"). */
void cg_size_check_init(cg_size_check *c, const cg_device_info *device, const char *arrays,
                        const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* One array of rows x cols elements of elem_bytes each, `copies` times on the host (copies of
 * the same shape: inputs, the reference's, a backend's result; ignored on the device, where it
 * is one allocation). `options` names the options that set this array's shape, or NULL for the
 * check's. CG_BAD_INPUT when the count or bytes overflow 64 bits or size_t, when it needs more
 * than the device's largest allocation, or (indexed) more elements than CG_INT_INDEX_MAX. */
cg_rc cg_size_array(cg_size_check *c, const char *options, const char *what, unsigned where,
                    uint64_t elem_bytes, uint64_t rows, uint64_t cols, uint64_t copies,
                    cg_error *err);

/* The sums: device arrays against the device's global memory, host arrays against the host's
 * memory (naming the largest of them). */
cg_rc cg_size_totals(const cg_size_check *c, cg_error *err);

/* Bytes of memory this process may use on the host: the physical memory, or a smaller limit of
 * its control group (cgroup v2 memory.max); 0 when neither can be read. */
uint64_t cg_host_memory(void);

#endif
