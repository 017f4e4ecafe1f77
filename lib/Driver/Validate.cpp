//===- Validate.cpp - compile, simulate, compare --------------------------===//

#include "pimc/Driver/Driver.h"
#include "pimc/Frontend/ShapeFolding.h"
#include "pimc/Reference/Reference.h"
#include "pimc/Simulator/Simulator.h"
#include "pimc/Support/ExitCodes.h"
#include "pimc/Target/Pimsim/Artifacts.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <mutex>
#include <set>

using namespace pimc;
using namespace pimc::frontend;

llvm::Expected<std::vector<TensorData>> pimc::readInputs(llvm::StringRef directory,
                                                         size_t count) {
  std::vector<TensorData> inputs;
  for (size_t k = 0; k < count; ++k) {
    llvm::Expected<TensorData> tensor =
        readTensorFile(join(directory, llvm::formatv("input_{0}.pb", k).str()));
    if (!tensor)
      return tensor.takeError();
    inputs.push_back(std::move(*tensor));
  }
  return inputs;
}

/// The test_data_set_N directories of a case, in order.
static std::vector<std::string> dataSets(llvm::StringRef casePath) {
  std::vector<std::string> sets;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(casePath, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::filename(it->path()).starts_with("test_data_set_"))
      sets.push_back(it->path());
  llvm::sort(sets);
  return sets;
}

static std::string summary(const ref::Comparison &c) {
  return llvm::formatv("max abs error {0:e2}, max rel error {1:e2}", c.maxAbsError,
                       c.maxRelError)
      .str();
}

