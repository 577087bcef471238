/* The blocking of the mlp's fused kernels (mlp_fused_config.h): launch A's work-items, register
 * blocks, chunks and switches, which launches run, and launch R's columns, each by a rule measured
 * on devices (bench/RESULTS.md) unless an override replaces it. */
#include "backends/cl/mlp_fused_config.h"

#include <stdio.h>
#include <string.h>

#include "clgauge/device.h"

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

/* The widest vector of at most `most` floats (4, 2 or 1) that divides a register block of n. */
static int vector_width(int n, int most) {
  int v = most;
  while (v > 1 && n % v != 0) v /= 2;
  return v;
}

/* Launch R's local memory: its NB x (RC + 1) tile of h1 and a float per work-item (Hs and red in
 * cl/mlp.cl). */
static size_t reduce_local_bytes(int nb, int rc, int wr) {
  return ((size_t)nb * (size_t)(rc + 1) + (size_t)wr) * sizeof(float);
}

/* Launch A's (or G's) work-items: 16 x 16, halved (TX first) to `lim`; the overrides named
 * tx_name and ty_name (TX and TY, or GTX and GTY) replace them. */
static cg_rc choose_items(const cg_kernel_overrides *ov, const char *tx_name, const char *ty_name,
                          int lim, cg_fused_config *c, cg_error *err) {
  cg_rc rc = CG_OK;
  c->tx = c->ty = 16;
  while (c->tx * c->ty > lim) {
    if (c->tx >= c->ty)
      c->tx /= 2;
    else
      c->ty /= 2;
  }
  c->origin.tx = c->origin.ty = CG_ORIGIN_DEFAULT;
  c->tx = cg_kernel_override(ov, tx_name, c->tx, &c->origin.tx);
  c->ty = cg_kernel_override(ov, ty_name, c->ty, &c->origin.ty);
  CG_CHECK(c->tx >= 1 && c->ty >= 1 && c->tx <= lim && c->ty <= lim && c->tx * c->ty <= lim,
           CG_BAD_INPUT,
           "--kernel-param %s=%d %s=%d: %d x %d work-items, the fused kernels allow %d here",
           tx_name, c->tx, ty_name, c->ty, c->tx, c->ty, lim);
cleanup:
  return rc;
}

/* The vector reads asked for (VW), before the blocks narrow them: float2 on a GPU, none on a CPU
 * driver (choose_a_blocks says why); launch G reads as launch A does. */
static int asked_vw(const cg_device_info *info, const cg_kernel_overrides *ov, cg_origin *origin) {
  *origin = CG_ORIGIN_DEFAULT;
  return cg_kernel_override(ov, "VW", cg_device_is_cpu(info) ? 1 : 2, origin);
}

/* Launch A's blocks at R rows (RN columns when overridden, else the lesser of RN and R), KC and VW
 * as asked: the blocks, vector widths and KV that fit `local_mem` (twice over with DB), halving KV
 * (with FWR), then KC, then R (KC and KV back to as asked) until they do; the bytes of local
 * memory they need. */
static size_t fit_a_blocks(const cg_mlp_shape s, uint64_t local_mem, int r, int rn_given,
                           int kc0, int vw0, cg_fused_config *c) {
  c->kc = kc0;
  size_t local = 0;
  bool fresh = true; /* KV to be set from VW */
  for (;;) {
    c->rm = r;
    c->rn = c->origin.rn == CG_ORIGIN_OVERRIDE || rn_given < r ? rn_given : r;
    c->rm2 = ceil_div(s.batch, c->ty);
    if (c->rm2 > r) c->rm2 = r;
    c->vw = vector_width(r, vw0);
    while (c->rn % c->vw != 0) c->vw /= 2;
    c->vw2 = vector_width(c->rm2, c->vw);
    if (fresh) c->kv = c->fwr ? c->vw : 1;
    fresh = false;
    const int bi = c->ty * r, bj = c->tx * c->rn, nc = c->ty * c->rm2, lda = bi > nc ? bi : nc;
    /* a row of As: whole vectors and one of padding with vector reads, else one float */
    const int lds = c->vw == 1 ? lda + 1 : ceil_div(lda, 4) * 4 + 4;
    /* the rows of As and Bs: KC, or with FWR the forward part's KF = TY KV if more */
    const int kf = c->ty * c->kv, rows = c->fwr && kf > c->kc ? kf : c->kc;
    local = (size_t)(c->db ? 2 : 1) * (size_t)rows * (size_t)(lds + bj) * sizeof(float);
    if (local <= local_mem) break;
    if (c->fwr && c->kv > 1 && kf > c->kc) {
      c->kv /= 2;
    } else if (c->kc > 1) {
      c->kc /= 2;
    } else if (r > 1) {
      r /= 2;
      c->kc = kc0;
      fresh = true;
    } else {
      break;
    }
  }
  return local;
}

/* The rule's R for launch A (most 8) or G (most 4): `most`, halved while tx x ty work-items with R
 * x R blocks give fewer than half as many tiles of w1 as `cu` compute units, since a small shape is
 * latency-bound and wants work-groups while a big one wants register blocking. */
static int rule_r(const cg_mlp_shape s, int cu, int tx, int ty, int most) {
  int r = most;
  while (r > 1 && 2 * ceil_div(s.din, ty * r) * ceil_div(s.hidden, tx * r) < cu) r /= 2;
  return r;
}

/* fit_a_blocks for launch A or G (`launch`: "" or " for launch G", in the message), refused where
 * even its smallest blocks exceed `local_mem`; the blocks and chunk it made smaller than asked
 * marked fallbacks (an overridden RN stays an override), and the grid's column blocks and row
 * chunks. */
