/* The parts of the linear workload's OpenCL implementations that do not depend on how a batch is
 * computed: buffers, kernels and their configuration, transfer modes, the epoch loop, events and
 * device times. */
#include "backends/opencl/cl_linear_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/clock.h"
#include "clgauge/events.h"
#include "clgauge/program.h"

const char *const cg_cl_linear_modes[] = {"pageable", "pinned", "resident", NULL};
const char *const cg_cl_linear_kernel_params[] = {"GROUP", "RAMP", "THREADS", "SLOTS", NULL};
const char *const cg_cl_linear_epoch_kernel_params[] = {
    "GROUP", "RAMP", "THREADS", "SLOTS", "WG_EPOCH", "PERSIST", "PGROUPS", "SPIN", "WG_PERSIST",
    "PREFETCH", "SYNC", NULL};

static double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

/* The largest power of two not above cap, the device's and the kernel's limits: a driver may
 * allow a kernel fewer work-items than the device maximum (rusticl on llvmpipe: 32), or fewer in
 * the first dimension than in all, and local_per_item bytes of local memory per work-item must
 * fit beside the kernel's own (CL_KERNEL_LOCAL_MEM_SIZE). A size below the power of two of cap
 * alone is a fallback to those limits. */
static cg_rc pick_local(cg_linear_device *l, cl_kernel kernel, size_t cap, size_t local_per_item,
                        size_t *out, cg_origin *origin, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_cl_group_limits lim;
  CG_TRY(cg_cl_device_limits(l->info, &lim, err));
  CG_TRY(cg_cl_kernel_limits(l->info, kernel, &lim, NULL, err));
  if (local_per_item && lim.local_mem / local_per_item < lim.items)
    lim.items = (size_t)(lim.local_mem / local_per_item);
  CG_CHECK(lim.items >= 1 && lim.dim[0] >= 1, CG_UNSUPPORTED,
           "the device allows no work-group for the linear kernels");
  *out = cg_cl_row_width(&lim, cap);
  *origin = *out < cg_pow2_floor(cap) ? CG_ORIGIN_FALLBACK : CG_ORIGIN_DEFAULT;
cleanup:
  return rc;
}

/* linear_epoch's one work-group: as wide as the device allows on a GPU (up to 1024: the epoch
 * runs on one compute unit, which should have every lane busy), 64 elsewhere (a CPU driver steps
 * through the work-items of a group one core at a time, and each barrier costs per work-item);
 * WG_EPOCH sets it (a power of two), refused when the kernel cannot take it. */
static cg_rc pick_epoch_local(cg_linear_device *l, const cg_backend_env *env, cg_error *err) {
  cg_rc rc = CG_OK;
  const size_t want = (l->info->type & CL_DEVICE_TYPE_GPU) ? 1024 : 64;
  cg_origin origin = CG_ORIGIN_DEFAULT;
  const int asked = cg_kernel_override(env->overrides, "WG_EPOCH", (int)want, &origin);
  CG_CHECK(asked >= 1 && (asked & (asked - 1)) == 0, CG_BAD_INPUT,
           "--kernel-param WG_EPOCH=%d: a power of two from 1", asked);
  CG_TRY(pick_local(l, l->epoch, (size_t)asked, 4 * sizeof(float), &l->epoch_local,
                    &l->epoch_origin, err));
  CG_CHECK(origin != CG_ORIGIN_OVERRIDE || l->epoch_local == (size_t)asked, CG_BAD_INPUT,
           "--kernel-param WG_EPOCH=%d: kernel linear_epoch allows %zu work-items here", asked,
           l->epoch_local);
  if (origin != CG_ORIGIN_DEFAULT && l->epoch_origin == CG_ORIGIN_DEFAULT)
    l->epoch_origin = origin;
cleanup:
  return rc;
}

static cg_rc create_kernel(cl_program program, const char *name, cl_kernel *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  *out = clCreateKernel(program, name, &code);
  CG_CL_CHECK(clCreateKernel, code);
cleanup:
  return rc;
}

static void release_events(cg_linear_device *l) {
  for (int i = 0; i < l->nevents; ++i)
    if (l->events[i]) clReleaseEvent(l->events[i]);
  l->nevents = 0;
  for (int s = 0; s < CG_CL_LINEAR_STAGING; ++s) {
    if (l->staging_up[s]) clReleaseEvent(l->staging_up[s]);
    l->staging_up[s] = NULL;
  }
  for (int s = 0; s < CG_CL_LINEAR_MAX_SLOTS; ++s) {
    if (l->slot_done[s]) clReleaseEvent(l->slot_done[s]);
    l->slot_done[s] = NULL;
  }
}

