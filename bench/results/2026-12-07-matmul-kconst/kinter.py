#!/usr/bin/env python3
"""kconst.py's kernel with the work-groups' order interleaved: group 2i takes whole block i and
group 2i+1 the tail's part i, as far as both last, then the rest of whichever is longer; main's
order is all whole blocks, then all parts. Where a compute unit holds two groups and takes them
in order (two at a time), each then holds a whole block and a part, not two whole blocks.
  usage: kinter.py IN OUT (IN: kconst.py's output)"""
import sys
src = open(sys.argv[1]).read()
OLD = """  const int tail = (int)get_group_id(0) - whole; /* >= 0: a part of a split block */
  const int block = tail < 0 ? (int)get_group_id(0) : whole + tail / splits;
"""
NEW = """  const int g = (int)get_group_id(0), parts = (int)get_num_groups(0) - whole;
  const int pairs = min(whole, parts), r = g - 2 * pairs;
  const int tail = r < 0 ? ((g & 1) ? g / 2 : -1) : (whole > parts ? -1 : pairs + r);
  const int block = tail >= 0 ? whole + tail / splits : r < 0 ? g / 2 : pairs + r;
"""
assert OLD in src
open(sys.argv[2], "w").write(src.replace(OLD, NEW))
