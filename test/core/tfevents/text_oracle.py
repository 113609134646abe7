# The text tests' independent reader: event files' text summaries and hparams as JSON, standard library only.
#
# No TensorBoard in CI: this walks the protobuf by hand and prints every `text` plugin value (tag, step, wall
# time, shape, UTF-8 cells) and the hparams plugin's session_start_info. Usage: python3 text_oracle.py FILE...
import json
import struct
import sys


def varint(b, p):
    shift = 0
    out = 0
    while True:
        c = b[p]
        p += 1
        out |= (c & 0x7F) << shift
        if c < 0x80:
            return out, p
        shift += 7


def fields(b):
    """(field number, wire type, value) of a message: ints for varints, bytes for the others."""
    p = 0
    while p < len(b):
        key, p = varint(b, p)
        f, w = key >> 3, key & 7
        if w == 0:
            v, p = varint(b, p)
        elif w == 1:
            v = b[p : p + 8]
            p += 8
        elif w == 5:
            v = b[p : p + 4]
            p += 4
        elif w == 2:
            n, p = varint(b, p)
            v = b[p : p + n]
            p += n
        else:
            raise ValueError("wire type %d" % w)
        yield f, w, v


def records(path):
    data = open(path, "rb").read()
    p = 0
    while p + 12 <= len(data):
        (n,) = struct.unpack_from("<Q", data, p)
        if p + 12 + n + 4 > len(data):
            return  # a cut last record (an aborted run) holds nothing
        yield data[p + 12 : p + 12 + n]
        p += 12 + n + 4


def plugin_of(meta):
    for f, _, v in fields(meta):
        if f == 1:
            for g, _, x in fields(v):
                if g == 1:
                    return x.decode("utf-8"), v
    return None, None


def value_of(b):
    out = None
    for f, _, v in fields(b):
        if f == 1:
            out = None
        elif f == 2:
            out = struct.unpack("<d", v)[0]
        elif f == 3:
            out = v.decode("utf-8", "replace")
        elif f == 4:
            out = v != 0
    return out


def hparams_of(plugin_data):
    for f, _, content in fields(plugin_data):
        if f != 2:
            continue
        for g, _, info in fields(content):
            if g != 3:
                continue
            out = {}
            for h, _, entry in fields(info):
                if h != 1:
                    continue
                key, val = None, None
                for e, _, x in fields(entry):
                    if e == 1:
                        key = x.decode("utf-8", "replace")
                    elif e == 2:
                        val = value_of(x)
                out[key] = val
            return out
    return None


def read(path):
    plugins = {}
    texts = []
    hparams = None
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
                tag, meta, tensor = "", None, None
                for g, _, x in fields(val):
                    if g == 1:
                        tag = x.decode("utf-8", "replace")
                    elif g == 9:
                        meta = x
                    elif g == 8:
                        tensor = x
                if meta is not None and tag not in plugins:
                    plugins[tag] = plugin_of(meta)[0]
                if meta is not None and plugins.get(tag) == "hparams":
                    found = hparams_of(plugin_of(meta)[1])
                    if found is not None:
                        hparams = found
                if tensor is None or plugins.get(tag) != "text":
                    continue
                shape, cells = [], []
                for g, _, x in fields(tensor):
                    if g == 2:
                        for h, _, dim in fields(x):
                            if h == 2:
                                size = 0
                                for k, _, y in fields(dim):
                                    if k == 1:
                                        size = y
                                shape.append(size)
                    elif g == 8:
                        cells.append(x.decode("utf-8", "replace"))
                texts.append({"tag": tag, "step": step, "wallTime": wall, "shape": shape, "cells": cells})
    return {"texts": texts, "hparams": hparams}


if __name__ == "__main__":
    print(json.dumps({p: read(p) for p in sys.argv[1:]}))