void cg_cl_linear_release(void *state) {
  cg_linear_device *l = state;
  if (!l) return;
  if (l->queue) clFinish(l->queue);
  if (l->upload_q) clFinish(l->upload_q);
  release_events(l);
  cg_device_span_release(&l->span);
  if (l->ext_release) l->ext_release(l->ext);
  free(l->events);
  free(l->kinds);
  for (int s = 0; s < CG_CL_LINEAR_STAGING; ++s)
    if (l->staging_ptr[s])
      clEnqueueUnmapMemObject(l->queue, l->staging[s], l->staging_ptr[s], 0, NULL, NULL);
  if (l->queue) clFinish(l->queue);
  cl_mem *mems[] = {&l->w, &l->b, &l->g, &l->rowloss, &l->loss, &l->x, &l->labels, &l->order};
  for (size_t i = 0; i < sizeof mems / sizeof mems[0]; ++i) cg_cl_release_mem(mems[i]);
  for (int s = 0; s < CG_CL_LINEAR_MAX_SLOTS; ++s) cg_cl_release_mem(&l->dev_batch[s]);
  for (int s = 0; s < CG_CL_LINEAR_STAGING; ++s) cg_cl_release_mem(&l->staging[s]);
  cl_kernel kernels[] = {l->forward, l->softmax, l->update, l->gather, l->epoch};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    if (kernels[i]) clReleaseKernel(kernels[i]);
  if (l->program) clReleaseProgram(l->program);
  if (l->upload_q) clReleaseCommandQueue(l->upload_q);
  cg_workers_free(l->gather_pool);
  free(l->group_k0);
  free(l->host_batch);
  free(l);
}

/* pinned: the epoch's groups, l->group_k0[g] the first batch of group g (l->groups of them, and
 * the epoch's end after the last). The pipeline fills with the first group's gather and upload
 * and drains with the last group's compute, neither overlapped with anything: with RAMP=1 the
 * groups grow from GROUP/8 batches to GROUP at the epoch's start and shrink the same way at its
 * end, so that fill and drain are a few batches long, not GROUP. Off by default: on the H200
 * its effect was within the host's noise from run to run (bench/RESULTS.md, 2026-12-04 night). */
static cg_rc plan_groups(cg_linear_device *l, cg_error *err) {
  cg_rc rc = CG_OK;
  const int most = l->group, n = l->batches;
  int first = l->ramp ? most / 8 : most;
  if (first < 1) first = 1;
  /* at most n groups: front ones from the start, back ones from the end, meeting in between */
  int *front = malloc((size_t)n * sizeof *front), *back = malloc((size_t)n * sizeof *back);
  CG_CHECK(front && back, CG_ERROR, "out of memory for the plan of %d batches", n);
  int nf = 0, nbk = 0, left = n, size = first;
  while (left > 0) {
    int take = size < left ? size : left;
    front[nf++] = take;
    left -= take;
    if (left == 0) break;
    take = size < left ? size : left;
    back[nbk++] = take;
    left -= take;
    size = 2 * size < most ? 2 * size : most;
  }
  l->groups = nf + nbk;
  free(l->group_k0);
  l->group_k0 = malloc(((size_t)l->groups + 1) * sizeof *l->group_k0);
  CG_CHECK(l->group_k0, CG_ERROR, "out of memory for the plan of %d batches", n);
  int k = 0, g = 0;
  for (int i = 0; i < nf; ++i) {
    l->group_k0[g++] = k;
    k += front[i];
  }
  for (int i = nbk - 1; i >= 0; --i) {
    l->group_k0[g++] = k;
    k += back[i];
  }
  l->group_k0[g] = n;
cleanup:
  free(front);
  free(back);
  return rc;
}

int cg_cl_linear_pinned_group(size_t batch_bytes) {
  int group = CG_CL_LINEAR_PINNED_GROUP;
  while (group > 1 && batch_bytes * (size_t)group > (size_t)CG_CL_LINEAR_PINNED_GROUP_BYTES)
    group /= 2;
  return group;
}

/* pinned: batches per upload. By default the rule's (cg_cl_linear_pinned_group), and no more
 * than the epoch has, nor than one allocation holds (a fallback below the rule's); an override
 * is capped by the epoch's batches only, and a group over one allocation is then refused by the
 * buffer's check. */
static cg_rc choose_group(cg_linear_device *l, const cg_backend_env *env, size_t batch_bytes,
                          cg_error *err) {
  cg_rc rc = CG_OK;
  const int rule = cg_cl_linear_pinned_group(batch_bytes);
  int group = rule < l->batches ? rule : l->batches;
  while (group > 1 && batch_bytes * (size_t)group > l->info->max_alloc) group /= 2;
  cg_origin origin = group < rule ? CG_ORIGIN_FALLBACK : CG_ORIGIN_DEFAULT;
  group = cg_kernel_override(env->overrides, "GROUP", group, &origin);
  if (origin == CG_ORIGIN_OVERRIDE) {
    CG_CHECK(group >= 1, CG_BAD_INPUT,
             "--kernel-param GROUP=%d: a pinned upload holds at least one batch", group);
    if (group > l->batches) group = l->batches;
  }
  l->group = group;
  l->group_origin = origin;
  CG_TRY(cg_kernel_override_in(env->overrides, "RAMP", 0, 0, 1,
                               "0 (every group GROUP batches) or 1 (groups from GROUP/8 up, and "
                               "down again at the epoch's end)",
                               &l->ramp, &l->ramp_origin, err));
  CG_TRY(plan_groups(l, err));
cleanup:
  return rc;
}

/* pinned: the pool of host threads that gathers each group (CG_CL_LINEAR_GATHER_THREADS). */
static cg_rc start_gather_pool(cg_linear_device *l, const cg_backend_env *env, cg_error *err) {
  cg_rc rc = CG_OK;
  const int cpus = cg_online_cpus();
  int threads = cg_device_is_cpu(l->info) ? 1 : CG_CL_LINEAR_GATHER_THREADS;
  if (threads > cpus) threads = cpus;
  CG_TRY(cg_kernel_override_in(env->overrides, "THREADS", threads, 1, CG_WORKERS_MAX,
                               "host threads gathering a pinned group, 1 to 64", &threads,
                               &l->threads_origin, err));
  CG_TRY(cg_workers_create(threads, &l->gather_pool, err));
cleanup:
  return rc;
}

