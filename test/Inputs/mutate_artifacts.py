#!/usr/bin/env python3
"""Breaks a compiled program directory (or the inputs beside it) in place:
mutate_artifacts.py CASE DIR."""
import json
import os
import sys


def main():
    case, out = sys.argv[1], sys.argv[2]
    path = os.path.join(out, "manifest.json")
    manifest = json.load(open(path)) if os.path.exists(path) else None
    if case == "output_address_max":
        manifest["outputs"][0]["address"] = (1 << 63) - 1
    elif case == "global_memory_huge":
        manifest["global_memory_bytes"] = 1 << 40
    elif case == "core_count_huge":
        manifest["core_count"] = 10**6
    elif case == "shape_huge":
        manifest["outputs"][0]["shape"] = [1 << 32, 1 << 32]
    elif case == "local_memory_huge":
        manifest["local_memory_bytes"] = 1 << 50
    elif case == "config_deep":
        open(os.path.join(out, "config.json"), "w").write("[" * 100000 + "]" * 100000)
    elif case == "program_fifo":
        os.remove(os.path.join(out, "core_0.pim"))
        os.mkfifo(os.path.join(out, "core_0.pim"))
    elif case == "weights_directory":
        os.remove(os.path.join(out, "weights.bin"))
        os.mkdir(os.path.join(out, "weights.bin"))
    elif case == "manifest_sparse":
        with open(path, "wb") as f:
            f.truncate(1 << 30)
        manifest = None
    elif case == "input_fifo":
        os.remove(os.path.join(out, "input_0.pb"))
        os.mkfifo(os.path.join(out, "input_0.pb"))
    elif case == "input_device":
        os.remove(os.path.join(out, "input_0.pb"))
        os.symlink("/dev/zero", os.path.join(out, "input_0.pb"))
    else:
        raise SystemExit("unknown case " + case)
    if manifest is not None:
        json.dump(manifest, open(path, "w"))


if __name__ == "__main__":
    main()
