#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus: make_corpus.py CORPUS PIMC

CORPUS/onnx      the lit tests' models and the ONNX node tests of the
                 operators pimc supports
CORPUS/arch      the reference chips and the tests' chip, each with its
                 network file after a NUL byte
CORPUS/artifacts programs PIMC compiles for the tests' 4-core chip, packed
                 as FuzzArtifacts.cpp reads them
CORPUS/pim       the programs' .pim and .json files"""
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
INPUTS = os.path.join(ROOT, "test", "Inputs")
NODE_TESTS = "/usr/share/libonnx-testdata/data/node"
# FuzzArtifacts.cpp's kFiles, in order.
ARTIFACT_FILES = ["manifest.json", "config.json", "weights.bin", "gmem.bin",
                  "core_0.pim", "core_1.pim", "core_2.pim", "core_3.pim"]
MAKE_ONNX_CASES = ["gemm_transb", "unsupported_op", "dynamic_shape", "opset_18", "uint8_input",
                   "weights_input", "wide_layer", "crowded", "small_conv", "big_transpose"]
HOSTILE_CASES = ["conv_stride_0", "conv_group_3", "gemm_transb_5", "leaky_relu_nan",
                 "raw_data_odd", "input_dims_zero", "if_stride_0", "function_stride_0"]
NODE_PATTERNS = ["test_conv_*", "test_gemm_*", "test_maxpool_2d_*", "test_averagepool_2d_*",
                 "test_relu", "test_leakyrelu*", "test_add_bcast", "test_concat_2d_*",
                 "test_flatten_*", "test_reshape_*", "test_transpose_*", "test_batchnorm_*",
                 "test_clip_*", "test_pad_*", "test_globalaveragepool*"]


def write(directory, name, data):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def onnx_seeds(corpus):
    out = os.path.join(corpus, "onnx")
    os.makedirs(out, exist_ok=True)
    for case in MAKE_ONNX_CASES:
        subprocess.run([sys.executable, os.path.join(INPUTS, "make_onnx.py"), case,
                        os.path.join(out, case + ".onnx")], check=True)
    for case in HOSTILE_CASES:
        subprocess.run([sys.executable, os.path.join(INPUTS, "make_hostile.py"), case,
                        os.path.join(out, case + ".onnx")], check=True)
    for pattern in NODE_PATTERNS:
        for model in sorted(glob.glob(os.path.join(NODE_TESTS, pattern, "model.onnx")))[:4]:
            name = os.path.basename(os.path.dirname(model))
            write(out, name + ".onnx", open(model, "rb").read())


def arch_seeds(corpus):
    out = os.path.join(corpus, "arch")
    pairs = [(os.path.join(INPUTS, "tiny-arch.json"), os.path.join(INPUTS, "tiny-network.json")),
             (os.path.join(ROOT, "configs", "chip-144.json"),
              os.path.join(ROOT, "configs", "network_mesh_12x12.json"))]
    for arch, network in pairs:
        write(out, os.path.basename(arch),
              open(arch, "rb").read() + b"\0" + open(network, "rb").read())


def artifact_seeds(corpus, pimc):
    out = os.path.join(corpus, "artifacts")
    pim = os.path.join(corpus, "pim")
    with tempfile.TemporaryDirectory() as work:
        for case in ["gemm_transb", "wide_layer"]:
            model = os.path.join(work, case + ".onnx")
            subprocess.run([sys.executable, os.path.join(INPUTS, "make_onnx.py"), case, model],
                           check=True)
            program = os.path.join(work, case)
            subprocess.run([pimc, "compile", model, "--arch", os.path.join(INPUTS, "tiny-arch.json"),
                            "-o", program, "-q", "--emit=json"], check=True,
                           stdout=subprocess.DEVNULL)
            packed = b""
            for index, name in enumerate(ARTIFACT_FILES):
                path = os.path.join(program, name)
                if os.path.exists(path):
                    data = open(path, "rb").read()
                    packed += bytes([index]) + len(data).to_bytes(4, "little") + data
            write(out, case, packed)
            for path in glob.glob(os.path.join(program, "core_*")):
                write(pim, case + "_" + os.path.basename(path), open(path, "rb").read())


def main():
    corpus, pimc = sys.argv[1], sys.argv[2]
    onnx_seeds(corpus)
    arch_seeds(corpus)
    artifact_seeds(corpus, pimc)


if __name__ == "__main__":
    main()