/* pinned: the staging buffers in use, one more than the device slots (CG_CL_LINEAR_STAGING). */
static int stagings(const cg_linear_device *l) { return l->slots + 1; }

/* pinned: the group size and the gather's threads, the device slots (SLOTS) and the mapped
 * staging buffers of a group each, and the second queue. */
static cg_rc create_pinned(cg_linear_device *l, const cg_backend_env *env, size_t batch_bytes,
                           cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  CG_TRY(choose_group(l, env, batch_bytes, err));
  CG_TRY(start_gather_pool(l, env, err));
  CG_TRY(cg_kernel_override_in(env->overrides, "SLOTS", CG_CL_LINEAR_SLOTS, 2,
                               CG_CL_LINEAR_MAX_SLOTS,
                               "device buffers of an uploaded group, 2 to 4", &l->slots,
                               &l->slots_origin, err));
  _Static_assert(CG_CL_LINEAR_MAX_SLOTS == 4, "the range in the message of SLOTS");
  const size_t group_bytes = batch_bytes * (size_t)l->group;
  for (int i = 0; i < l->slots; ++i)
    CG_TRY(cg_cl_buffer(l->dev, "a group of batches", group_bytes, CL_MEM_READ_WRITE,
                        &l->dev_batch[i], err));
  for (int i = 0; i < stagings(l); ++i) {
    CG_TRY(cg_cl_buffer(l->dev, "a pinned staging group of batches", group_bytes,
                        CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, &l->staging[i], err));
    l->staging_ptr[i] = clEnqueueMapBuffer(l->queue, l->staging[i], CL_TRUE, CL_MAP_WRITE, 0,
                                           group_bytes, 0, NULL, NULL, &code);
    CG_CL_CHECK(clEnqueueMapBuffer, code);
  }
  l->upload_q = clCreateCommandQueue(l->context, l->info->id,
                                     l->info->profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &code);
  CG_CL_CHECK(clCreateCommandQueue, code);
cleanup:
  return rc;
}

/* The build options and the parameters that run, for the record. */
static void describe_config(const cg_linear_device *l, unsigned kernels, cg_kernel_config *c) {
  memset(c, 0, sizeof *c); /* cl/linear.cl is built without options */
  if (kernels & CG_CL_LINEAR_FORWARD)
    cg_kernel_config_set(c, "WG_FORWARD", (int)l->forward_local, l->forward_origin);
  if (kernels & CG_CL_LINEAR_ROWS)
    cg_kernel_config_set(c, "WG_ROWS", (int)l->rows_local, l->rows_origin);
  if (kernels & CG_CL_LINEAR_UPDATE)
    cg_kernel_config_set(c, "WG_UPDATE", (int)l->update_local, l->update_origin);
  if (kernels & CG_CL_LINEAR_GATHER)
    cg_kernel_config_set(c, "WG_GATHER", (int)l->gather_local, l->gather_origin);
  if (kernels & CG_CL_LINEAR_EPOCH)
    cg_kernel_config_set(c, "WG_EPOCH", (int)l->epoch_local, l->epoch_origin);
  if (l->transfer == CG_TRANSFER_PINNED) {
    cg_kernel_config_set(c, "GROUP", l->group, l->group_origin);
    cg_kernel_config_set(c, "RAMP", l->ramp, l->ramp_origin);
    cg_kernel_config_set(c, "THREADS", cg_workers_parts(l->gather_pool), l->threads_origin);
    cg_kernel_config_set(c, "SLOTS", l->slots, l->slots_origin);
  }
}