static cg_rc fit_blocks(const cg_mlp_shape s, uint64_t local_mem, int r, int rn, int kc0, int vw0,
                        const char *launch, cg_fused_config *c, cg_error *err) {
  cg_rc rc = CG_OK;
  const size_t local = fit_a_blocks(s, local_mem, r, rn, kc0, vw0, c);
  CG_CHECK(local <= local_mem, CG_UNSUPPORTED,
           "variant fused needs %zu bytes of local memory%s, the device has %llu", local, launch,
           (unsigned long long)local_mem);
  if (c->rm < r) c->origin.r = CG_ORIGIN_FALLBACK;
  if (c->rn < rn && c->origin.rn != CG_ORIGIN_OVERRIDE) c->origin.rn = CG_ORIGIN_FALLBACK;
  if (c->kc < kc0) c->origin.kc = CG_ORIGIN_FALLBACK;
  c->nch = ceil_div(s.batch, c->ty * c->rm2);
  c->col_blocks = ceil_div(s.hidden, c->tx * c->rn);
cleanup:
  return rc;
}

/* Launch A's register blocks (R, RN), chunk (KC), vector reads (VW) and forward path (FWR), by
 * the rule and the overrides, fitted to `local_mem`; its grid (col_blocks, row chunks). */
static cg_rc choose_a_blocks(const cg_mlp_shape s, const cg_device_info *info, uint64_t local_mem,
                             const cg_kernel_overrides *ov, cg_fused_config *c, cg_error *err) {
  cg_rc rc = CG_OK;
  c->origin.r = CG_ORIGIN_DEFAULT;
  const int r =
      cg_kernel_override(ov, "R", rule_r(s, (int)cg_device_units(info), c->tx, c->ty, 8),
                         &c->origin.r);
  CG_CHECK(r >= 1 && r <= 16, CG_BAD_INPUT, "--kernel-param R=%d: out of range (1..16)", r);
  /* RN: the register block's columns, R unless overridden (R is then its rows alone); on a GPU
   * at batch 16 or less, 4 where R is 8: there launch A streams w1 with few products per element,
   * and blocks of 8 x 4 give it twice the work-groups. On the H200 (bench/RESULTS.md,
   * 2026-12-05, 12:19 UTC) 8 x 4 took 107 us per iteration at 8 x 4096 x 4096 x 8 against 141
   * with 8 x 8, 391 against 536 at 8 x 8192 x 8192 x 64, 124 against 155 at 16 x 4096 x 4096 x
   * 16; even at batch 32 (48 us at 32 x 2048 x 2048 x 8), 5% slower at batch 64. The fit below
   * keeps RN at most R when it halves R. */
  c->origin.rn = CG_ORIGIN_DEFAULT;
  /* In a split iteration, launch A's forward part alone took 124.5 us with 8 x 4 blocks at the
   * big preset on an H100 against 142.4 with 8 x 8 (bench/RESULTS.md, 2026-12-06, 10:09 UTC
   * on). */
  const bool narrow =
      !cg_device_is_cpu(info) && (s.batch <= 16 || c->part == 2) && r == 8;
  const int rn_given = cg_kernel_override(ov, "RN", narrow ? 4 : r, &c->origin.rn);
  CG_CHECK(rn_given >= 1 && rn_given <= 16, CG_BAD_INPUT,
           "--kernel-param RN=%d: out of range (1..16)", rn_given);
  c->origin.kc = CG_ORIGIN_DEFAULT;
  const int kc0 = cg_kernel_override(ov, "KC", 16, &c->origin.kc);
  CG_CHECK(kc0 >= 1, CG_BAD_INPUT, "--kernel-param KC=%d: below 1", kc0);
  /* vector reads on a GPU, float2: on the H200 with launch D, float2 took 371 us per iteration
   * at the big preset against 403 with float4, 38 against 43 at 32 x 4096 x 512 x 8, 65 against
   * 76 at 64 x 2048 x 2048 x 8 and 30 against 37 at 64 x 16 x 5000 x 8; float4 was 2-10% faster
   * at batch 8 and 16 and at 64 x 128 x 8192 x 1 (bench/RESULTS.md, 2026-12-05): a choice by
   * shape is still to be made. A CPU driver runs a
   * work-group's items as lanes of its own vectors, where a work-item's vector becomes a gather
   * (PoCL: float4 twice as slow at 8 x 16 x 16 x 1) */
  const int vw0 = asked_vw(info, ov, &c->origin.vw);
  CG_CHECK(vw0 == 1 || vw0 == 2 || vw0 == 4, CG_BAD_INPUT,
           "--kernel-param VW=%d: must be 1, 2 or 4", vw0);
  /* FWR 1: launch A's forward part takes the updated tile of w1 from the registers that updated
   * it, KV rows of each work-item's block per chunk (KV = VW, halved while the chunk does not fit
   * the local memory), instead of reading it back from global memory in chunks of KC; 2: the
   * same with its chunk loop unrolled, so that a compiler sees the registers free up */
  c->origin.fwr = CG_ORIGIN_DEFAULT;
  c->fwr = cg_kernel_override(ov, "FWR", 0, &c->origin.fwr);
  CG_CHECK(c->fwr >= 0 && c->fwr <= 2, CG_BAD_INPUT, "--kernel-param FWR=%d: must be 0, 1 or 2",
           c->fwr);
  /* DB 1: each chunk of the backward part and of the read-back forward part in two local
   * buffers, the next one fetched while this one is multiplied, one barrier per chunk instead of
   * two (the pipelined matmul's scheme); needs the registers of STAGE 1 (choose_a_switches) and
   * has no chunks to double with FWR. Off until measured on a GPU. */
  c->origin.db = CG_ORIGIN_DEFAULT;
  c->db = cg_kernel_override(ov, "DB", 0, &c->origin.db);
  CG_CHECK(c->db == 0 || c->db == 1, CG_BAD_INPUT, "--kernel-param DB=%d: must be 0 or 1", c->db);
  CG_CHECK(!c->db || !c->fwr, CG_BAD_INPUT,
           "--kernel-param DB=1: FWR=%d's forward part has no chunks of w1 to double-buffer",
           c->fwr);
  /* PoCL 3.1 took more than 15 minutes to build the unrolled loop at R=8 (its barriers): a CPU
   * driver runs FWR=2 as 1 */
  if (c->fwr == 2 && cg_device_is_cpu(info)) {
    c->fwr = 1;
    c->origin.fwr = CG_ORIGIN_FALLBACK;
  }
  CG_TRY(fit_blocks(s, local_mem, r, rn_given, kc0, vw0, "", c, err));
  CG_CHECK(c->origin.vw != CG_ORIGIN_OVERRIDE || c->vw == vw0, CG_BAD_INPUT,
           "--kernel-param VW=%d: must divide R=%d and RN=%d", vw0, c->rm, c->rn);
  if (c->vw < vw0) c->origin.vw = CG_ORIGIN_FALLBACK;
cleanup:
  return rc;
}

