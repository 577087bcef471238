/* Where platform discovery and context creation spend their time, driver by driver: the ICD
 * loader's clGetPlatformIDs (every registered driver loaded and asked for its platforms), then
 * per platform clGetDeviceIDs, the device queries clgauge makes, and clCreateContext plus a
 * queue for each device. One line of JSON per stage on stdout.
 *   cc -O2 discovery_split.c -lOpenCL -o discovery_split */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(void) {
  const double t0 = now_ms();
  cl_uint np = 0;
  cl_int code = clGetPlatformIDs(0, NULL, &np);
  cl_platform_id p[16];
  if (np > 16) np = 16;
  if (code == CL_SUCCESS && np) clGetPlatformIDs(np, p, NULL);
  const double t1 = now_ms();
  printf("{\"stage\": \"clGetPlatformIDs\", \"platforms\": %u, \"ms\": %.3f}\n", np, t1 - t0);
  for (cl_uint i = 0; i < np; ++i) {
    char name[256] = "";
    clGetPlatformInfo(p[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    const double a = now_ms();
    cl_uint nd = 0;
    cl_device_id d[16];
    if (clGetDeviceIDs(p[i], CL_DEVICE_TYPE_ALL, 16, d, &nd) != CL_SUCCESS) nd = 0;
    if (nd > 16) nd = 16;
    const double b = now_ms();
    char buf[1024];
    cl_ulong ul;
    for (cl_uint k = 0; k < nd; ++k) {
      clGetDeviceInfo(d[k], CL_DEVICE_NAME, sizeof buf, buf, NULL);
      clGetDeviceInfo(d[k], CL_DRIVER_VERSION, sizeof buf, buf, NULL);
      clGetDeviceInfo(d[k], CL_DEVICE_VERSION, sizeof buf, buf, NULL);
      clGetDeviceInfo(d[k], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof ul, &ul, NULL);
      clGetDeviceInfo(d[k], CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ul, &ul, NULL);
    }
    const double c = now_ms();
    printf("{\"stage\": \"clGetDeviceIDs\", \"platform\": \"%s\", \"devices\": %u, \"ms\": %.3f}\n"
           "{\"stage\": \"device queries\", \"platform\": \"%s\", \"ms\": %.3f}\n",
           name, nd, b - a, name, c - b);
    for (cl_uint k = 0; k < nd; ++k) {
      const double e = now_ms();
      cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p[i], 0};
      cl_context ctx = clCreateContext(props, 1, &d[k], NULL, NULL, &code);
      const double f = now_ms();
      cl_command_queue q = ctx ? clCreateCommandQueue(ctx, d[k], CL_QUEUE_PROFILING_ENABLE, &code)
                               : NULL;
      const double g = now_ms();
      printf("{\"stage\": \"clCreateContext\", \"platform\": \"%s\", \"device\": %u, \"ms\": %.3f}\n"
             "{\"stage\": \"clCreateCommandQueue\", \"platform\": \"%s\", \"device\": %u, \"ms\": %.3f}\n",
             name, k, f - e, name, k, g - f);
      if (q) clReleaseCommandQueue(q);
      if (ctx) clReleaseContext(ctx);
    }
  }
  printf("{\"stage\": \"total\", \"ms\": %.3f}\n", now_ms() - t0);
  return 0;
}
