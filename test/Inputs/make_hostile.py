#!/usr/bin/env python3
"""Writes malformed ONNX models that pimc must refuse with a clear error:
make_hostile.py CASE OUT.onnx (the checker is not run: they are invalid)."""
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


def tensor(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def model(nodes, inputs, outputs, inits=()):
    graph = helper.make_graph(nodes, "hostile", inputs, outputs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def weights(name, shape):
    return numpy_helper.from_array(np.ones(shape, np.float32), name)


def conv(**attrs):
    attrs.setdefault("kernel_shape", [3, 3])
    return model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", **attrs)],
                 [tensor("x", [1, 4, 8, 8])], [tensor("y", [1, 4, 6, 6])],
                 [weights("w", [4, 4, 3, 3])])


def gemm(w, x_shape=(1, 4), y_shape=(1, 3), **attrs):
    return model([helper.make_node("Gemm", ["x", "w"], ["y"], name="fc", **attrs)],
                 [tensor("x", list(x_shape))], [tensor("y", list(y_shape))], [w])


def raw(name, dims, data):
    t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims)
    t.raw_data = data
    return t


def relu(shape):
    return model([helper.make_node("Relu", ["x"], ["y"], name="act")],
                 [tensor("x", shape)], [tensor("y", shape)])


def branch(name, **attrs):
    """A graph computing a Conv of the outer graph's x and w (a subgraph sees
    them by name)."""
    attrs.setdefault("kernel_shape", [3, 3])
    return helper.make_graph([helper.make_node("Conv", ["x", "w"], [name + "_y"], **attrs)],
                             name, [], [tensor(name + "_y", [1, 4, 6, 6])])