/* Launch A's row tiles per work-group (TPG, and so its row groups), prefetch (PF), chunks
 * through registers (STAGE), its update's rows at a time (UR) and the tile's prefetch (WPF). */
static cg_rc choose_a_switches(const cg_mlp_shape s, const cg_device_info *info,
                               const cg_kernel_overrides *ov, cg_fused_config *c, cg_error *err) {
  cg_rc rc = CG_OK;
  /* More than one tile per work-group cuts the partials but keeps two accumulator blocks live
   * (slower on an H200 at every setting tried), so one unless overridden; in a split iteration,
   * whose launch A keeps only the forward part's block, two where the batch fits one chunk: on
   * an H100 at the big preset launch A and R took 128 + 15 us so against 125 + 28 with one
   * (bench/RESULTS.md, 2026-12-06, 10:09 UTC on). */
  c->origin.tpg = CG_ORIGIN_DEFAULT;
  c->tpg = cg_kernel_override(ov, "TPG", c->part == 2 && c->nch == 1 ? 2 : 1, &c->origin.tpg);
  CG_CHECK(c->tpg >= 1, CG_BAD_INPUT, "--kernel-param TPG=%d: below 1", c->tpg);
  CG_CHECK(c->tpg == 1 || c->nch == 1, CG_BAD_INPUT,
           "--kernel-param TPG=%d: more than one row tile per work-group needs batch <= %d",
           c->tpg, c->ty * c->rm2);
  c->rgroups = ceil_div(ceil_div(s.din, c->ty * c->rm), c->tpg);
  /* off by default: on the H200 the prefetch changed the big preset by 2% (488 against 499 us)
   * and 256 x 2048 x 1024 x 16 not at all, for the registers it holds */
  c->origin.pf = CG_ORIGIN_DEFAULT;
  c->pf = cg_kernel_override(ov, "PF", 0, &c->origin.pf);
  CG_CHECK(c->pf == 0 || c->pf == 1, CG_BAD_INPUT, "--kernel-param PF=%d: must be 0 or 1", c->pf);
  /* STAGE 1: each chunk is fetched into registers, then stored to local memory (the scheme the
   * prefetch needs, measured on the H200); 0: loaded straight into local memory. On CPU drivers
   * the registers cost: rusticl on llvmpipe took 323 ms per iteration at 32 x 4096 x 512 x 8
   * with them, 270 without (PoCL alike either way; bench/RESULTS.md, 2026-12-05) */
  c->origin.stage = CG_ORIGIN_DEFAULT;
  c->stage = cg_kernel_override(ov, "STAGE", cg_device_is_cpu(info) ? 0 : 1,
                                &c->origin.stage);
  CG_CHECK(c->stage == 0 || c->stage == 1, CG_BAD_INPUT,
           "--kernel-param STAGE=%d: must be 0 or 1", c->stage);
  /* PF and DB fetch through registers: STAGE=0 given with either is refused, a default
   * STAGE=0 becomes 1 */
  const char *fetches = c->pf ? "PF=1" : c->db ? "DB=1" : NULL;
  CG_CHECK(!fetches || c->stage || c->origin.stage != CG_ORIGIN_OVERRIDE, CG_BAD_INPUT,
           "--kernel-param STAGE=0: %s fetches through registers (STAGE=1)", fetches);
  if (fetches && !c->stage) {
    c->stage = 1;
    c->origin.stage = CG_ORIGIN_FALLBACK;
  }
  /* UR: the w1 update's rows of a block in flight together; WPF 1: the work-item's block of the
   * tile read ahead at the tile's start with plain loads (cl/mlp.cl says how they are kept).
   * One row at a time took 17 us off the big preset on the H200 against element by element; on
   * the H100 (bench/RESULTS.md, 2026-12-05, 23:07 UTC on) two rows took 9-10 us off launch A at
   * the big preset with 8 x 8 blocks and lost nowhere with them (five shapes of batch 32 to 128,
   * two runs each), four rows lost 19 us (128 registers and a stack frame). The read-ahead took
   * 2-22 us off launch A with 8 x 4 blocks (batch 8 to 16) at four shapes and lost 2 us at batch
   * 1, where the backward product before the update is too short to hide the loads; with 8 x 8
   * blocks it lost 3 us at 64 x 2048 x 2048 x 8, and beside two rows it cost the big preset 19.
   * OpenCL's prefetch() in its place did nothing there (no prefetch in the driver's binary) and
   * is gone. CPU drivers keep both off (not measured there). */
  const bool gpu = !cg_device_is_cpu(info);
  c->origin.ur = CG_ORIGIN_DEFAULT;
  c->ur = cg_kernel_override(ov, "UR", gpu && c->rm == 8 && c->rn == 8 ? 2 : 1, &c->origin.ur);
  CG_CHECK(c->ur >= 1 && c->ur <= c->rm, CG_BAD_INPUT,
           "--kernel-param UR=%d: out of range (1..R=%d)", c->ur, c->rm);
  c->origin.wpf = CG_ORIGIN_DEFAULT;
  c->wpf = cg_kernel_override(ov, "WPF", gpu && c->rm == 8 && c->rn == 4 && s.batch >= 8,
                              &c->origin.wpf);
  CG_CHECK(c->wpf == 0 || c->wpf == 1, CG_BAD_INPUT, "--kernel-param WPF=%d: must be 0 or 1",
           c->wpf);
cleanup:
  return rc;
}