cg_rc cg_cl_linear_create(const cg_backend_env *env, const char *mode,
                          const cg_linear_setup *setup, bool dense_resident, unsigned kernels,
                          cg_linear_device **lout, cg_prepared *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_linear_device *l = calloc(1, sizeof *l);
  CG_CHECK(l, CG_ERROR, "out of memory");
  l->setup = *setup;
  l->dev = cg_cl_env_device(env);
  l->info = cg_device_get_info(l->dev);
  l->context = cg_device_context(l->dev);
  l->queue = cg_device_queue(l->dev);
  const cg_linear_shape s = setup->shape;
  const cg_transfer t = cg_transfer_from_name(mode);
  l->transfer = t;
  CG_CHECK(t == CG_TRANSFER_PAGEABLE || t == CG_TRANSFER_PINNED || t == CG_TRANSFER_RESIDENT,
           CG_UNSUPPORTED, "transfer mode %s needs no device", mode ? mode : cg_transfer_name(t));
  int major = 1, minor = 0;
  if (sscanf(l->info->version, "OpenCL %d.%d", &major, &minor) == 2)
    l->cl12 = major > 1 || minor >= 2;
#ifdef CLGAUGE_OPENCL_1_1_PATHS
  /* A build for tests only (tests/test_linear_cl11.c): the OpenCL 1.1 paths on any device, so
   * that they run where no 1.1 device is. */
  l->cl12 = false;
#endif
  l->rows = s.batch < s.samples ? s.batch : s.samples;
  const size_t F = (size_t)s.features, C = (size_t)s.classes, S = (size_t)s.samples;
  const size_t rows = (size_t)l->rows, batch_bytes = rows * (F + 1) * 4;
  l->batches = (s.samples + s.batch - 1) / s.batch;

  const cg_device *dev = l->dev;
  CG_TRY(cg_cl_buffer(dev, "the weights w", C * F * 4, CL_MEM_READ_WRITE, &l->w, err));
  CG_TRY(cg_cl_buffer(dev, "the bias b", C * 4, CL_MEM_READ_WRITE, &l->b, err));
  CG_TRY(cg_cl_buffer(dev, "the batch's logits and gradient", rows * C * 4, CL_MEM_READ_WRITE,
                      &l->g, err));
  CG_TRY(cg_cl_buffer(dev, "the batch's row losses", rows * 4, CL_MEM_READ_WRITE, &l->rowloss,
                      err));
  CG_TRY(cg_cl_buffer(dev, "the epoch loss", 2 * 4, CL_MEM_READ_WRITE, &l->loss, err));
  if (t == CG_TRANSFER_PAGEABLE || (t == CG_TRANSFER_RESIDENT && dense_resident))
    CG_TRY(cg_cl_buffer(dev, "a batch", batch_bytes, CL_MEM_READ_WRITE, &l->dev_batch[0], err));
  if (t == CG_TRANSFER_PAGEABLE) {
    l->host_batch = malloc(batch_bytes);
    CG_CHECK(l->host_batch, CG_ERROR, "out of host memory for a batch (%.4g MiB)",
             mib((double)batch_bytes));
  } else if (t == CG_TRANSFER_PINNED) {
    CG_TRY(create_pinned(l, env, batch_bytes, err));
  } else {
    CG_TRY(cg_cl_buffer(dev, "the dataset", S * F * 4, CL_MEM_READ_ONLY, &l->x, err));
    CG_TRY(cg_cl_buffer(dev, "the labels", S * 4, CL_MEM_READ_ONLY, &l->labels, err));
    CG_TRY(cg_cl_buffer(dev, "the order", S * 4, CL_MEM_READ_ONLY, &l->order, err));
  }

  uint64_t t0 = cg_now_ns();
  cg_build_tally tally = {0};
  CG_TRY(cg_backend_build(env, "linear.cl", NULL, &l->program, &tally, err));
  CG_TRY(create_kernel(l->program, "linear_forward", &l->forward, err));
  CG_TRY(create_kernel(l->program, "linear_softmax", &l->softmax, err));
  CG_TRY(create_kernel(l->program, "linear_update", &l->update, err));
  CG_TRY(create_kernel(l->program, "linear_gather", &l->gather, err));
  CG_TRY(create_kernel(l->program, "linear_epoch", &l->epoch, err));
  out->compile_ms = cg_ns_to_ms(cg_now_ns() - t0);
  out->compile_kind = cg_build_tally_kind(&tally);

  /* Work-groups no wider than the row they reduce: features for the logits, classes for the
   * softmax alone. 64 work-items per row rather than 256 made the forward kernel 1.7 times
   * faster on PoCL (fewer work-items to step through each barrier) and is two warps on NVIDIA. */
  const size_t wide = F > C ? F : C;
  CG_TRY(pick_local(l, l->forward, wide < 64 ? wide : 64, 4 * sizeof(float), &l->forward_local,
                    &l->forward_origin, err));
  CG_TRY(pick_local(l, l->softmax, C < 256 ? C : 256, sizeof(float), &l->rows_local,
                    &l->rows_origin, err));
  CG_TRY(pick_local(l, l->update, 64, sizeof(float), &l->update_local, &l->update_origin, err));
  CG_TRY(pick_local(l, l->gather, 256, 0, &l->gather_local, &l->gather_origin, err));
  if (kernels & CG_CL_LINEAR_EPOCH) CG_TRY(pick_epoch_local(l, env, err));
  describe_config(l, kernels, &out->config);
  *lout = l;
  l = NULL;
cleanup:
  cg_cl_linear_release(l);
  return rc;
}

static cg_rc reserve_events(cg_linear_device *l, int more, cg_error *err) {
  cg_rc rc = CG_OK;
  if (l->nevents + more <= l->cap_events) return CG_OK;
  int cap = l->cap_events ? l->cap_events : 64;
  while (cap < l->nevents + more) cap *= 2;
  cl_event *ev = realloc(l->events, (size_t)cap * sizeof *ev);
  CG_CHECK(ev, CG_ERROR, "out of memory for the epoch's events");
  l->events = ev;
  unsigned char *k = realloc(l->kinds, (size_t)cap);
  CG_CHECK(k, CG_ERROR, "out of memory for the epoch's events");
  l->kinds = k;
  l->cap_events = cap;
cleanup:
  return rc;
}

static cl_event *push_event(cg_linear_device *l, int kind) {
  l->kinds[l->nevents] = (unsigned char)kind;
  l->events[l->nevents] = NULL;
  return &l->events[l->nevents++];
}

cl_event *cg_cl_linear_event(cg_linear_device *l, int kind) {
  return l->info->profiling && l->time_batch ? push_event(l, kind) : NULL;
}

cl_event *cg_cl_linear_event_needed(cg_linear_device *l, int kind) {
  cl_event *slot = cg_cl_linear_event(l, kind);
  return slot ? slot : push_event(l, CG_CL_LINEAR_ORDER);
}

