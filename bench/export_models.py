#!/usr/bin/python3
"""Export the benchmark models to ONNX with random weights.

Each model is built from torchvision (or torch.nn, for the sequence models)
with its own default initialisation (never pretrained, nothing is downloaded)
after torch.manual_seed(SEED), put in eval mode (BatchNorm running stats
calibrated, see below), exported with static shapes for a 1x3x224x224 input
(or the shape INPUT_SHAPES gives: the sequence models 32 steps of 256
features, batch 1), and written in the
ONNX backend-test layout:

    OUT/<name>/model.onnx
    OUT/<name>/test_data_set_0/input_0.pb    seeded N(0, 1) input, TensorProto
    OUT/<name>/test_data_set_0/output_0.pb   torch's float32 output for it

A model is written to a temporary directory and renamed into place, so a
directory with model.onnx always has its test data. Existing complete
directories are kept unless --force is given (the cache does not record the
options: use --force after changing --seed, --opset or --default-bn).

With the default BatchNorm stats BN is the identity in eval mode, and the
torchvision init alone does not keep every model in range: MobileNetV2's
output collapses to ~1e-9 and some GoogLeNet branches to ~1e-12, which makes
any comparison of outputs meaningless. So the running stats are set from one
train-mode pass over a batch of seeded random inputs (different from the test
input), which keeps activations near unit scale; it changes nothing in models
without BatchNorm. --default-bn keeps the defaults instead.

Every export is checked with onnx.checker and strict shape inference, and the
saved output is verified by rebuilding the model from the seed and running
torch again on the saved input (the result must be bit-identical).

Usage: bench/export_models.py OUT_DIR [NAME ...] [--seed N] [--opset N]
       [--default-bn] [--force] [-v]
"""

import argparse
import collections
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
import onnx.numpy_helper
import onnx.shape_inference
import torch
import torchvision.models as tvm

INPUT_SHAPE = (1, 3, 224, 224)
SEQUENCE_SHAPE = (32, 1, 256)  # steps, batch, features
INPUT_NAME = "input"
OUTPUT_NAME = "output"
FILES = ("model.onnx", "test_data_set_0/input_0.pb", "test_data_set_0/output_0.pb")

class Sequence(torch.nn.Module):
    """Two recurrent layers of 256 units over SEQUENCE_SHAPE: their output
    sequence. The zero initial state is a buffer, so that the export holds it
    as a constant rather than computing it from the input's shape."""

    def __init__(self, cell):
        super().__init__()
        steps, batch, features = SEQUENCE_SHAPE
        self.rnn = cell(features, 256, num_layers=2)
        self.register_buffer("state", torch.zeros(2, batch, 256))

    def forward(self, x):
        lstm = isinstance(self.rnn, torch.nn.LSTM)
        return self.rnn(x, (self.state, self.state) if lstm else self.state)[0]


# Benchmark models; weights=None means torchvision's own random init.
# GoogLeNet's init_weights=True uses torch.nn.init.trunc_normal_ in
# torchvision 0.14 (no scipy) and silences the FutureWarning.
MODELS = {
    "resnet18": lambda: tvm.resnet18(weights=None),
    "vgg16": lambda: tvm.vgg16(weights=None),
    "googlenet": lambda: tvm.googlenet(
        weights=None, aux_logits=False, transform_input=False, init_weights=True
    ),
    "mobilenet_v2": lambda: tvm.mobilenet_v2(weights=None),
    "alexnet": lambda: tvm.alexnet(weights=None),
    "squeezenet1_0": lambda: tvm.squeezenet1_0(weights=None),
    "squeezenet1_1": lambda: tvm.squeezenet1_1(weights=None),
    "mobilenet_v3_large": lambda: tvm.mobilenet_v3_large(weights=None),
    "inception_v3": lambda: tvm.inception_v3(
        weights=None, aux_logits=False, transform_input=False, init_weights=True
    ),
    "resnext50_32x4d": lambda: tvm.resnext50_32x4d(weights=None),
    "lstm": lambda: Sequence(torch.nn.LSTM),
    "gru": lambda: Sequence(torch.nn.GRU),
    # How compile time grows: twice the layers, or four times the pixels.
    "resnet34": lambda: tvm.resnet34(weights=None),
    "resnet50": lambda: tvm.resnet50(weights=None),
    "resnet18_448": lambda: tvm.resnet18(weights=None),
    # A batch of four images through the same weights.
    "resnet18_batch4": lambda: tvm.resnet18(weights=None),
}
# Models whose input is not one 224x224 image.
INPUT_SHAPES = {"resnet18_448": (1, 3, 448, 448), "resnet18_batch4": (4, 3, 224, 224),
                "inception_v3": (1, 3, 299, 299),
                "lstm": SEQUENCE_SHAPE, "gru": SEQUENCE_SHAPE}
# Exported only when named: the default is the benchmark set.
EXTRA = {"resnet34", "resnet50", "resnet18_448", "resnet18_batch4"}


def input_shape(name):
    return INPUT_SHAPES.get(name, INPUT_SHAPE)


def build_model(name, seed, calibrate_bn=False):
    """The model with seeded random weights, in eval mode."""
    torch.manual_seed(seed)
    model = MODELS[name]()
    if calibrate_bn:
        calibrate_batchnorm(model, seed, input_shape(name))
    return model.eval()


