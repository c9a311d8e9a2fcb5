"""The few protocol buffers the package reads or writes, in TensorFlow's wire format, without a
protobuf dependency: OpList (the op registry, to generate the op functions) is decoded, and
ConfigProto and RunOptions are encoded."""


def _varint(data, pos):
    result = 0
    shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def fields(data):
    """Yields (field number, wire type, value) of a message: value is an int for varints and
    fixed-size fields, bytes for length-delimited ones."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1:
            value, pos = int.from_bytes(data[pos:pos + 8], "little"), pos + 8
        elif wire == 2:
            length, pos = _varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = int.from_bytes(data[pos:pos + 4], "little"), pos + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        yield number, wire, value


class ArgDef:
    def __init__(self, data):
        self.name = ""
        self.type = 0
        self.type_attr = ""
        self.number_attr = ""
        self.type_list_attr = ""
        self.is_ref = False
        for number, _, value in fields(data):
            if number == 1:
                self.name = value.decode()
            elif number == 3:
                self.type = value
            elif number == 4:
                self.type_attr = value.decode()
            elif number == 5:
                self.number_attr = value.decode()
            elif number == 6:
                self.type_list_attr = value.decode()
            elif number == 16:
                self.is_ref = bool(value)

    @property
    def is_list(self):
        return bool(self.number_attr or self.type_list_attr)


class AttrDef:
    def __init__(self, data):
        self.name = ""
        self.type = ""
        self.has_default = False
        for number, _, value in fields(data):
            if number == 1:
                self.name = value.decode()
            elif number == 2:
                self.type = value.decode()
            elif number == 3:
                self.has_default = True


class OpDef:
    def __init__(self, data):
        self.name = ""
        self.input_arg = []
        self.output_arg = []
        self.attr = []
        self.summary = ""
        for number, _, value in fields(data):
            if number == 1:
                self.name = value.decode()
            elif number == 2:
                self.input_arg.append(ArgDef(value))
            elif number == 3:
                self.output_arg.append(ArgDef(value))
            elif number == 4:
                self.attr.append(AttrDef(value))
            elif number == 5:
                self.summary = value.decode("utf-8", "replace")


def parse_op_list(data):
    return [OpDef(value) for number, _, value in fields(data) if number == 1]


# ---- Encoding ----------------------------------------------------------------------------------

def _encode_varint(value):
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(number, wire):
    return _encode_varint((number << 3) | wire)


def _int_field(number, value):
    return _key(number, 0) + _encode_varint(int(value)) if value else b""


def _bytes_field(number, value):
    return _key(number, 2) + _encode_varint(len(value)) + value


_CONFIG_FIELDS = {
    "intra_op_parallelism_threads": 2,
    "inter_op_parallelism_threads": 5,
    "allow_soft_placement": 7,
    "log_device_placement": 8,
    "operation_timeout_in_ms": 11,
}


def encode_config(config):
    """A serialized ConfigProto from a dict of its fields (device_count a dict of its own;
    graph_options={'optimizer_options': {'opt_level': -1}} turns optimizations off)."""
    out = b""
    for name, value in config.items():
        if name == "device_count":
            for device_type, count in value.items():
                entry = _bytes_field(1, device_type.encode()) + _int_field(2, count)
                out += _bytes_field(1, entry)
        elif name == "graph_options":
            level = value.get("optimizer_options", {}).get("opt_level", 0)
            out += _bytes_field(10, _bytes_field(3, _int_field(3, level)))
        elif name in _CONFIG_FIELDS:
            out += _int_field(_CONFIG_FIELDS[name], value)
        else:
            raise ValueError(f"ConfigProto field '{name}' is not known to tessera's encoder")
    return out


def encode_run_options(trace_level=0, timeout_in_ms=0):
    return _int_field(1, trace_level) + _int_field(2, timeout_in_ms)
