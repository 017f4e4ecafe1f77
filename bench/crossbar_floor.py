#!/usr/bin/python3
"""The fewest crossbar reads a model's convolutions and matrix products need.

One mvm reads every crossbar of its array group, whatever share of it holds
weights, and on the reference chips each read costs the same energy. A
convolution whose P neighbouring output pixels share one matrix (the union
of their windows as rows, their output channels side by side as columns)
reads ceil(rows / R) * ceil(cols / C) crossbars for the P pixels, with R x C
weights a crossbar. For each convolution this prints the fewest reads per
output pixel over blocks of up to 8 x 16 pixels (rows x columns, the output
padded to whole blocks), what one pixel a matrix reads, and the bound of
perfectly full crossbars (all multiply-accumulates / (R * C)). Given pimc's
report.json for the same model, it turns reads into energy with that
report's crossbar energy per read and compares with the reads it counted.

Usage: bench/crossbar_floor.py MODEL.onnx [--arch ARCH.json] [--report REPORT.json]
"""

import argparse
import json
import math
import os
import sys

import onnx
from onnx import shape_inference

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def attribute(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return list(a.ints) if a.ints else a.i
    return default


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--arch", default=os.path.join(ROOT, "configs", "chip-144.json"))
    parser.add_argument("--report", help="pimc's report.json for the same model")
    args = parser.parse_args()

    arch = json.load(open(args.arch))
    matrix = arch["chip_config"]["core_config"]["matrix_config"]
    xbar_rows, xbar_cols = matrix.get("xbar_size", [128, 128])
    weight_bits = arch.get("pimc", {}).get("weight_bits", 8)
    R, C = xbar_rows, xbar_cols * matrix.get("cell_precision", 2) // weight_bits

    graph = shape_inference.infer_shapes(onnx.load(args.model)).graph
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in list(graph.value_info) + list(graph.input) + list(graph.output)}
    weights = {i.name: list(i.dims) for i in graph.initializer}

    one_pixel = floor = macs = 0.0
    print(f"{'node':44s} {'pixels':>7s} {'reads/pixel':>11s} {'best block':>10s} {'one pixel':>9s}")
    for node in graph.node:
        if node.op_type not in ("Conv", "Gemm", "MatMul") or node.input[1] not in weights:
            continue
        w, y = weights[node.input[1]], shapes[node.output[0]]
        if node.op_type == "Conv":
            out, cg, kh, kw = w
            group = attribute(node, "group", 1)
            sh, sw = attribute(node, "strides", [1, 1])
            og, pixels = out // group, y[2] * y[3]
            cost = lambda a, b: group * math.ceil((kh + (a - 1) * sh) * (kw + (b - 1) * sw) * cg / R) \
                * math.ceil(a * b * og / C)
            blocks = [(a, b) for a in range(1, min(8, y[2]) + 1) for b in range(1, min(16, y[3]) + 1)]
            # Padded to whole blocks: the reads of the block count for all its pixels.
            reads, block = min((cost(a, b) * math.ceil(y[2] / a) * math.ceil(y[3] / b), (a, b))
                               for a, b in blocks)
            single = cost(1, 1) * pixels
            macs += pixels * out * cg * kh * kw
        else:
            trans_b = node.op_type == "Gemm" and attribute(node, "transB", 0)
            k, n = (w[1], w[0]) if trans_b else (w[0], w[1])
            pixels = math.prod(y[:-1])
            reads = single = pixels * math.ceil(k / R) * math.ceil(n / C)
            block = (1, 1)
            macs += pixels * k * n
        one_pixel += single
        floor += reads
        print(f"{node.name[:44]:44s} {pixels:7d} {reads / pixels:11.3f} "
              f"{'%dx%d' % block:>10s} {single / pixels:9.3f}")
    print(f"crossbar reads: at least {floor:.0f} over blocks, {one_pixel:.0f} one pixel a "
          f"matrix, {macs / (R * C):.0f} with every crossbar full")
    if args.report:
        energy = json.load(open(args.report))["timing"]["energy"]
        per_read = energy["crossbar_pj"] / energy["crossbar_reads"]
        print(f"pimc's program: {energy['crossbar_reads']} reads, {energy['crossbar_pj'] / 1e9:.3f} mJ; "
              f"the floor over blocks: {floor * per_read / 1e9:.3f} mJ "
              f"({per_read / 1e3:.2f} nJ a read)")


if __name__ == "__main__":
    sys.exit(main())
