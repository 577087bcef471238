/* Test support for the sanitized tree: a library preloaded into every test process
 * (LD_PRELOAD) that counts the OpenCL objects the process creates, retains and releases through
 * the ICD loader, and at exit names those never released and ends the process with status 1.
 *
 * Why not LeakSanitizer alone: an object clgauge forgets is allocated inside the driver, and the
 * drivers' own leaks must be suppressed by module (tests/lsan.supp), which hides the forgotten
 * object with them. Counting the API calls finds it on every driver alike.
 *
 * Every call is forwarded to the next definition (the ICD loader's); this library adds only the
 * bookkeeping. An object created by a call it does not wrap is not counted (its retains and
 * releases are ignored): the wrapped calls are those clgauge and CLBlast make. */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

enum kind { K_CONTEXT, K_QUEUE, K_MEM, K_PROGRAM, K_KERNEL, K_EVENT, K_COUNT };
static const char *const kind_names[K_COUNT] = {"context", "command queue", "memory object",
                                                "program", "kernel",        "event"};

/* ---- the live objects: handle -> kind and references held through the API ---- */

struct entry {
  const void *handle;
  enum kind kind;
  long refs;
  pid_t pid; /* the creator's: a forked child inherits its parent's objects, not their release */
  struct entry *next;
};

#define BUCKETS 4096
static struct entry *table[BUCKETS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t bucket_of(const void *handle) {
  uint64_t x = (uint64_t)(uintptr_t)handle;
  x ^= x >> 29;
  x *= 0x9e3779b97f4a7c15ull;
  return (size_t)(x >> 52) % BUCKETS;
}

static struct entry **find(const void *handle) {
  struct entry **e = &table[bucket_of(handle)];
  while (*e && (*e)->handle != handle) e = &(*e)->next;
  return e;
}

static void created(const void *handle, enum kind kind) {
  if (!handle) return;
  pthread_mutex_lock(&table_lock);
  struct entry **e = find(handle);
  if (!*e) {
    *e = calloc(1, sizeof **e);
    if (!*e) {
      fputs("cl_audit: out of memory\n", stderr);
      _exit(1);
    }
    (*e)->handle = handle;
  }
  /* a handle found again was released by a call not wrapped: this is a new object */
  (*e)->kind = kind;
  (*e)->refs = 1;
  (*e)->pid = getpid();
  pthread_mutex_unlock(&table_lock);
}

/* delta +1 for a retain, -1 for a release; the entry goes at zero */
static void referenced(const void *handle, long delta) {
  if (!handle) return;
  pthread_mutex_lock(&table_lock);
  struct entry **e = find(handle);
  if (*e && ((*e)->refs += delta) <= 0) {
    struct entry *gone = *e;
    *e = gone->next;
    free(gone);
  }
  pthread_mutex_unlock(&table_lock);
}

/* At exit (the library's destructor runs after every atexit handler and C++ static destructor,
 * so that CLBlast's cache, released there, counts as released). */
__attribute__((destructor)) static void report(void) {
  long counts[K_COUNT] = {0};
  long total = 0;
  const pid_t self = getpid();
  for (size_t b = 0; b < BUCKETS; ++b)
    for (const struct entry *e = table[b]; e; e = e->next)
      if (e->pid == self) {
        ++counts[e->kind];
        ++total;
      }
  if (!total) return;
  char line[512];
  int len = snprintf(line, sizeof line, "cl_audit: OpenCL objects never released (pid %ld):",
                     (long)getpid());
  for (int k = 0; k < K_COUNT; ++k)
    if (counts[k] && len < (int)sizeof line)
      len += snprintf(line + len, sizeof line - (size_t)len, " %ld %s", counts[k], kind_names[k]);
  fprintf(stderr, "%s\n", line);
  fflush(stderr);
  _exit(1);
}

/* ---- the wrapped calls ---- */

static void *resolve(const char *name) {
  void *fn = dlsym(RTLD_NEXT, name);
  if (!fn) {
    fprintf(stderr, "cl_audit: %s not found after this library (no ICD loader?)\n", name);
    abort();
  }
  return fn;
}

/* The next definition of NAME, looked up once. */
#define REAL(name)                                                                               \
  ({                                                                                             \
    static void *cached;                                                                         \
    void *fn = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);                                       \
    if (!fn) {                                                                                   \
      fn = resolve(#name);                                                                       \
      __atomic_store_n(&cached, fn, __ATOMIC_RELEASE);                                           \
    }                                                                                            \
    __typeof__(&name) typed;                                                                     \
    memcpy(&typed, &fn, sizeof typed);                                                           \
    typed;                                                                                       \
  })

/* Retain and release of one kind of object. */
#define RETAIN_RELEASE(type, retain, release)                                                    \
  CL_API_ENTRY cl_int CL_API_CALL retain(type object) {                                          \
    const cl_int rc = REAL(retain)(object);                                                      \
    if (rc == CL_SUCCESS) referenced(object, +1);                                                \
    return rc;                                                                                   \
  }                                                                                              \
  CL_API_ENTRY cl_int CL_API_CALL release(type object) {                                         \
    /* counted first: once released, the driver may hand the same address to a new object */    \
    referenced(object, -1);                                                                      \
    return REAL(release)(object);                                                                \
  }

RETAIN_RELEASE(cl_context, clRetainContext, clReleaseContext)
RETAIN_RELEASE(cl_command_queue, clRetainCommandQueue, clReleaseCommandQueue)
RETAIN_RELEASE(cl_mem, clRetainMemObject, clReleaseMemObject)
RETAIN_RELEASE(cl_program, clRetainProgram, clReleaseProgram)
RETAIN_RELEASE(cl_kernel, clRetainKernel, clReleaseKernel)
RETAIN_RELEASE(cl_event, clRetainEvent, clReleaseEvent)

CL_API_ENTRY cl_context CL_API_CALL
clCreateContext(const cl_context_properties *properties, cl_uint num_devices,
                const cl_device_id *devices,
                void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *),
                void *user_data, cl_int *errcode_ret) {
  cl_context c =
      REAL(clCreateContext)(properties, num_devices, devices, pfn_notify, user_data, errcode_ret);
  created(c, K_CONTEXT);
  return c;
}

