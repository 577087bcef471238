/* Appended to a copy of cl/mlp.cl by run.sh (never launched): whether the driver compiles
 * OpenCL's async_work_group_copy into asynchronous copies (on NVIDIA, PTX cp.async) or into loads
 * and stores by the work-items. */
__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void
probe_async_copy(__global const float *src, __global float *dst, const int stride) {
  __local float rows[2][1024];
  event_t e = async_work_group_copy(rows[0], src + get_group_id(0) * 1024, 1024, 0);
  e = async_work_group_strided_copy(rows[1], src + get_group_id(0), 1024, stride, e);
  wait_group_events(1, &e);
  const int t = get_local_id(0);
  dst[get_global_id(0)] = rows[0][t] + rows[1][1023 - t];
}
