"""Imported by the kernel-variant scripts of device calls under bench/results/: a variant is a
copy of the checkout's cl/ whose mlp.cl is main's with some passages replaced, written to
BUNDLE/kd/NAME for `clgauge --kernel-dir` (no host change). Run from the checkout's root."""
import os
import shutil
import sys

LAUNCH_A = "__kernel __attribute__((reqd_work_group_size(WGA, 1, 1))) void\nmlp_fused_wide("


def mlp_source():
    with open("cl/mlp.cl") as f:
        return f.read()


def replaced(text, replacements, name):
    """text with each (old, new) replaced; exits naming the variant unless old occurs once."""
    for old, new in replacements:
        if text.count(old) != 1:
            sys.exit(f"{name}: cl/mlp.cl has {text.count(old)} of '{old.strip()[:60]}', not one")
        text = text.replace(old, new)
    return text


def before_launch_a(text, lines, name):
    """text with lines (macros, checks) put just before launch A's kernel."""
    return replaced(text, [(LAUNCH_A, lines.lstrip("\n") + LAUNCH_A)], name)


def write(bundle, name, text):
    """BUNDLE/kd/NAME: cl/ with text as its mlp.cl."""
    out = os.path.join(bundle, "kd", name)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree("cl", out)
    with open(os.path.join(out, "mlp.cl"), "w") as f:
        f.write(text)