cg_rc cg_cl_linear_enqueue_update(cg_linear_device *l, const cg_cl_linear_batch *bt, int f_begin,
                                  cl_uint nwait, const cl_event *wait, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_linear_shape s = l->setup.shape;
  const cl_int n = bt->n, F = s.features, C = s.classes, fb = f_begin, gather = bt->gather;
  const cl_int reset = bt->first;
  const cl_float lr = l->setup.lr;
  const cl_mem idx = bt->gather ? l->order : bt->x; /* never read when dense */
  cl_kernel k = l->update;
  CG_CL(clSetKernelArg, (k, 0, sizeof n, &n));
  CG_CL(clSetKernelArg, (k, 1, sizeof F, &F));
  CG_CL(clSetKernelArg, (k, 2, sizeof C, &C));
  CG_CL(clSetKernelArg, (k, 3, sizeof fb, &fb));
  CG_CL(clSetKernelArg, (k, 4, sizeof(cl_mem), &bt->x));
  CG_CL(clSetKernelArg, (k, 5, sizeof(cl_mem), &idx));
  CG_CL(clSetKernelArg, (k, 6, sizeof gather, &gather));
  CG_CL(clSetKernelArg, (k, 7, sizeof bt->off, &bt->off));
  CG_CL(clSetKernelArg, (k, 8, sizeof(cl_mem), &l->g));
  CG_CL(clSetKernelArg, (k, 9, sizeof lr, &lr));
  CG_CL(clSetKernelArg, (k, 10, sizeof(cl_mem), &l->w));
  CG_CL(clSetKernelArg, (k, 11, sizeof(cl_mem), &l->b));
  CG_CL(clSetKernelArg, (k, 12, sizeof(cl_mem), &l->rowloss));
  CG_CL(clSetKernelArg, (k, 13, sizeof(cl_mem), &l->loss));
  CG_CL(clSetKernelArg, (k, 14, sizeof reset, &reset));
  CG_CL(clSetKernelArg, (k, 15, l->update_local * sizeof(float), NULL));
  const size_t local[2] = {l->update_local, 1};
  const size_t global[2] = {cg_round_up((size_t)(F + 1 - f_begin), l->update_local), (size_t)C};
  cl_event *ev = bt->releases ? cg_cl_linear_event_needed(l, CG_CL_LINEAR_KERNEL)
                              : cg_cl_linear_event(l, CG_CL_LINEAR_KERNEL);
  CG_CL(clEnqueueNDRangeKernel,
        (l->queue, k, 2, NULL, global, local, nwait, nwait ? wait : NULL, ev));
cleanup:
  return rc;
}

cg_rc cg_cl_linear_upload(void *state, const void *inputs, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_linear_device *l = state;
  const cg_linear_tensors *data = inputs;
  const cg_linear_shape s = l->setup.shape;
  const size_t F = (size_t)s.features, C = (size_t)s.classes, S = (size_t)s.samples;
  l->data = *data;
  CG_CL(clEnqueueWriteBuffer, (l->queue, l->w, CL_FALSE, 0, C * F * 4, data->w, 0, NULL, NULL));
  CG_CL(clEnqueueWriteBuffer, (l->queue, l->b, CL_FALSE, 0, C * 4, data->b, 0, NULL, NULL));
  if (l->transfer == CG_TRANSFER_RESIDENT) {
    CG_CL(clEnqueueWriteBuffer, (l->queue, l->x, CL_FALSE, 0, S * F * 4, data->x, 0, NULL, NULL));
    CG_CL(clEnqueueWriteBuffer,
          (l->queue, l->labels, CL_FALSE, 0, S * 4, data->labels, 0, NULL, NULL));
  }
  CG_CL(clFinish, (l->queue));
cleanup:
  return rc;
}

/* Rows idx[0..n) of the dataset into dst (n x F floats) and their labels into dst_labels.
 * Plain stores: SSE2 streaming stores here (no read of each staging line before its write)
 * gained nothing on an H100's host, at 2 MB batches or at 128 KB (bench/RESULTS.md,
 * 2026-12-05, 23:07 UTC on). */
static void gather_host(const cg_linear_device *l, const int *idx, int n, float *dst,
                        int *dst_labels) {
  const size_t F = (size_t)l->setup.shape.features;
  for (int r = 0; r < n; ++r) {
    memcpy(dst + (size_t)r * F, l->data.x + (size_t)idx[r] * F, F * sizeof(float));
    dst_labels[r] = l->data.labels[idx[r]];
  }
}

/* One part of a gather split by rows over the pool's threads. */
static void gather_part(void *ctx, int part, int parts) {
  const cg_cl_linear_gather_job *j = ctx;
  const int r0 = (int)((long long)j->n * part / parts);
  const int r1 = (int)((long long)j->n * (part + 1) / parts);
  const size_t F = (size_t)j->l->setup.shape.features;
  gather_host(j->l, j->idx + r0, r1 - r0, j->dst + (size_t)r0 * F, j->dst_labels + r0);
}

/* Rows in batch k of the epoch. */
static int batch_rows(const cg_linear_shape s, int k) {
  const int start = k * s.batch;
  return s.samples - start < s.batch ? s.samples - start : s.batch;
}

/* Start a batch: room for its events, and whether it is timed (throughout the timed epoch; the
 * first and last batch of every epoch, so that the epoch's span is known). */