def calibrate_batchnorm(model, seed, shape, batch=8):
    """Set BN running stats to the batch stats of seeded random inputs."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    if not bns:
        return
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None  # cumulative average: exactly this batch's stats
    gen = torch.Generator().manual_seed(seed + 1)
    x = torch.randn((batch,) + shape[1:], generator=gen)
    model.train()
    with torch.no_grad():
        model(x)


def make_input(seed, shape):
    """A seeded N(0, 1) input, like a normalised image (or sequence)."""
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=gen, dtype=torch.float32)


def run_torch(model, x):
    with torch.no_grad():
        return model(x).to(torch.float32)


def save_tensor(path, array, name):
    path.write_bytes(onnx.numpy_helper.from_array(array, name).SerializeToString())


def load_tensor(path):
    tensor = onnx.TensorProto()
    tensor.ParseFromString(path.read_bytes())
    return onnx.numpy_helper.to_array(tensor)


def is_complete(model_dir):
    return all((model_dir / f).is_file() for f in FILES)


def check_onnx(model, out_shape):
    """Run the checker and strict shape inference; return op counts and opset."""
    onnx.checker.check_model(model)
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    graph = inferred.graph
    inputs = [i.name for i in graph.input]
    outputs = [o.name for o in graph.output]
    if inputs != [INPUT_NAME] or outputs != [OUTPUT_NAME]:
        raise RuntimeError(f"graph inputs {inputs}, outputs {outputs}")
    dims = [d.dim_value for d in graph.output[0].type.tensor_type.shape.dim]
    if dims != list(out_shape):
        raise RuntimeError(f"inferred output shape {dims}, torch gives {list(out_shape)}")
    ops = collections.Counter(n.op_type for n in graph.node)
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    return ops, opset


def verify_rerun(name, seed, calibrate_bn, data_dir):
    """Rebuild the model from the seed and rerun it on the saved input."""
    x = torch.from_numpy(load_tensor(data_dir / "input_0.pb").copy())
    expected = load_tensor(data_dir / "output_0.pb")
    got = run_torch(build_model(name, seed, calibrate_bn), x).numpy()
    if expected.dtype != np.float32 or not np.array_equal(got, expected):
        diff = np.abs(got.astype(np.float64) - expected).max()
        raise RuntimeError(f"{name}: rerun differs from saved output (max |diff| {diff})")


def install(tmp_dir, model_dir):
    """Move a finished temporary directory into place, replacing any old one."""
    if model_dir.exists():
        old = model_dir.with_name(f".{model_dir.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        model_dir.rename(old)
        tmp_dir.rename(model_dir)
        shutil.rmtree(old)
    else:
        tmp_dir.rename(model_dir)


def export_one(name, out_dir, args):
    """Export, check and verify one model; print its summary line."""
    model_dir = out_dir / name
    if is_complete(model_dir) and not args.force:
        size = (model_dir / "model.onnx").stat().st_size
        print(f"{name:<14} cached                 {size / 1e6:8.1f} MB", flush=True)
        return

    start = time.perf_counter()
    model = build_model(name, args.seed, not args.default_bn)
    params = sum(p.numel() for p in model.parameters())
    x = make_input(args.seed, input_shape(name))
    y = run_torch(model, x)

    tmp_dir = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=out_dir))
    try:
        tmp_dir.chmod(0o755)  # mkdtemp makes it private
        data_dir = tmp_dir / "test_data_set_0"
        data_dir.mkdir()
        onnx_path = tmp_dir / "model.onnx"
        t0 = time.perf_counter()
        torch.onnx.export(
            model, (x,), str(onnx_path),
            opset_version=args.opset,
            do_constant_folding=True,
            training=torch.onnx.TrainingMode.EVAL,
            input_names=[INPUT_NAME],
            output_names=[OUTPUT_NAME],
        )
        export_s = time.perf_counter() - t0
        del model

        ops, opset = check_onnx(onnx.load(str(onnx_path)), y.shape)
        save_tensor(data_dir / "input_0.pb", x.numpy(), INPUT_NAME)
        save_tensor(data_dir / "output_0.pb", y.numpy(), OUTPUT_NAME)
        verify_rerun(name, args.seed, not args.default_bn, data_dir)
        install(tmp_dir, model_dir)
    except BaseException:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        raise

    size = (model_dir / "model.onnx").stat().st_size
    total_s = time.perf_counter() - start
    print(f"{name:<14} {params:>11,} params  {size / 1e6:8.1f} MB  "
          f"export {export_s:6.2f} s  total {total_s:6.2f} s", flush=True)
    if args.verbose:
        yabs = y.abs()
        print(f"  opset {opset}, {sum(ops.values())} nodes, output |y| max "
              f"{yabs.max().item():.4g} mean {yabs.mean().item():.4g}")
        print("  ops: " + ", ".join(f"{op} x{n}" for op, n in sorted(ops.items())),
              flush=True)


def main():
    parser = argparse.ArgumentParser(
        description="Export torchvision models with random weights to ONNX test cases.")
    parser.add_argument("out_dir", type=Path, help="output directory")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="models to export (default: %s; also %s)" % (
                            ", ".join(n for n in MODELS if n not in EXTRA),
                            ", ".join(sorted(EXTRA))))
    parser.add_argument("--seed", type=int, default=0, help="weight and input seed (default 0)")
    parser.add_argument("--opset", type=int, default=13, help="ONNX opset (default 13)")
    parser.add_argument("--default-bn", action="store_true",
                        help="keep BatchNorm's default running stats")
    parser.add_argument("--force", action="store_true",
                        help="re-export existing models (needed after changing other options)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print opset, op types and output range")
    args = parser.parse_args()

    unknown = [n for n in args.names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}; known: {', '.join(MODELS)}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for name in args.names or [n for n in MODELS if n not in EXTRA]:
        export_one(name, args.out_dir, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
