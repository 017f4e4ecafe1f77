#!/usr/bin/env python3
"""Writes a torch sequence model (nn.LSTM, nn.GRU or nn.RNN) exported to ONNX
in the ONNX backend-test layout: model.onnx and test_data_set_0/input_K.pb,
output_0.pb, with random weights (fixed seed) and torch's own output as the
expected one.

The initial state is zero, random (a learned state: a constant in the
export) or given as graph inputs. A zero state is a buffer of the module, so
that the export holds it as a constant rather than computing it from the
input's shape.

usage: make_rnn.py OUT_DIR {lstm,gru,rnn} [--input N] [--hidden N] [--layers N]
                   [--steps N] [--batch N] [--bidirectional]
                   [--state {zero,random,input}] [--relu] [--opset N] [--seed S]
"""
import argparse
import io
import warnings

import onnx
import torch

from case import write_case

# torch's exporter warns of batch sizes and constants' shapes for every
# recurrent layer; the validation checks what it exported.
warnings.filterwarnings("ignore", category=UserWarning, module="torch")

CELLS = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}


class Sequence(torch.nn.Module):
    """The recurrent layers' output sequence Y."""

    def __init__(self, args):
        super().__init__()
        self.lstm = args.cell == "lstm"
        options = {"nonlinearity": "relu"} if args.relu else {}
        self.rnn = CELLS[args.cell](args.input, args.hidden, num_layers=args.layers,
                                    bidirectional=args.bidirectional, **options)
        directions = 2 if args.bidirectional else 1
        shape = (args.layers * directions, args.batch, args.hidden)
        make = torch.randn if args.state == "random" else torch.zeros
        self.register_buffer("h0", make(shape))
        self.register_buffer("c0", make(shape))

    def forward(self, x, *state):
        if not state:
            state = (self.h0, self.c0) if self.lstm else (self.h0,)
        return self.rnn(x, state if self.lstm else state[0])[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("cell", choices=CELLS)
    parser.add_argument("--input", type=int, default=16)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--bidirectional", action="store_true")
    parser.add_argument("--state", choices=("zero", "random", "input"), default="zero")
    parser.add_argument("--relu", action="store_true", help="an RNN of relu units")
    parser.add_argument("--opset", type=int, default=14)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    model = Sequence(args).eval()
    inputs = [torch.randn(args.steps, args.batch, args.input)]
    names = ["input"]
    if args.state == "input":
        inputs.append(torch.randn(model.h0.shape))
        names.append("h0")
        if model.lstm:
            inputs.append(torch.randn(model.c0.shape))
            names.append("c0")
    with torch.no_grad():
        expected = model(*inputs)
    buffer = io.BytesIO()
    torch.onnx.export(model, tuple(inputs), buffer, opset_version=args.opset,
                      input_names=names, output_names=["output"])
    write_case(args.out, onnx.load_from_string(buffer.getvalue()),
               [x.numpy() for x in inputs], expected.numpy())


if __name__ == "__main__":
    main()
