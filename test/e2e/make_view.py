#!/usr/bin/env python3
"""Writes x.view(x.size(0), -1) between two layers as torch exports it
without constant folding, in the ONNX backend-test layout: a 1x1
convolution, the flattening Reshape whose shape the graph computes
(Constant, Unsqueeze, Concat; ONNX's shape inference leaves the Reshape's
output unknown behind them), and a Gemm. Random weights (fixed seed), the
expected output computed by numpy in float64.

usage: make_view.py OUT_DIR [--batch N] [--seed S]
"""
import argparse

import numpy as np
from onnx import helper, numpy_helper, TensorProto

from case import write_case


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    n, c, h, w, k, classes = args.batch, 3, 4, 4, 5, 6
    x = rng.uniform(-1, 1, size=(n, c, h, w)).astype(np.float32)
    conv = (rng.standard_normal((k, c, 1, 1)) / np.sqrt(c)).astype(np.float32)
    fc = (rng.standard_normal((classes, k * h * w)) / np.sqrt(k * h * w)).astype(np.float32)

    def constant(name, values):
        return helper.make_node("Constant", [], [name], name=name,
                                value=numpy_helper.from_array(np.array(values, np.int64)))

    nodes = [
        helper.make_node("Conv", ["x", "conv_w"], ["y"], name="conv"),
        constant("batch", n), constant("axes0", [0]), constant("axes1", [0]),
        constant("rest", -1),
        helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch1"], name="unsqueeze_batch"),
        helper.make_node("Unsqueeze", ["rest", "axes1"], ["rest1"], name="unsqueeze_rest"),
        helper.make_node("Concat", ["batch1", "rest1"], ["target"], name="target", axis=0),
        helper.make_node("Reshape", ["y", "target"], ["flat"], name="view"),
        helper.make_node("Gemm", ["flat", "fc_w"], ["out"], name="fc", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "view", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, c, h, w])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [n, classes])],
        [numpy_helper.from_array(conv, "conv_w"), numpy_helper.from_array(fc, "fc_w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    y = np.einsum("nchw,kc->nkhw", x.astype(np.float64), conv[:, :, 0, 0].astype(np.float64))
    expected = y.reshape(n, -1) @ fc.T.astype(np.float64)
    write_case(args.out, model, x, expected)


if __name__ == "__main__":
    main()