/* Launch B's rows per work-group (BROWS). On a GPU with three launches the batch's rows over
 * as many work-groups as it has compute units at most (ceil(batch / units) rows each); else all
 * of the batch, one work-group (with two launches launch B sums h1 and runs g2 and the w2 update,
 * which need every row; a CPU driver's few compute units gain little: on PoCL 3.1 at 63 x 100 x
 * 500 x 64, 16 rows took 3.57 ms per iteration against 3.93 with one group, 4 rows 6.21). On the
 * H100 (bench/RESULTS.md, 2026-12-07) at eight shapes of batch 32 to 256 and dout 8 to 64, one
 * to four rows per group took launch B from 62 to 17-20 us at 63 x 100 x 500 x 64 (the
 * iteration from 88 to 40, against cl/per-op's 82), 14-48 us off the iteration at dout 59 to
 * 64, 11-23 at batch 88 and 256, and 3-4 at the big preset (dout 8); at batch 256 two rows per
 * group (128 groups on 132 SMs) were the fastest (146.3 us, 149.0 with one row), and no count of
 * 1 to 4 rows lost to one group anywhere (16 rows did at the big preset, 290.2 against 286.7).
 * BROWS overrides, below the batch only with three launches. */
static cg_rc choose_b_rows(const cg_mlp_shape s, const cg_device_info *info,
                           const cg_kernel_overrides *ov, cg_fused_config *c, cg_error *err) {
  cg_rc rc = CG_OK;
  char range[48];
  snprintf(range, sizeof range, "out of range (1..%d, the batch)", s.batch);
  const int units = (int)cg_device_units(info);
  const int rows = c->three && !cg_device_is_cpu(info) ? ceil_div(s.batch, units) : s.batch;
  CG_TRY(cg_kernel_override_in(ov, "BROWS", rows, 1, s.batch, range, &c->brows, &c->origin.brows,
                               err));
  CG_CHECK(c->three || c->brows == s.batch, CG_BAD_INPUT,
           "--kernel-param BROWS=%d: launch B's rows split over work-groups need three launches "
           "(THREE=1)",
           c->brows);
  c->brg = ceil_div(s.batch, c->brows);
cleanup:
  return rc;
}

/* Launch B's work-items (as many as `limit` and the local memory allow, up to 1024; WGB
 * overrides, a power of two within both), which launches run (a launch R when one work-group
 * cannot sum the partials quickly or, on a GPU, would run many rows of the output layer: THREE),
 * launch B's rows per work-group (BROWS) and its local copies (BLOC), and whether a launch D
 * computes dz1 (DZ1A = 0). */
static cg_rc choose_launches(const cg_mlp_shape s, const cg_device_info *info, size_t limit,
                             uint64_t local_mem, const cg_kernel_overrides *ov, cg_fused_config *c,
                             cg_error *err) {
  cg_rc rc = CG_OK;
  c->wgb = (int)cg_pow2_floor(limit < 1024 ? limit : 1024);
  c->origin.wgb = CG_ORIGIN_DEFAULT;
  /* launch B keeps a float per work-item in local memory */
  while (c->wgb > 1 && (size_t)c->wgb * sizeof(float) > local_mem) {
    c->wgb /= 2;
    c->origin.wgb = CG_ORIGIN_FALLBACK;
  }
  CG_CHECK((size_t)c->wgb * sizeof(float) <= local_mem, CG_UNSUPPORTED,
           "variant fused needs %zu bytes of local memory for launch B, the device has %llu",
           (size_t)c->wgb * sizeof(float), (unsigned long long)local_mem);
  c->wgb = cg_kernel_override(ov, "WGB", c->wgb, &c->origin.wgb);
  CG_CHECK(c->wgb >= 1 && c->wgb <= 1024 && (c->wgb & (c->wgb - 1)) == 0, CG_BAD_INPUT,
           "--kernel-param WGB=%d: must be a power of two from 1 to 1024", c->wgb);
  CG_CHECK((size_t)c->wgb <= limit && (size_t)c->wgb * sizeof(float) <= local_mem,
           CG_UNSUPPORTED,
           "--kernel-param WGB=%d: launch B may have %zu work-items per group here (%llu bytes of "
           "local memory)",
           c->wgb, limit, (unsigned long long)local_mem);
  /* On a GPU three launches also where batch x dout > 1024: with two, launch B, one work-group,
   * runs every row of the output layer, and its time climbs steeply past 1024 (on an H100, two
   * launches against three: 8 x 16 x 16 x 64 13.2 / 13.5 us, 16 x 16 x 16 x 64 19.4-19.9 /
   * 22.0-25.4, 48 x 64 x 64 x 32 51.3 / 24.7, 32 x 64 x 64 x 64 79 / 23-26, 64 x 16 x 16 x 64 64.4
   * / 28.1, 200 x 64 x 64 x 64 843 / 47.9; bench/RESULTS.md, 2026-12-07, 06:36 to 07:56 UTC) */
  const bool gpu = !cg_device_is_cpu(info);
  c->three = (double)c->rgroups * s.batch * s.hidden > 64.0 * c->wgb ||
             (gpu && (double)s.batch * s.dout > 1024.0);
  c->origin.three = c->origin.dz1a = CG_ORIGIN_DEFAULT;
  c->three = cg_kernel_override(ov, "THREE", c->three, &c->origin.three) != 0;
  CG_TRY(choose_b_rows(s, info, ov, c, err));
  /* BLOC: launch B's copies in local memory beside its reduction's floats, as many as fit: 2 (h2,
   * dy and w3), 1 (h2 and w3), 0 (cl/mlp.cl's PW3: w3's rows an odd number of floats apart) */
  const uint64_t no = (uint64_t)c->brows * s.dout, w3 = (uint64_t)s.dout * (s.dout | 1);
  const uint64_t bloc_bytes[3] = {0, (no + w3 + c->wgb) * sizeof(float),
                                  (2 * no + w3 + c->wgb) * sizeof(float)};
  c->origin.bloc = CG_ORIGIN_DEFAULT;
  c->bloc = bloc_bytes[2] <= local_mem ? 2 : bloc_bytes[1] <= local_mem ? 1 : 0;
  c->bloc = cg_kernel_override(ov, "BLOC", c->bloc, &c->origin.bloc);
  CG_CHECK(c->bloc >= 0 && c->bloc <= 2, CG_BAD_INPUT,
           "--kernel-param BLOC=%d: must be 0, 1 (h2 and w3) or 2 (dy too)", c->bloc);
  CG_CHECK(bloc_bytes[c->bloc] <= local_mem, CG_UNSUPPORTED,
           "--kernel-param BLOC=%d: launch B needs %llu bytes of local memory for its copies at "
           "%d rows of the batch and dout %d, the device has %llu",
           c->bloc, (unsigned long long)bloc_bytes[c->bloc], c->brows, s.dout,
           (unsigned long long)local_mem);
  /* With three launches dz1 is computed in A, each row group again for its columns, or once in
   * a launch D of its own (DZ1A=0), which costs a launch. On a GPU, D: on the H200 the iteration
   * took 406 us with D against 491 at the big preset, 43 against 47 at 32 x 4096 x 512 x 8 and
   * 76 against 91 at 64 x 2048 x 2048 x 8 (bench/RESULTS.md, 2026-12-05). On CPU drivers dz1
   * stays in A: a launch costs rusticl about 0.3 ms, and D is not measured there. */
  c->dz1a = cg_kernel_override(ov, "DZ1A", c->three && !gpu, &c->origin.dz1a) != 0;
cleanup:
  return rc;
}

