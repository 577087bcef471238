#!/usr/bin/env python3
"""Writes the kernels of why.sh into BUNDLE/kd/NAME (cl/ with matmul.cl replaced), from the
split kernel in BUNDLE/kd/split/matmul.cl (cl/matmul.cl with split.patch applied):
  k0    its whole blocks read k from 0 to K, as constants, not through k0 and k_len
  epi   its store as main's: into C alone, rows and columns from the block's corner
  both  both: main's kernel but for the block's place from the group's linear index and the
        new arguments (the tail's parts then compute nothing right: run with SPLITS=1)
  usage: variants.py BUNDLE"""
import os
import shutil
import sys

bundle = sys.argv[1]
src = open(os.path.join(bundle, "kd/split/matmul.cl")).read()
K0_OLD = """  const int k0 = tail < 0 ? 0 : tail % splits * k_chunk;
  const int k_len = tail < 0 ? K : min(k_chunk, K - k0);
"""
K0_NEW = """  const int k0 = 0;
  const int k_len = K;
"""
EPI_START = "  /* a tail's part stores its whole block"
EPI_END = "/* C's elements of the split blocks"
EPI_NEW = """  #pragma unroll
  for (int i = 0; i < WM; ++i) {
    const int row = row0 + ((i / VW) * DM + ty) * VW + i % VW;
    #pragma unroll
    for (int j = 0; j < WN; ++j) {
      const int col = col0 + ((j / VW) * DN + tx) * VW + j % VW;
      if (row < M && col < N) C[row * N + col] = acc[i][j];
    }
  }
}

"""


def k0(text):
    assert K0_OLD in text
    return text.replace(K0_OLD, K0_NEW)


def epi(text):
    a, b = text.index(EPI_START), text.index(EPI_END)
    return text[:a] + EPI_NEW + text[b:]


for name, make in (("k0", k0), ("epi", epi), ("both", lambda t: epi(k0(t)))):
    out = os.path.join(bundle, "kd", name)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(os.path.join(bundle, "kd/split"), out)
    with open(os.path.join(out, "matmul.cl"), "w") as f:
        f.write(make(src))
