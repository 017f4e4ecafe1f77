#!/usr/bin/env python3
"""Writes small ONNX models for the lit tests: make_onnx.py CASE OUT.onnx"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


def tensor(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=13):
    graph = helper.make_graph(nodes, "test", inputs, outputs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def weights(name, shape, seed=0):
    rng = np.random.default_rng(seed)
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def main():
    case, out = sys.argv[1], sys.argv[2]
    if case == "not_onnx":
        open(out, "wb").write(b"this is not a protobuf\xff\xfe")
        return
    x = tensor("x", [1, 4])
    y = tensor("y", [1, 3])
    cases = {
        "gemm_transb": lambda: model(
            [helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="fc", transB=1)],
            [x], [y], [weights("w", [3, 4]), weights("b", [3], 1)]),
        "unsupported_op": lambda: model(
            [helper.make_node("Softmax", ["x"], ["y"], name="soft")],
            [x], [tensor("y", [1, 4])]),
        "dynamic_shape": lambda: model(
            [helper.make_node("Relu", ["x"], ["y"], name="act")],
            [tensor("x", ["batch", 4])], [tensor("y", ["batch", 4])]),
        "opset_18": lambda: model(
            [helper.make_node("Relu", ["x"], ["y"], name="act")],
            [x], [tensor("y", [1, 4])], opset=18),
        "uint8_input": lambda: model(
            [helper.make_node("Identity", ["x"], ["y"], name="id")],
            [tensor("x", [4], TensorProto.UINT8)], [tensor("y", [4], TensorProto.UINT8)]),
        "weights_input": lambda: model(
            [helper.make_node("Gemm", ["x", "w"], ["y"], name="fc")],
            [x, tensor("w", [4, 3])], [y]),
        "too_big": lambda: model(
            [helper.make_node("Gemm", ["x", "w"], ["y"], name="fc")],
            [tensor("x", [1, 64])], [tensor("y", [1, 80])], [weights("w", [64, 80])]),
        "wide_layer": lambda: model(
            [helper.make_node("Gemm", ["x", "w"], ["y"], name="fc")],
            [tensor("x", [1, 16])], [tensor("y", [1, 64])], [weights("w", [16, 64])]),
        "big_activation": lambda: model(
            [helper.make_node("Relu", ["x"], ["y"], name="act")],
            [tensor("x", [1, 2000])], [tensor("y", [1, 2000])]),
        # Copies planned for all of the tiny chip's crossbars are four of the
        # 1x1 conv's 3-crossbar matrix and two of the first conv's 2-crossbar
        # one: 16 crossbars, but no core keeps room for a 2 beside a 3.
        "crowded": lambda: model(
            [helper.make_node("Conv", ["x", "cw"], ["c"], name="conv", kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1]),
             helper.make_node("Conv", ["c", "mw"], ["y"], name="mix", kernel_shape=[1, 1])],
            [tensor("x", [1, 1, 2, 2])], [tensor("y", [1, 48, 2, 2])],
            [weights("cw", [16, 1, 3, 3]), weights("mw", [48, 16, 1, 1], 1)]),
        "small_conv": lambda: model(
            [helper.make_node("Conv", ["x", "cw"], ["y"], name="conv", kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1])],
            [tensor("x", [1, 8, 8, 8])], [tensor("y", [1, 8, 8, 8])],
            [weights("cw", [8, 8, 3, 3])]),
        "min_hardsigmoid": lambda: model(
            [helper.make_node("Min", ["x", "r"], ["m"], name="low"),
             helper.make_node("HardSigmoid", ["m"], ["y"], name="gate", alpha=0.25)],
            [x, tensor("r", [4])], [tensor("y", [1, 4])]),
        "reduce_sum_min": lambda: model(
            [helper.make_node("ReduceSum", ["r", "axes"], ["s"], name="sum"),
             helper.make_node("ReduceMin", ["s"], ["y"], name="low", axes=[0], keepdims=0)],
            [tensor("r", [2, 3, 4])], [tensor("y", [1, 4])],
            [numpy_helper.from_array(np.array([1], dtype=np.int64), "axes")]),
        "slice_split": lambda: model(
            [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["s"],
                              name="crop"),
             helper.make_node("Split", ["s", "lengths"], ["a", "b"], name="halves", axis=1)],
            [tensor("x", [4, 10])], [tensor("a", [2, 1]), tensor("b", [2, 2])],
            [numpy_helper.from_array(np.array(v, dtype=np.int64), n)
             for n, v in [("starts", [-1, 1]), ("ends", [-5, 8]), ("axes", [0, 1]),
                          ("steps", [-2, 3]), ("lengths", [1, 2])]]),
        "slice_split_opset9": lambda: model(
            [helper.make_node("Slice", ["x"], ["s"], name="crop", starts=[1], ends=[3],
                              axes=[1]),
             helper.make_node("Split", ["s"], ["a", "b"], name="halves", axis=0,
                              split=[3, 1])],
            [tensor("x", [4, 10])], [tensor("a", [3, 2]), tensor("b", [1, 2])], opset=9),
        # x.view(x.size(0), -1) with the shape computed in the graph.
        "view_size": lambda: model(
            [helper.make_node("Shape", ["x"], ["shape"], name="shape"),
             helper.make_node("Gather", ["shape", "zero"], ["n"], name="size0", axis=0),
             helper.make_node("Unsqueeze", ["n", "axes"], ["n1"], name="unsqueeze"),
             helper.make_node("Concat", ["n1", "minus_one"], ["target"], name="cat", axis=0),
             helper.make_node("Cast", ["target"], ["target64"], name="cast", to=TensorProto.INT64),
             helper.make_node("Reshape", ["x", "target64"], ["y"], name="view")],
            [tensor("x", [2, 3, 4])], [tensor("y", [2, 12])],
            [numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"),
             numpy_helper.from_array(np.array([0], dtype=np.int64), "axes"),
             numpy_helper.from_array(np.array([-1], dtype=np.int64), "minus_one")]),
        "gather_depth_to_space": lambda: model(
            [helper.make_node("Gather", ["x", "indices"], ["g"], name="pick", axis=1),
             helper.make_node("DepthToSpace", ["g"], ["y"], name="d2s", blocksize=2,
                              mode="CRD")],
            [tensor("x", [1, 6, 2, 3])], [tensor("y", [1, 1, 4, 6])],
            [numpy_helper.from_array(np.array([5, -2, 0, 1], dtype=np.int64), "indices")]),
        "resize_linear": lambda: model(
            [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="up", mode="linear")],
            [tensor("x", [1, 1, 2, 3])], [tensor("y", [1, 1, 4, 6])],
            [numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "scales")]),
        "big_transpose": lambda: model(
            [helper.make_node("Transpose", ["x"], ["y"], name="flip", perm=[1, 0])],
            [tensor("x", [40, 50])], [tensor("y", [50, 40])]),
    }
    # "unary_OP": a node OP of one input named after its operator.
    if case.startswith("unary_"):
        op = case[len("unary_"):]
        shape = [1, 1] if op.startswith("Reduce") else [1, 4]
        m = model([helper.make_node(op, ["x"], ["y"], name=op.lower())], [x], [tensor("y", shape)])
    else:
        m = cases[case]()
    onnx.checker.check_model(m)
    onnx.save(m, out)


if __name__ == "__main__":
    main()