static cg_rc begin_batch(cg_linear_device *l, int k, cg_error *err) {
  l->time_batch = l->timed_epoch || k == 0 || k == l->batches - 1;
  return reserve_events(l, CG_CL_LINEAR_EVENTS_PER_BATCH, err);
}

/* pinned: group g of batches: nb of them from batch k0 on, rows rows in all. */
typedef struct pinned_group {
  int k0, nb, rows;
} pinned_group;

static pinned_group pinned_group_of(const cg_linear_device *l, int g) {
  pinned_group pg = {l->group_k0[g], 0, 0};
  while (pg.k0 + pg.nb < l->group_k0[g + 1])
    pg.rows += batch_rows(l->setup.shape, pg.k0 + pg.nb++);
  return pg;
}

/* pinned: group g's staging buffer, and its device slot. */
static int staging_of(const cg_linear_device *l, int g) { return g % stagings(l); }
static int slot_of(const cg_linear_device *l, int g) { return g % l->slots; }

/* pinned: hand the gather of group g's rows, all rows then all labels, to the pool, once the
 * last upload from its staging buffer (group g-slots-1's) has completed. */
static cg_rc start_gather(cg_linear_device *l, int g, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_linear_shape s = l->setup.shape;
  const size_t F = (size_t)s.features;
  const pinned_group pg = pinned_group_of(l, g);
  const int st = staging_of(l, g);
  if (l->staging_up[st]) {
    CG_CL(clWaitForEvents, (1, &l->staging_up[st]));
    clReleaseEvent(l->staging_up[st]);
    l->staging_up[st] = NULL;
  }
  float *rows_dst = l->staging_ptr[st];
  /* A batch is rows x F floats, then its rows' labels as ints (both 4 bytes, as the kernels
   * read them), in untyped memory: mapped here, malloc'd for pageable. */
  /* cppcheck-suppress invalidPointerCast */
  int *labels_dst = (int *)(rows_dst + (size_t)pg.rows * F);
  l->gathering = (cg_cl_linear_gather_job){l, l->host_order + (size_t)pg.k0 * s.batch, pg.rows,
                                           rows_dst, labels_dst};
  cg_workers_start(l->gather_pool, gather_part, &l->gathering);
cleanup:
  return rc;
}

/* pinned: group g, gathered, uploaded on the second queue once the compute of group g-slots,
 * the device slot's last reader, is done. */
static cg_rc upload_pinned_group(cg_linear_device *l, int g, cg_error *err) {
  cg_rc rc = CG_OK;
  const size_t F = (size_t)l->setup.shape.features;
  const pinned_group pg = pinned_group_of(l, g);
  const int st = staging_of(l, g), slot = slot_of(l, g);
  CG_TRY(begin_batch(l, pg.k0, err));
  cl_event *up = cg_cl_linear_event_needed(l, CG_CL_LINEAR_UPLOAD);
  CG_CL(clEnqueueWriteBuffer,
        (l->upload_q, l->dev_batch[slot], CL_FALSE, 0, (size_t)pg.rows * (F + 1) * 4,
         l->staging_ptr[st], l->slot_done[slot] ? 1 : 0,
         l->slot_done[slot] ? &l->slot_done[slot] : NULL, up));
  l->staging_up[st] = *up;
  clRetainEvent(*up);
  /* the compute queue waits for this upload: it must reach the device */
  CG_CL(clFlush, (l->upload_q));
cleanup:
  return rc;
}

/* pinned: group g on the compute queue, in one go (compute_group) or each batch in turn, the
 * first waiting for the group's upload; the group's last command releases the device slot for
 * the upload of group g+slots. */
static cg_rc compute_pinned_group(cg_linear_device *l, int g, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_linear_shape s = l->setup.shape;
  const size_t F = (size_t)s.features;
  const pinned_group pg = pinned_group_of(l, g);
  const int slot = slot_of(l, g);
  const cl_event uploaded = l->staging_up[staging_of(l, g)];
  if (l->compute_group) {
    CG_TRY(begin_batch(l, pg.k0, err));
    /* timed where one of its batches is: the epoch's span begins and ends with one */
    l->time_batch = l->time_batch || pg.k0 + pg.nb == l->batches;
    const cg_cl_linear_group grp = {g, pg.k0, pg.nb, pg.rows, l->dev_batch[slot], uploaded};
    CG_TRY(l->compute_group(l, &grp, err));
  }
  for (int j = 0, row = 0; !l->compute_group && j < pg.nb; ++j) {
    const int k = pg.k0 + j, n = batch_rows(s, k);
    CG_TRY(begin_batch(l, k, err));
    cg_cl_linear_batch bt = {n, 0, l->dev_batch[slot], l->dev_batch[slot], (cl_ulong)row,
                             (cl_ulong)pg.rows * F + (cl_ulong)row, k == 0,
                             j == 0 ? uploaded : NULL, j == pg.nb - 1};
    CG_TRY(l->compute(l, &bt, err));
    row += n;
  }
  if (l->slot_done[slot]) clReleaseEvent(l->slot_done[slot]);
  l->slot_done[slot] = l->events[l->nevents - 1]; /* the group's last update */
  clRetainEvent(l->slot_done[slot]);
  CG_CL(clFlush, (l->queue));
cleanup:
  return rc;
}

/* pinned: the epoch's groups from group `from` on. The pool gathers group g+1 while the host
 * enqueues group g's upload and compute, so that the host's share of a group is the longer of
 * the two, not their sum; on the device, group g's upload travels while group g-1 computes. */
