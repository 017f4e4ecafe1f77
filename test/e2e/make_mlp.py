#!/usr/bin/env python3
"""Writes an MLP in the ONNX backend-test layout: model.onnx and
test_data_set_0/{input_0,output_0}.pb, with random weights (fixed seed) and
the expected output computed by numpy in float64.

usage: make_mlp.py OUT_DIR WIDTHS... [--activation relu|sigmoid|tanh]
       [--batch N] [--seed S] [--matmul]
  WIDTHS: input width, then the width of every layer (e.g. 784 1024 1024 10)
"""
import argparse

import numpy as np
from onnx import helper, numpy_helper, TensorProto

from case import write_case


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("widths", type=int, nargs="+")
    parser.add_argument("--activation", default="relu",
                        choices=["relu", "sigmoid", "tanh"])
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--matmul", action="store_true",
                        help="MatMul + Add layers (as some exporters write) "
                             "instead of Gemm")
    parser.add_argument("--opset", type=int, default=13)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    widths = args.widths
    nodes, inits = [], []
    x = rng.uniform(-1, 1, size=(args.batch, widths[0])).astype(np.float32)
    value = "input"
    expected = x.astype(np.float64)
    activation = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh"}
    for i, (k, n) in enumerate(zip(widths[:-1], widths[1:])):
        # Weights scaled so that activations stay in a useful range.
        w = (rng.standard_normal((n, k)) / np.sqrt(k)).astype(np.float32)
        b = rng.uniform(-0.1, 0.1, size=n).astype(np.float32)
        out = f"fc{i}"
        if args.matmul:
            inits += [numpy_helper.from_array(w.T.copy(), f"w{i}"),
                      numpy_helper.from_array(b, f"b{i}")]
            nodes.append(helper.make_node("MatMul", [value, f"w{i}"], [out + "_mm"],
                                          name=f"matmul{i}"))
            nodes.append(helper.make_node("Add", [out + "_mm", f"b{i}"], [out],
                                          name=f"add{i}"))
        else:
            inits += [numpy_helper.from_array(w, f"w{i}"),
                      numpy_helper.from_array(b, f"b{i}")]
            nodes.append(helper.make_node("Gemm", [value, f"w{i}", f"b{i}"], [out],
                                          name=f"fc{i}", transB=1))
        expected = expected @ w.T.astype(np.float64) + b.astype(np.float64)
        value = out
        if i < len(widths) - 2:
            act = f"act{i}"
            nodes.append(helper.make_node(activation[args.activation], [value],
                                          [act], name=act))
            value = act
            if args.activation == "relu":
                expected = np.maximum(expected, 0)
            elif args.activation == "sigmoid":
                expected = 1 / (1 + np.exp(-expected))
            else:
                expected = np.tanh(expected)
    nodes[-1].output[0] = "output"
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT,
                                       (args.batch, widths[-1]))],
        initializer=inits)
    model = helper.make_model(graph, producer_name="pimc-test",
                              opset_imports=[helper.make_opsetid("", args.opset)])
    write_case(args.out, model, x, expected)


if __name__ == "__main__":
    main()
