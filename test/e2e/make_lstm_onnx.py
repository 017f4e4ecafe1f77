#!/usr/bin/env python3
"""Writes an ONNX LSTM node of the forms torch does not export (batch-first
layout, peepholes, initial states) in the ONNX backend-test layout, with
random weights (fixed seed) and the expected outputs Y and Y_h computed by
numpy in float64 from ONNX's definition of the operator.

usage: make_lstm_onnx.py OUT_DIR [--steps N] [--batch N] [--input N]
                         [--hidden N] [--seed S]
"""
import argparse

import numpy as np
from onnx import helper, numpy_helper, TensorProto

from case import write_case


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm(x, w, r, b, p, h0, c0):
    """Bidirectional LSTM over x [T, B, I]: Y [T, 2, B, H] and Y_h [2, B, H]."""
    steps, hidden = x.shape[0], r.shape[2]
    y = np.zeros((steps, 2, x.shape[1], hidden))
    final = []
    for d in range(2):
        h, c = h0[d], c0[d]
        wi, wo, wf, wc = np.split(w[d], 4)
        ri, ro, rf, rc = np.split(r[d], 4)
        bias = b[d, :4 * hidden] + b[d, 4 * hidden:]
        bi, bo, bf, bc = np.split(bias, 4)
        pi, po, pf = np.split(p[d], 3)
        for t in range(steps) if d == 0 else reversed(range(steps)):
            xt = x[t]
            i = sigmoid(xt @ wi.T + h @ ri.T + bi + pi * c)
            f = sigmoid(xt @ wf.T + h @ rf.T + bf + pf * c)
            c = f * c + i * np.tanh(xt @ wc.T + h @ rc.T + bc)
            o = sigmoid(xt @ wo.T + h @ ro.T + bo + po * c)
            h = o * np.tanh(c)
            y[t, d] = h
        final.append(h)
    return y, np.stack(final)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--input", type=int, default=5)
    parser.add_argument("--hidden", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    t, n, i, h = args.steps, args.batch, args.input, args.hidden
    scale = 1 / np.sqrt(h)

    def uniform(*shape):
        return rng.uniform(-scale, scale, size=shape).astype(np.float32)

    x = rng.standard_normal((n, t, i)).astype(np.float32)  # batch-first
    h0, c0 = uniform(n, 2, h), uniform(n, 2, h)
    w, r, b, p = uniform(2, 4 * h, i), uniform(2, 4 * h, h), uniform(2, 8 * h), uniform(2, 3 * h)
    y, yh = lstm(x.transpose(1, 0, 2).astype(np.float64), w, r, b, p,
                 h0.transpose(1, 0, 2), c0.transpose(1, 0, 2))
    node = helper.make_node("LSTM", ["x", "w", "r", "b", "", "h0", "c0", "p"], ["y", "yh"],
                            name="lstm", hidden_size=h, direction="bidirectional", layout=1)
    inits = [numpy_helper.from_array(v, name) for v, name in ((w, "w"), (r, "r"), (b, "b"),
                                                                 (p, "p"))]
    graph = helper.make_graph(
        [node], "lstm",
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)
         for name, shape in (("x", [n, t, i]), ("h0", [n, 2, h]), ("c0", [n, 2, h]))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, t, 2, h]),
         helper.make_tensor_value_info("yh", TensorProto.FLOAT, [n, 2, h])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    write_case(args.out, model, [x, h0, c0], [y.transpose(2, 0, 1, 3), yh.transpose(1, 0, 2)])


if __name__ == "__main__":
    main()