static cg_rc enqueue_pinned(cg_linear_device *l, int from, cg_error *err) {
  cg_rc rc = CG_OK;
  CG_TRY(start_gather(l, from, err));
  for (int g = from; g < l->groups; ++g) {
    l->gather_ns += cg_workers_wait(l->gather_pool);
    if (g + 1 < l->groups) CG_TRY(start_gather(l, g + 1, err));
    CG_TRY(upload_pinned_group(l, g, err));
    CG_TRY(compute_pinned_group(l, g, err));
  }
cleanup:
  /* nothing returns while the pool still writes a staging buffer (after an error; a wait with
   * no job running returns at once) */
  cg_workers_wait(l->gather_pool);
  return rc;
}

/* The epoch batch by batch through l->compute, pageable (rows gathered from `order` on the
 * host) or resident (gathered on the device through the order uploaded before). */
static cg_rc enqueue_batches(cg_linear_device *l, const int *order, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_linear_shape s = l->setup.shape;
  const size_t F = (size_t)s.features;
  for (int k = 0; k < l->batches; ++k) {
    const int n = batch_rows(s, k), start = k * s.batch;
    CG_TRY(begin_batch(l, k, err));
    cg_cl_linear_batch bt = {n, 0, NULL, NULL, 0, (cl_ulong)n * F, k == 0, NULL, 0};
    if (l->transfer == CG_TRANSFER_PAGEABLE) {
      /* A framework's copy from pageable memory: the host returns when the copy is done. (Only
       * a resident redo passes no order: its rows are on the device already.) */
      CG_CHECK(order, CG_ERROR, "pageable batches need the epoch's order");
      float *rows = l->host_batch;
      const uint64_t t0 = cg_now_ns();
      /* cppcheck-suppress invalidPointerCast ; floats then labels, as above */
      gather_host(l, order + start, n, rows, (int *)(rows + (size_t)n * F));
      l->gather_ns += cg_now_ns() - t0;
      CG_CL(clEnqueueWriteBuffer,
            (l->queue, l->dev_batch[0], CL_TRUE, 0, (size_t)n * (F + 1) * 4, l->host_batch, 0,
             NULL, cg_cl_linear_event(l, CG_CL_LINEAR_UPLOAD)));
      bt.x = bt.labels = l->dev_batch[0];
    } else {
      bt.gather = 1;
      bt.x = l->x;
      bt.labels = l->labels;
      bt.off = (cl_ulong)start;
      bt.loff = 0;
    }
    CG_TRY(l->compute(l, &bt, err));
  }
cleanup:
  return rc;
}

cg_rc cg_cl_linear_enqueue(void *state, const cg_run *run, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_linear_device *l = state;
  const cg_linear_shape s = l->setup.shape;
  const cg_transfer t = l->transfer;
  const int *order = run->arg;
  CG_CHECK(order, CG_BAD_INPUT, "a linear run needs the order of its epoch");
  CG_CHECK(run->iters == l->batches, CG_BAD_INPUT,
           "a linear run is one epoch of %d batches, not %d", l->batches, run->iters);
  /* those of an epoch whose times were never asked for */
  release_events(l);
  cg_device_span_release(&l->span);
  l->timed_epoch = l->epochs++ == 1;

  l->host_order = order;
  l->gather_ns = 0;
  if (t == CG_TRANSFER_PINNED) {
    CG_TRY(enqueue_pinned(l, 0, err));
  } else {
    if (t == CG_TRANSFER_RESIDENT) {
      /* The order is this epoch's whole upload. */
      CG_TRY(begin_batch(l, 0, err));
      CG_CL(clEnqueueWriteBuffer,
            (l->queue, l->order, CL_FALSE, 0, (size_t)s.samples * sizeof(int), order, 0, NULL,
             cg_cl_linear_event(l, CG_CL_LINEAR_UPLOAD)));
    }
    if (t == CG_TRANSFER_RESIDENT && l->compute_epoch) {
      l->time_batch = true; /* one command: always timed */
      CG_TRY(l->compute_epoch(l, err));
    } else {
      CG_TRY(enqueue_batches(l, order, err));
    }
  }
  if (l->info->profiling && l->nevents > 0) {
    l->span.begin = l->events[0];
    l->span.end = l->events[l->nevents - 1];
    clRetainEvent(l->span.begin);
    clRetainEvent(l->span.end);
    l->span.begin_at_end = false;
  }
cleanup:
  return rc;
}

/* Device time during which upload [u0, u1) overlapped any kernel of k0/k1 (n kernels, each queue
 * in order, so the kernel intervals are sorted and disjoint). *from walks forward with the
 * uploads, which are in order too. */
static cl_ulong overlap(cl_ulong u0, cl_ulong u1, const cl_ulong *k0, const cl_ulong *k1, int n,
                        int *from) {
  while (*from < n && k1[*from] <= u0) ++*from;
  cl_ulong sum = 0;
  for (int i = *from; i < n && k0[i] < u1; ++i) {
    cl_ulong a = k0[i] > u0 ? k0[i] : u0, b = k1[i] < u1 ? k1[i] : u1;
    if (b > a) sum += b - a;
  }
  return sum;
}

/* The per-batch upload and compute device times and the hidden share of the epoch last
 * finished, when it was timed command by command (left NAN otherwise); releases its events. */
