#!/usr/bin/env python3
"""Writes a chain of 3x3 convolutions (padding 1, a ReLU between two) in the
ONNX backend-test layout: model.onnx and test_data_set_0/{input_0,output_0}.pb,
with random weights (fixed seed) and the expected output computed by numpy
in float64.

usage: make_cnn.py OUT_DIR CHANNELS HEIGHT WIDTH OUT_CHANNELS... [--seed S]
"""
import argparse

import numpy as np
from onnx import helper, numpy_helper, TensorProto

from case import write_case


def conv3x3(x, w, b):
    """x [C, H, W], w [O, C, 3, 3], b [O] -> [O, H, W], padding 1."""
    c, h, wd = x.shape
    padded = np.zeros((c, h + 2, wd + 2))
    padded[:, 1:-1, 1:-1] = x
    y = np.zeros((w.shape[0], h, wd))
    for i in range(3):
        for j in range(3):
            y += np.einsum("oc,chw->ohw", w[:, :, i, j], padded[:, i:i + h, j:j + wd])
    return y + b[:, None, None]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("shape", type=int, nargs=3, metavar="C H W")
    parser.add_argument("channels", type=int, nargs="+")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    c, h, w = args.shape
    x = rng.uniform(-1, 1, size=(1, c, h, w)).astype(np.float32)
    expected = x[0].astype(np.float64)
    nodes, inits, value = [], [], "input"
    for i, out in enumerate(args.channels):
        # Weights scaled so that activations stay in a useful range.
        weights = (rng.standard_normal((out, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
        bias = rng.uniform(-0.1, 0.1, size=out).astype(np.float32)
        inits += [numpy_helper.from_array(weights, f"w{i}"), numpy_helper.from_array(bias, f"b{i}")]
        nodes.append(helper.make_node("Conv", [value, f"w{i}", f"b{i}"], [f"conv{i}"],
                                      name=f"conv{i}", kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
        expected = conv3x3(expected, weights.astype(np.float64), bias.astype(np.float64))
        value = f"conv{i}"
        if i < len(args.channels) - 1:
            nodes.append(helper.make_node("Relu", [value], [f"act{i}"], name=f"act{i}"))
            expected = np.maximum(expected, 0)
            value = f"act{i}"
        c = out
    nodes[-1].output[0] = "output"
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, *args.shape])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, c, h, w])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    write_case(args.out, model, x, expected[None])


if __name__ == "__main__":
    main()
