/* Platform and device enumeration, device selection, and context/queue creation. */
#include "clgauge/device.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clgauge/clock.h"
#include "clgauge/events.h"
#include "clgauge/stats.h"

struct cg_device {
  cg_device_info info;
  cl_context context;
  cl_command_queue queue;
  double open_overlap_ms; /* see cg_device_open_overlap_ms */
};

static void info_string(cl_device_id dev, cl_device_info what, char *buf, size_t size) {
  buf[0] = '\0';
  if (clGetDeviceInfo(dev, what, size, buf, NULL) != CL_SUCCESS) snprintf(buf, size, "?");
  buf[size - 1] = '\0';
}

static void platform_string(cl_platform_id p, cl_platform_info what, char *buf, size_t size) {
  buf[0] = '\0';
  if (clGetPlatformInfo(p, what, size, buf, NULL) != CL_SUCCESS) snprintf(buf, size, "?");
  buf[size - 1] = '\0';
}

static void fill_info(cg_device_info *d) {
  char *name_fields[] = {d->vendor, d->name, d->driver_version, d->version, d->c_version};
  cl_device_info name_queries[] = {CL_DEVICE_VENDOR, CL_DEVICE_NAME, CL_DRIVER_VERSION,
                                   CL_DEVICE_VERSION, CL_DEVICE_OPENCL_C_VERSION};
  size_t sizes[] = {sizeof d->vendor, sizeof d->name, sizeof d->driver_version,
                    sizeof d->version, sizeof d->c_version};
  for (int i = 0; i < 5; ++i) info_string(d->id, name_queries[i], name_fields[i], sizes[i]);
  platform_string(d->platform_id, CL_PLATFORM_NAME, d->platform, sizeof d->platform);
  platform_string(d->platform_id, CL_PLATFORM_VERSION, d->platform_version,
                  sizeof d->platform_version);

  cl_uint u = 0;
  cl_ulong ul = 0;
  size_t sz = 0;
  cl_command_queue_properties props = 0;
  d->type = 0;
  clGetDeviceInfo(d->id, CL_DEVICE_TYPE, sizeof d->type, &d->type, NULL);
  d->compute_units = clGetDeviceInfo(d->id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof u, &u, NULL) ? 0 : u;
  d->clock_mhz = clGetDeviceInfo(d->id, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof u, &u, NULL) ? 0 : u;
  d->global_mem = clGetDeviceInfo(d->id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof ul, &ul, NULL) ? 0 : ul;
  d->local_mem = clGetDeviceInfo(d->id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof ul, &ul, NULL) ? 0 : ul;
  d->max_alloc = clGetDeviceInfo(d->id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ul, &ul, NULL) ? 0 : ul;
  d->max_work_group =
      clGetDeviceInfo(d->id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof sz, &sz, NULL) ? 1 : sz;
  d->profiling = clGetDeviceInfo(d->id, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL) ==
                     CL_SUCCESS &&
                 (props & CL_QUEUE_PROFILING_ENABLE);
}

