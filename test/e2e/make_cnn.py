#!/usr/bin/env python3
"""Writes a chain of 3x3 convolutions (padding 1, a ReLU between two) in the
ONNX backend-test layout: model.onnx and test_data_set_0/{input_0,output_0}.pb,
with random weights (fixed seed) and the expected output computed by numpy
in float64. With --classes, a 2x2 max pooling follows the first convolution
and global average pooling and a Gemm to that many classes end the network;
with --flatten too, the Gemm reads the last convolution's output flattened
(as VGG's and AlexNet's classifiers do).

usage: make_cnn.py OUT_DIR CHANNELS HEIGHT WIDTH OUT_CHANNELS... [--batch N]
       [--classes K [--flatten]] [--seed S]
"""
import argparse

import numpy as np
from onnx import helper, numpy_helper, TensorProto

from case import write_case


def conv3x3(x, w, b):
    """x [N, C, H, W], w [O, C, 3, 3], b [O] -> [N, O, H, W], padding 1."""
    n, c, h, wd = x.shape
    padded = np.zeros((n, c, h + 2, wd + 2))
    padded[:, :, 1:-1, 1:-1] = x
    y = np.zeros((n, w.shape[0], h, wd))
    for i in range(3):
        for j in range(3):
            y += np.einsum("oc,nchw->nohw", w[:, :, i, j], padded[:, :, i:i + h, j:j + wd])
    return y + b[None, :, None, None]


def maxpool2x2(x):
    """x [N, C, H, W] -> [N, C, H / 2, W / 2], stride 2."""
    n, c, h, w = x.shape
    return x[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("shape", type=int, nargs=3, metavar="C H W")
    parser.add_argument("channels", type=int, nargs="+")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--classes", type=int)
    parser.add_argument("--flatten", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    c, h, w = args.shape
    x = rng.uniform(-1, 1, size=(args.batch, c, h, w)).astype(np.float32)
    expected = x.astype(np.float64)
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
        if i == 0 and args.classes:
            nodes.append(helper.make_node("MaxPool", [value], ["pool"], name="pool",
                                          kernel_shape=[2, 2], strides=[2, 2]))
            expected = maxpool2x2(expected)
            value = "pool"
        c = out
    if args.classes:
        if args.flatten:
            features = expected.reshape(expected.shape[0], -1)
        else:
            nodes.append(helper.make_node("GlobalAveragePool", [value], ["gap"], name="gap"))
            features, value = expected.mean(axis=(2, 3)), "gap"
        size = features.shape[1]
        weights = (rng.standard_normal((args.classes, size)) / np.sqrt(size)).astype(np.float32)
        bias = rng.uniform(-0.1, 0.1, size=args.classes).astype(np.float32)
        inits += [numpy_helper.from_array(weights, "fc_w"), numpy_helper.from_array(bias, "fc_b")]
        nodes += [helper.make_node("Flatten", [value], ["features"], name="flatten"),
                  helper.make_node("Gemm", ["features", "fc_w", "fc_b"], ["logits"], name="fc",
                                   transB=1)]
        expected = features @ weights.T.astype(np.float64) + bias
    nodes[-1].output[0] = "output"
    graph = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [args.batch, *args.shape])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, list(expected.shape))], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    write_case(args.out, model, x, expected)


if __name__ == "__main__":
    main()
