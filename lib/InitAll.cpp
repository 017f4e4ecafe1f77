//===- InitAll.cpp - dialects and passes of pimc --------------------------===//

#include "pimc/InitAll.h"
#include "pimc/Pipeline.h"
#include "pimc/Conversion/Passes.h"
#include "pimc/Dialect/Onnx/Transforms/Passes.h"
#include "pimc/Dialect/Pim/Transforms/Passes.h"
#include "pimc/Dialect/Spatial/Transforms/Passes.h"
#include "pimc/Target/Pimsim/Passes.h"
#include "pimc/Dialect/Onnx/OnnxDialect.h"
#include "pimc/Dialect/Pim/PimDialect.h"
#include "pimc/Dialect/Spatial/SpatialDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

void pimc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<onnx::OnnxDialect, spat::SpatDialect, pim::PimDialect,
                  mlir::func::FuncDialect, mlir::tensor::TensorDialect,
                  mlir::arith::ArithDialect, mlir::scf::SCFDialect,
                  mlir::memref::MemRefDialect,
                  mlir::bufferization::BufferizationDialect>();
  mlir::arith::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::scf::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::tensor::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::tensor::registerSubsetOpInterfaceExternalModels(registry);
  pim::registerBufferizableOpInterfaceExternalModels(registry);
}

void pimc::registerAllPasses() {
  onnx::registerOnnxPasses();
  spat::registerSpatialPasses();
  pim::registerPimPasses();
  registerConversionPasses();
  registerPimsimPasses();
  registerPipeline();
}
