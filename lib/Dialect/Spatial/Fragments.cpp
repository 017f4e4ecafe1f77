//===- Fragments.cpp - where the elements of a dataflow value come from ---===//

#include "pimc/Dialect/Spatial/Fragments.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <map>
#include <tuple>

using namespace mlir;
using namespace pimc::spat;

bool Source::isCompute() const {
  return value && value.getDefiningOp() && isa<ComputeOpInterface>(value.getDefiningOp());
}

ComputeOpInterface Source::getCompute() const {
  return isCompute() ? cast<ComputeOpInterface>(value.getDefiningOp())
                     : ComputeOpInterface();
}

Fragment Fragment::plane(int64_t p) const {
  Fragment f = *this;
  f.planes = 1;
  f.planeStride = f.sourcePlaneStride = 0;
  f.start = start + p * planeStride;
  f.sourceStart = source.isFill() ? 0 : sourceStart + p * sourcePlaneStride;
  return f;
}

Fragment Fragment::row(int64_t r) const {
  Fragment f = *this;
  f.count = 1;
  f.start = start + r * stride;
  f.sourceStart = source.isFill() ? 0 : sourceStart + r * sourceStride;
  f.stride = f.sourceStride = length;
  return f;
}

static int64_t numElements(Value value) {
  return cast<ShapedType>(value.getType()).getNumElements();
}

void FragmentAnalysis::append(SmallVectorImpl<Run> &out, const Run &run) {
  if (!out.empty()) {
    Run &last = out.back();
    bool continues = last.source == run.source && last.start + last.length == run.start &&
                     (run.source.isFill() ||
                      last.sourceStart + last.length == run.sourceStart);
    if (continues) {
      last.length += run.length;
      return;
    }
  }
  out.push_back(run);
}

void FragmentAnalysis::mapRange(ArrayRef<Run> source, int64_t start,
                                int64_t length, int64_t at,
                                SmallVectorImpl<Run> &out) {
  // The first run that ends after `start`.
  auto it = llvm::partition_point(
      source, [&](const Run &run) { return run.start + run.length <= start; });
  for (; it != source.end() && length > 0; ++it) {
    int64_t skip = start - it->start;
    int64_t take = std::min(length, it->length - skip);
    append(out, Run{at, take, it->source, it->source.isFill() ? 0 : it->sourceStart + skip});
    start += take;
    at += take;
    length -= take;
  }
}

