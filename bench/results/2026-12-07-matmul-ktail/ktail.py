#!/usr/bin/env python3
"""cl/matmul.cl with kconst.py's kernel (the block's product a function, whole blocks calling it
with k from 0 to K as constants) in builds with -DSPLIT_TAIL only, and the kernel as it is in
the others. usage: ktail.py IN OUT"""
import os
import subprocess
import sys
import tempfile

KERNEL = "__kernel __attribute__((reqd_work_group_size(DN, DM, 1))) void\nmatmul_pipelined("
FUNC = "/* acc: the product of the MWG x NWG block of C"
END = "}\n\n#ifdef SPLIT_TAIL\n/* C's elements of the split blocks"

src = open(sys.argv[1]).read()
kconst = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                      "2026-12-07-matmul-kconst", "kconst.py")
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "kconst.cl")
    subprocess.run([sys.executable, kconst, sys.argv[1], path], check=True)
    kc = open(path).read()
start, end = src.index(KERNEL), src.index(END) + 2
kc_start, kc_end = kc.index(FUNC), kc.index(END) + 2
out = (src[:start] + "#ifdef SPLIT_TAIL\n" + kc[kc_start:kc_end] + "#else\n" + src[start:end] +
       "#endif\n" + src[end:])
open(sys.argv[2], "w").write(out)
