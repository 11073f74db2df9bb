#!/usr/bin/env python3
# Decodes every tensor of a BITCOS repack with gguf-py (patch 0010's
# gguf.dequantize_bitcos for BITCOS weights, gguf.dequantize for the rest) and
# compares it bit for bit (float32 bits: -0.0 differs from +0.0) with its
# source tensor decoded by gguf-py's own dequantize (TQ2_0, TQ1_0, float
# types) and, when --ref is given, with float32 references written by
# gguf-bitcos's Go decoders (<ref>/<tensor name>.f32, little-endian, in numpy
# order): the only reference for types gguf-py cannot decode (Q2_0) or even
# read (I2_S, type id 36, unknown upstream); <ref>/<name>.raw, a kept tensor's
# source bytes, stands in for the source file when gguf-py cannot open it.
#
# Run by compat/ggufpy_test.go with PYTHONPATH set to a patched gguf-py.
# Prints one JSON summary line; exit status 1 on any difference. The summary
# carries the CPU time (process_time: this process only, which matters on a
# shared machine) of the BITCOS decodes and of gguf-py's decodes of their
# sources, page faults of first touch included (each tensor is read once).
#
# --break MODE decodes wrongly on purpose, to show that the comparison catches
# it (it patches private helpers of gguf/bitcos.py):
#   sign-cursor   every sign read one bit late (the sign of the next non-zero
#                 weight, or a padding bit)
#   zero-sign     zeros decoded as +0.0 even where the scale is negative
#   scale-layout  the F16 scales read as [rows, K/G] instead of [K/G, rows]

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

import gguf
from gguf import GGMLQuantizationType, GGUFReader
from gguf import bitcos


def break_decoder(mode: str) -> None:
    if mode == "sign-cursor":
        cursor = bitcos._sign_cursor
        bitcos._sign_cursor = lambda present, starts: cursor(present, starts) + 1
    elif mode == "zero-sign":
        arrays = bitcos.dequantize_bitcos_arrays

        def positive_zeros(*args, **kw):
            out = arrays(*args, **kw)
            return np.where(out == 0, np.float32(0), out)
        bitcos.dequantize_bitcos_arrays = positive_zeros
    elif mode == "scale-layout":
        scales = bitcos._scales

        def transposed(t, k, rows):
            s = scales(t, k, rows)
            return s if s.size == 1 else s.reshape(-1).reshape(s.shape[1], rows).T
        bitcos._scales = transposed
    else:
        sys.exit(f"unknown --break mode {mode!r}")


def first_diff(got: np.ndarray, want: np.ndarray) -> str:
    if got.shape != want.shape:
        return f"shape {got.shape}, want {want.shape}"
    g, w = got.reshape(-1).view(np.uint32), want.reshape(-1).view(np.uint32)
    bad = np.flatnonzero(g != w)
    if bad.size == 0:
        return ""
    i = int(bad[0])
    return (f"{bad.size} of {g.size} values differ, first at flat index {i}: "
            f"{got.reshape(-1)[i]!r} (bits {int(g[i]):#010x}), want {want.reshape(-1)[i]!r} (bits {int(w[i]):#010x})")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("repack")
    ap.add_argument("source")
    ap.add_argument("--ref", help="folder of Go-decoded float32 references")
    ap.add_argument("--break", dest="brk", help="decode wrongly on purpose (see the header)")
    args = ap.parse_args()
    if args.brk:
        break_decoder(args.brk)

    r = GGUFReader(args.repack)
    try:
        s: GGUFReader | None = GGUFReader(args.source)
        source_note = ""
    except ValueError as e:  # e.g. "36 is not a valid GGMLQuantizationType" for I2_S
        s, source_note = None, f"gguf-py cannot read the source: {e}"
    src = {t.name: t for t in s.tensors} if s else {}

    companions = gguf.bitcos_companions(r)
    summary = {"bitcos": 0, "kept": 0, "companions": len(companions), "kept_unchecked": 0,
               "ref_gguf_py": 0, "ref_go": 0, "source_note": source_note,
               "cpu_seconds_bitcos": 0.0, "cpu_seconds_source": 0.0, "errors": []}
    errors = summary["errors"]
    seen = set()
    for t in r.tensors:
        if t.name in companions:
            if not t.name.endswith(gguf.BITCOS_COMPANION_SUFFIXES):
                errors.append(f"{t.name}: listed as a companion")
            continue
        seen.add(t.name)
        if t.tensor_type == GGMLQuantizationType.BITCOS:
            summary["bitcos"] += 1
            t0 = time.process_time()
            try:
                got = gguf.dequantize_bitcos(r, t.name)
            except ValueError as e:
                errors.append(f"{t.name}: decode failed: {e}")
                continue
            summary["cpu_seconds_bitcos"] += time.process_time() - t0
            refs = 0
            o = src.get(t.name)
            if o is not None:
                try:
                    t0 = time.process_time()
                    want = gguf.dequantize(o.data, o.tensor_type)
                    summary["cpu_seconds_source"] += time.process_time() - t0
                except NotImplementedError:
                    pass  # Q2_0: no dequantize in gguf-py at the pin
                else:
                    refs += 1
                    summary["ref_gguf_py"] += 1
                    if d := first_diff(got, want):
                        errors.append(f"{t.name}: BITCOS decode differs from gguf-py's {o.tensor_type.name}: {d}")
            if args.ref and os.path.exists(p := os.path.join(args.ref, t.name + ".f32")):
                want = np.fromfile(p, dtype="<f4").reshape(got.shape) if os.path.getsize(p) == got.nbytes \
                    else np.fromfile(p, dtype="<f4")
                refs += 1
                summary["ref_go"] += 1
                if d := first_diff(got, want):
                    errors.append(f"{t.name}: BITCOS decode differs from the Go reference: {d}")
            if refs == 0:
                errors.append(f"{t.name}: no reference to compare with")
            continue
        summary["kept"] += 1
        o = src.get(t.name)
        if s is None:
            # the source's bytes as Go read them, when gguf-py cannot
            if args.ref and os.path.exists(p := os.path.join(args.ref, t.name + ".raw")):
                if open(p, "rb").read() != t.data.tobytes():
                    errors.append(f"{t.name}: kept tensor differs from the source's bytes")
            else:
                summary["kept_unchecked"] += 1
        elif o is None:
            errors.append(f"{t.name}: not in the source")
        elif o.tensor_type != t.tensor_type or o.data.tobytes() != t.data.tobytes():
            errors.append(f"{t.name}: kept tensor differs from the source ({t.tensor_type.name}, source {o.tensor_type.name})")
    if s is not None and (missing := sorted(set(src) - seen)):
        errors.append(f"source tensors missing from the repack: {missing[:5]}")
    print(json.dumps(summary))
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
