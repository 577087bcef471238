/* Kernel sources (embedded or from a directory) and program builds with their logs. */
#include "clgauge/program.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cg_embedded_kernel *cg_embedded_kernel_find(const char *name) {
  for (const cg_embedded_kernel *k = cg_embedded_kernels; k->name; ++k)
    if (strcmp(k->name, name) == 0) return k;
  return NULL;
}

static cg_rc read_file(const char *path, char **out, size_t *size, cg_error *err) {
  cg_rc rc = CG_OK;
  char *buf = NULL;
  FILE *f = fopen(path, "rb");
  CG_CHECK(f, CG_BAD_INPUT, "cannot read kernel file '%s': %s", path, strerror(errno));
  CG_CHECK(fseek(f, 0, SEEK_END) == 0, CG_BAD_INPUT, "cannot read kernel file '%s'", path);
  long len = ftell(f);
  CG_CHECK(len >= 0 && fseek(f, 0, SEEK_SET) == 0, CG_BAD_INPUT, "cannot read kernel file '%s'",
           path);
  buf = malloc((size_t)len + 1);
  CG_CHECK(buf, CG_ERROR, "out of memory reading '%s'", path);
  CG_CHECK(fread(buf, 1, (size_t)len, f) == (size_t)len, CG_BAD_INPUT,
           "cannot read kernel file '%s'", path);
  buf[len] = '\0';
  *out = buf;
  *size = (size_t)len;
  buf = NULL;
cleanup:
  if (f) fclose(f);
  free(buf);
  return rc;
}

cg_rc cg_kernel_source(const char *kernel_dir, const char *name, char **source, size_t *size,
                       cg_error *err) {
  cg_rc rc = CG_OK;
  if (kernel_dir && *kernel_dir) {
    char path[4096];
    CG_CHECK(snprintf(path, sizeof path, "%s/%s", kernel_dir, name) < (int)sizeof path,
             CG_BAD_INPUT, "kernel directory path too long: '%s'", kernel_dir);
    return read_file(path, source, size, err);
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

cg_rc cg_program_build(const cg_device *dev, const char *kernel_dir, const char *name,
                       const char *options, cl_program *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  char *source = NULL;
  size_t size = 0;
  cl_program program = NULL;
  const cg_device_info *info = cg_device_get_info(dev);

  CG_TRY(cg_kernel_source(kernel_dir, name, &source, &size, err));
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
  *out = program;
  program = NULL;
cleanup:
  if (program) clReleaseProgram(program);
  free(source);
  return rc;
}
