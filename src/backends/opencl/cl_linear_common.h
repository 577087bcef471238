/* Private to src/backends: what the two OpenCL linear implementations (cl "fused" and clblast
 * "sgemm") share: device buffers with size checks, the kernels of cl/linear.cl and their
 * work-group sizes, the three transfer modes (per-batch pageable writes, pipelined pinned
 * uploads on a second queue, a resident dataset gathered by index), the epoch's events and their
 * device times. An implementation supplies only the compute of one batch. */
#ifndef CLGAUGE_CL_LINEAR_COMMON_H
#define CLGAUGE_CL_LINEAR_COMMON_H

#include "backends/opencl/opencl_backend.h"
#include "clgauge/backend.h"
#include "clgauge/linear.h"
#include "clgauge/workers.h"

typedef struct cg_linear_device cg_linear_device;

/* Where one batch's rows are on the device (see the top of cl/linear.cl). */
typedef struct cg_cl_linear_batch {
  int n;         /* rows in the batch */
  int gather;    /* 1: rows are X[idx[off + r]] of the resident dataset; 0: dense */
  cl_mem x;      /* the dense batch buffer, or the resident dataset */
  cl_mem labels; /* the dense batch buffer again (labels at element loff), or the dataset's */
  cl_ulong off;  /* position of the batch's first row: in the order (gathered), or in x (dense) */
  cl_ulong loff; /* dense: element offset of the labels in the buffer */
  int first;     /* the epoch's first batch: the loss accumulator is set, not added to */
  cl_event wait; /* the upload the batch's first command must wait for (pinned), or NULL */
  int releases;  /* pinned: the last batch of its group, whose last command releases the slot */
} cg_cl_linear_batch;

/* Enqueue one batch's compute on the compute queue. Every command's event goes through
 * cg_cl_linear_event, and the last command must be cg_cl_linear_enqueue_update (the last to read
 * the batch's rows: its event releases a pinned slot). */
typedef cg_rc (*cg_cl_linear_compute_fn)(cg_linear_device *l, const cg_cl_linear_batch *batch,
                                         cg_error *err);

/* The kernels of cl/linear.cl, as bits of the set an implementation launches. */
enum {
  CG_CL_LINEAR_FORWARD = 1 << 0, /* linear_forward */
  CG_CL_LINEAR_ROWS = 1 << 1,    /* linear_softmax */
  CG_CL_LINEAR_UPDATE = 1 << 2,  /* linear_update */
  CG_CL_LINEAR_GATHER = 1 << 3,  /* linear_gather */
  CG_CL_LINEAR_EPOCH = 1 << 4    /* linear_epoch: the whole epoch, resident only */
};

/* Enqueue a whole epoch (resident): an implementation that computes the epoch in one go sets
 * this instead of compute. Its commands' events go through cg_cl_linear_event. */
typedef cg_rc (*cg_cl_linear_epoch_fn)(cg_linear_device *l, cg_error *err);
/* After such an epoch has finished: *redo when it did not complete (a persistent launch whose
 * device-wide barrier failed), with the model restored to what it was before the epoch; the
 * epoch is then run again batch by batch through `compute`, and so are the later ones when the
 * hook clears compute_epoch. */
typedef cg_rc (*cg_cl_linear_check_fn)(cg_linear_device *l, bool *redo, cg_error *err);

/* pinned: one uploaded group of batches, number `index` of the epoch: nb batches from batch k0
 * on, rows rows in all, dense in x (the rows, then their labels as ints); its compute waits for
 * `wait`, the group's upload. */
typedef struct cg_cl_linear_group {
  int index, k0, nb, rows;
  cl_mem x;
  cl_event wait;
} cg_cl_linear_group;
/* Enqueue a whole group (pinned) in one go, instead of compute per batch: its last command's
 * event goes through cg_cl_linear_event_needed (it releases the slot for the next upload). */
typedef cg_rc (*cg_cl_linear_group_fn)(cg_linear_device *l, const cg_cl_linear_group *grp,
                                       cg_error *err);
/* After an epoch of such groups has finished: *from, the first group that did not complete
 * (a persistent launch whose device-wide barrier failed), with the model and loss restored to
 * what they were before it; -1 when all did. The groups from there on are then run again batch
 * by batch through `compute`, and so are the later epochs when the hook clears compute_group. */
typedef cg_rc (*cg_cl_linear_check_groups_fn)(cg_linear_device *l, int *from, cg_error *err);

/* pinned: the device buffers a group is uploaded into (slots): SLOTS of them, 2 by default
 * (group g uploads while group g-1 computes), at most CG_CL_LINEAR_MAX_SLOTS. More let an upload
 * run further ahead of the compute; on an H100 (bench/RESULTS.md, 2026-12-06, 16:37 UTC) 3 and 4
 * took pinned to 1.00-1.22 and 1.02-1.29 times resident against 1.14-1.29 with 2 (four rounds,
 * within the spread), and 3 to 1.47-1.89 against 1.23-1.43 with 2-MB batches, where the host's
 * gather is what the device waits for.
 * And the host buffers a group is gathered into before its upload (staging), one more than the
 * slots, so that the pool gathers group g+1 while the host enqueues group g, whose upload reads
 * another buffer, and those of the groups before it may still be on their way to the device. */
