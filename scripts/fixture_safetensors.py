"""The safetensors writer of the reference-fixture scripts (scripts/make-reference-*-fixture.py):
the files their C++ tests read, written without the safetensors package (the format: 8-byte
little-endian header length, JSON header padded to 8 bytes, raw little-endian data)."""
import json
import struct

import torch

DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.uint8: "U8"}


def write_safetensors(path, tensors, metadata):
    """`tensors`: name -> CPU tensor, written in that order; `metadata`: str -> str."""
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name, t in tensors.items():
        blob = t.detach().contiguous().numpy().tobytes()
        header[name] = dict(dtype=DTYPES[t.dtype], shape=list(t.shape),
                            data_offsets=[offset, offset + len(blob)])
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
