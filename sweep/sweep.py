"""The sweep description (a YAML file, Snakemake's config) as points.

    pimc: PATH           pimc (default: build/bin/pimc of this repository)
    pimsim: PATH         pimsim-nn's ChipTest; when given, each point runs on it
    models:              NAME: torchvision (exported by bench/export_models.py),
                         or a path: an ONNX file, or a directory in the ONNX
                         backend-test layout (model.onnx, test_data_set_N/),
                         which is validated; relative to the YAML's directory
    arch:                pimc arch's options, each a value or a list of values;
                         every combination is a chip (none: the reference chip)
    modes: [latency, throughput]
    plot: [OPTION, ...]  the arch options to plot against (default: every one
                         with several values)

A point is one model on one chip in one mode; its files are
points/MODEL/CHIP/MODE/ of the working directory.
"""

import itertools
import os

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# pimc arch's options that take a value.
ARCH_OPTIONS = ("from", "cores", "mesh", "crossbars", "crossbar-size", "cell-bits",
                "local-memory", "input-bits", "output-bits", "weight-bits")
MODES = ("latency", "throughput")


class SweepError(Exception):
    pass


def as_list(value):
    return value if isinstance(value, list) else [value]


class Sweep:
    def __init__(self, config, base_dir):
        """`config` is the parsed YAML; relative paths are from `base_dir`."""
        self.base_dir = base_dir
        unknown = set(config) - {"pimc", "pimsim", "models", "arch", "modes", "plot"}
        if unknown:
            raise SweepError("unknown keys in the sweep description: " + ", ".join(sorted(unknown)))
        self.pimc = self.path(config.get("pimc") or os.path.join(REPOSITORY, "build", "bin", "pimc"))
        self.pimsim = self.path(config["pimsim"]) if config.get("pimsim") else None
        self.models = {}
        for name, source in (config.get("models") or {}).items():
            self.models[str(name)] = source if source == "torchvision" else self.path(source)
        if not self.models:
            raise SweepError("the sweep description names no models")
        arch = config.get("arch") or {}
        bad = [key for key in arch if key not in ARCH_OPTIONS]
        if bad:
            raise SweepError("unknown arch options %s (pimc arch takes %s)"
                             % (", ".join(bad), ", ".join(ARCH_OPTIONS)))
        self.arch_keys = list(arch)
        self.chips = {}
        for values in itertools.product(*(as_list(arch[key]) for key in self.arch_keys)):
            parameters = dict(zip(self.arch_keys, values))
            self.chips[chip_name(parameters)] = parameters
        self.modes = as_list(config.get("modes") or ["latency"])
        if any(mode not in MODES for mode in self.modes):
            raise SweepError("modes are %s" % ", ".join(MODES))
        self.plot = as_list(config.get("plot") or
                            [key for key in self.arch_keys if len(as_list(arch[key])) > 1])
        if any(key not in self.arch_keys for key in self.plot):
            raise SweepError("plot names an arch option that is not swept")

    def path(self, value):
        return os.path.normpath(os.path.join(self.base_dir, os.path.expanduser(str(value))))

    def points(self):
        """(model, chip, mode) of every point."""
        return list(itertools.product(self.models, self.chips, self.modes))

    def torchvision(self):
        return [name for name, source in self.models.items() if source == "torchvision"]

    def case(self, model):
        """The model's ONNX file, and its backend-test directory if it has one."""
        source = self.models[model]
        if source == "torchvision":
            return os.path.join("models", model, "model.onnx"), os.path.join("models", model)
        if os.path.isdir(source):
            return os.path.join(source, "model.onnx"), source
        return source, None

    def model_files(self, model):
        """What a point of `model` depends on: the ONNX file and its test data."""
        onnx, case = self.case(model)
        files = [onnx]
        if case and self.models[model] != "torchvision":
            for root, _, names in os.walk(case):
                files += [os.path.join(root, n) for n in names if n.endswith(".pb")]
        return sorted(files)

    def arch_arguments(self, chip):
        arguments = []
        for key, value in self.chips[chip].items():
            if key == "from":
                value = self.path(value)
            arguments.append("--%s=%s" % (key, value))
        return arguments


def chip_name(parameters):
    """A chip's directory name: its parameters, or 'reference'."""
    if not parameters:
        return "reference"
    return "-".join("%s%s" % (key.replace("-", ""), os.path.basename(str(value)).replace(".json", ""))
                    for key, value in parameters.items())


def flatten(report, prefix=""):
    """Every number of a report.json (lists left out), by dotted key."""
    row = {}
    for key, value in report.items():
        name = prefix + key
        if isinstance(value, dict):
            row.update(flatten(value, name + "."))
        elif isinstance(value, bool):
            continue
        elif isinstance(value, (int, float)):
            row[name] = value
    return row


# The proxies plotted, with their axis labels, as bench/run_benchmarks.py
# counts them: per inference, or per sample when the programs loop.
HEADLINES = {"latency_ms": "latency (ms, pimc's timing replay)",
             "energy_mj": "energy (mJ per inference or sample)",
             "samples_per_s": "throughput (samples/s with the fill, as pimsim-nn counts)"}


def headlines(point):
    """The plotted proxies of a point (empty where it has none)."""
    proxies = point.get("proxies", {})
    row = dict.fromkeys(HEADLINES, "")
    if "timing.latency_ns" in proxies:
        row["latency_ms"] = proxies["timing.latency_ns"] / 1e6
    energy = proxies.get("timing.energy_per_sample_pj", proxies.get("timing.energy_pj"))
    if energy is not None:
        row["energy_mj"] = energy / 1e9
    if proxies.get("timing.counted_sample_ns"):
        row["samples_per_s"] = 1e9 / proxies["timing.counted_sample_ns"]
    return row


def plot_files(sweep):
    """plots/HEADLINE-vs-OPTION.{svg,png} for every option plotted."""
    names = [h for h in HEADLINES if h != "samples_per_s" or "throughput" in sweep.modes]
    return ["plots/%s-vs-%s.%s" % (h, option, ext)
            for option in sweep.plot for h in names for ext in ("svg", "png")]
