/* Sizes of a job checked before anything runs: element counts against int indexing, bytes
 * against size_t, the device's allocation and memory limits, and the host's memory. */
#include "clgauge/sizes.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "2 GiB", "64 TiB": bytes in the largest binary unit that keeps the figure at least 1. */
static const char *human(uint64_t bytes, char *buf, size_t size) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  if (u == 0)
    snprintf(buf, size, "%llu B", (unsigned long long)bytes);
  else
    snprintf(buf, size, "%.3g %s", v, units[u]);
  return buf;
}

/* a * b, or false when it does not fit 64 bits. */
static bool mul(uint64_t a, uint64_t b, uint64_t *out) {
  if (a != 0 && b > UINT64_MAX / a) return false;
  *out = a * b;
  return true;
}

static uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/* A whole number from the start of a file such as /sys/fs/cgroup/memory.max; 0 when the file
 * cannot be read or holds no number ("max": no limit). */
static uint64_t read_number(const char *path, const char *key) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[256];
  unsigned long long v = 0;
  const size_t klen = key ? strlen(key) : 0;
  while (fgets(line, sizeof line, f)) {
    if (key && strncmp(line, key, klen) != 0) continue;
    if (sscanf(line + klen, " %llu", &v) != 1) v = 0;
    break;
  }
  fclose(f);
  return v;
}

uint64_t cg_host_memory(void) {
  uint64_t phys = 0;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && !mul((uint64_t)pages, (uint64_t)page, &phys)) phys = UINT64_MAX;
  if (phys == 0) phys = read_number("/proc/meminfo", "MemTotal:") * 1024;
  /* A container's limit is what the process can have; "max" (no limit) reads as 0. */
  const uint64_t group = read_number("/sys/fs/cgroup/memory.max", NULL);
  if (group > 0 && (phys == 0 || group < phys)) return group;
  return phys;
}

void cg_size_check_init(cg_size_check *c, const cg_device_info *device, const char *arrays,
                        const char *fmt, ...) {
  memset(c, 0, sizeof *c);
  c->device = device;
  c->arrays = arrays;
  c->host_memory = cg_host_memory();
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->options, sizeof c->options, fmt, ap);
  va_end(ap);
}

cg_rc cg_size_array(cg_size_check *c, const char *options, const char *what, unsigned where,
                    uint64_t elem_bytes, uint64_t rows, uint64_t cols, uint64_t copies,
                    cg_error *err) {
  cg_rc rc = CG_OK;
  const char *opts = options ? options : c->options;
  char need[32], have[32];
  uint64_t count = 0, bytes = 0, host = 0;
  CG_CHECK(mul(rows, cols, &count) && mul(count, elem_bytes, &bytes), CG_BAD_INPUT,
           "%s: %s needs more bytes than a 64-bit number counts", opts, what);
  CG_CHECK((uint64_t)(size_t)bytes == bytes, CG_BAD_INPUT,
           "%s: %s needs %s, more than this host's size_t (%zu bytes) can count", opts, what,
           human(bytes, need, sizeof need), (size_t)SIZE_MAX);
  if (c->device && (where & CG_ON_DEVICE)) {
    CG_CHECK(bytes <= c->device->max_alloc, CG_BAD_INPUT,
             "%s: %s needs %s, device '%s' allows %s per allocation", opts, what,
             human(bytes, need, sizeof need), c->device->name,
             human(c->device->max_alloc, have, sizeof have));
    c->device_bytes = add_sat(c->device_bytes, bytes);
  }
  if (c->device && (where & CG_INT_INDEXED))
    CG_CHECK(count <= CG_INT_INDEX_MAX, CG_BAD_INPUT,
             "%s: %s has %llu elements, more than the %llu (2^31 - 1) that the kernels' int "
             "indexes reach on device '%s'",
             opts, what, (unsigned long long)count, CG_INT_INDEX_MAX, c->device->name);
  if (where & CG_ON_HOST) {
    CG_CHECK(mul(bytes, copies, &host), CG_BAD_INPUT,
             "%s: %s x %llu needs more bytes than a 64-bit number counts", opts, what,
             (unsigned long long)copies);
    c->host_bytes = add_sat(c->host_bytes, host);
    if (host > c->host_largest_bytes) {
      c->host_largest = what;
      c->host_largest_bytes = host;
    }
  }
cleanup:
  return rc;
}

cg_rc cg_size_totals(const cg_size_check *c, cg_error *err) {
  cg_rc rc = CG_OK;
  char need[32], have[32], largest[32];
  if (c->device)
    CG_CHECK(c->device_bytes <= c->device->global_mem, CG_BAD_INPUT,
             "%s: %s need %s, device '%s' has %s", c->options, c->arrays,
             human(c->device_bytes, need, sizeof need), c->device->name,
             human(c->device->global_mem, have, sizeof have));
  if (c->host_memory > 0)
    CG_CHECK(c->host_bytes <= c->host_memory, CG_BAD_INPUT,
             "%s: the host arrays need %s (the largest: %s, %s), the host has %s of memory",
             c->options, human(c->host_bytes, need, sizeof need),
             c->host_largest ? c->host_largest : "?",
             human(c->host_largest_bytes, largest, sizeof largest),
             human(c->host_memory, have, sizeof have));
cleanup:
  return rc;
}
