//===- PimDialect.h - the pim dialect ---------------------------*- C++ -*-===//
#ifndef PIMC_DIALECT_PIM_PIMDIALECT_H
#define PIMC_DIALECT_PIM_PIMDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "pimc/Dialect/Pim/PimEnums.h.inc"

// The dialect's discardable attribute helpers need the attribute classes.
#define GET_ATTRDEF_CLASSES
#include "pimc/Dialect/Pim/PimAttrs.h.inc"

#include "pimc/Dialect/Pim/PimDialect.h.inc"

#define GET_OP_CLASSES
#include "pimc/Dialect/Pim/PimOps.h.inc"

namespace pimc::pim {
/// Registers the One-Shot Bufferize models of the pim operations.
void registerBufferizableOpInterfaceExternalModels(mlir::DialectRegistry &registry);
} // namespace pimc::pim

#endif // PIMC_DIALECT_PIM_PIMDIALECT_H
