#!/usr/bin/env python3
"""Writes small RNN, GRU and LSTM models for the lit tests:
make_recurrent.py CASE OUT.onnx"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


def tensor(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def weights(name, shape, seed=0):
    rng = np.random.default_rng(seed)
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def cell(op, steps=2, hidden=3, gates=1, inputs=("x", "w", "r", "b"), extra=(), opset=14,
         **attrs):
    """One `op` node of X [steps, 1, 2] and its Y_h [1, 1, hidden]."""
    inits = [weights("w", [1, gates * hidden, 2]), weights("r", [1, gates * hidden, hidden], 1),
             weights("b", [1, 2 * gates * hidden], 2), *extra]
    node = helper.make_node(op, list(inputs), ["", "y"], name="cell", hidden_size=hidden, **attrs)
    graph = helper.make_graph([node], "test", [tensor("x", [steps, 1, 2])],
                              [tensor("y", [1, 1, hidden])], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def main():
    case, out = sys.argv[1], sys.argv[2]
    zeros = numpy_helper.from_array(np.zeros([1, 1, 3], np.float32), "h0")
    lengths = numpy_helper.from_array(np.array([1], np.int32), "lengths")
    cases = {
        "gru_linear_before_reset": lambda: cell("GRU", gates=3, linear_before_reset=1),
        "rnn_zero_state": lambda: cell("RNN", inputs=("x", "w", "r", "b", "", "h0"),
                                       extra=[zeros]),
        "lstm_clip": lambda: cell("LSTM", gates=4, clip=2.0),
        "lstm_input_forget": lambda: cell("LSTM", gates=4, input_forget=1),
        "rnn_softsign": lambda: cell("RNN", activations=["Softsign"]),
        # Before opset 7, the cells had an output_sequence attribute.
        "lstm_opset_6": lambda: cell("LSTM", gates=4, opset=6),
        "rnn_short_sequence": lambda: cell("RNN", inputs=("x", "w", "r", "b", "lengths"),
                                           extra=[lengths]),
    }
    m = cases[case]()
    onnx.checker.check_model(m)
    onnx.save(m, out)


if __name__ == "__main__":
    main()
