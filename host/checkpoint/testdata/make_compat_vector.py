#!/usr/bin/env python3
"""Builds a small TensorFlow V2 checkpoint byte by byte from the published format.

This is an implementation independent of Tessera's C++ code (no shared source, no protobuf
library): it encodes protos, ordered-code slice keys, table blocks, CRC32C and the footer by hand
from TensorFlow's format constants, the way TensorFlow's BundleWriter lays them out. Its output is
embedded in reference_checkpoint.h (used by bundle_compat_test.cc and the Saver tests); run it to
print the C++ arrays again.
"""
import struct

# ---- CRC32C (Castagnoli), bit by bit, and TensorFlow's masking.
def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF

def mask(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF

# ---- Protocol buffer wire format.
def varint(n):
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        bits = n & 0x7F
        n >>= 7
        if n:
            out.append(bits | 0x80)
        else:
            out.append(bits)
            return bytes(out)

def field_varint(number, value):
    return varint(number << 3) + varint(value)

def field_bytes(number, payload):
    return varint((number << 3) | 2) + varint(len(payload)) + payload

def field_fixed32(number, value):
    return varint((number << 3) | 5) + struct.pack('<I', value)

def shape_proto(dims):  # TensorShapeProto: repeated Dim dim = 2 { int64 size = 1 }
    return b''.join(field_bytes(2, field_varint(1, d) if d else b'') for d in dims)

def slice_proto(extents):  # TensorSliceProto: repeated Extent extent = 1
    out = b''
    for start, length in extents:
        extent = b''
        if length is not None:  # None: the whole dimension, an empty extent
            if start:
                extent += field_varint(1, start)
            extent += field_varint(2, length)  # in a oneof: written even when 0
        out += field_bytes(1, extent)
    return out

def entry_proto(dtype, dims, offset=0, size=0, crc=None, slices=()):
    out = field_varint(1, dtype) + field_bytes(2, shape_proto(dims))
    if offset:
        out += field_varint(4, offset)
    if size:
        out += field_varint(5, size)
    if crc is not None:
        out += field_fixed32(6, crc)
    for extents in slices:
        out += field_bytes(7, slice_proto(extents))
    return out

# BundleHeaderProto{num_shards: 1, endianness: LITTLE, version{producer: 1}}.
HEADER = field_varint(1, 1) + field_bytes(3, field_varint(1, 1))

# ---- TensorFlow's ordered code, for the keys of saved slices.
def num_increasing(n):
    raw = n.to_bytes(8, 'big').lstrip(b'\0')
    return bytes([len(raw)]) + raw

def string_increasing(s):
    escaped = b''.join(b'\x00\xff' if c == 0 else b'\xff\x00' if c == 0xff else bytes([c])
                       for c in s)
    return escaped + b'\x00\x01'

def signed_increasing(n):
    magnitude = ~n if n < 0 else n
    length = magnitude.bit_length() // 7 + 1
    raw = (n & ((1 << 80) - 1)).to_bytes(10, 'big')[10 - length:]
    header = ((1 << length) - 1) << (16 - length)
    first = raw[0] ^ (header >> 8)
    rest = raw[1:]
    if length >= 2:
        rest = bytes([rest[0] ^ (header & 0xFF)]) + rest[1:]
    return bytes([first]) + rest

def slice_key(name, extents):
    out = num_increasing(0) + string_increasing(name) + num_increasing(len(extents))
    for start, length in extents:
        out += signed_increasing(0 if length is None else start)
        out += signed_increasing(-1 if length is None else length)
    return out

# ---- The sorted table (LevelDB format) with TensorFlow's options: no compression, 16 keys
# between restart points, index entries with restart interval 1.
def block(entries, restart_interval):
    out, restarts, last = b'', [], b''
    for i, (key, value) in enumerate(entries):
        shared = 0
        if i % restart_interval == 0:
            restarts.append(len(out))
        else:
            while shared < min(len(key), len(last)) and key[shared] == last[shared]:
                shared += 1
        out += varint(shared) + varint(len(key) - shared) + varint(len(value))
        out += key[shared:] + value
        last = key
    if not restarts:
        restarts = [0]
    return out + b''.join(struct.pack('<I', r) for r in restarts) + struct.pack('<I', len(restarts))

def with_trailer(contents):
    return contents + b'\x00' + struct.pack('<I', mask(crc32c(contents + b'\x00')))

def short_successor(key):
    for i, c in enumerate(key):
        if c != 0xFF:
            return key[:i] + bytes([c + 1])
    return key

def table(entries):
    data = block(entries, 16)  # small enough for one 256 KiB block
    out = with_trailer(data)
    meta_offset = len(out)
    meta = block([], 16)
    out += with_trailer(meta)
    index_offset = len(out)
    handle = varint(0) + varint(len(data))
    index = block([(short_successor(entries[-1][0]), handle)], 1)
    out += with_trailer(index)
    footer = varint(meta_offset) + varint(len(meta)) + varint(index_offset) + varint(len(index))
    footer = footer.ljust(40, b'\0') + struct.pack('<Q', 0xDB4775248B80FB57)
    return out + footer

# ---- The checkpoint: tensors added in this order, as SaveV2 would append them.
DT_FLOAT, DT_INT32, DT_INT64, DT_BOOL, DT_HALF = 1, 3, 9, 10, 19

def floats(*values):
    return struct.pack('<%df' % len(values), *values)

tensors = [  # (key, dtype, dims, bytes, slices of a partitioned tensor or None)
    (b'global_step', DT_INT64, [], struct.pack('<q', 42), None),
    (b'dense/kernel', DT_FLOAT, [2, 3], floats(0.5, -1.0, 2.0, 3.25, 0.0, -7.5), None),
    (b'dense/bias', DT_FLOAT, [3], floats(0.125, 0.25, 0.375), None),
    (b'mask', DT_BOOL, [4], bytes([1, 0, 0, 1]), None),
    (b'counts', DT_INT32, [2, 0], b'', None),
    (b'scale', DT_HALF, [2], struct.pack('<2e', 1.0, -2.0), None),
    (b'emb', DT_FLOAT, [4, 2], floats(1, 2, 3, 4), [(0, 2), (None, None)]),
    (b'emb', DT_FLOAT, [4, 2], floats(5, 6, 7, 8), [(2, 2), (None, None)]),
]

data = b''
entries = {}
for key, dtype, dims, raw, extents in tensors:
    if extents is None:
        entries[key] = entry_proto(dtype, dims, len(data), len(raw), mask(crc32c(raw)))
    else:
        slice_dims = [length if length is not None else dims[d]
                      for d, (start, length) in enumerate(extents)]
        full = entries.setdefault(key, {'dtype': dtype, 'dims': dims, 'slices': []})
        full['slices'].append([(s, l) for s, l in extents])
        entries[slice_key(key, extents)] = entry_proto(dtype, slice_dims, len(data), len(raw),
                                                       mask(crc32c(raw)))
    data += raw
for key, value in list(entries.items()):
    if isinstance(value, dict):
        entries[key] = entry_proto(value['dtype'], value['dims'], slices=value['slices'])

index = table([(b'', HEADER)] + sorted(entries.items()))

def cxx(name, blob):
    rows = [blob[i:i + 16] for i in range(0, len(blob), 16)]
    body = '\n'.join('    ' + ' '.join('0x%02x,' % b for b in row) for row in rows)
    return 'inline constexpr unsigned char %s[] = {\n%s\n};' % (name, body)

print(cxx('kIndex', index))
print(cxx('kData', data))
