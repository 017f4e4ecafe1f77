//===- InitAll.h - dialects and passes of pimc ------------------*- C++ -*-===//
#ifndef PIMC_INITALL_H
#define PIMC_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace pimc {
/// The dialects pimc's IR uses, with their bufferization models.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Every pimc pass, for pimc-opt.
void registerAllPasses();
} // namespace pimc

#endif // PIMC_INITALL_H