enum { CG_CL_LINEAR_SLOTS = 2, CG_CL_LINEAR_MAX_SLOTS = 4 };
enum { CG_CL_LINEAR_STAGING = CG_CL_LINEAR_MAX_SLOTS + 1 };

/* pinned: rows idx[0..n) of the dataset into dst (n x F floats) and their labels into
 * dst_labels, split by rows over the gather pool's threads. */
typedef struct cg_cl_linear_gather_job {
  const cg_linear_device *l;
  const int *idx;
  int n;
  float *dst;
  int *dst_labels;
} cg_cl_linear_gather_job;

struct cg_linear_device {
  cg_linear_setup setup;
  cg_transfer transfer;     /* pageable, pinned or resident */
  int rows;                 /* most rows in a batch: min(batch, samples) */
  int group;                /* pinned: batches per upload, at most */
  cg_origin group_origin;
  int ramp;                 /* pinned: groups smaller at the epoch's ends (RAMP) */
  cg_origin ramp_origin;
  int groups;               /* pinned: groups per epoch */
  int slots;                /* pinned: device buffers of a group (SLOTS); staging: slots + 1 */
  cg_origin slots_origin;
  int *group_k0;            /* pinned: first batch of each group, then the epoch's end */
  cg_workers *gather_pool;  /* pinned: the host threads that gather each group's rows */
  uint64_t gather_ns;       /* host time gathering rows in the epoch enqueued last */
  cg_origin threads_origin;
  const cg_device_info *info;
  const cg_device *dev;
  cl_context context;
  cl_command_queue queue;   /* compute; the device's own queue */
  cl_command_queue upload_q; /* pinned only: the second in-order queue for uploads */
  cl_program program;
  cl_kernel forward, softmax, update, gather, epoch;
  size_t forward_local, rows_local, update_local, gather_local, epoch_local;
  cg_origin forward_origin, rows_origin, update_origin, gather_origin, epoch_origin;
  cl_mem w, b, g, rowloss, loss; /* model, g (rows x C), per-row losses, epoch loss (2 floats) */
  cl_mem dev_batch[CG_CL_LINEAR_MAX_SLOTS]; /* dense batch buffers: rows x F floats, then their
                               labels as ints; pinned: a group of batches each (l->slots of
                               them), all rows, then all labels */
  cl_mem x, labels, order;  /* resident: the dataset and the epoch's order */
  cl_mem staging[CG_CL_LINEAR_STAGING]; /* pinned: CL_MEM_ALLOC_HOST_PTR buffers, mapped once */
  void *staging_ptr[CG_CL_LINEAR_STAGING];
  void *host_batch;         /* pageable: an ordinary malloc'd batch buffer */
  cg_linear_tensors data;
  /* pinned: per staging buffer, the last upload from it; per device slot (dev_batch), the last
   * command that read it */
  cl_event staging_up[CG_CL_LINEAR_STAGING], slot_done[CG_CL_LINEAR_MAX_SLOTS];
  cg_cl_linear_gather_job gathering; /* pinned: the group the pool is gathering */
  /* The epoch's events, kept for its times, with their kinds. An event per command costs the
   * host several microseconds per launch on some drivers (NVIDIA), which is what this workload
   * measures, so one epoch is timed command by command (the second, the first steady one), and
   * the others take events only for their span (the first and last batch) and where pinned
   * needs them for ordering. */
  cl_event *events;
  unsigned char *kinds;
  int nevents, cap_events;
  cg_device_span span;      /* the epoch enqueued last, from its first command to its last */
  int epochs;               /* epochs enqueued so far */
  bool timed_epoch;         /* the epoch being enqueued or last finished is timed throughout */
  bool time_batch;          /* the batch being enqueued takes events */
  int batches;              /* per epoch */
  int launches;             /* kernel launches per batch, set by the implementation */
  bool cl12;                /* the device speaks OpenCL 1.2 or later */
  cg_cl_linear_compute_fn compute;
  cg_cl_linear_epoch_fn compute_epoch; /* resident: the epoch in one go; NULL: per batch */
  cg_cl_linear_check_fn check_epoch;   /* with compute_epoch: whether to redo it; may be NULL */
  cg_cl_linear_group_fn compute_group; /* pinned: a group in one go; NULL: per batch */
  cg_cl_linear_check_groups_fn check_groups; /* with compute_group: what to redo */
  const int *host_order;               /* the epoch's order while it runs (a pinned redo's) */
  const char *path;                    /* what ran, when it changed after preparation (the
                                          record's kernel path): static or in ext; else NULL */
  void *ext;                           /* the implementation's own state, freed by */
  void (*ext_release)(void *ext);
};

