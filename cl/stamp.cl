/* An empty kernel: its profiling end stamp marks where a stretch of library calls begins on the
 * device (CLBlast returns the event of its last kernel only). */
__kernel void stamp(void) {}
