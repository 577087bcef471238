/* Kernel sources (embedded or from a directory) and program builds with their logs. */
#include "clgauge/program.h"

#include "clgauge/binary_cache.h"
#include "clgauge/files.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cg_embedded_kernel *cg_embedded_kernel_find(const char *name) {
  for (const cg_embedded_kernel *k = cg_embedded_kernels; k->name; ++k)
    if (strcmp(k->name, name) == 0) return k;
  return NULL;
}

/* The file as it is: from kernel_dir, else the embedded copy. */
static cg_rc read_raw(const char *kernel_dir, const char *name, char **source, size_t *size,
                      cg_error *err) {
  cg_rc rc = CG_OK;
  if (kernel_dir && *kernel_dir) {
    char path[4096];
    CG_CHECK(snprintf(path, sizeof path, "%s/%s", kernel_dir, name) < (int)sizeof path,
             CG_BAD_INPUT, "kernel directory path too long: '%s'", kernel_dir);
    rc = cg_file_read(path, source, size, err);
    if (rc != CG_OK) cg_error_append(err, " (kernel file)");
    return rc;
  }
  const cg_embedded_kernel *k = cg_embedded_kernel_find(name);
  CG_CHECK(k, CG_ERROR, "no embedded kernel source named '%s'", name);
  *source = malloc(k->size + 1);
  CG_CHECK(*source, CG_ERROR, "out of memory");
  memcpy(*source, k->source, k->size + 1);
  *size = k->size;
cleanup:
  return rc;
}

static const char include_directive[] = "#include \"";

/* The name of the file a line `#include "NAME"` names into name (NUL-terminated), or false when
 * the line at p (up to end) is not one. */
static bool include_name(const char *p, const char *end, char *name, size_t cap) {
  const size_t lead = sizeof include_directive - 1;
  if ((size_t)(end - p) <= lead || memcmp(p, include_directive, lead) != 0) return false;
  const char *q = p + lead, *close = memchr(q, '"', (size_t)(end - q));
  if (!close || close == q || (size_t)(close - q) >= cap) return false;
  memcpy(name, q, (size_t)(close - q));
  name[close - q] = '\0';
  return true;
}

cg_rc cg_kernel_source(const char *kernel_dir, const char *name, char **source, size_t *size,
                       cg_error *err) {
  cg_rc rc = CG_OK;
  char *raw = NULL, *part = NULL, *out = NULL;
  size_t raw_size = 0, part_size = 0, used = 0, cap = 0;
  CG_TRY(read_raw(kernel_dir, name, &raw, &raw_size, err));
  /* read_raw hands back a buffer whenever it succeeds; said so for the static analysis */
  CG_CHECK(raw, CG_ERROR, "kernel source '%s' read as nothing", name);
  cap = raw_size + 1;
  out = malloc(cap);
  CG_CHECK(out, CG_ERROR, "out of memory");
  const char *const end = raw + raw_size;
  int line = 1;
  for (const char *p = raw; p < end; ++line) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *next = nl ? nl + 1 : end;
    char inc[256];
    const bool included = include_name(p, next, inc, sizeof inc);
    if (included) {
      CG_TRY(read_raw(kernel_dir, inc, &part, &part_size, err));
      CG_CHECK(part, CG_ERROR, "kernel source '%s' read as nothing", inc);
      char *const part_end = part + part_size;
      for (char *q = part; q < part_end; ++q) {
        char ignored[256];
        CG_CHECK(!((q == part || q[-1] == '\n') && include_name(q, part_end, ignored,
                                                                sizeof ignored)),
                 CG_BAD_INPUT, "kernel source %s, included by %s, includes another file: one "
                 "level only", inc, name);
      }
    }
    /* the included text renumbered from 1 (build logs name its own lines), then the including
     * file's numbering again */
    char marks[2][32];
    snprintf(marks[0], sizeof marks[0], "#line 1\n");
    snprintf(marks[1], sizeof marks[1], "\n#line %d\n", line + 1);
    const size_t need = included ? strlen(marks[0]) + part_size + strlen(marks[1])
                                 : (size_t)(next - p);
    if (used + need + 1 > cap) {
      cap = (used + need + 1) * 2;
      char *grown = realloc(out, cap);
      CG_CHECK(grown, CG_ERROR, "out of memory");
      out = grown;
    }
    if (included) {
      used += (size_t)sprintf(out + used, "%s", marks[0]);
      memcpy(out + used, part, part_size);
      used += part_size;
      used += (size_t)sprintf(out + used, "%s", marks[1]);
      free(part);
      part = NULL;
    } else {
      memcpy(out + used, p, (size_t)(next - p));
      used += (size_t)(next - p);
    }
    p = next;
  }
  out[used] = '\0';
  *source = out;
  *size = used;
  out = NULL;