cg_rc cg_device_list_query(cg_device_list *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_platform_id *platforms = NULL;
  cl_device_id *ids = NULL;
  memset(out, 0, sizeof *out);
  uint64_t t0 = cg_now_ns();

  cl_uint nplat = 0;
  cl_int code = clGetPlatformIDs(0, NULL, &nplat);
  /* The ICD loader answers CL_PLATFORM_NOT_FOUND_KHR when no driver is installed: zero platforms. */
  if (code == -1001 || (code == CL_SUCCESS && nplat == 0)) goto cleanup;
  CG_CL_CHECK(clGetPlatformIDs, code);
  platforms = calloc(nplat, sizeof *platforms);
  CG_CHECK(platforms, CG_ERROR, "out of memory");
  CG_CL(clGetPlatformIDs, (nplat, platforms, NULL));
  out->platforms = (int)nplat;

  for (cl_uint p = 0; p < nplat; ++p) {
    cl_uint ndev = 0;
    code = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev);
    /* A platform may list no device (Mesa Clover without a usable driver): skip it. */
    if (code == CL_DEVICE_NOT_FOUND || code != CL_SUCCESS || ndev == 0) {
      if (out->nempty < CG_MAX_EMPTY_PLATFORMS)
        platform_string(platforms[p], CL_PLATFORM_NAME, out->empty_platforms[out->nempty++],
                        sizeof out->empty_platforms[0]);
      continue;
    }
    cl_device_id *grown_ids = realloc(ids, ndev * sizeof *ids);
    CG_CHECK(grown_ids, CG_ERROR, "out of memory");
    ids = grown_ids;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, ndev, ids, NULL) != CL_SUCCESS) continue;
    cg_device_info *grown = realloc(out->items, (size_t)(out->count + (int)ndev) * sizeof *grown);
    CG_CHECK(grown, CG_ERROR, "out of memory");
    out->items = grown;
    for (cl_uint d = 0; d < ndev; ++d) {
      cg_device_info *info = &out->items[out->count];
      memset(info, 0, sizeof *info);
      info->index = out->count;
      info->platform_index = (int)p;
      info->device_index = (int)d;
      info->platform_id = platforms[p];
      info->id = ids[d];
      fill_info(info);
      out->count++;
    }
  }

cleanup:
  out->query_ms = (double)(cg_now_ns() - t0) / 1e6;
  free(platforms);
  free(ids);
  if (rc != CG_OK) cg_device_list_free(out);
  return rc;
}

void cg_device_list_free(cg_device_list *list) {
  if (!list) return;
  free(list->items);
  list->items = NULL;
  list->count = 0;
  list->platforms = 0;
  list->nempty = 0;
}

unsigned cg_device_units(const cg_device_info *info) {
  return info->compute_units ? info->compute_units : 1;
}

bool cg_device_is_cpu(const cg_device_info *info) {
  return (info->type & CL_DEVICE_TYPE_CPU) != 0;
}

const char *cg_device_type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

static bool contains_nocase(const char *haystack, const char *needle) {
  size_t n = strlen(needle);
  for (const char *h = haystack; *h; ++h) {
    size_t i = 0;
    while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i])) ++i;
    if (i == n) return true;
  }
  return n == 0;
}