CL_API_ENTRY cl_context CL_API_CALL
clCreateContextFromType(const cl_context_properties *properties, cl_device_type device_type,
                        void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *),
                        void *user_data, cl_int *errcode_ret) {
  cl_context c =
      REAL(clCreateContextFromType)(properties, device_type, pfn_notify, user_data, errcode_ret);
  created(c, K_CONTEXT);
  return c;
}

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueue(cl_context context,
                                                               cl_device_id device,
                                                               cl_command_queue_properties props,
                                                               cl_int *errcode_ret) {
  cl_command_queue q = REAL(clCreateCommandQueue)(context, device, props, errcode_ret);
  created(q, K_QUEUE);
  return q;
}

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(
    cl_context context, cl_device_id device, const cl_queue_properties *props,
    cl_int *errcode_ret) {
  cl_command_queue q = REAL(clCreateCommandQueueWithProperties)(context, device, props, errcode_ret);
  created(q, K_QUEUE);
  return q;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags,
                                               size_t size, void *host_ptr, cl_int *errcode_ret) {
  cl_mem m = REAL(clCreateBuffer)(context, flags, size, host_ptr, errcode_ret);
  created(m, K_MEM);
  return m;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags,
                                                  cl_buffer_create_type type, const void *info,
                                                  cl_int *errcode_ret) {
  cl_mem m = REAL(clCreateSubBuffer)(buffer, flags, type, info, errcode_ret);
  created(m, K_MEM);
  return m;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithSource(cl_context context, cl_uint count,
                                                              const char **strings,
                                                              const size_t *lengths,
                                                              cl_int *errcode_ret) {
  cl_program p = REAL(clCreateProgramWithSource)(context, count, strings, lengths, errcode_ret);
  created(p, K_PROGRAM);
  return p;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBinary(
    cl_context context, cl_uint num_devices, const cl_device_id *device_list,
    const size_t *lengths, const unsigned char **binaries, cl_int *binary_status,
    cl_int *errcode_ret) {
  cl_program p = REAL(clCreateProgramWithBinary)(context, num_devices, device_list, lengths,
                                                 binaries, binary_status, errcode_ret);
  created(p, K_PROGRAM);
  return p;
}

CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program program, const char *name,
                                                  cl_int *errcode_ret) {
  cl_kernel k = REAL(clCreateKernel)(program, name, errcode_ret);
  created(k, K_KERNEL);
  return k;
}

CL_API_ENTRY cl_event CL_API_CALL clCreateUserEvent(cl_context context, cl_int *errcode_ret) {
  cl_event e = REAL(clCreateUserEvent)(context, errcode_ret);
  created(e, K_EVENT);
  return e;
}

/* The enqueue calls that can return an event: the event, where asked for, is a new object. */
static cl_int with_event(cl_int rc, const cl_event *event) {
  if (rc == CL_SUCCESS && event) created(*event, K_EVENT);
  return rc;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(
    cl_command_queue queue, cl_kernel kernel, cl_uint work_dim, const size_t *offset,
    const size_t *global, const size_t *local, cl_uint nwait, const cl_event *wait,
    cl_event *event) {
  return with_event(REAL(clEnqueueNDRangeKernel)(queue, kernel, work_dim, offset, global, local,
                                                 nwait, wait, event),
                    event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueTask(cl_command_queue queue, cl_kernel kernel,
                                              cl_uint nwait, const cl_event *wait,
                                              cl_event *event) {
  return with_event(REAL(clEnqueueTask)(queue, kernel, nwait, wait, event), event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer,
                                                     cl_bool blocking, size_t offset, size_t size,
                                                     const void *ptr, cl_uint nwait,
                                                     const cl_event *wait, cl_event *event) {
  return with_event(
      REAL(clEnqueueWriteBuffer)(queue, buffer, blocking, offset, size, ptr, nwait, wait, event),
      event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer,
                                                    cl_bool blocking, size_t offset, size_t size,
                                                    void *ptr, cl_uint nwait, const cl_event *wait,
                                                    cl_event *event) {
  return with_event(
      REAL(clEnqueueReadBuffer)(queue, buffer, blocking, offset, size, ptr, nwait, wait, event),
      event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src,
                                                    cl_mem dst, size_t src_offset,
                                                    size_t dst_offset, size_t size, cl_uint nwait,
                                                    const cl_event *wait, cl_event *event) {
  return with_event(REAL(clEnqueueCopyBuffer)(queue, src, dst, src_offset, dst_offset, size,
                                              nwait, wait, event),
                    event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer,
                                                    const void *pattern, size_t pattern_size,
                                                    size_t offset, size_t size, cl_uint nwait,
                                                    const cl_event *wait, cl_event *event) {
  return with_event(REAL(clEnqueueFillBuffer)(queue, buffer, pattern, pattern_size, offset, size,
                                              nwait, wait, event),
                    event);
}

CL_API_ENTRY void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer,
                                                  cl_bool blocking, cl_map_flags flags,
                                                  size_t offset, size_t size, cl_uint nwait,
                                                  const cl_event *wait, cl_event *event,
                                                  cl_int *errcode_ret) {
  cl_int code = CL_SUCCESS;
  void *p = REAL(clEnqueueMapBuffer)(queue, buffer, blocking, flags, offset, size, nwait, wait,
                                     event, &code);
  if (errcode_ret) *errcode_ret = code;
  with_event(code, event);
  return p;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem memobj,
                                                        void *mapped, cl_uint nwait,
                                                        const cl_event *wait, cl_event *event) {
  return with_event(REAL(clEnqueueUnmapMemObject)(queue, memobj, mapped, nwait, wait, event),
                    event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint nwait,
                                                            const cl_event *wait,
                                                            cl_event *event) {
  return with_event(REAL(clEnqueueMarkerWithWaitList)(queue, nwait, wait, event), event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue queue,
                                                             cl_uint nwait, const cl_event *wait,
                                                             cl_event *event) {
  return with_event(REAL(clEnqueueBarrierWithWaitList)(queue, nwait, wait, event), event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarker(cl_command_queue queue, cl_event *event) {
  return with_event(REAL(clEnqueueMarker)(queue, event), event);
}
