# lit configuration of pimc's FileCheck tests.
import os
import lit.formats

config.name = "pimc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "e2e", "unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pimc_binary_dir, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.pimc_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%configs", os.path.join(config.pimc_source_dir, "configs")))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
# The build tree's share/pimc: the bundled model, as the installed tree has it.
config.substitutions.append(("%pimc_data", os.path.join(config.pimc_binary_dir, "share", "pimc")))
# %status N CMD: CMD must exit with status N.
config.substitutions.append(("%status", config.python_executable + " " +
                             os.path.join(config.test_source_root, "Inputs", "exit_status.py")))
