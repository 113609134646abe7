# The histogram tests' independent reader: every histogram of event files and .wandb logs with its buckets, and TensorBoard's percentiles by numpy.
#
# No TensorBoard in CI: event files are walked by hand with text_oracle's protobuf walk (legacy `histo`
# migrated as TensorBoard's data_compat.py does; `histograms` plugin [k, 3] tensors), .wandb logs by
# a LevelDB log walk and Python's json. Percentiles follow tensorboard/plugins/distribution/compressor.py
# in numpy. Usage: python3 histogram_oracle.py FILE... (a name ending in .wandb is a W&B log).
import json
import math
import os
import struct
import sys

import numpy as np

sys.dont_write_bytecode = True  # nothing written beside the test
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from text_oracle import fields, plugin_of, records  # noqa: E402

BPS = (0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000)


def compress(buckets):
    """TensorBoard's compress_histogram over (left, right, count) rows."""
    buckets = np.array(buckets, dtype=np.float64).reshape(-1, 3)
    if not buckets.size:
        return [0.0 for _ in BPS]
    minmin, maxmax = buckets[0][0], buckets[-1][1]
    counts = buckets[:, 2]
    right_edges = list(buckets[:, 1])
    weights = (counts * BPS[-1] / (counts.sum() or 1.0)).cumsum()
    result = []
    b = 0
    while b < len(BPS):
        i = np.searchsorted(weights, BPS[b], side="right")
        while i < len(weights):
            cumsum = weights[i]
            prev = weights[i - 1] if i > 0 else 0.0
            if cumsum == prev:
                i += 1
                continue
            lhs = minmin if (not i or not prev) else max(right_edges[i - 1], minmin)
            rhs = min(right_edges[i], maxmax)
            result.append(float(lhs + (BPS[b] - prev) * float(rhs - lhs) / (cumsum - prev)))
            b += 1
            break
        else:
            break
    while b < len(BPS):
        result.append(float(maxmax))
        b += 1
    return result


def doubles(w, v):
    """A repeated double field's values: one (wire type 1) or a packed run (wire type 2)."""
    return list(struct.unpack("<%dd" % (len(v) // 8), v)) if w == 2 else [struct.unpack("<d", v)[0]]


def tensor_values(t):
    dtype, content, vals = 0, None, []
    for f, w, v in fields(t):
        if f == 1:
            dtype = v
        elif f == 4:
            content = v
        elif f == 5:
            vals += list(struct.unpack("<%df" % (len(v) // 4), v)) if w == 2 else [struct.unpack("<f", v)[0]]
        elif f == 6:
            vals += doubles(w, v)
    if content is not None:
        fmt = {1: "f", 2: "d"}[dtype]
        size = struct.calcsize(fmt)
        return list(struct.unpack("<%d%s" % (len(content) // size, fmt), content))
    return vals


def legacy(h):
    lo, hi, limits, counts = 0.0, 0.0, [], []
    for f, w, v in fields(h):
        if f == 1:
            lo = struct.unpack("<d", v)[0]
        elif f == 2:
            hi = struct.unpack("<d", v)[0]
        elif f == 6:
            limits += doubles(w, v)
        elif f == 7:
            counts += doubles(w, v)
    lefts = [lo] + limits[:-1]
    rights = limits[:-1] + [hi]
    return [[l, r, c] for l, r, c in zip(lefts, rights, counts)]


def read_tfevents(path):
    plugins, out = {}, []
    for rec in records(path):
        wall, step, summaries = 0.0, 0, []
        for f, _, v in fields(rec):
            if f == 1:
                wall = struct.unpack("<d", v)[0]
            elif f == 2:
                step = v
            elif f == 5:
                summaries.append(v)
        for s in summaries:
            for f, _, val in fields(s):
                if f != 1:
                    continue
                tag, meta, tensor, histo = "", None, None, None
                for g, _, x in fields(val):
                    if g == 1:
                        tag = x.decode("utf-8", "replace")
                    elif g == 9:
                        meta = x
                    elif g == 8:
                        tensor = x
                    elif g == 5:
                        histo = x
                if meta is not None and tag not in plugins:
                    plugins[tag] = plugin_of(meta)[0]
                if histo is not None:
                    buckets = legacy(histo)
                elif tensor is not None and plugins.get(tag) == "histograms":
                    v = tensor_values(tensor)
                    buckets = [v[i : i + 3] for i in range(0, len(v), 3)]
                else:
                    continue
                out.append({"tag": tag, "step": step, "wallTime": wall, "buckets": buckets})
    return out


def wandb_records(path):
    """The LevelDB log of a .wandb file: a 7-byte header, 32 KiB blocks of chunks (crc, length, type)."""
    data = open(path, "rb").read()
    p, block, parts = 7, 32768, b""
    while p + 7 <= len(data):
        left = block - p % block
        if left < 7:
            p += left
            continue
        n = data[p + 4] | data[p + 5] << 8
        kind = data[p + 6]
        chunk = data[p + 7 : p + 7 + n]
        p += 7 + n
        if kind == 1:
            yield chunk
        elif kind == 2:
            parts = chunk
        elif kind == 3:
            parts += chunk
        elif kind == 4:
            yield parts + chunk


def read_wandb(path):
    out = []
    for rec in wandb_records(path):
        for f, _, hist in fields(rec):
            if f != 2:
                continue
            row = {}
            for g, _, item in fields(hist):
                if g != 1:
                    continue
                key, nested, value = None, [], None
                for h, _, x in fields(item):
                    if h == 1:
                        key = x.decode("utf-8")
                    elif h == 2:
                        nested.append(x.decode("utf-8"))
                    elif h == 16:
                        value = json.loads(x.decode("utf-8"))
                row[key if key is not None else "/".join(nested)] = value
            for key, v in row.items():
                if not isinstance(v, dict) or v.get("_type") != "histogram":
                    continue
                values = v["values"]
                if "bins" in v:
                    edges = v["bins"]
                else:
                    pb = v["packedBins"]
                    edges = [pb["min"] + i * pb["size"] for i in range(pb["count"] + 1)]
                if len(edges) != len(values) + 1:
                    continue  # not a histogram wandb could have written
                buckets = [[edges[i], edges[i + 1], values[i]] for i in range(len(values))]
                out.append({"tag": key, "step": row["_step"], "wallTime": row.get("_timestamp"), "buckets": buckets})
    return out


def finite(x):
    """JSON has no Infinity/NaN: non-finite numbers are written as strings."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, list):
        return [finite(y) for y in x]
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    return x


def main():
    result = {}
    for path in sys.argv[1:]:
        found = read_wandb(path) if path.endswith(".wandb") else read_tfevents(path)
        for h in found:
            h["percentiles"] = compress(h["buckets"])
        result[path] = found
    print(json.dumps(finite(result)))


if __name__ == "__main__":
    main()
