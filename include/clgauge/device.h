/* OpenCL platforms and devices: robust enumeration, selection by index, vendor, name or type,
 * and an opened device (context plus an in-order, profiling-enabled queue). */
#ifndef CLGAUGE_DEVICE_H
#define CLGAUGE_DEVICE_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stdint.h>

#include "clgauge/error.h"

typedef struct cg_device_info {
  int index;          /* position in the flat list that `clgauge list` prints */
  int platform_index; /* position of its platform, and of the device within it */
  int device_index;
  cl_platform_id platform_id;
  cl_device_id id;
  char platform[128];
  char platform_version[128];
  char vendor[128];
  char name[256];
  char driver_version[128];
  char version[128];   /* CL_DEVICE_VERSION, e.g. "OpenCL 3.0 CUDA" */
  char c_version[128]; /* CL_DEVICE_OPENCL_C_VERSION */
  cl_device_type type;
  unsigned compute_units;
  unsigned clock_mhz;
  uint64_t global_mem;
  uint64_t local_mem;
  uint64_t max_alloc;
  size_t max_work_group;
  bool profiling; /* the device supports CL_QUEUE_PROFILING_ENABLE */
} cg_device_info;

enum { CG_MAX_EMPTY_PLATFORMS = 8 };

typedef struct cg_device_list {
  cg_device_info *items;
  int count;
  int platforms;     /* platforms found, with or without devices */
  double query_ms;   /* time the enumeration took (platform discovery) */
  /* the names of the platforms that list no device (Mesa's Clover without a usable driver), so
   * that a run over every device can say which drivers it found nothing on */
  char empty_platforms[CG_MAX_EMPTY_PLATFORMS][128];
  int nempty;
} cg_device_list;

/* Enumerate every device of every platform. No platform at all is not an error: count is 0. */
cg_rc cg_device_list_query(cg_device_list *out, cg_error *err);
void cg_device_list_free(cg_device_list *list);

/* Select a device. The selector is one of:
 *   NULL or ""       the first GPU, else the first device
 *   "3"              the flat index printed by `clgauge list`
 *   "0:1"            platform index : device index within it
 *   "gpu", "cpu", "accelerator"   the first device of that type
 *   anything else    the first device whose vendor, name, platform name or platform/device
 *                    version string contains it (case-insensitive; PoCL shows only there)
 * On success *index is a position in list->items; otherwise CG_BAD_INPUT naming the selector. */
cg_rc cg_device_select(const cg_device_list *list, const char *selector, int *index, cg_error *err);

/* Several devices: "all" (every device listed), or a comma-separated list of selectors as above
 * ("0,2", "nvidia,pocl", "0:0,1:0"), each selecting one device; a device selected twice counts
 * once. indices (room for list->count) receives positions in list->items in the order given.
 * CG_BAD_INPUT names the item that matches nothing, or an empty item. */
cg_rc cg_device_select_many(const cg_device_list *list, const char *selectors, int *indices,
                            int *count, cg_error *err);
/* Whether a selector asks for several devices ("all", or a list with a comma). */
bool cg_device_selector_is_list(const char *selector);

/* "GPU", "CPU", "accelerator", ... for a cl_device_type. */
const char *cg_device_type_name(cl_device_type type);

/* The device's compute units, at least 1: a driver that fails the query or reports 0 leaves
 * compute_units at 0, and every sizing rule divides by it. */
unsigned cg_device_units(const cg_device_info *info);

/* Whether the device is a CPU (a CPU driver: PoCL, rusticl on llvmpipe, Clover), where the kernels'
 * defaults differ from a GPU's. */
bool cg_device_is_cpu(const cg_device_info *info);

/* An opened device: its context and one in-order queue (profiling enabled when supported). */
typedef struct cg_device cg_device;
cg_rc cg_device_open(const cg_device_info *info, cg_device **out, cg_error *err);
void cg_device_close(cg_device *dev);
const cg_device_info *cg_device_get_info(const cg_device *dev);
cl_context cg_device_context(const cg_device *dev);
cl_command_queue cg_device_queue(const cg_device *dev);
/* The part of the device's opening that ran on another thread before its user asked for it,
 * beside other work (early.h): 0 for a device opened where it was asked for. The setter is
 * early.c's. */
double cg_device_open_overlap_ms(const cg_device *dev);
void cg_device_set_open_overlap(cg_device *dev, double ms);

#endif