/* Kinds of event: an upload, a kernel, and one taken only to order commands (not timed). */
enum { CG_CL_LINEAR_UPLOAD = 0, CG_CL_LINEAR_KERNEL = 1, CG_CL_LINEAR_ORDER = 2 };
/* pinned: batches per upload. Each upload and each slot release costs an event, a flush and a
 * wait across the two queues; per batch of 32 rows those cost as much as pinning saves (seen on
 * NVIDIA), so the staging buffers hold a group of batches, and the upload of group g+1 overlaps
 * the compute of group g. 32: with the persistent kernel, one launch per group, the H200 took
 * 16.0 us per batch in groups of 8, 14.3 in groups of 16, 13.5 in groups of 32 and of 64
 * (bench/RESULTS.md, 2026-12-04). Overridable as the kernel parameter GROUP. */
enum { CG_CL_LINEAR_PINNED_GROUP = 32 };
/* pinned: by default also no more batches than CG_CL_LINEAR_PINNED_GROUP_BYTES hold: at
 * 20000 x 4096, batch 128 (2.1 MB a batch) an H100's host ran pinned at 63-85 us per batch in
 * groups of 16 (34 MB) against 81-96 in groups of 32 (67 MB), in six rounds each, the host's
 * gather of a batch taking 50-72 us against 62-70 in the four interleaved ones; groups of 8 were
 * no faster (bench/RESULTS.md, 2026-12-05). 48 MiB: between the two. */
enum { CG_CL_LINEAR_PINNED_GROUP_BYTES = 48 << 20 };
/* The default batches per pinned upload for batches of batch_bytes: CG_CL_LINEAR_PINNED_GROUP,
 * halved while the group holds more than CG_CL_LINEAR_PINNED_GROUP_BYTES; at least 1. */
int cg_cl_linear_pinned_group(size_t batch_bytes);
/* pinned: host threads that gather a group's rows into its staging buffer, on a GPU (on a CPU
 * device one: the device's own threads compute meanwhile). One core's copy of the rows, about
 * 13 us per batch of 32 x 1000 floats on the H200's host, was what the device waited for: a
 * batch computes in about 5 us. 8: at 20000 x 4096, batch 128 (2 MB per batch) an H100's host
 * gathered a batch in 105-127 us on 4 threads, 61-76 on 8, 63-64 on 16, and pinned took 126-151
 * us per batch on 4, 81-96 on 8, 83-91 on 16 (resident 55); at the default shape 8 threads were
 * as fast as 4 on the H200 (bench/RESULTS.md, 2026-12-05). Capped by the online processors;
 * overridable as THREADS. */
enum { CG_CL_LINEAR_GATHER_THREADS = 8 };

/* Create the instance for the transfer mode named `mode`: buffers (checked against the device's
 * maximum allocation), the second queue and staging buffers of pinned, the program cl/linear.cl
 * and its kernels, and into out the compile time and the configuration of the kernels in
 * `kernels` (CG_CL_LINEAR_* bits: those the implementation launches). dense_resident: the
 * implementation needs a dense batch buffer in resident mode too (CLBlast cannot gather). */
cg_rc cg_cl_linear_create(const cg_backend_env *env, const char *mode,
                          const cg_linear_setup *setup, bool dense_resident, unsigned kernels,
                          cg_linear_device **l, cg_prepared *out, cg_error *err);
/* A slot for the event of the next command of the given kind, or NULL when the command is not
 * timed (no profiling, or a batch outside the timed epoch and the span's edges). Room for
 * CG_CL_LINEAR_EVENTS_PER_BATCH is reserved before each batch's compute, so this never fails;
 * use the slot right away. */
enum { CG_CL_LINEAR_EVENTS_PER_BATCH = 8 };
cl_event *cg_cl_linear_event(cg_linear_device *l, int kind);
/* Likewise, for a command whose event orders others: always a slot. */
cl_event *cg_cl_linear_event_needed(cg_linear_device *l, int kind);
/* Enqueue linear_update over the columns f_begin..F (F is the bias) and all classes; its event
 * goes to the epoch's list. */
cg_rc cg_cl_linear_enqueue_update(cg_linear_device *l, const cg_cl_linear_batch *batch,
                                  int f_begin, cl_uint nwait, const cl_event *wait,
                                  cg_error *err);

/* The cg_impl entries both implementations share. */
cg_rc cg_cl_linear_upload(void *state, const void *inputs, cg_error *err);
cg_rc cg_cl_linear_enqueue(void *state, const cg_run *run, cg_error *err);
cg_rc cg_cl_linear_finish(void *state, cg_run_result *out, cg_error *err);
cg_rc cg_cl_linear_download(void *state, void *outputs, cg_error *err);
void cg_cl_linear_release(void *state);

/* The modes they run, and the kernel parameters --kernel-param may set. */
extern const char *const cg_cl_linear_modes[];
extern const char *const cg_cl_linear_kernel_params[];
/* The parameters of the cl backend's variants: the pinned GROUP, RAMP and THREADS,
 * linear_epoch's work-group size (WG_EPOCH), and the persistent path of the fused variant
 * (PERSIST, PGROUPS, SPIN, WG_PERSIST, PREFETCH, SYNC: src/backends/cl/linear_persistent.c). */
extern const char *const cg_cl_linear_epoch_kernel_params[];

#endif