/* Launch R: `lim` work-items and all NB rows of RC columns per work-group. Halving RC halves each
 * work-group's work, NB x RC x (RGROUPS + DOUT) (its sum of A's partials and its product with w2),
 * and doubles the floats of R's shares that launch B, one work-group, sums, NB x DOUT x HID / RC;
 * on an H100 R's time grows by 30 to 100 us per million of the first, B's by 80 to 110 us per
 * million of the second. So RC halves for a work-group per compute unit while R's work per
 * work-group exceeds B's shares, RC^2 x (RGROUPS + DOUT) > HID x DOUT (reduce_pays; batch
 * cancels; the ratio 1 fitted to the measurements below, 2 in its place within 5.3% of the best
 * RC, 4 up to 14%). Where R moves much data (NB x HID x (RGROUPS + DOUT) at least 2^22) it goes
 * on to one and a half work-groups per compute unit while the shares stay within 2^18 floats: at
 * the big preset RC 16, 313 work-groups of R in place of 157, 359 us against 365 at RC 32 (96 x
 * 5000 x 5000 x 8: 513 against 521). Then small enough for the local memory; RC overrides. On an
 * H100 (bench/RESULTS.md, 2026-12-06, RC 32 down to 1 or 2 with three launches): within 4.3% of
 * the best RC at the 23 shapes it was fitted to (batch 8 to 611, hidden 65 to 4096), and at eight
 * drawn after it within 5% at six, 5.1% at one and 1.25 times at one, where single runs differ
 * as much; bounds on the shares alone (2^18, then 2^17 floats) lost up to 49% and 18%. */
/* Whether halving RC saves launch R more work than it adds to launch B's sum of R's shares. */
static bool reduce_pays(const cg_mlp_shape s, int rgroups, int rc) {
  return (double)rc * rc * (rgroups + s.dout) > (double)s.hidden * s.dout;
}

/* Whether launch B's sum of R's shares at rc columns per work-group stays within `floats`. */
static bool shares_within(const cg_mlp_shape s, int rc, double floats) {
  return (double)ceil_div(s.hidden, rc) * s.batch * s.dout <= floats;
}

static cg_rc choose_reduce(const cg_mlp_shape s, const cg_device_info *info, int lim,
                           uint64_t local_mem, const cg_kernel_overrides *ov, cg_fused_config *c,
                           cg_error *err) {
  cg_rc rc = CG_OK;
  const int cu = (int)cg_device_units(info);
  const int N = s.batch, H = s.hidden;
  c->wr = lim;
  c->rc = 32;
  while (c->rc > 1 && ceil_div(H, c->rc) < cu && reduce_pays(s, c->rgroups, c->rc)) c->rc /= 2;
  if ((double)N * H * (c->rgroups + s.dout) >= 4194304.0)
    while (c->rc > 1 && 2 * ceil_div(H, c->rc) < 3 * cu && shares_within(s, c->rc / 2, 262144.0))
      c->rc /= 2;
  const int rc0 = c->rc;
  while (c->rc > 1 && reduce_local_bytes(N, c->rc, c->wr) > local_mem) c->rc /= 2;
  c->origin.rc = c->rc < rc0 ? CG_ORIGIN_FALLBACK : CG_ORIGIN_DEFAULT;
  c->rc = cg_kernel_override(ov, "RC", c->rc, &c->origin.rc);
  CG_CHECK(c->rc >= 1 && c->rc <= 256, CG_BAD_INPUT, "--kernel-param RC=%d: out of range (1..256)",
           c->rc);
  const size_t r_local = reduce_local_bytes(N, c->rc, c->wr);
  if (c->three && c->origin.rc == CG_ORIGIN_OVERRIDE)
    CG_CHECK(r_local <= local_mem, CG_UNSUPPORTED,
             "--kernel-param RC=%d: launch R needs %zu bytes of local memory, the device has %llu",
             c->rc, r_local, (unsigned long long)local_mem);
  if (c->three)
    CG_CHECK(r_local <= local_mem, CG_UNSUPPORTED,
             "variant fused: batch %d is too large for the local memory", N);
  c->rr = N;
  c->rcb = ceil_div(H, c->rc);
  c->rrb = 1;
cleanup:
  return rc;
}

