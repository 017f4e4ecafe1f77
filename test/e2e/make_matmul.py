#!/usr/bin/env python3
"""Writes a MatMul of an input A by constant weights B (numpy broadcasting
of their batch dimensions), optionally plus a constant bias, in the ONNX
backend-test layout: model.onnx and test_data_set_0/{input_0,output_0}.pb,
with random values (fixed seed) and the expected output computed by numpy in
float64.

usage: make_matmul.py OUT_DIR --a DIM... --b DIM... [--bias] [--seed S]
"""
import argparse

import numpy as np
from onnx import helper, numpy_helper, TensorProto

from case import write_case


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--a", type=int, nargs="+", required=True)
    parser.add_argument("--b", type=int, nargs="+", required=True)
    parser.add_argument("--bias", action="store_true", help="add a bias of the last dimension")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    a = rng.uniform(-1, 1, size=args.a).astype(np.float32)
    b = (rng.standard_normal(args.b) / np.sqrt(args.b[-2])).astype(np.float32)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
    inits = [numpy_helper.from_array(b, "b")]
    nodes = [helper.make_node("MatMul", ["input", "b"], ["output"], name="matmul")]
    if args.bias:
        bias = rng.uniform(-0.1, 0.1, size=args.b[-1]).astype(np.float32)
        inits.append(numpy_helper.from_array(bias, "bias"))
        nodes[0].output[0] = "product"
        nodes.append(helper.make_node("Add", ["product", "bias"], ["output"], name="add"))
        expected = expected + bias
    graph = helper.make_graph(
        nodes, "matmul", [helper.make_tensor_value_info("input", TensorProto.FLOAT, a.shape)],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, expected.shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    write_case(args.out, model, a, expected)


if __name__ == "__main__":
    main()