cleanup:
  free(out);
  free(raw);
  free(part);
  return rc;
}

static void append_build_log(cl_program program, cl_device_id device, cg_error *err) {
  size_t len = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) != CL_SUCCESS)
    return;
  char *log = malloc(len + 1);
  if (!log) return;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, len, log, NULL) == CL_SUCCESS) {
    log[len] = '\0';
    cg_error_append(err, "\nbuild log:\n");
    cg_error_append(err, log);
  }
  free(log);
}

/* ---- the binary cache of our own ---- */

/* 64-bit FNV-1a: a key for the cache file name, not a security measure. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t size) {
  const unsigned char *p = data;
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t fnv1a_str(uint64_t h, const char *s) {
  return fnv1a(h, s ? s : "", (s ? strlen(s) : 0) + 1); /* the NUL separates the fields */
}

/* A binary is valid for the same source and options on the same device and driver. */
static uint64_t cache_key(const cg_device_info *info, const char *source, size_t size,
                          const char *options) {
  uint64_t h = 0xcbf29ce484222325ull;
  h = fnv1a(h, source, size);
  h = fnv1a_str(h, options);
  h = fnv1a_str(h, info->platform);
  h = fnv1a_str(h, info->platform_version);
  h = fnv1a_str(h, info->name);
  h = fnv1a_str(h, info->version);
  h = fnv1a_str(h, info->driver_version);
  return h;
}

static cg_rc cache_path(const char *dir, const char *name, uint64_t key, char *path, size_t cap,
                        cg_error *err) {
  cg_rc rc = CG_OK;
  const char *dot = strrchr(name, '.');
  int stem = dot ? (int)(dot - name) : (int)strlen(name);
  CG_CHECK(snprintf(path, cap, "%s/%.*s-%016llx.bin", dir, stem, name, (unsigned long long)key) <
               (int)cap,
           CG_BAD_INPUT, "binary cache path too long: '%s'", dir);
cleanup:
  return rc;
}

/* ---- entries: the pure part, no device ---- */

#define CACHE_MAGIC "clgauge-program-binary 2 "

static uint64_t body_sum(const void *body, size_t size) {
  return fnv1a(0xcbf29ce484222325ull, body, size);
}

int cg_cache_entry_header(char *buf, size_t cap, uint64_t key, const void *body, size_t size) {
  return snprintf(buf, cap, CACHE_MAGIC "%016llx %zu %016llx\n", (unsigned long long)key, size,
                  (unsigned long long)body_sum(body, size));
}

/* Exactly 16 lowercase hex digits, then `end`: the writer's form and no other. */
static bool parse_hex16(const unsigned char **p, const unsigned char *limit, char end,
                        uint64_t *out) {
  if (limit - *p < 17) return false;
  uint64_t v = 0;
  for (int i = 0; i < 16; ++i) {
    const unsigned char c = (*p)[i];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    v = v << 4 | (uint64_t)d;
  }
  if ((*p)[16] != end) return false;
  *p += 17;
  *out = v;
  return true;
}

