#!/usr/bin/env python3
"""Writes a small block of a modern mobile CNN, exported by torch, in the ONNX
backend-test layout (model.onnx, test_data_set_0/{input_0,output_0}.pb) with
random weights (seed 0) and torch's output as the expected one.

  se:    a 3x3 convolution whose output a squeeze-and-excitation branch
         scales per channel (global average pool, two 1x1 convolutions, ReLU,
         sigmoid): the scale is computed by the network.
  mbv3:  a MobileNetV3 inverted residual block: 1x1 expansion, depthwise 3x3,
         squeeze-and-excitation with hard-sigmoid, 1x1 projection, batch
         normalization, hard-swish and the residual sum; a SiLU (x * sigmoid
         x) after it.
  shuffle: ShuffleNet's channel shuffle (Reshape to 5-D, Transpose,
         Reshape) between two grouped convolutions.

usage: make_mobile_block.py OUT_DIR {se,mbv3,shuffle} [--batch N]
"""
import argparse
import io

import onnx
import torch
from torch import nn

from case import write_case


class SqueezeExcitation(nn.Module):
    def __init__(self, channels, squeezed, gate):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(channels, squeezed, 1)
        self.fc2 = nn.Conv2d(squeezed, channels, 1)
        self.gate = gate

    def forward(self, x):
        scale = self.gate(self.fc2(torch.relu(self.fc1(self.pool(x)))))
        return x * scale


class SeBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 32, 3, padding=1)
        self.se = SqueezeExcitation(32, 8, nn.Sigmoid())

    def forward(self, x):
        return self.se(self.conv(x))


class InvertedResidual(nn.Module):
    def __init__(self, channels=16, expanded=64, squeezed=16):
        super().__init__()
        self.expand = nn.Sequential(nn.Conv2d(channels, expanded, 1, bias=False),
                                    nn.BatchNorm2d(expanded), nn.Hardswish())
        self.depthwise = nn.Sequential(
            nn.Conv2d(expanded, expanded, 3, padding=1, groups=expanded, bias=False),
            nn.BatchNorm2d(expanded), nn.Hardswish())
        self.se = SqueezeExcitation(expanded, squeezed, nn.Hardsigmoid())
        self.project = nn.Sequential(nn.Conv2d(expanded, channels, 1, bias=False),
                                     nn.BatchNorm2d(channels))

    def forward(self, x):
        y = x + self.project(self.se(self.depthwise(self.expand(x))))
        return y * torch.sigmoid(y)


class ChannelShuffle(nn.Module):
    def __init__(self, channels=16, groups=4):
        super().__init__()
        self.groups = groups
        self.conv1 = nn.Conv2d(channels, channels, 1, groups=groups)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, groups=groups)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        n, c, h, w = x.shape
        x = x.view(n, self.groups, c // self.groups, h, w).transpose(1, 2).reshape(n, c, h, w)
        return self.conv2(x)


def randomize_batch_norms(model, generator):
    """Running statistics other than the defaults, so that folding them shows."""
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5, generator=generator)
            module.running_var.uniform_(0.5, 1.5, generator=generator)
            module.weight.data.uniform_(0.5, 1.5, generator=generator)
            module.bias.data.uniform_(-0.5, 0.5, generator=generator)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("block", choices=["se", "mbv3", "shuffle"])
    parser.add_argument("--batch", type=int, default=1)
    args = parser.parse_args()

    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    if args.block == "se":
        model, shape = SeBlock(), (args.batch, 8, 12, 12)
    elif args.block == "shuffle":
        model, shape = ChannelShuffle(), (args.batch, 16, 6, 6)
    else:
        model, shape = InvertedResidual(), (args.batch, 16, 10, 10)
        randomize_batch_norms(model, generator)
    model.eval()
    x = torch.rand(shape, generator=generator) * 2 - 1
    with torch.no_grad():
        expected = model(x)
    exported = io.BytesIO()
    torch.onnx.export(model, (x,), exported, opset_version=13, do_constant_folding=True,
                      input_names=["input"], output_names=["output"])
    write_case(args.out, onnx.load_from_string(exported.getvalue()), x.numpy(),
               expected.numpy())


if __name__ == "__main__":
    main()