/* On an H100 (bench/RESULTS.md, 2026-12-06), with rows HID floats apart, launch A took 307 us at
 * 64 x 4992 x 5000 x 8 and 302 at 64 x 4992 x 5008 x 8 (rows 32 and 64 bytes off a line), 307 at
 * 5032 and 312 at 5096, against 282 at 4992 and at 5024 (rows on lines, the same 1560
 * work-groups as 5000) and 283 at 64 x 5000 x 4992 x 8; launch R paid 4-5 us more too. With
 * rows LDH apart, 281-285 at all of them, and the big preset took 338 us in place of 367. A CPU
 * driver keeps the rows dense: the padded copy of w1 cost PoCL 16 ms of upload at 1000 x 1000 (its
 * pages first touched), for a layout measured only on GPUs. */
int cg_fused_padded_pitch(int hidden) { return (hidden + 31) / 32 * 32; }

/* PAD: padded rows on a device that says it is a GPU (by the GPU bit, not cg_device_is_cpu:
 * Oclgrind says both, and so checks the padded rows), dense on a CPU driver; PAD overrides. */
static cg_rc choose_rows(const cg_mlp_shape s, const cg_device_info *info,
                         const cg_kernel_overrides *ov, cg_fused_config *c, cg_error *err) {
  cg_rc rc = CG_OK;
  c->origin.pad = CG_ORIGIN_DEFAULT;
  c->pad = cg_kernel_override(ov, "PAD", (info->type & CL_DEVICE_TYPE_GPU) != 0, &c->origin.pad);
  CG_CHECK(c->pad == 0 || c->pad == 1, CG_BAD_INPUT, "--kernel-param PAD=%d: must be 0 or 1",
           c->pad);
  c->ldh = c->pad ? cg_fused_padded_pitch(s.hidden) : s.hidden;
cleanup:
  return rc;
}

/* SPLIT: launch A's two parts in two launches, G (g1 and the w1 update) then A (the forward part),
 * each from a build of its own with its own blocking (a work-item keeps one register block instead
 * of two), at the price of a launch and of reading w1 twice per iteration. On an H100
 * (bench/RESULTS.md, 2026-12-06, 10:27 UTC on) the split took the big preset from 333 us to 284,
 * and won 8-26% at each of the 14 shapes measured from batch 24 to 64 with din x hidden from 2^23
 * up (24 x 3000 x 3000 x 8: 90 against 122; 64 x 2048 x 4096 x 8: 118 against 130; 64 x 1000 x
 * 20000 x 8: 258 against 302). Past batch 64 launch G's chunks of the batch grow and it won or lost
 * by a few percent (96 x 5000 x 5000 x 8: 439 against 464; 80 x 5000 x 5000 x 8: 414 against 403),
 * then lost (120 x 5000 x 5000 x 8: 580 against 533); it lost at smaller w1 (64 x 2048 x 2048 x 8:
 * 70.5 against 65.8), at batch 16 and below (8 x 8192 x 8192 x 64: 452 against 385) and at the
 * seed, where a launch's fixed cost outweighs the blocks. So on a GPU at batch 24 to 64 with din x
 * hidden >= 2^23. Off on CPU drivers, where they disagree: at 64 x 1024 x 1024 x 8 on the 2-core
 * box PoCL 3.1 took 37-51 ms per iteration split against 26-30, rusticl 281-300 against 343-412.
 * SPLIT overrides. */
static cg_rc choose_split(const cg_mlp_shape s, const cg_device_info *info,
                          const cg_kernel_overrides *ov, cg_fused_config *c, cg_error *err) {
  cg_rc rc = CG_OK;
  const bool large =
      s.batch >= 24 && s.batch <= 64 && (double)s.din * (double)s.hidden >= 8388608.0;
  CG_TRY(cg_kernel_override_in(ov, "SPLIT", !cg_device_is_cpu(info) && large, 0, 1,
                               "must be 0 or 1", &c->split, &c->origin.split, err));
  c->part = c->split ? 2 : 0;
cleanup:
  return rc;
}

/* Launch G of a split iteration: launch A's backward part alone (g1 = x^T dz1 and the w1 update,
 * PART 1), its blocks R x RN with the rule's R of 4 (halved while the shape gives fewer than half
 * as many tiles as compute units), the batch in the fewest chunks of at most 64 rows, of even size,
 * and the update a row at a time. On an H100 at the big preset (bench/RESULTS.md, 2026-12-06, 10:09
 * UTC on), the part alone took 131 us with 4 x 4 blocks against 178 with 8 x 8 (2 x 2: 204, 4 x 8:
 * 180, 4 x 2: 156) and 124 with a chunk of 64 against 131 with 16 (and 140 with 32, in a split
 * iteration); with the chunk of 64 the update's rows one at a time took 123.5 against 127.5 all
 * four at once. Even chunks in place of 64 rows and the rest took launch G from 215 to 192 us at 80
 * x 5000 x 5000 x 8, 225 to 210 at 96 x 5000 x 5000 x 8, 172 to 159 at 112 x 4096 x 4096 x 8 and
 * 271 to 247 at 120 x 5000 x 5000 x 8 (split iterations). GTX, GTY, GR, GRN, GKC and GUR override;
 * the rest (vector reads as asked, staging, which launches run, the rows' pitch) is launch A's (c),
 * without A's prefetch, double buffers, forward path or read-ahead (PF, DB, FWR, WPF 0). */
