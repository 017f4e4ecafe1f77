#!/usr/bin/env python3
"""Writes a malformed variant of tiny-arch.json (and its network file) into a
directory: mutate_arch.py CASE DIR, making DIR/arch.json."""
import json
import os
import shutil
import sys

here = os.path.dirname(os.path.abspath(__file__))


def main():
    case, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    arch = json.load(open(os.path.join(here, "tiny-arch.json")))
    network = json.load(open(os.path.join(here, "tiny-network.json")))
    chip = arch["chip_config"]
    matrix = chip["core_config"]["matrix_config"]
    net = chip["network_config"]
    name = net["net_config_file_path"]
    if case == "deep":
        # Nested far deeper than any architecture: llvm::json recurses a level.
        open(os.path.join(out, "arch.json"), "w").write("[" * 100000 + "]" * 100000)
        return
    if case == "xbar_size_scalar":
        matrix["xbar_size"] = 128
    elif case == "xbar_size_fraction":
        matrix["xbar_size"] = [128.5, 128]
    elif case == "core_cnt_huge":
        chip["core_cnt"] = 10**18
    elif case == "xbar_count_negative":
        matrix["xbar_array_count"] = -5
    elif case == "memory_huge":
        chip["core_config"]["local_memory_config"]["memory_size"] = 10**18
    elif case == "more_cores_than_network":
        chip["core_cnt"] = 8
        net["layout"] = [2, 4]
    elif case == "empty_network":
        network = {}
    elif case == "network_escape":
        net["net_config_file_path"] = "../" + name
    elif case == "network_absolute":
        net["net_config_file_path"] = os.path.join(os.path.abspath(out), name)
    elif case == "network_gmem":
        # The network file's name is one of pimc's artifacts.
        name = net["net_config_file_path"] = "gmem.bin"
    elif case == "network_fifo":
        os.mkfifo(os.path.join(out, name))
    elif case == "network_sparse":
        # A sparse file of 1 GiB of zeros (the chip has 4 cores).
        with open(os.path.join(out, name), "wb") as f:
            f.truncate(1 << 30)
    elif case == "network_symlink_out":
        # The network file is a link to a file outside the directory.
        outside = os.path.abspath(out) + ".outside.json"
        json.dump(network, open(outside, "w"))
        os.symlink(outside, os.path.join(out, name))
    elif case == "network_symlink_in":
        # A link to another file of the directory is followed.
        json.dump(network, open(os.path.join(out, "real-network.json"), "w"))
        os.symlink("real-network.json", os.path.join(out, name))
    else:
        raise SystemExit("unknown case " + case)
    json.dump(arch, open(os.path.join(out, "arch.json"), "w"))
    if case not in ("network_fifo", "network_sparse", "network_symlink_out",
                    "network_symlink_in"):
        json.dump(network, open(os.path.join(out, name), "w"))


if __name__ == "__main__":
    main()
