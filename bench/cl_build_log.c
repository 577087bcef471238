/* Builds one OpenCL C file for one device and prints what the driver says about it: the build
 * log and, per kernel, its work-group limit and its local and private memory. With NVIDIA's
 * `-cl-nv-verbose` among the options the log carries ptxas's register and spill counts, which
 * decide how many work-groups a compute unit holds.
 *   cl_build_log DEVICE FILE.cl [BUILD OPTIONS...]
 * DEVICE: a substring of the device or platform name (case-sensitive), or a number, the index
 * among all devices of all platforms. The options are joined with spaces. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *text = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    const long n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)) != NULL) {
      *len = fread(text, 1, (size_t)n, f);
      text[*len] = '\0';
    }
  }
  fclose(f);
  return text;
}

/* The device that `sel` names, or NULL. */
static cl_device_id pick_device(const char *sel) {
  cl_platform_id platforms[16];
  cl_uint np = 0;
  if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS) return NULL;
  char *end = NULL;
  const long want = strtol(sel, &end, 10);
  const int by_index = *sel != '\0' && *end == '\0';
  long index = 0;
  for (cl_uint p = 0; p < np && p < 16; ++p) {
    cl_device_id devices[16];
    cl_uint nd = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &nd) != CL_SUCCESS) continue;
    char pname[256] = "";
    clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    for (cl_uint d = 0; d < nd && d < 16; ++d, ++index) {
      char dname[256] = "";
      clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof dname, dname, NULL);
      if (by_index ? index == want : strstr(dname, sel) || strstr(pname, sel)) {
        printf("device %ld: %s (%s)\n", index, dname, pname);
        return devices[d];
      }
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: cl_build_log DEVICE FILE.cl [BUILD OPTIONS...]\n");
    return 2;
  }
  cl_device_id device = pick_device(argv[1]);
  if (!device) {
    fprintf(stderr, "cl_build_log: no OpenCL device matches '%s'\n", argv[1]);
    return 1;
  }
  size_t len = 0;
  char *source = read_file(argv[2], &len);
  if (!source) {
    fprintf(stderr, "cl_build_log: cannot read '%s'\n", argv[2]);
    return 1;
  }
  size_t olen = 1;
  for (int i = 3; i < argc; ++i) olen += strlen(argv[i]) + 1;
  char *options = calloc(olen, 1);
  for (int i = 3; options && i < argc; ++i) {
    strcat(options, argv[i]);
    if (i + 1 < argc) strcat(options, " ");
  }
  cl_int code = CL_SUCCESS;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &code);
  if (code != CL_SUCCESS) {
    fprintf(stderr, "cl_build_log: clCreateContext failed (%d)\n", code);
    return 1;
  }
  const char *src = source;
  cl_program program = clCreateProgramWithSource(ctx, 1, &src, &len, &code);
  const cl_int built = code == CL_SUCCESS
                           ? clBuildProgram(program, 1, &device, options ? options : "", NULL, NULL)
                           : code;
  printf("options: %s\nbuild: %s (%d)\n", options ? options : "", built == CL_SUCCESS ? "ok" : "failed",
         built);
  size_t loglen = 0;
  if (code == CL_SUCCESS &&
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &loglen) == CL_SUCCESS) {
    char *log = malloc(loglen + 1);
    if (log && clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, loglen, log, NULL) ==
                   CL_SUCCESS) {
      log[loglen] = '\0';
      printf("--- build log ---\n%s\n--- end of log ---\n", log);
    }
    free(log);
  }
  if (built == CL_SUCCESS) {
    cl_kernel kernels[64];
    cl_uint nk = 0;
    if (clCreateKernelsInProgram(program, 64, kernels, &nk) == CL_SUCCESS) {
      for (cl_uint k = 0; k < nk; ++k) {
        char name[256] = "";
        size_t wg = 0;
        cl_ulong local = 0, priv = 0;
        clGetKernelInfo(kernels[k], CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
        clGetKernelWorkGroupInfo(kernels[k], device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
        clGetKernelWorkGroupInfo(kernels[k], device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local,
                                 NULL);
        clGetKernelWorkGroupInfo(kernels[k], device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv, &priv,
                                 NULL);
        printf("kernel %s: work-group limit %zu, local %llu bytes, private %llu bytes\n", name, wg,
               (unsigned long long)local, (unsigned long long)priv);
        clReleaseKernel(kernels[k]);
      }
    }
  }
  clReleaseProgram(program);
  clReleaseContext(ctx);
  free(options);
  free(source);
  return built == CL_SUCCESS ? 0 : 1;
}