def control_flow(op_type, attrs, inputs):
    return model([helper.make_node(op_type, inputs, ["y"], name="flow", **attrs)],
                 [tensor("x", [1, 4, 8, 8]), helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                 [tensor("y", [1, 4, 6, 6])], [weights("w", [4, 4, 3, 3])])


def local_function(**attrs):
    """A model-local function whose body is a Conv with `attrs`, called once."""
    attrs.setdefault("kernel_shape", [3, 3])
    body = helper.make_function("local", "conv_fn", ["a", "b"], ["c"],
                                [helper.make_node("Conv", ["a", "b"], ["c"], **attrs)],
                                [helper.make_opsetid("", 13)])
    m = model([helper.make_node("conv_fn", ["x", "w"], ["y"], name="call", domain="local")],
              [tensor("x", [1, 4, 8, 8])], [tensor("y", [1, 4, 6, 6])],
              [weights("w", [4, 4, 3, 3])])
    m.opset_import.append(helper.make_opsetid("local", 1))
    m.functions.append(body)
    return m


def external(out, mutate=None):
    """A Gemm whose weights are in w.bin beside the model, as
    onnx.save(..., save_as_external_data=True) writes them."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3)).astype(np.float32), "w")
    m = gemm(w)
    onnx.save(m, out, save_as_external_data=True, all_tensors_to_one_file=True,
              location="w.bin", size_threshold=0)
    if mutate:
        m = onnx.load(out, load_external_data=False)
        entries = m.graph.initializer[0].external_data
        mutate({e.key: e for e in entries}, entries)
        onnx.save(m, out)


def set_entry(key, value):
    def mutate(by_key, entries):
        if key in by_key:
            by_key[key].value = value
        else:
            entries.add(key=key, value=value)
    return mutate


def main():
    case, out = sys.argv[1], sys.argv[2]
    d = os.path.dirname(os.path.abspath(out))
    if case == "external":
        return external(out)
    if case == "external_absolute":
        return external(out, set_entry("location", os.path.join(d, "w.bin")))
    if case == "external_escape":
        return external(out, set_entry("location", "../w.bin"))
    if case == "external_past_end":
        return external(out, set_entry("offset", "40"))
    if case == "external_too_long":
        return external(out, set_entry("length", "4096"))
    if case == "external_symlink":
        # w.bin links to a file outside the model's directory.
        external(out)
        outside = os.path.join(os.path.dirname(d), os.path.basename(d) + ".outside.bin")
        os.replace(os.path.join(d, "w.bin"), outside)
        os.symlink(outside, os.path.join(d, "w.bin"))
        return
    cases = {
        "conv_stride_0": lambda: conv(strides=[0, 1]),
        "conv_dilation_0": lambda: conv(dilations=[1, 0]),
        "conv_kernel_0": lambda: conv(kernel_shape=[0, 3]),
        "conv_pad_negative": lambda: conv(pads=[-1, 0, 0, 0]),
        "conv_group_0": lambda: conv(group=0),
        "conv_group_3": lambda: model(
            [helper.make_node("Conv", ["x", "w"], ["y"], name="conv", kernel_shape=[1, 1],
                              group=3)],
            [tensor("x", [1, 4, 8, 8])], [tensor("y", [1, 3, 8, 8])], [weights("w", [3, 1, 1, 1])]),
        "pool_stride_0": lambda: model(
            [helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2],
                              strides=[0, 0])],
            [tensor("x", [1, 4, 8, 8])], [tensor("y", [1, 4, 4, 4])]),
        "gemm_transb_5": lambda: gemm(weights("w", [3, 4]), transB=5),
        # An omitted ("") input among a variadic operator's: found by the
        # hostile-input harness, it was built as a null operand.
        "concat_omitted_input": lambda: model(
            [helper.make_node("Concat", ["x", "", "c"], ["y"], name="cat", axis=1)],
            [tensor("x", [1, 16])], [tensor("y", [1, 32])], [weights("c", [1, 16])]),
        # Conv strides of 0 inside subgraphs, which shape inference reads too.
        "if_stride_0": lambda: control_flow(
            "If", {"then_branch": branch("then", strides=[0, 1]),
                   "else_branch": branch("else")}, ["c"]),
        "loop_stride_0": lambda: control_flow(
            "Loop", {"body": helper.make_graph(
                [helper.make_node("Conv", ["x", "w"], ["body_y"], kernel_shape=[3, 3],
                                  strides=[1, 0]),
                 helper.make_node("Identity", ["cond_in"], ["cond_out"])],
                "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, [])],
                [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
                 tensor("body_y", [1, 4, 6, 6])])}, ["", "c"]),
        "function_stride_0": lambda: local_function(strides=[0, 0]),
        "leaky_relu_nan": lambda: model(
            [helper.make_node("LeakyRelu", ["x"], ["y"], name="leaky", alpha=float("nan"))],
            [tensor("x", [1, 4])], [tensor("y", [1, 4])]),
        # 4113 bytes for 1028 floats: read in place of the proto (>= 4096
        # bytes), a remainder of 1 past the buffer.
        "raw_data_odd": lambda: gemm(raw("w", [4, 257], b"\0" * 4113),
                                     y_shape=(1, 257)),
        "raw_data_short": lambda: gemm(raw("w", [4, 3], b"\0" * 20)),
        # Pads read by ONNX's shape inference, 5 bytes short: found by the
        # hostile-input harness (heap corruption, an abort at exit).
        "pads_raw_short": lambda: model(
            [helper.make_node("Pad", ["x", "p"], ["y"], name="pad")],
            [tensor("x", [1, 4, 8, 8])], [tensor("y", [1, 4, 10, 10])],
            [TensorProto(name="p", data_type=TensorProto.INT64, dims=[8],
                         raw_data=numpy_helper.from_array(
                             np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64)).raw_data[:59])]),
        # 2^32 x 2^32 wraps to 0 at 2^64.
        "dims_wrap": lambda: model(
            [helper.make_node("Identity", ["w"], ["y"], name="id")],
            [], [tensor("y", [1 << 32, 1 << 32])], [raw("w", [1 << 32, 1 << 32], b"")]),
        "input_dims_wrap": lambda: relu([1 << 32, 1 << 32]),
        "input_dims_huge": lambda: relu([1, 1 << 40]),
        "input_dims_zero": lambda: relu([1, 0]),
        # ONNX shape inference loops over the length of a SAME-padded dimension.
        "autopad_huge": lambda: model(
            [helper.make_node("Conv", ["x", "w"], ["y"], name="conv", kernel_shape=[3, 3],
                              auto_pad="SAME_UPPER")],
            [tensor("x", [1, 4, 1 << 40, 5])], [tensor("y", [1, 4, 1 << 40, 5])],
            [weights("w", [4, 4, 3, 3])]),
    }
    onnx.save(cases[case](), out)


if __name__ == "__main__":
    main()