llvm::Expected<bool> pimc::validateCase(const ValidateOptions &options,
                                        llvm::raw_ostream &os) {
  std::string modelPath = join(options.casePath, "model.onnx");
  std::vector<std::string> sets = dataSets(options.casePath);
  if (sets.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + options.casePath +
                                       "' has no test_data_set_N directories");
  std::string outputDir = options.outputDir;
  bool temporary = outputDir.empty();
  if (temporary) {
    llvm::SmallString<256> temp;
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("pimc-validate", temp))
      return llvm::createStringError(ec, "cannot create a temporary directory");
    outputDir = temp.str().str();
    if (options.keepOutput)
      os << "compiling into " << outputDir << " (kept)\n";
  }
  auto removeTemporary = llvm::make_scope_exit([&] {
    if (temporary && !options.keepOutput)
      llvm::sys::fs::remove_directories(outputDir);
  });
  bool allMatch = true;
  for (const std::string &set : sets) {
    os << "data set " << llvm::sys::path::filename(set) << "\n";
    // Operands pimc needs as constants are bound from the data set (said
    // once, though the compile may load the model again, in throughput
    // mode from several candidates at once).
    std::set<std::string> bound;
    std::mutex binding;
    auto binder = [&](const ValueInfo &input, unsigned index,
                      const Node &user) -> llvm::Expected<std::optional<TensorData>> {
      llvm::Expected<TensorData> tensor =
          readTensorFile(join(set, llvm::formatv("input_{0}.pb", index).str()));
      if (!tensor)
        return tensor.takeError();
      std::lock_guard<std::mutex> lock(binding);
      if (bound.insert(input.name).second)
        os << "  binding input '" << input.name << "' (" << user.describe()
           << ") as an initializer: pimc programs weights into the crossbars "
              "before inference\n";
      return std::optional<TensorData>(std::move(*tensor));
    };
    llvm::Expected<Model> model = loadModel(modelPath, foldKnownNode, binder);
    if (!model)
      return model.takeError();
    // Compiled first: a model pimc cannot compile is the error to report.
    CompileOptions compile;
    compile.modelPath = modelPath;
    compile.archPath = options.archPath;
    compile.outputDir = outputDir;
    compile.progress = options.progress;
    compile.verbose = options.verbose;
    compile.verifyEachPass = options.verifyEachPass;
    compile.throughput = options.throughput;
    compile.plan = options.plan;
    compile.copyBudget = options.copyBudget;
    compile.batch = options.batch;
    compile.constantInputs = binder;
    compile.jobs = options.jobs;
    compile.commandLine = options.commandLine;
    llvm::Expected<llvm::json::Object> report = compileModel(compile, &*model);
    if (!report)
      return report.takeError();
    // The remaining inputs, read by their declared position.
    std::vector<TensorData> inputs;
    for (const ValueInfo &input : model->graph.inputs) {
      auto position = llvm::find(model->graph.declaredInputs, input.name) -
                      model->graph.declaredInputs.begin();
      llvm::Expected<TensorData> tensor =
          readTensorFile(join(set, llvm::formatv("input_{0}.pb", position).str()));
      if (!tensor)
        return tensor.takeError();
      inputs.push_back(std::move(*tensor));
    }
    std::vector<ref::Tensor> expected;
    for (size_t k = 0; k < model->graph.outputs.size(); ++k) {
      llvm::Expected<TensorData> tensor =
          readTensorFile(join(set, llvm::formatv("output_{0}.pb", k).str()));
      if (!tensor)
        return tensor.takeError();
      if (tensor->dataType != kFloat)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "expected output " + llvm::Twine(k) +
                                           " is not a float tensor");
      expected.push_back(ref::Tensor::fromData(*tensor));
    }

    // The reference interpreter, as a check of the expected outputs' meaning.
    // It computes in f32 as the program does, in another order: deep models
    // differ from the expected outputs as much as the program may.
    std::vector<ref::Tensor> refInputs;
    for (const TensorData &t : inputs) {
      if (t.dataType != kFloat)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "input '" + t.name + "' is not a float tensor");
      refInputs.push_back(ref::Tensor::fromData(t));
    }
    llvm::Expected<std::vector<ref::Tensor>> reference = ref::run(*model, refInputs);
    if (!reference)
      return reference.takeError();
    for (size_t k = 0; k < expected.size(); ++k) {
      ref::Comparison c = ref::compare((*reference)[k], expected[k], options.rtol, options.atol);
      os << "  reference interpreter, output " << k << ": "
         << (c.match ? "match" : "MISMATCH") << " (" << summary(c) << ")";
      if (!c.match)
        os << ": " << c.message;
      os << "\n";
      if (!c.match)
        allMatch = false;
    }

    llvm::Expected<sim::Result> result = sim::simulate(outputDir, inputs);
    if (!result) // pimc's own program
      return withKind(result.takeError(), ErrorKind::Internal);
    if (result->outputs.size() != expected.size())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the program has a different number of outputs");
    bool setMatch = true;
    for (size_t k = 0; k < expected.size(); ++k) {
      ref::Comparison c = ref::compare(ref::Tensor::fromData(result->outputs[k]),
                                       expected[k], options.rtol, options.atol);
      os << "  compiled + simulated, output " << k << ": "
         << (c.match ? "match" : "MISMATCH") << " (" << summary(c) << ")";
      if (!c.match)
        os << ": " << c.message;
      os << "\n";
      setMatch &= c.match;
    }
    os << llvm::formatv("  {0} instructions executed on {1} cores\n", result->executed,
                        result->cores.size());
    allMatch &= setMatch;
    // Record the outcome in the report of the compiled program.
    (*report)["validation"] = llvm::json::Object{
        {"status", setMatch ? "match" : "mismatch"},
        {"rtol", options.rtol},
        {"atol", options.atol},
        {"data_set", llvm::sys::path::filename(set).str()},
        {"instructions_executed", (int64_t)result->executed}};
    if (llvm::Error e = writeJsonFile(outputDir, kReportFile, std::move(*report)))
      return std::move(e);
  }
  os << (allMatch ? "PASS" : "FAIL") << " " << options.casePath << "\n";
  return allMatch;
}