/* A decimal size without sign or leading zero, that fits size_t, then `end`. */
static bool parse_size(const unsigned char **p, const unsigned char *limit, char end,
                       size_t *out) {
  const unsigned char *q = *p;
  size_t v = 0;
  if (q == limit || *q < '0' || *q > '9' || (*q == '0' && q + 1 < limit && q[1] != end))
    return false;
  for (; q < limit && *q >= '0' && *q <= '9'; ++q) {
    const size_t d = (size_t)(*q - '0');
    if (v > (SIZE_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  if (q == limit || *q != end) return false;
  *p = q + 1;
  *out = v;
  return true;
}

cg_cache_verdict cg_cache_entry_parse(const void *data, size_t size, cg_cache_entry *entry) {
  const unsigned char *p = data, *const limit = p + size;
  const size_t magic = sizeof CACHE_MAGIC - 1;
  if (size == 0) return CG_ENTRY_TRUNCATED;
  if (size < magic)
    return memcmp(p, CACHE_MAGIC, size) == 0 ? CG_ENTRY_TRUNCATED : CG_ENTRY_FOREIGN;
  if (memcmp(p, CACHE_MAGIC, magic) != 0) return CG_ENTRY_FOREIGN;
  p += magic;
  /* the rest of the header: key, size (at most 20 digits) and sum, three separators */
  enum { FIELDS_MAX = 16 + 1 + 20 + 1 + 16 + 1 };
  const size_t left = (size_t)(limit - p);
  const unsigned char *nl = memchr(p, '\n', left < FIELDS_MAX ? left : FIELDS_MAX);
  if (!nl) return left < FIELDS_MAX ? CG_ENTRY_TRUNCATED : CG_ENTRY_DAMAGED;
  uint64_t key = 0, sum = 0;
  size_t body = 0;
  if (!parse_hex16(&p, nl + 1, ' ', &key) || !parse_size(&p, nl + 1, ' ', &body) ||
      !parse_hex16(&p, nl + 1, '\n', &sum) || body == 0) /* the writer stores no empty binary */
    return CG_ENTRY_DAMAGED;
  const size_t have = (size_t)(limit - p);
  if (have != body) return have < body ? CG_ENTRY_TRUNCATED : CG_ENTRY_DAMAGED;
  if (body_sum(p, body) != sum) return CG_ENTRY_DAMAGED;
  entry->key = key;
  entry->body = p;
  entry->size = body;
  return CG_ENTRY_OK;
}

/* ---- entries on disk, through the driver ---- */

/* What looking an entry up found. */
typedef enum cache_lookup {
  CACHE_HIT,
  CACHE_MISS,    /* no entry (or none that can be read): a build stores one */
  CACHE_REBUILT  /* an entry that was not usable: *why says what was wrong with it */
} cache_lookup;

/* A cached binary for the key, built for the device: CACHE_HIT with *out set. An entry that is
 * not whole, another format's or program's, or one the driver refuses is CACHE_REBUILT with
 * *why saying so (the build from source replaces it). Only an entry whose checksum holds
 * reaches the driver, which is not robust against damaged binaries. */
static cache_lookup cache_load(const cg_device *dev, const char *path, uint64_t key,
                               const char *options, cl_program *out, const char **why) {
  const cg_device_info *info = cg_device_get_info(dev);
  char *data = NULL;
  size_t size = 0;
  cg_error ignored = {0};
  if (cg_file_read(path, &data, &size, &ignored) != CG_OK) return CACHE_MISS;
  cg_cache_entry entry = {0};
  const cg_cache_verdict verdict = cg_cache_entry_parse(data, size, &entry);
  static const char *const verdicts[] = {
      [CG_ENTRY_FOREIGN] = "not an entry of this format (another version's, or another file)",
      [CG_ENTRY_TRUNCATED] = "truncated",
      [CG_ENTRY_DAMAGED] = "damaged (its checksum or header does not hold)"};
  *why = verdict != CG_ENTRY_OK ? verdicts[verdict]
         : entry.key != key     ? "another program's (its key differs)"
                                : NULL;
  cl_program program = NULL;
  if (!*why) {
    const unsigned char *bin = entry.body;
    cl_int status = CL_SUCCESS, code = CL_SUCCESS;
    program = clCreateProgramWithBinary(cg_device_context(dev), 1, &info->id, &entry.size, &bin,
                                        &status, &code);
    /* a binary still has to be built (linked for the device) before kernels can be created */
    if (code != CL_SUCCESS || status != CL_SUCCESS ||
        clBuildProgram(program, 1, &info->id, options, NULL, NULL) != CL_SUCCESS)
      *why = "refused by the driver";
  }
  free(data);
  if (*why) {
    if (program) clReleaseProgram(program);
    return CACHE_REBUILT;
  }
  *out = program;
  return CACHE_HIT;
}

/* Store the program's binary; a driver that gives none leaves the cache empty for it. */
static cg_rc cache_store(cl_program program, const char *path, uint64_t key, cg_error *err) {
  cg_rc rc = CG_OK;
  unsigned char *bin = NULL;
  size_t size = 0;
  cg_file_writer w = {0};
  CG_CL(clGetProgramInfo, (program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL));
  if (size == 0) goto cleanup;
  bin = malloc(size);
  CG_CHECK(bin, CG_ERROR, "out of memory");
  CG_CL(clGetProgramInfo, (program, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL));
  char header[128];
  const int len = cg_cache_entry_header(header, sizeof header, key, bin, size);
  CG_CHECK(len > 0 && (size_t)len < sizeof header, CG_ERROR, "binary cache header too long");
  CG_TRY(cg_file_begin(path, &w, err));
  fwrite(header, 1, (size_t)len, w.out);
  fwrite(bin, 1, size, w.out);
  CG_TRY(cg_file_commit(&w, err));
cleanup:
  if (rc != CG_OK) cg_file_abandon(&w);
  free(bin);
  return rc;
}

/* Oclgrind 21.10 (Debian 12) interprets the LLVM IR of the optimised build, and the optimiser
 * emits `freeze` instructions, which it does not know ("Unsupported instruction: freeze": the
 * kernel stops there and its results are garbage). Unoptimised IR has none. NULL when the
 * options need nothing added; else a malloc'd copy with the option, or NULL on no memory
 * (*failed set). */
static char *device_build_options(const cg_device_info *info, const char *options, bool *failed) {
  static const char extra[] = "-cl-opt-disable";
  *failed = false;
  if (!strstr(info->platform, "Oclgrind")) return NULL;
  const size_t len = options ? strlen(options) : 0;
  char *s = malloc(len + sizeof extra + 1);
  if (!s) {
    *failed = true;
    return NULL;
  }
  snprintf(s, len + sizeof extra + 1, "%s%s%s", options ? options : "", len ? " " : "", extra);
  return s;
}

cg_rc cg_program_build(const cg_device *dev, const cg_program_store *store, const char *name,
                       const char *options, cl_program *out, cg_build_result *result,
                       cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  char *source = NULL;
  size_t size = 0;
  cl_program program = NULL;
  const cg_device_info *info = cg_device_get_info(dev);
  bool no_memory = false;
  char *own_options = device_build_options(info, options, &no_memory);
  CG_CHECK(!no_memory, CG_ERROR, "out of memory");
  if (own_options) options = own_options;

  const char *kernel_dir = store ? store->kernel_dir : NULL;
  const char *cache_dir = store && store->binary_cache && *store->binary_cache
                              ? store->binary_cache
                              : NULL;
  char path[4200];
  uint64_t key = 0;
  const char *rebuilt = NULL;
  if (result) {
    result->origin = CG_BUILT_FROM_SOURCE;
    result->warning[0] = '\0';
  }

  CG_TRY(cg_kernel_source(kernel_dir, name, &source, &size, err));
  if (cache_dir) {
    key = cache_key(info, source, size, options);
    CG_TRY(cache_path(cache_dir, name, key, path, sizeof path, err));
    switch (cache_load(dev, path, key, options, out, &rebuilt)) {
    case CACHE_HIT:
      if (result) result->origin = CG_BUILT_FROM_CACHE;
      goto cleanup;
    case CACHE_REBUILT:
      if (result)
        snprintf(result->warning, sizeof result->warning,
                 "binary cache: entry '%.900s' %s: rebuilt from source", path, rebuilt);
      break;
    case CACHE_MISS:
      break;
    }
  }
  const char *sources[] = {source};
  program = clCreateProgramWithSource(cg_device_context(dev), 1, sources, &size, &code);
  CG_CL_CHECK(clCreateProgramWithSource, code);
  code = clBuildProgram(program, 1, &info->id, options, NULL, NULL);
  if (code != CL_SUCCESS) {
    rc = cg_fail_cl(err, code, "clBuildProgram", __FILE__, __LINE__);
    char where[4400];
    snprintf(where, sizeof where, " building %s/%s", kernel_dir && *kernel_dir ? kernel_dir : "cl",
             name);
    cg_error_append(err, where);
    append_build_log(program, info->id, err);
    goto cleanup;
  }
  /* The program built: a cache that cannot keep it costs the next run time, not this one. */
  if (cache_dir) {
    cg_error store_err = {0};
    const char *lost = "not stored";
    cg_rc stored = cache_store(program, path, key, &store_err);
    if (stored == CG_OK) {
      lost = "its description not stored";
      stored = cg_binary_cache_describe(path, info, name, &store_err);
    }
    if (stored != CG_OK && result) {
      /* after a rebuilt entry's warning, if any: both are worth reading */
      const size_t used = strlen(result->warning);
      snprintf(result->warning + used, sizeof result->warning - used, "%sbinary cache: %.900s (%s)",
               used ? "; " : "", store_err.msg, lost);
    }
  }
  *out = program;
  program = NULL;
cleanup:
  if (program) clReleaseProgram(program);
  free(source);
  free(own_options);
  return rc;
}

/* ---- the drivers' own caches ---- */

static bool env_is(const char *name, const char *value) {
  const char *v = getenv(name);
  return v && strcmp(v, value) == 0;
}

static bool contains(const char *haystack, const char *needle) {
  return strstr(haystack, needle) != NULL;
}

/* NVIDIA keeps compiled kernels under ~/.nv/ComputeCache unless CUDA_CACHE_DISABLE=1; PoCL under
 * ~/.cache/pocl/kcache unless POCL_KERNEL_CACHE=0. */
const char *cg_driver_cache_state(const cg_device_info *info) {
  if (contains(info->platform, "NVIDIA")) return env_is("CUDA_CACHE_DISABLE", "1") ? "off" : "on";
  if (contains(info->platform, "Portable Computing Language"))
    return env_is("POCL_KERNEL_CACHE", "0") ? "off" : "on";
  return "unknown";
}

void cg_driver_caches_disable(void) {
  setenv("CUDA_CACHE_DISABLE", "1", 1);
  setenv("POCL_KERNEL_CACHE", "0", 1);
  setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
}