static cg_rc epoch_times(cg_linear_device *l, cg_run_result *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_ulong *t0 = NULL, *t1 = NULL, *k0 = NULL, *k1 = NULL;
  out->batch_upload_ms = out->batch_compute_ms = out->hidden_share = NAN;
  if (!l->info->profiling || l->nevents == 0) goto cleanup;
  t0 = malloc((size_t)l->nevents * sizeof *t0);
  t1 = malloc((size_t)l->nevents * sizeof *t1);
  k0 = malloc((size_t)l->nevents * sizeof *k0);
  k1 = malloc((size_t)l->nevents * sizeof *k1);
  CG_CHECK(t0 && t1 && k0 && k1, CG_ERROR, "out of memory");
  cl_ulong first = (cl_ulong)-1, last = 0, sum[3] = {0, 0, 0};
  int nk = 0;
  for (int i = 0; i < l->nevents; ++i) {
    t0[i] = t1[i] = 0;
    if (!l->events[i]) continue;
    if (clGetEventProfilingInfo(l->events[i], CL_PROFILING_COMMAND_START, sizeof t0[i], &t0[i],
                                NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(l->events[i], CL_PROFILING_COMMAND_END, sizeof t1[i], &t1[i],
                                NULL) != CL_SUCCESS ||
        t1[i] < t0[i])
      goto cleanup; /* no usable stamps: the times stay NAN */
    sum[l->kinds[i]] += t1[i] - t0[i];
    if (t0[i] < first) first = t0[i];
    if (t1[i] > last) last = t1[i];
    if (l->kinds[i] == CG_CL_LINEAR_KERNEL) {
      k0[nk] = t0[i];
      k1[nk++] = t1[i];
    }
  }
  /* A span under 100 ns means placeholder stamps (rusticl), as in cg_device_span_ms. */
  if (last <= first || last - first < 100) goto cleanup;
  cl_ulong hidden = 0;
  int from = 0;
  for (int i = 0; i < l->nevents; ++i)
    if (l->events[i] && l->kinds[i] == CG_CL_LINEAR_UPLOAD)
      hidden += overlap(t0[i], t1[i], k0, k1, nk, &from);
  if (l->timed_epoch) { /* every command has its event: the per-batch times are whole */
    const double uploads = (double)sum[CG_CL_LINEAR_UPLOAD];
    out->batch_upload_ms = uploads / l->batches / 1e6;
    out->batch_compute_ms = (double)sum[CG_CL_LINEAR_KERNEL] / l->batches / 1e6;
    out->hidden_share = uploads > 0 ? (double)hidden / uploads : 0;
  }
cleanup:
  free(t0);
  free(t1);
  free(k0);
  free(k1);
  release_events(l);
  return rc;
}

cg_rc cg_cl_linear_finish(void *state, cg_run_result *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_linear_device *l = state;
  if (l->upload_q) CG_CL(clFinish, (l->upload_q));
  CG_CL(clFinish, (l->queue));
  bool redo = false;
  int from = -1;
  if (l->transfer == CG_TRANSFER_RESIDENT && l->compute_epoch && l->check_epoch)
    CG_TRY(l->check_epoch(l, &redo, err));
  if (l->transfer == CG_TRANSFER_PINNED && l->compute_group && l->check_groups) {
    CG_TRY(l->check_groups(l, &from, err));
    redo = from >= 0;
  }
  if (redo) {
    /* resident: the order is on the device already; pinned: the failed group and those after
     * it gathered and uploaded again. The redo's time counts in the run's. */
    if (from >= 0) {
      CG_TRY(enqueue_pinned(l, from, err));
      CG_CL(clFinish, (l->upload_q));
    } else {
      CG_TRY(enqueue_batches(l, NULL, err));
    }
    CG_CL(clFinish, (l->queue));
    if (l->span.end && l->nevents > 0) { /* the run's span takes the redo in */
      clReleaseEvent(l->span.end);
      l->span.end = l->events[l->nevents - 1];
      clRetainEvent(l->span.end);
    }
  }
  cl_float acc[2] = {NAN, NAN};
  CG_CL(clEnqueueReadBuffer, (l->queue, l->loss, CL_TRUE, 0, sizeof acc, acc, 0, NULL, NULL));
  out->loss = (double)acc[0] - (double)acc[1]; /* the compensated sum: see linear_update */
  CG_TRY(epoch_times(l, out, err));
  cg_cl_span_result(&l->span, out);
  out->launches = l->launches;
  out->path = l->path;
  out->launches_at_least = l->launches;
  /* the host's gather of the batches' rows, where it has one (a redo's included) */
  if (l->transfer != CG_TRANSFER_RESIDENT)
    out->batch_gather_ms = (double)l->gather_ns / l->batches / 1e6;
cleanup:
  return rc;
}

cg_rc cg_cl_linear_download(void *state, void *outputs, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_linear_device *l = state;
  cg_linear_tensors *out = outputs;
  const cg_linear_shape s = l->setup.shape;
  const size_t F = (size_t)s.features, C = (size_t)s.classes;
  CG_CL(clEnqueueReadBuffer, (l->queue, l->w, CL_FALSE, 0, C * F * 4, out->w, 0, NULL, NULL));
  CG_CL(clEnqueueReadBuffer, (l->queue, l->b, CL_TRUE, 0, C * 4, out->b, 0, NULL, NULL));
cleanup:
  return rc;
}