FailureOr<ArrayRef<FragmentAnalysis::Run>> FragmentAnalysis::getRuns(Value value) {
  auto found = runs.find(value);
  if (found != runs.end())
    return ArrayRef<Run>(found->second);
  SmallVector<Run, 1> result;
  Operation *def = value.getDefiningOp();
  if (!def || isa<ComputeOpInterface, GetGlobalOp>(def)) {
    result.push_back({0, numElements(value), Source{value}, 0});
  } else if (auto reshape = dyn_cast<ReshapeOp>(def)) {
    FailureOr<ArrayRef<Run>> source = getRuns(reshape.getSource());
    if (failed(source))
      return failure();
    result.assign(source->begin(), source->end());
  } else if (auto sliceOp = dyn_cast<tensor::ExtractSliceOp>(def)) {
    FailureOr<ArrayRef<Run>> source = getRuns(sliceOp.getSource());
    if (failed(source))
      return failure();
    if (!sliceOp.hasUnitStride() || ShapedType::isDynamicShape(sliceOp.getStaticOffsets()) ||
        ShapedType::isDynamicShape(sliceOp.getStaticSizes()))
      return def->emitOpError("only static slices with unit strides are supported");
    ArrayRef<int64_t> shape = sliceOp.getSourceType().getShape();
    ArrayRef<int64_t> offsets = sliceOp.getStaticOffsets();
    ArrayRef<int64_t> sizes = sliceOp.getStaticSizes();
    int64_t rank = shape.size();
    // The slice is a set of contiguous spans: the innermost dimensions it
    // covers fully, times the size of the next one.
    int64_t span = 1, d = rank - 1;
    for (; d >= 0; --d) {
      span *= sizes[d];
      if (sizes[d] != shape[d])
        break;
    }
    int64_t spans = 1;
    for (int64_t i = 0; i < d; ++i)
      spans *= sizes[i];
    SmallVector<int64_t> strides(rank, 1);
    for (int64_t i = rank - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * shape[i + 1];
    SmallVector<int64_t> index(std::max<int64_t>(d, 0), 0);
    int64_t at = 0;
    for (int64_t s = 0; s < spans; ++s) {
      int64_t start = 0;
      for (int64_t i = 0; i < rank; ++i)
        start += (offsets[i] + (i < d ? index[i] : 0)) * strides[i];
      mapRange(*source, start, span, at, result);
      at += span;
      for (int64_t i = d - 1; i >= 0; --i) {
        if (++index[i] < sizes[i])
          break;
        index[i] = 0;
      }
    }
  } else if (auto pad = dyn_cast<PadOp>(def)) {
    FailureOr<ArrayRef<Run>> source = getRuns(pad.getSource());
    if (failed(source))
      return failure();
    ArrayRef<int64_t> in = pad.getSource().getType().getShape();
    ArrayRef<int64_t> out = pad.getType().getShape();
    ArrayRef<int64_t> low = pad.getLow();
    int64_t rank = in.size();
    // Rows are the dimensions from the innermost padded one on: a row is
    // padding, or padding around one run of the source.
    int64_t inner = rank - 1;
    while (inner > 0 && low[inner] == 0 && pad.getHigh()[inner] == 0)
      --inner;
    int64_t unit = 1;
    for (int64_t d = inner + 1; d < rank; ++d)
      unit *= out[d];
    SmallVector<int64_t> sourceStrides(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      sourceStrides[d] = sourceStrides[d + 1] * in[d + 1];
    float fill = pad.getValue().convertToFloat();
    int64_t rows = 1;
    for (int64_t d = 0; d < inner; ++d)
      rows *= out[d];
    SmallVector<int64_t> index(inner, 0);
    int64_t at = 0, rowLength = out[inner] * unit;
    for (int64_t r = 0; r < rows; ++r) {
      bool inside = true;
      int64_t sourceStart = 0;
      for (int64_t d = 0; d < inner; ++d) {
        inside &= index[d] >= low[d] && index[d] < low[d] + in[d];
        sourceStart += (index[d] - low[d]) * sourceStrides[d];
      }
      if (!inside) {
        append(result, Run{at, rowLength, Source{Value(), fill, 0}, 0});
      } else {
        int64_t before = low[inner] * unit, length = in[inner] * unit;
        if (before)
          append(result, Run{at, before, Source{Value(), fill, 1}, 0});
        mapRange(*source, sourceStart, length, at + before, result);
        if (int64_t after = rowLength - before - length)
          append(result, Run{at + before + length, after, Source{Value(), fill, 2}, 0});
      }
      at += rowLength;
      for (int64_t d = inner - 1; d >= 0; --d) {
        if (++index[d] < out[d])
          break;
        index[d] = 0;
      }
    }
  } else if (auto concat = dyn_cast<tensor::ConcatOp>(def)) {
    int64_t dim = concat.getDim();
    auto type = cast<RankedTensorType>(concat.getType());
    int64_t outer = 1;
    for (int64_t i = 0; i < dim; ++i)
      outer *= type.getDimSize(i);
    // All inputs are analysed before any is read: analysing one may grow the
    // memo and move the runs of another.
    for (Value input : concat.getInputs())
      if (failed(getRuns(input)))
        return failure();
    SmallVector<ArrayRef<Run>> inputs;
    SmallVector<int64_t> blocks;
    for (Value input : concat.getInputs()) {
      inputs.push_back(runs.find(input)->second);
      blocks.push_back(numElements(input) / outer);
    }
    int64_t at = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (size_t i = 0; i < inputs.size(); ++i) {
        mapRange(inputs[i], o * blocks[i], blocks[i], at, result);
        at += blocks[i];
      }
  } else {
    return def->emitOpError("cannot be followed to the computes it reads");
  }
  return ArrayRef<Run>(runs.try_emplace(value, std::move(result)).first->second);
}

FailureOr<ArrayRef<Fragment>> FragmentAnalysis::getFragments(Value value) {
  auto found = fragments.find(value);
  if (found != fragments.end())
    return ArrayRef<Fragment>(found->second);
  FailureOr<ArrayRef<Run>> valueRuns = getRuns(value);
  if (failed(valueRuns))
    return failure();
  // Group runs of one length and source whose positions advance by constant
  // strides, also when runs of other sources come between them (the rows of
  // padded data alternate with their padding).
  SmallVector<Fragment, 1> result;
  // Open fragments by (source, length): a few sequences of one source may
  // interleave.
  constexpr size_t kOpenPerKey = 4;
  std::map<std::tuple<void *, float, int, int64_t>, SmallVector<size_t, kOpenPerKey>> open;
  auto extends = [](Fragment &last, const Run &run) {
    int64_t stride = run.start - (last.start + (last.count - 1) * last.stride);
    int64_t sourceStride =
        run.source.isFill()
            ? 0
            : run.sourceStart - (last.sourceStart + (last.count - 1) * last.sourceStride);
    if (last.count == 1 && stride >= run.length) {
      last.count = 2;
      last.stride = stride;
      last.sourceStride = sourceStride;
      return true;
    }
    if (last.count > 1 && stride == last.stride && sourceStride == last.sourceStride) {
      ++last.count;
      return true;
    }
    return false;
  };
  for (const Run &run : *valueRuns) {
    auto key = std::make_tuple(run.source.value.getAsOpaquePointer(),
                               run.source.isFill() ? run.source.fill : 0.0f,
                               run.source.side, run.length);
    SmallVector<size_t, kOpenPerKey> &candidates = open[key];
    if (llvm::any_of(candidates, [&](size_t i) { return extends(result[i], run); }))
      continue;
    Fragment fragment;
    fragment.start = run.start;
    fragment.length = run.length;
    fragment.stride = run.length;
    fragment.source = run.source;
    fragment.sourceStart = run.sourceStart;
    fragment.sourceStride = run.length;
    if (candidates.size() == kOpenPerKey)
      candidates.erase(candidates.begin());
    candidates.push_back(result.size());
    result.push_back(fragment);
  }
  // Then boxes of rows of one shape whose positions advance by constant
  // strides become planes of one fragment (the rows of a padded image).
  SmallVector<Fragment, 1> planes;
  std::map<std::tuple<void *, float, int, int64_t, int64_t, int64_t, int64_t>,
           SmallVector<size_t, kOpenPerKey>>
      openPlanes;
  for (const Fragment &f : result) {
    auto key = std::make_tuple(f.source.value.getAsOpaquePointer(),
                               f.source.isFill() ? f.source.fill : 0.0f, f.source.side,
                               f.length, f.count, f.stride, f.sourceStride);
    SmallVector<size_t, kOpenPerKey> &candidates = openPlanes[key];
    auto extendsPlanes = [&](size_t i) {
      Fragment &last = planes[i];
      int64_t step = f.start - (last.start + (last.planes - 1) * last.planeStride);
      int64_t sourceStep =
          f.source.isFill() ? 0
                            : f.sourceStart -
                                  (last.sourceStart + (last.planes - 1) * last.sourcePlaneStride);
      int64_t extent = (f.count - 1) * f.stride + f.length;
      if (last.planes == 1 && step >= extent && f.count > 1) {
        last.planes = 2;
        last.planeStride = step;
        last.sourcePlaneStride = sourceStep;
        return true;
      }
      if (last.planes > 1 && step == last.planeStride && sourceStep == last.sourcePlaneStride) {
        ++last.planes;
        return true;
      }
      return false;
    };
    if (llvm::any_of(candidates, extendsPlanes))
      continue;
    if (candidates.size() == kOpenPerKey)
      candidates.erase(candidates.begin());
    candidates.push_back(planes.size());
    planes.push_back(f);
  }
  result = std::move(planes);
  return ArrayRef<Fragment>(
      fragments.try_emplace(value, std::move(result)).first->second);
}