/* Parses a whole non-negative decimal number; false for anything else. */
static bool parse_index(const char *s, size_t len, long *out) {
  if (len == 0 || len > 9) return false;
  long v = 0;
  for (size_t i = 0; i < len; ++i) {
    if (!isdigit((unsigned char)s[i])) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

cg_rc cg_device_select(const cg_device_list *list, const char *selector, int *index,
                       cg_error *err) {
  cg_rc rc = CG_OK;
  CG_CHECK(list->count > 0, CG_UNSUPPORTED, "no OpenCL device found (%d platform%s)",
           list->platforms, list->platforms == 1 ? "" : "s");

  if (!selector || !*selector) {
    for (int i = 0; i < list->count; ++i)
      if (list->items[i].type & CL_DEVICE_TYPE_GPU) {
        *index = i;
        return CG_OK;
      }
    *index = 0;
    return CG_OK;
  }

  long a = 0, b = 0;
  const char *colon = strchr(selector, ':');
  if (parse_index(selector, strlen(selector), &a)) {
    CG_CHECK(a < list->count, CG_BAD_INPUT,
             "device '%s': no device with that index (devices 0..%d; see 'clgauge list')",
             selector, list->count - 1);
    *index = (int)a;
    return CG_OK;
  }
  if (colon && parse_index(selector, (size_t)(colon - selector), &a) &&
      parse_index(colon + 1, strlen(colon + 1), &b)) {
    for (int i = 0; i < list->count; ++i)
      if (list->items[i].platform_index == a && list->items[i].device_index == b) {
        *index = i;
        return CG_OK;
      }
    CG_CHECK(0, CG_BAD_INPUT, "device '%s': no device %ld on platform %ld (see 'clgauge list')",
             selector, b, a);
  }

  static const struct {
    const char *word;
    cl_device_type type;
  } types[] = {{"gpu", CL_DEVICE_TYPE_GPU},
               {"cpu", CL_DEVICE_TYPE_CPU},
               {"accelerator", CL_DEVICE_TYPE_ACCELERATOR}};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
    if (strcasecmp(selector, types[t].word) != 0) continue;
    for (int i = 0; i < list->count; ++i)
      if (list->items[i].type & types[t].type) {
        *index = i;
        return CG_OK;
      }
    CG_CHECK(0, CG_BAD_INPUT, "device '%s': no device of that type (see 'clgauge list')",
             selector);
  }

  for (int i = 0; i < list->count; ++i) {
    const cg_device_info *d = &list->items[i];
    /* PoCL names itself only in its version strings ("OpenCL 3.0 PoCL ..."), so those count. */
    if (contains_nocase(d->vendor, selector) || contains_nocase(d->name, selector) ||
        contains_nocase(d->platform, selector) || contains_nocase(d->platform_version, selector) ||
        contains_nocase(d->version, selector)) {
      *index = i;
      return CG_OK;
    }
  }
  CG_CHECK(0, CG_BAD_INPUT,
           "device '%s': no device index, type, vendor or name matches (see 'clgauge list')",
           selector);
cleanup:
  return rc;
}

bool cg_device_selector_is_list(const char *selector) {
  return selector && (strcasecmp(selector, "all") == 0 || strchr(selector, ','));
}

cg_rc cg_device_select_many(const cg_device_list *list, const char *selectors, int *indices,
                            int *count, cg_error *err) {
  cg_rc rc = CG_OK;
  *count = 0;
  if (strcasecmp(selectors, "all") == 0) {
    for (int i = 0; i < list->count; ++i) indices[(*count)++] = i;
    return CG_OK;
  }
  for (const char *p = selectors;; ++p) {
    const size_t len = strcspn(p, ",");
    char item[256];
    CG_CHECK(len > 0, CG_BAD_INPUT, "an empty item in the device list");
    CG_CHECK(len < sizeof item, CG_BAD_INPUT, "a device list item longer than %zu characters",
             sizeof item - 1);
    memcpy(item, p, len);
    item[len] = '\0';
    CG_CHECK(strcasecmp(item, "all") != 0, CG_BAD_INPUT, "'all' stands alone, not in a list");
    int index = -1;
    CG_TRY(cg_device_select(list, item, &index, err));
    bool seen = false;
    for (int k = 0; k < *count; ++k) seen |= indices[k] == index;
    if (!seen) indices[(*count)++] = index;
    p += len;
    if (!*p) break;
  }
cleanup:
  return rc;
}

cg_rc cg_device_open(const cg_device_info *info, cg_device **out, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  cg_device *dev = calloc(1, sizeof *dev);
  CG_CHECK(dev, CG_ERROR, "out of memory");
  dev->info = *info;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)info->platform_id,
                                   0};
  dev->context = clCreateContext(props, 1, &info->id, NULL, NULL, &code);
  CG_CL_CHECK(clCreateContext, code);
  /* clCreateCommandQueue, not ...WithProperties: Clover and other 1.1/1.2 drivers lack the 2.0 call. */
  dev->queue = clCreateCommandQueue(dev->context, info->id,
                                    info->profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &code);
  CG_CL_CHECK(clCreateCommandQueue, code);
  *out = dev;
  dev = NULL;
cleanup:
  cg_device_close(dev);
  return rc;
}

void cg_device_close(cg_device *dev) {
  if (!dev) return;
  if (dev->queue) {
    clFinish(dev->queue);
    clReleaseCommandQueue(dev->queue);
  }
  if (dev->context) clReleaseContext(dev->context);
  free(dev);
}

const cg_device_info *cg_device_get_info(const cg_device *dev) { return &dev->info; }
cl_context cg_device_context(const cg_device *dev) { return dev->context; }
cl_command_queue cg_device_queue(const cg_device *dev) { return dev->queue; }
double cg_device_open_overlap_ms(const cg_device *dev) { return dev->open_overlap_ms; }
void cg_device_set_open_overlap(cg_device *dev, double ms) { dev->open_overlap_ms = ms; }
