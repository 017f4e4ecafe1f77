"""Writes a test case in the ONNX backend-test layout: OUT/model.onnx and
OUT/test_data_set_0/{input_K,output_0}.pb."""
import os

import numpy as np
import onnx
from onnx import numpy_helper


def write_case(out, model, inputs, expected):
    """`inputs` and `expected` are one array or a list of them, in the order
    of the graph's inputs and outputs."""
    onnx.checker.check_model(model)
    data = os.path.join(out, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(out, "model.onnx"))
    for k, array in enumerate(inputs if isinstance(inputs, list) else [inputs]):
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(array, model.graph.input[k].name)
                    .SerializeToString())
    for k, array in enumerate(expected if isinstance(expected, list) else [expected]):
        with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(array.astype(np.float32),
                                            model.graph.output[k].name).SerializeToString())
