//===- SpatialDialect.h - the spat dialect ----------------------*- C++ -*-===//
#ifndef PIMC_DIALECT_SPATIAL_SPATIALDIALECT_H
#define PIMC_DIALECT_SPATIAL_SPATIALDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "pimc/Dialect/Spatial/SpatialDialect.h.inc"
#include "pimc/Dialect/Spatial/SpatialEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pimc/Dialect/Spatial/SpatialAttrs.h.inc"

#include "pimc/Dialect/Spatial/SpatialInterfaces.h.inc"

#define GET_OP_CLASSES
#include "pimc/Dialect/Spatial/SpatialOps.h.inc"

#endif // PIMC_DIALECT_SPATIAL_SPATIALDIALECT_H
