//===- Locations.h - model nodes in locations -------------------*- C++ -*-===//
//
// The importer names every op after its ONNX node ("Gemm 'fc1'"); later ops
// inherit those locations, so diagnostics can say which node they are about.
//
//===----------------------------------------------------------------------===//

#ifndef PIMC_SUPPORT_LOCATIONS_H
#define PIMC_SUPPORT_LOCATIONS_H

#include "mlir/IR/Location.h"

#include <string>

namespace pimc {

/// The ONNX node a location names ("Gemm 'fc1'"), or "" when it names none.
std::string nodeName(mlir::Location loc);

} // namespace pimc

#endif // PIMC_SUPPORT_LOCATIONS_H