static cg_rc choose_g(const cg_mlp_shape s, const cg_device_info *info, int lim,
                      uint64_t local_mem, const cg_kernel_overrides *ov,
                      const cg_fused_config *c, cg_fused_config *g, cg_error *err) {
  cg_rc rc = CG_OK;
  g->part = 1;
  CG_TRY(choose_items(ov, "GTX", "GTY", lim, g, err));
  g->origin.r = g->origin.rn = g->origin.kc = g->origin.ur = CG_ORIGIN_DEFAULT;
  const int r =
      cg_kernel_override(ov, "GR", rule_r(s, (int)cg_device_units(info), g->tx, g->ty, 4),
                         &g->origin.r);
  CG_CHECK(r >= 1 && r <= 16, CG_BAD_INPUT, "--kernel-param GR=%d: out of range (1..16)", r);
  const int rn = cg_kernel_override(ov, "GRN", r, &g->origin.rn);
  CG_CHECK(rn >= 1 && rn <= 16, CG_BAD_INPUT, "--kernel-param GRN=%d: out of range (1..16)", rn);
  const int kc0 = cg_kernel_override(ov, "GKC", ceil_div(s.batch, ceil_div(s.batch, 64)),
                                     &g->origin.kc);
  CG_CHECK(kc0 >= 1, CG_BAD_INPUT, "--kernel-param GKC=%d: below 1", kc0);
  g->stage = c->stage;
  cg_origin vw_origin;
  CG_TRY(fit_blocks(s, local_mem, r, rn, kc0, asked_vw(info, ov, &vw_origin), " for launch G", g,
                    err));
  g->tpg = 1;
  g->rgroups = ceil_div(s.din, g->ty * g->rm);
  g->ur = cg_kernel_override(ov, "GUR", 1, &g->origin.ur);
  CG_CHECK(g->ur >= 1 && g->ur <= g->rm, CG_BAD_INPUT,
           "--kernel-param GUR=%d: out of range (1..GR=%d)", g->ur, g->rm);
  g->three = c->three;
  g->dz1a = c->dz1a;
  g->wr = c->wr;
  g->rr = c->rr;
  g->rc = c->rc;
  g->rcb = c->rcb;
  g->rrb = c->rrb;
  g->wgb = c->wgb;
  g->brows = c->brows;
  g->brg = c->brg;
  g->bloc = c->bloc;
  g->pad = c->pad;
  g->ldh = c->ldh;
cleanup:
  return rc;
}

/* The products step pays 15 to 19 launches (six microseconds each on an H200, about 100 us an
 * iteration at small layers) but runs every product over the whole device, the large ones on the
 * pipelined matmul kernel; the fused kernels' launch A has each work-group loop over the whole
 * batch. Measured on an H100 with launch B's rows over work-groups (bench/RESULTS.md, 2026-12-07,
 * 06:36 UTC; bench/results/2026-12-07-line) at 31 shapes of batch 32 to 1024: the fused kernels
 * the faster at every shape of batch 128 and below (64 x 8192 x 128 x 64: 42 against 266 us; 128
 * x 8192 x 8192 x 32: 1358 against 1448) and at batch 256 and 341 but for 256 x 4096 x 4096 x 8
 * (861 against 685); the products step at every shape of batch 384 and above, by up to 2.1 times
 * (768 x 1024 x 1024 x 32: 202 against 416), but 512 x 256 x 256 x 16 (92 against 146, where the
 * products step's launch-bound time varied from 101 to 146 us over batch 512 to 1024) and two
 * ties within 4%. So the products step on a GPU from batch 384, or from batch 256 where batch x
 * din x hidden >= 2^31 (the fused kernels won at 2^29, the products step at 2^32); on a CPU
 * driver always the fused kernels (what was measured there, and a CPU has no launch cost to
 * save). --kernel-param STRATEGY=0|1 chooses. Before launch B spread its rows (2026-12-04, H200)
 * the line was batch x dout >= 4096, or batch >= 128 with batch x din x hidden >= 2^26. */
cg_rc cg_fused_strategy(const cg_mlp_shape s, const cg_device_info *info,
                        const cg_kernel_overrides *ov, int *strategy, cg_origin *origin,
                        cg_error *err) {
  cg_rc rc = CG_OK;
  const double n = s.batch, ndh = n * s.din * (double)s.hidden;
  const bool gpu = !cg_device_is_cpu(info);
  const bool large = n >= 384.0 || (n >= 256.0 && ndh >= 2147483648.0);
  *origin = CG_ORIGIN_DEFAULT;
  const int dflt = gpu && large ? CG_FUSED_PRODUCTS : CG_FUSED_KERNELS;
  *strategy = cg_kernel_override(ov, "STRATEGY", dflt, origin);
  CG_CHECK(*strategy == CG_FUSED_KERNELS || *strategy == CG_FUSED_PRODUCTS, CG_BAD_INPUT,
           "--kernel-param STRATEGY=%d: must be 0 (fused kernels) or 1 (products)", *strategy);
cleanup:
  return rc;
}

