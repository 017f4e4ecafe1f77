#!/usr/bin/env python3
"""Writes one 2-D Conv or ConvTranspose node (with a bias) in the ONNX
backend-test layout: model.onnx and test_data_set_0/{input_0,output_0}.pb,
with random weights (fixed seed) and the expected output computed by numpy
in float64, straight from the operators' definitions (every input pixel
times every kernel position, added where it lands).

usage: make_window.py OUT_DIR {Conv,ConvTranspose} BATCH CHANNELS HEIGHT WIDTH
       OUT_CHANNELS KH KW [--strides SH SW] [--pads TOP LEFT BOTTOM RIGHT]
       [--dilations DH DW] [--group G] [--output-padding PH PW] [--seed S]
"""
import argparse

import numpy as np
from onnx import helper, numpy_helper, TensorProto

from case import write_case


def conv(x, w, b, strides, pads, dilations, group):
    """ONNX Conv: x [N, C, H, W], w [M, C / group, KH, KW]."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = strides, dilations
    padded = np.zeros((n, c, h + pads[0] + pads[2], wd + pads[1] + pads[3]))
    padded[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = x
    oh = (padded.shape[2] - (kh - 1) * dh - 1) // sh + 1
    ow = (padded.shape[3] - (kw - 1) * dw - 1) // sw + 1
    y = np.zeros((n, m, oh, ow)) + b[None, :, None, None]
    og = m // group
    for g in range(group):
        for i in range(kh):
            for j in range(kw):
                window = padded[:, g * cg:(g + 1) * cg,
                                i * dh:i * dh + (oh - 1) * sh + 1:sh,
                                j * dw:j * dw + (ow - 1) * sw + 1:sw]
                y[:, g * og:(g + 1) * og] += np.einsum(
                    "oc,nchw->nohw", w[g * og:(g + 1) * og, :, i, j], window)
    return y


def conv_transpose(x, w, b, strides, pads, dilations, group, output_padding):
    """ONNX ConvTranspose: x [N, C, H, W], w [C, M / group, KH, KW]."""
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    (sh, sw), (dh, dw) = strides, dilations
    full_h = sh * (h - 1) + output_padding[0] + (kh - 1) * dh + 1
    full_w = sw * (wd - 1) + output_padding[1] + (kw - 1) * dw + 1
    full = np.zeros((n, og * group, full_h, full_w))
    cg = c // group
    for g in range(group):
        for i in range(kh):
            for j in range(kw):
                full[:, g * og:(g + 1) * og,
                     i * dh:i * dh + (h - 1) * sh + 1:sh,
                     j * dw:j * dw + (wd - 1) * sw + 1:sw] += np.einsum(
                         "co,nchw->nohw", w[g * cg:(g + 1) * cg, :, i, j],
                         x[:, g * cg:(g + 1) * cg])
    y = full[:, :, pads[0]:full_h - pads[2], pads[1]:full_w - pads[3]]
    return y + b[None, :, None, None]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("op", choices=["Conv", "ConvTranspose"])
    parser.add_argument("shape", type=int, nargs=4, metavar="N C H W")
    parser.add_argument("out_channels", type=int)
    parser.add_argument("kernel", type=int, nargs=2, metavar="KH KW")
    parser.add_argument("--strides", type=int, nargs=2, default=[1, 1])
    parser.add_argument("--pads", type=int, nargs=4, default=[0, 0, 0, 0])
    parser.add_argument("--dilations", type=int, nargs=2, default=[1, 1])
    parser.add_argument("--group", type=int, default=1)
    parser.add_argument("--output-padding", type=int, nargs=2, default=[0, 0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    n, c, h, w = args.shape
    m, group = args.out_channels, args.group
    x = rng.uniform(-1, 1, size=(n, c, h, w)).astype(np.float32)
    if args.op == "Conv":
        weights_shape = (m, c // group, *args.kernel)
    else:
        weights_shape = (c, m // group, *args.kernel)
    # Scaled so that outputs stay near 1.
    fan_in = c // group * args.kernel[0] * args.kernel[1]
    weights = (rng.standard_normal(weights_shape) / np.sqrt(fan_in)).astype(np.float32)
    bias = rng.uniform(-0.1, 0.1, size=m).astype(np.float32)
    attrs = dict(kernel_shape=args.kernel, strides=args.strides, pads=args.pads,
                 dilations=args.dilations, group=group)
    x64, w64, b64 = x.astype(np.float64), weights.astype(np.float64), bias.astype(np.float64)
    if args.op == "Conv":
        expected = conv(x64, w64, b64, args.strides, args.pads, args.dilations, group)
    else:
        attrs["output_padding"] = args.output_padding
        expected = conv_transpose(x64, w64, b64, args.strides, args.pads, args.dilations,
                                  group, args.output_padding)
    node = helper.make_node(args.op, ["input", "w", "b"], ["output"], name=args.op.lower(),
                            **attrs)
    graph = helper.make_graph(
        [node], "window", [helper.make_tensor_value_info("input", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, expected.shape)],
        [numpy_helper.from_array(weights, "w"), numpy_helper.from_array(bias, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    write_case(args.out, model, x, expected)


if __name__ == "__main__":
    main()