/* The blocking of the fused kernels within each launch's work-items per group (`limits`) and
 * `local_mem` bytes of local memory. Launch A: up to 16 x 16 work-items with R x R register blocks,
 * R = 8 (128 x 128 tiles of w1) where the shape gives enough tiles; R halves until there are at
 * least half as many tiles as compute units, since a small shape is latency-bound and wants
 * work-groups while a big one wants register blocking. Then one row tile per work-group (TPG).
 * Launch B gets as many work-items as fit, up to 1024, and copies of h2, w3 and dy in local
 * memory as far as they fit (BLOC). Then two launches when one work-group can sum the partials
 * quickly (about 64 loads per work-item) and, on a GPU, batch x dout <= 1024, else three.
 * Overrides (TX, TY, R, RN, KC, VW, FWR, DB, TPG, PF, STAGE, UR, WPF, WGB, BROWS, BLOC, THREE,
 * DZ1A, RC, PAD) replace the choices, for tuning on a device; the result stays correct for any
 * valid setting. A value that the local memory made smaller than the rule's choice is a fallback
 * (mlp.c's build_fused marks those that the kernels' work-group limits shrank). */
cg_rc cg_fused_configure(const cg_mlp_shape s, const cg_device_info *info,
                         const cg_fused_limits *limits, uint64_t local_mem,
                         const cg_kernel_overrides *ov, cg_fused_config *c, cg_fused_config *g,
                         cg_error *err) {
  cg_rc rc = CG_OK;
  const int lim_a = (int)cg_pow2_floor(limits->a < 256 ? limits->a : 256);
  const int lim_r = (int)cg_pow2_floor(limits->r < 256 ? limits->r : 256);
  const int lim_g = (int)cg_pow2_floor(limits->g < 256 ? limits->g : 256);
  memset(c, 0, sizeof *c);
  memset(g, 0, sizeof *g);
  CG_TRY(choose_rows(s, info, ov, c, err));
  CG_TRY(choose_split(s, info, ov, c, err));
  CG_TRY(choose_items(ov, "TX", "TY", lim_a, c, err));
  CG_TRY(choose_a_blocks(s, info, local_mem, ov, c, err));
  CG_TRY(choose_a_switches(s, info, ov, c, err));
  CG_TRY(choose_launches(s, info, limits->b, local_mem, ov, c, err));
  CG_TRY(choose_reduce(s, info, lim_r, local_mem, ov, c, err));
  if (c->split) CG_TRY(choose_g(s, info, lim_g, local_mem, ov, c, g, err));
cleanup:
  return rc;
}

void cg_fused_build_options(const cg_fused_config *c, const cg_mlp_shape s, char *out,
                            size_t size) {
  snprintf(out, size,
           "-DMLP_FUSED -DPART=%d -DNB=%d -DDIN=%d -DHID=%d -DDOUT=%d -DTX=%d -DTY=%d -DRM=%d "
           "-DRN=%d -DRM2=%d -DKC=%d -DTPG=%d -DVW=%d -DVW2=%d -DPF=%d -DSTAGE=%d -DDB=%d -DFWR=%d "
           "-DKV=%d -DUR=%d -DWPF=%d -DRGROUPS=%d -DNCH=%d -DTHREE=%d -DDZ1A=%d -DWR=%d -DRR=%d "
           "-DRC=%d -DRCB=%d -DWGB=%d -DBROWS=%d -DBRG=%d -DBLOC=%d -DLDH=%d",
           c->part, s.batch, s.din, s.hidden, s.dout, c->tx, c->ty, c->rm, c->rn, c->rm2, c->kc,
           c->tpg, c->vw, c->vw2, c->pf, c->stage, c->db, c->fwr, c->kv, c->ur, c->wpf, c->rgroups,
           c->nch, c->three, c->dz1a, c->wr, c->rr, c->rc, c->rcb, c->wgb, c->brows, c->brg,
           c->bloc, c->ldh);
}

/* A parameter as a record names it. */
typedef struct recorded {
  const char *name;
  int value;
  cg_origin origin;
} recorded;

static void record_params(cg_kernel_config *config, const recorded *params, size_t n) {
  for (size_t i = 0; i < n; ++i)
    cg_kernel_config_set(config, params[i].name, params[i].value, params[i].origin);
}

void cg_fused_record(const cg_fused_config *c, const cg_fused_config *g,
                     cg_kernel_config *config) {
  const recorded params[] = {{"TX", c->tx, c->origin.tx},       {"TY", c->ty, c->origin.ty},
                             {"R", c->rm, c->origin.r},         {"RN", c->rn, c->origin.rn},
                             {"KC", c->kc, c->origin.kc},       {"TPG", c->tpg, c->origin.tpg},
                             {"VW", c->vw, c->origin.vw},       {"PF", c->pf, c->origin.pf},
                             {"STAGE", c->stage, c->origin.stage},
                             {"DB", c->db, c->origin.db},       {"FWR", c->fwr, c->origin.fwr},
                             {"UR", c->ur, c->origin.ur},       {"WPF", c->wpf, c->origin.wpf},
                             {"THREE", c->three, c->origin.three},
                             {"DZ1A", c->dz1a, c->origin.dz1a}, {"RC", c->rc, c->origin.rc},
                             {"WGB", c->wgb, c->origin.wgb},
                             {"BROWS", c->brows, c->origin.brows},
                             {"BLOC", c->bloc, c->origin.bloc}, {"PAD", c->pad, c->origin.pad},
                             {"SPLIT", c->split, c->origin.split}};
  record_params(config, params, sizeof params / sizeof params[0]);
  if (!c->split) return;
  const recorded gparams[] = {{"GTX", g->tx, g->origin.tx}, {"GTY", g->ty, g->origin.ty},
                              {"GR", g->rm, g->origin.r},   {"GRN", g->rn, g->origin.rn},
                              {"GKC", g->kc, g->origin.kc}, {"GUR", g->ur, g->origin.ur}};
  record_params(config, gparams, sizeof gparams / sizeof gparams[0]);
}

