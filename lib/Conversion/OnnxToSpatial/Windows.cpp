//===- Windows.cpp - convolutions and pooling to spatial computes ---------===//
//
// Channels-last windows over a padded input: the input is a spat.pad view
// (the padding is filled where it is read); the output is cut into bands of
// rows (or parts of a row), each one compute_batch whose lanes are the
// band's output pixels and which reads the band's input window (with the
// halo) whole. A lane reads its window in place with spat.lane_slice: C
// contiguous channels per kernel position (a kernel row of them when
// dilation is 1).
//
// A dense (or grouped) convolution multiplies the window by its weights
// reordered to (kernel position, channel) rows, cut into crossbar tiles; a
// tile whose rows cross window segments gets them concatenated. A
// depthwise convolution runs on the vector unit (a multiply-add per kernel
// position), and so does pooling.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "pimc/Arch/CostModel.h"
#include "pimc/Support/Constants.h"

#include <cmath>
#include <map>
#include <queue>

#include <numeric>

using namespace mlir;
using namespace pimc;
using namespace pimc::spat;
using namespace pimc::lowering;

/// The bands onnx-plan-windows planned for `op` (convert-onnx-to-spatial
/// checked that it did).
static int64_t plannedBands(Operation *op) {
  return op->getAttrOfType<BandsAttr>(kBandsAttr).getCount();
}

namespace {

/// The geometry of a channels-last window operation, per sample of its
/// batch.
struct Window {
  int64_t batch = 1, channels = 0;
  SmallVector<int64_t> in, out, kernel, strides, dilations, low, high;
  SmallVector<int64_t> padded;       // spatial sizes of the padded input
  SmallVector<int64_t> paddedStride; // elements between neighbours of dim d

  size_t rank() const { return in.size(); }
  int64_t kernelPositions() const {
    return std::accumulate(kernel.begin(), kernel.end(), int64_t(1), std::multiplies<>());
  }
  /// The offset, in the padded input, of kernel position `position`
  /// (row-major over the kernel) from the window's first element.
  int64_t positionOffset(int64_t position) const {
    int64_t offset = 0;
    for (int64_t d = rank() - 1; d >= 0; --d) {
      offset += (position % kernel[d]) * dilations[d] * paddedStride[d];
      position /= kernel[d];
    }
    return offset;
  }
  /// The padded input positions of spatial dim `d` that output positions
  /// [first, end) read.
  std::pair<int64_t, int64_t> inputSpan(size_t d, int64_t first, int64_t end) const {
    return {first * strides[d], (end - 1) * strides[d] + (kernel[d] - 1) * dilations[d] + 1};
  }
  std::pair<int64_t, int64_t> inputRows(int64_t first, int64_t end) const {
    return inputSpan(0, first, end);
  }
  /// Where a lane's window holds the lane's own input pixels, when the
  /// output keeps the input's grid: a window centred on its pixel, of
  /// stride 1, or one packed over `strides` pixels of the last dimension
  /// (onnx-pack-pixels). They are contiguous: the offset of the first, and
  /// the count.
  std::optional<std::pair<int64_t, int64_t>> ownPixels() const {
    int64_t offset = 0;
    for (size_t d = 0; d < rank(); ++d) {
      int64_t halo = kernel[d] - strides[d];
      if ((d + 1 < rank() && strides[d] != 1) || dilations[d] != 1 || halo < 0 ||
          halo % 2 || low[d] != halo / 2 || high[d] != halo / 2 ||
          in[d] != out[d] * strides[d])
        return std::nullopt;
      offset += halo / 2 * paddedStride[d];
    }
    return std::make_pair(offset, strides.back());
  }
  /// The window as it reads a slice of the padded input of spatial sizes
  /// `sizes`.
  Window over(ArrayRef<int64_t> sizes) const {
    Window view = *this;
    view.padded.assign(sizes.begin(), sizes.end());
    view.paddedStride.assign(rank(), channels);
    for (int64_t d = rank() - 2; d >= 0; --d)
      view.paddedStride[d] = view.paddedStride[d + 1] * view.padded[d + 1];
    return view;
  }
};

FailureOr<Window> windowOf(Operation *op, Value x, Value y, ArrayRef<int64_t> kernel,
                           std::optional<ArrayRef<int64_t>> strides,
                           std::optional<ArrayRef<int64_t>> pads,
                           std::optional<ArrayRef<int64_t>> dilations) {
  auto inType = cast<RankedTensorType>(x.getType());
  auto outType = cast<RankedTensorType>(y.getType());
  Window w;
  w.batch = inType.getDimSize(0);
  w.channels = inType.getShape().back();
  w.in.assign(inType.getShape().begin() + 1, inType.getShape().end() - 1);
  w.out.assign(outType.getShape().begin() + 1, outType.getShape().end() - 1);
  size_t n = w.in.size();
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides.assign(n, 1);
  w.dilations.assign(n, 1);
  if (strides)
    w.strides.assign(strides->begin(), strides->end());
  if (dilations)
    w.dilations.assign(dilations->begin(), dilations->end());
  SmallVector<int64_t> declared(2 * n, 0);
  if (pads)
    declared.assign(pads->begin(), pads->end());
  for (size_t d = 0; d < n; ++d) {
    w.low.push_back(declared[d]);
    // Only as much high padding as the last window reaches (ceil_mode may
    // reach past the declared pads).
    int64_t extent =
        (w.out[d] - 1) * w.strides[d] + (w.kernel[d] - 1) * w.dilations[d] + 1;
    w.high.push_back(std::max<int64_t>(0, extent - w.low[d] - w.in[d]));
    w.padded.push_back(w.in[d] + w.low[d] + w.high[d]);
    if (w.out[d] < 1 || w.kernel[d] < 1 || w.strides[d] < 1 || w.dilations[d] < 1)
      return op->emitError("window sizes, strides and dilations must be positive");
  }
  w.paddedStride.assign(n, w.channels);
  for (int64_t d = n - 2; d >= 0; --d)
    w.paddedStride[d] = w.paddedStride[d + 1] * w.padded[d + 1];
  return w;
}

/// The padded input: a spat.pad view of X (batch and channels unpadded).
Value paddedInput(OpBuilder &b, Location loc, Value x, const Window &w, float value) {
  bool any = llvm::any_of(w.low, [](int64_t p) { return p > 0; }) ||
             llvm::any_of(w.high, [](int64_t p) { return p > 0; });
  if (!any)
    return x;
  SmallVector<int64_t> low = {0}, high = {0}, shape = {w.batch};
  llvm::append_range(low, w.low);
  llvm::append_range(high, w.high);
  llvm::append_range(shape, w.padded);
  low.push_back(0);
  high.push_back(0);
  shape.push_back(w.channels);
  return b.create<spat::PadOp>(loc, f32Tensor(b.getContext(), shape), x,
                               b.getDenseI64ArrayAttr(low), b.getDenseI64ArrayAttr(high),
                               b.getF32FloatAttr(value));
}

/// For one inference, a band's row of at least this many mvms runs as two
/// halves on its copy of the weights. Of 0, 100 and 150, 150 alone made
/// no benchmark model slower (resnet18 -11%, vgg16 -6%, googlenet -3%);
/// every compute more costs compile time (resnet18 +1.9 s).
constexpr int64_t kHalvedMvms = 150;

/// A band of output rows, or of part of one row, and the lanes that compute
/// it.
struct Band {
  int64_t first, end;             // output rows of spatial dim 0
  int64_t firstCol = 0;           // its first output position of spatial dim 1
  int64_t copy = 0;               // the copy of the weights it uses
  bool sharesCopy = false;        // with the other rows or half of its band
  Value input;                    // the padded input it reads, [1, rows, ..., C]
  Window view;                    // the window over `input`
  SmallVector<int64_t> laneDims;  // output positions, row-major
  SmallVector<int64_t> laneStrides;
  int64_t lanes() const {
    return std::accumulate(laneDims.begin(), laneDims.end(), int64_t(1),
                           std::multiplies<>());
  }
};

/// At least `planned` bands of output rows, and so many that a band's input
/// and output (`outChannels` per pixel) take at most about a quarter of a
/// core's local memory. More bands than rows cut the rows into parts, as
/// evenly as they go (`planned` bands in all). With `rowByRow`, a band of
/// several rows is cut into bands of one row that share its copy of the
/// weights: they run one after another on one core, and the next layer
/// starts on the first rows before the last are done; and so are the rows
/// of a band into halves when a row takes at least kHalvedMvms mvms
/// (`mvmsPerPixel` each). With `interleaveRows` as well, row r goes to copy
/// r mod copies rather than the copy of its band: a band's first row needs
/// the last row of the band above, which, in runs of consecutive rows, comes
/// only as that band ends, so every layer would wait for nearly all of the
/// one before. With `evenSplits`, bands of whole rows share the rows out
/// evenly (as many bands, none longer). Sets `interleaved` when it dealt
/// the rows out. A batch's `planned` bands are shared out over its samples:
/// each sample gets the same bands, on copies of the weights of its own
/// while there are enough bands for them (the samples run side by side),
/// otherwise on the copies of an earlier sample (one after the other, on
/// the same crossbars).
std::vector<Band> bandsOf(OpBuilder &b, Location loc, Value padded, const Window &w,
                          int64_t outChannels, const Arch &arch, int64_t planned,
                          bool evenSplits, bool rowByRow = false, int64_t mvmsPerPixel = 0,
                          bool interleaveRows = false, bool *interleaved = nullptr) {
  int64_t copySets = std::clamp<int64_t>(planned, 1, w.batch);
  planned = std::max<int64_t>(1, planned / w.batch);
  int64_t rowBytes = w.paddedStride[0] * arch.inputBytes();
  int64_t pixelsPerRow = 1;
  for (size_t d = 1; d < w.rank(); ++d)
    pixelsPerRow *= w.out[d];
  int64_t budget = arch.localMemory.memorySize / 4;
  auto bytes = [&](int64_t rows) {
    auto [first, end] = w.inputRows(0, rows);
    return (end - first) * rowBytes + rows * pixelsPerRow * outChannels * arch.outputBytes();
  };
  int64_t rowsPerBand = (w.out[0] + planned - 1) / std::max<int64_t>(planned, 1);
  while (rowsPerBand > 1 && bytes(rowsPerBand) > budget)
    rowsPerBand = (rowsPerBand + 1) / 2;
  bool split = w.rank() >= 2 && planned > w.out[0];
  std::vector<Band> bands;
  auto paddedShape = cast<RankedTensorType>(padded.getType()).getShape();
  auto [rowFrom, rowTo] = w.inputRows(0, 1);
  int64_t copy = 0;
  int64_t bandCount = llvm::divideCeilSigned(w.out[0], rowsPerBand);
  // Only while a copy's rows' inputs fit a quarter of a core's memory, as a
  // band's do: they are no longer one window with shared halo rows. Bands
  // of two rows keep them: the first row waits for just one row of the
  // band above, and sharing the halo saved more (googlenet 0.6% faster).
  bool interleave = rowByRow && interleaveRows && rowsPerBand > 2 &&
                    rowsPerBand * (rowTo - rowFrom) * rowBytes <= budget;
  if (interleaved)
    *interleaved |= interleave;
  // The copies one sample's bands use.
  int64_t sampleCopies = 0;
  for (int64_t sample = 0; sample < w.batch; ++sample) {
    copy = 0;
    int64_t firstCopy = sample % copySets * sampleCopies;
    for (int64_t k = 0, first = 0; k < bandCount; ++k) {
      int64_t end = evenSplits ? (k + 1) * w.out[0] / bandCount
                             : std::min(w.out[0], first + rowsPerBand);
      int64_t parts =
          split ? std::min(w.out[1], planned / w.out[0] + (first < planned % w.out[0])) : 1;
      // Row by row only while the inputs of all its rows fit a core's memory:
      // they may all arrive before its first row runs.
      bool byRow = rowByRow &&
                   (end - first) * (rowTo - rowFrom) * rowBytes <= arch.localMemory.memorySize;
      int64_t rowsPerCompute = byRow ? 1 : end - first;
      for (int64_t part = 0; part < parts; ++part, ++copy) {
        // Its columns [p0, p1), in `halves` computes of its rows.
        int64_t p0 = w.rank() >= 2 ? part * w.out[1] / parts : 0;
        int64_t p1 = w.rank() >= 2 ? (part + 1) * w.out[1] / parts : 1;
        int64_t halves =
            rowByRow && p1 - p0 > 1 && (p1 - p0) * mvmsPerPixel >= kHalvedMvms ? 2 : 1;
        for (int64_t row = first; row < end; row += rowsPerCompute) {
          for (int64_t half = 0; half < halves; ++half) {
            Band band;
            band.first = row;
            band.end = std::min(end, row + rowsPerCompute);
            band.copy = firstCopy + (interleave ? row % bandCount : copy);
            band.sharesCopy =
                band.end - band.first < end - first || halves > 1 || copySets < w.batch;
            SmallVector<int64_t> offsets(paddedShape.size(), 0), sizes(paddedShape);
            offsets[0] = sample;
            sizes[0] = 1;
            std::tie(offsets[1], sizes[1]) = w.inputRows(band.first, band.end);
            sizes[1] -= offsets[1];
            int64_t cols = w.rank() >= 2 ? w.out[1] : 1;
            if (parts > 1 || halves > 1) {
              band.firstCol = p0 + half * (p1 - p0) / halves;
              cols = p0 + (half + 1) * (p1 - p0) / halves - band.firstCol;
              std::tie(offsets[2], sizes[2]) =
                  w.inputSpan(1, band.firstCol, band.firstCol + cols);
              sizes[2] -= offsets[2];
            }
            band.input = ArrayRef<int64_t>(sizes) == paddedShape
                             ? padded
                             : slice(b, loc, padded, offsets, sizes, sizes);
            band.view = w.over(ArrayRef<int64_t>(sizes).slice(1, w.rank()));
            band.laneDims.push_back(band.end - band.first);
            band.laneStrides.push_back(w.strides[0] * band.view.paddedStride[0]);
            for (size_t d = 1; d < w.rank(); ++d) {
              band.laneDims.push_back(d == 1 ? cols : w.out[d]);
              band.laneStrides.push_back(w.strides[d] * band.view.paddedStride[d]);
            }
            bands.push_back(std::move(band));
          }
        }
      }
      first = end;
    }
    sampleCopies = copy;
  }
  return bands;
}

/// `length` elements of each lane's window, from `offset` in it.
Value bandSlice(OpBuilder &b, Location loc, Value input, const Band &band, int64_t offset,
                int64_t length) {
  return b.create<LaneSliceOp>(loc, f32Tensor(b.getContext(), {length}), input,
                               b.getI64IntegerAttr(offset),
                               b.getDenseI64ArrayAttr(band.laneDims),
                               b.getDenseI64ArrayAttr(band.laneStrides));
}

/// The C channels of kernel position `position` of the lane's window.
Value windowChannels(OpBuilder &b, Location loc, Value input, const Band &band,
                     int64_t position, int64_t firstChannel, int64_t channels) {
  return bandSlice(b, loc, input, band, band.view.positionOffset(position) + firstChannel,
                   channels);
}

/// Concatenates per-band results [lanes_b, C] into the [1, out..., C] result.
Value assembleBands(OpBuilder &b, Location loc, ArrayRef<Value> bands,
                    RankedTensorType resultType) {
  int64_t channels = resultType.getShape().back();
  SmallVector<Value> rows;
  for (Value band : bands) {
    auto type = cast<RankedTensorType>(band.getType());
    rows.push_back(reshape(b, loc, band, {type.getNumElements() / channels, channels}));
  }
  Value all = rows.size() == 1 ? rows.front()
                               : b.create<tensor::ConcatOp>(loc, 0, rows).getResult();
  return reshape(b, loc, all, resultType.getShape());
}

/// A compute over the band's lanes; a band of one lane is a plain compute,
/// whose results get the [1, C] shape of a band's rows.
ComputeOpInterface bandCompute(OpBuilder &b, Location loc, const Band &band,
                               ValueRange laneInputs, ValueRange sharedInputs,
                               ArrayRef<TileAttr> tiles, int64_t outChannels,
                               function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                               ValueRange)>
                                   body) {
  return buildCompute(b, loc, band.lanes(), laneInputs, sharedInputs, tiles,
                      {f32Tensor(b.getContext(), {outChannels})}, body);
}

Value bandRows(OpBuilder &b, Location loc, ComputeOpInterface compute, int64_t lanes,
               int64_t channels) {
  return reshape(b, loc, compute->getResult(0), {lanes, channels});
}

/// Contiguous runs of a convolution window in patch order: `length`
/// elements at patch position `patch` come from window offset `source`.
struct Segment {
  int64_t patch, length, source;
};

SmallVector<Segment> windowSegments(const Window &w, int64_t firstChannel,
                                    int64_t channels) {
  SmallVector<Segment> segments;
  for (int64_t k = 0; k < w.kernelPositions(); ++k) {
    Segment s{k * channels, channels, w.positionOffset(k) + firstChannel};
    if (!segments.empty() && segments.back().source + segments.back().length == s.source)
      segments.back().length += channels;
    else
      segments.push_back(s);
  }
  return segments;
}

/// Patch elements [from, to) of the lane's window: one in-place slice, or
/// the concatenation of the pieces of several segments.
Value patchRange(OpBuilder &b, Location loc, Value input, const Band &band,
                 ArrayRef<Segment> segments, int64_t from, int64_t to) {
  SmallVector<Value> pieces;
  for (const Segment &s : segments) {
    int64_t start = std::max(from, s.patch), end = std::min(to, s.patch + s.length);
    if (start >= end)
      continue;
    pieces.push_back(bandSlice(b, loc, input, band, s.source + start - s.patch, end - start));
  }
  if (pieces.size() == 1)
    return pieces.front();
  return b.create<tensor::ConcatOp>(loc, 0, pieces);
}

Value sum(OpBuilder &b, Location loc, ArrayRef<Value> terms) {
  Value total = terms.front();
  for (Value term : terms.drop_front())
    total = b.create<AddOp>(loc, total, term);
  return total;
}

/// How many of a band's row tiles one compute takes. A core issues one mvm
/// at a time, so a compute holding all of them runs them one after the
/// other for every pixel; computes of fewer tiles run on several cores at
/// once, but each needs the band's input rows and sends its partial sums to
/// be added. The count that finishes the band first by the cost model (the
/// fewest computes among equals).
int64_t tilesPerBandCompute(const Arch &arch, int64_t rowTiles, int64_t maxTiles,
                            int64_t crossbars, int64_t lanes, int64_t cols,
                            int64_t inputBytes) {
  // Every compute of a band holds a copy of its input rows: large ones stay
  // in one compute, or the cores run out of local memory.
  if (inputBytes * 16 > arch.localMemory.memorySize)
    return maxTiles;
  CostModel cost(arch);
  int64_t rowBytes = arch.matrix.xbarRows * arch.inputBytes();
  double tileNs = cost.mvmNs(crossbars) + cost.localReadNs(rowBytes) +
                  cost.localWriteNs(rowBytes) + cost.vectorNs(2, cols);
  // Partial sums and inputs cross a hop or two of the mesh.
  double partialNs = cost.transferNs(0, 1, lanes * cols * arch.inputBytes()) +
                     lanes * cost.vectorNs(2, cols);
  double inputNs = cost.transferNs(0, 1, inputBytes);
  auto bandNs = [&](int64_t k) {
    int64_t computes = (rowTiles + k - 1) / k;
    return lanes * k * tileNs + (computes - 1) * (partialNs + inputNs);
  };
  int64_t best = maxTiles;
  for (int64_t k = maxTiles - 1; k >= 1; --k)
    if (bandNs(k) < bandNs(best))
      best = k;
  return best;
}

/// A dense convolution of one group: input channels [c0, c0 + cg), its
/// weights a [K * cg, og] matrix in (kernel position, channel) row order.
SmallVector<Value> lowerDenseGroup(ConversionPatternRewriter &rewriter, Location loc,
                                   LoweringContext &lowering, const Window &w,
                                   ArrayRef<Band> bands, GlobalOp weights, Value bias,
                                   int64_t c0, int64_t cg, int64_t og,
                                   SmallVectorImpl<Value> *passedPixels = nullptr) {
  const Arch &arch = lowering.arch;
  MLIRContext *context = rewriter.getContext();
  int64_t patch = w.kernelPositions() * cg;
  int64_t tileRows = arch.matrix.xbarRows;
  DenseTiling tiling = denseTiling(arch, patch, og);
  int64_t rowTiles = tiling.rowTiles, blocks = tiling.blocks, width = tiling.width;
  auto weightsRef = FlatSymbolRefAttr::get(weights.getSymNameAttr());
  // The computes of one copy's tiles, by (copy, column block, first tile).
  std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> copyIds;
  std::map<std::pair<int64_t, int64_t>, int64_t> copyTiles; // by (copy, column block)

  SmallVector<Value> bandResults;
  for (const Band &band : bands) {
    int64_t lanes = band.lanes();
    SmallVector<Segment> segments = windowSegments(band.view, c0, cg);
    SmallVector<Value> columnBlocks;
    for (int64_t c = 0; c < blocks; ++c) {
      int64_t col = c * width, cols = tiling.columns(c, og);
      int64_t crossbars = tiling.crossbars(c, og);
      // At most the tiles of one core's crossbars; with evenSplits, as many
      // in each compute of a copy as the fewest computes allow, so that no
      // core of the copy takes more of every round than it must.
      int64_t tilesPerCompute =
          std::min(rowTiles, std::max<int64_t>(1, arch.matrix.xbarArrayCount / crossbars));
      if (lowering.evenSplits)
        tilesPerCompute = llvm::divideCeilSigned(
            rowTiles, llvm::divideCeilSigned(rowTiles, tilesPerCompute));
      // The bands of one copy cut its tiles alike (the first decides), so
      // that each piece of the copy is one set of crossbars.
      auto [tilesOfCopy, isNew] = copyTiles.try_emplace({band.copy, c}, tilesPerCompute);
      if (lowering.oneInference && isNew)
        tilesOfCopy->second = tilesPerBandCompute(
            arch, rowTiles, tilesPerCompute, crossbars, lanes, cols,
            cast<ShapedType>(band.input.getType()).getNumElements() * arch.inputBytes());
      tilesPerCompute = tilesOfCopy->second;
      auto blockType = f32Tensor(context, {cols});
      Value biasSlice = bias ? slice(rewriter, loc, bias, {col}, {cols}, {cols}) : Value();
      SmallVector<Value> partials;
      for (int64_t t0 = 0; t0 < rowTiles; t0 += tilesPerCompute) {
        int64_t t1 = std::min(rowTiles, t0 + tilesPerCompute);
        SmallVector<TileAttr> tiles;
        for (int64_t t = t0; t < t1; ++t) {
          int64_t row = t * tileRows;
          tiles.push_back(TileAttr::get(context, weightsRef, row, col,
                                        std::min(tileRows, patch - row), cols));
        }
        // With all row tiles in one compute, it also adds the bias.
        bool complete = t0 == 0 && t1 == rowTiles;
        // The band's first compute passes its pixels on, when asked to.
        bool passes = passedPixels && c == 0 && t0 == 0;
        // A compute of some of the row tiles reads only the input rows of
        // their kernel rows: it receives just those (one inference 3 to 13%
        // shorter on four of the six benchmark models; of the looping
        // programs, only resnet18's changed, its fill slightly shorter).
        Value input = band.input;
        SmallVector<Segment> pieceSegments(segments);
        if (!complete && !passes) {
          int64_t inner = w.kernelPositions() / w.kernel[0];
          int64_t firstRow = t0 * tileRows / cg / inner * w.dilations[0];
          int64_t lastRow = (std::min(patch, t1 * tileRows) - 1) / cg / inner * w.dilations[0];
          auto shape = cast<RankedTensorType>(band.input.getType()).getShape();
          int64_t endRow = (band.laneDims[0] - 1) * w.strides[0] + lastRow + 1;
          if (firstRow > 0 || endRow < shape[1]) {
            SmallVector<int64_t> offsets(shape.size(), 0), sizes(shape);
            offsets[1] = firstRow;
            sizes[1] = endRow - firstRow;
            input = slice(rewriter, loc, band.input, offsets, sizes, sizes);
            for (Segment &segment : pieceSegments)
              segment.source -= firstRow * band.view.paddedStride[0];
          }
        }
        SmallVector<Value> shared = {input};
        if (complete && biasSlice)
          shared.push_back(biasSlice);
        int64_t ownOffset = 0, ownCount = 0;
        if (passes)
          std::tie(ownOffset, ownCount) = *band.view.ownPixels();
        SmallVector<Type> resultTypes = {blockType};
        if (passes)
          resultTypes.push_back(f32Tensor(context, {ownCount * cg}));
        ComputeOpInterface compute = buildCompute(
            rewriter, loc, lanes, {}, shared, tiles, resultTypes,
            [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
              SmallVector<Value> products;
              for (int64_t t = t0; t < t1; ++t) {
                int64_t from = t * tileRows, to = std::min(patch, from + tileRows);
                Value input = patchRange(b, l, args[0], band, pieceSegments, from, to);
                products.push_back(
                    b.create<MVMOp>(l, blockType, input, b.getI64IntegerAttr(t - t0)));
              }
              if (complete && biasSlice)
                products.push_back(args[1]);
              SmallVector<Value> results = {sum(b, l, products)};
              if (passes)
                results.push_back(bandSlice(b, l, args[0], band, ownOffset + c0, ownCount * cg));
              return results;
            });
        if (passes)
          passedPixels->push_back(
              reshape(rewriter, loc, compute->getResult(1), {lanes * ownCount, cg}));
        if (band.sharesCopy) {
          auto [it, isNew] = copyIds.try_emplace({band.copy, c, t0}, lowering.nextCopy);
          lowering.nextCopy += isNew;
          dialectOf(compute).getCopyAttrHelper().setAttr(
              compute, rewriter.getI64IntegerAttr(it->second));
        }
        partials.push_back(bandRows(rewriter, loc, compute, lanes, cols));
      }
      // The partial sums of the row chunks, reduced with the bias.
      Value block = partials.front();
      if (partials.size() > 1) {
        std::optional<RowOperand> biasOperand;
        if (biasSlice)
          biasOperand = RowOperand{biasSlice, true};
        block = sumTree(rewriter, loc, lowering, partials, biasOperand,
                        f32Tensor(context, {lanes, cols}));
      }
      columnBlocks.push_back(block);
    }
    bandResults.push_back(columnBlocks.size() == 1
                              ? columnBlocks.front()
                              : rewriter.create<tensor::ConcatOp>(loc, 1, columnBlocks)
                                    .getResult());
  }
  return bandResults;
}

/// The input `x` of convolution `op`, or, when a convolution beside it
/// passes that input on (LoweringContext::delays), the input as it passed it.
static Value convInput(OpBuilder &b, const LoweringContext &lowering, Operation *op,
                       Value x) {
  Operation *via = lowering.delays.lookup(op);
  Value passed = via ? lowering.passedInput.lookup(via) : Value();
  if (!passed)
    return x;
  return reshape(b, op->getLoc(), passed, cast<RankedTensorType>(x.getType()).getShape());
}

struct LowerConv : public LoweringPattern<onnx::ConvOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::ConvOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!op.getChannelsLast() || !op.getKernelShape() || op.getAutoPad() != "NOTSET")
      return op.emitError("Conv is not in channels-last normal form (run "
                          "onnx-canonicalize and onnx-channels-last)");
    // Viewed: they are copied once, into the layout of the crossbars.
    std::optional<ConstantView> weights = constantViewOf(adaptor.getW());
    if (!weights)
      return op.emitError("the weights (input W) must be a constant");
    std::optional<ref::Tensor> bias;
    if (adaptor.getB() && !(bias = constantOf(adaptor.getB())))
      return op.emitError("the bias (input B) must be a constant");
    FailureOr<Window> window =
        windowOf(op, op.getX(), op.getY(), *op.getKernelShape(), op.getStrides(),
                 op.getPads(), op.getDilations());
    if (failed(window))
      return failure();
    const Window &w = *window;
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t outChannels = weights->shape[0], group = op.getGroup();
    int64_t cg = w.channels / group, og = outChannels / group;
    int64_t positions = w.kernelPositions();
    std::string name = nameOf(op, "conv");
    Value padded =
        paddedInput(rewriter, loc, convInput(rewriter, lowering, op, adaptor.getX()), w, 0.0f);
    int64_t mvmsPerPixel = 0;
    if (!(cg == 1 && og == 1)) {
      DenseTiling tiling = denseTiling(lowering.arch, positions * cg, og);
      mvmsPerPixel = group * tiling.rowTiles * tiling.blocks;
    }
    std::vector<Band> bands = bandsOf(rewriter, loc, padded, w, outChannels, lowering.arch,
                                      plannedBands(op), lowering.evenSplits,
                                      lowering.oneInference, mvmsPerPixel,
                                      lowering.interleaveRows, &lowering.rowsInterleaved);
    Value biasValue =
        bias ? lowering.constant(rewriter, loc, name + "_bias", *bias) : Value();

    SmallVector<Value> bandResults;
    // A pipeline's sum that skips this layer reads its input from here.
    // Only windows wider than their own pixels pass it on: behind a 1x1
    // convolution (mobilenet_v2's inverted residuals) the pipeline got
    // slower.
    std::optional<std::pair<int64_t, int64_t>> own = w.ownPixels();
    bool forSkip = llvm::any_of(lowering.skips,
                                [&](const auto &skip) { return skip.second.second == op; });
    bool forBranch = llvm::any_of(lowering.delays,
                                  [&](const auto &delay) { return delay.second == op; });
    bool passes = group == 1 && !(cg == 1 && og == 1) && own &&
                  ((forSkip && w.kernelPositions() > own->second) || forBranch);
    SmallVector<Value> passedPixels;
    if (cg == 1 && og == 1) {
      // Depthwise: a multiply-add per kernel position on the vector unit,
      // with the weights as [K, C] rows.
      std::vector<float> rows(positions * w.channels);
      for (int64_t c = 0; c < w.channels; ++c)
        for (int64_t k = 0; k < positions; ++k)
          rows[k * w.channels + c] = weights->data[c * positions + k];
      Value kernel = lowering.constant(rewriter, loc, name + "_depthwise",
                                       ref::Tensor({positions * w.channels}, rows));
      int64_t channels = w.channels;
      for (const Band &band : bands) {
        SmallVector<Value> shared = {band.input, kernel};
        if (biasValue)
          shared.push_back(biasValue);
        ComputeOpInterface compute = bandCompute(
            rewriter, loc, band, {}, shared, {}, channels,
            [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
              SmallVector<Value> terms;
              for (int64_t k = 0; k < positions; ++k) {
                Value x = windowChannels(b, l, args[0], band, k, 0, channels);
                Value weight = slice(b, l, args[1], {k * channels}, {channels}, {channels});
                terms.push_back(b.create<MulOp>(l, x, weight));
              }
              if (biasValue)
                terms.push_back(args[2]);
              return {sum(b, l, terms)};
            });
        bandResults.push_back(bandRows(rewriter, loc, compute, band.lanes(), channels));
      }
    } else {
      // Dense per group: the group's weights as (kernel position, channel)
      // rows of a [K * cg, og] matrix.
      SmallVector<SmallVector<Value>> groups;
      for (int64_t g = 0; g < group; ++g) {
        std::vector<float> matrix(positions * cg * og);
        for (int64_t o = 0; o < og; ++o)
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t k = 0; k < positions; ++k)
              matrix[(k * cg + c) * og + o] =
                  weights->data[((g * og + o) * cg + c) * positions + k];
        auto type = f32Tensor(getContext(), {positions * cg, og});
        std::string groupName = group > 1 ? name + "_g" + std::to_string(g) : name;
        GlobalOp global = lowering.addGlobal(
            rewriter, loc, groupName + "_weights",
            makeFloatConstant(type, std::move(matrix), groupName));
        Value groupBias =
            biasValue ? slice(rewriter, loc, biasValue, {g * og}, {og}, {og}) : Value();
        groups.push_back(lowerDenseGroup(rewriter, loc, lowering, w, bands, global,
                                         groupBias, g * cg, cg, og,
                                         passes ? &passedPixels : nullptr));
      }
      for (size_t b = 0; b < bands.size(); ++b) {
        SmallVector<Value> parts;
        for (auto &perBand : groups)
          parts.push_back(perBand[b]);
        bandResults.push_back(
            parts.size() == 1 ? parts.front()
                              : rewriter.create<tensor::ConcatOp>(loc, 1, parts).getResult());
      }
    }
    if (!passedPixels.empty())
      lowering.passedInput[op] = assembleBands(
          rewriter, loc, passedPixels, cast<RankedTensorType>(adaptor.getX().getType()));
    rewriter.replaceOp(op, assembleBands(rewriter, loc, bandResults, resultType));
    return success();
  }
};

/// `parts` (each [1, A_0, ..., A_n-1, C]) interleaved along spatial
/// dimension `d`: element i of part r goes to position i * parts + r.
Value interleave(OpBuilder &b, Location loc, ArrayRef<Value> parts, size_t d) {
  if (parts.size() == 1)
    return parts.front();
  auto shape = cast<RankedTensorType>(parts.front().getType()).getShape();
  SmallVector<int64_t> unit(shape);
  unit.insert(unit.begin() + d + 2, 1);
  SmallVector<Value> units;
  for (Value part : parts)
    units.push_back(reshape(b, loc, part, unit));
  Value stacked = b.create<tensor::ConcatOp>(loc, d + 2, units);
  SmallVector<int64_t> merged(shape);
  merged[d + 1] *= parts.size();
  return reshape(b, loc, stacked, merged);
}

/// ConvTranspose as one dense convolution per output phase
/// (TransposedWindow), all reading one padded view of the input; the
/// phases' outputs are interleaved and cropped to the result.
struct LowerConvTranspose : public LoweringPattern<onnx::ConvTransposeOp> {
  using LoweringPattern::LoweringPattern;
  LogicalResult matchAndRewrite(onnx::ConvTransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!op.getChannelsLast())
      return op.emitError("ConvTranspose is not channels-last (run onnx-channels-last)");
    // Viewed: they are copied once, into the layout of the crossbars.
    std::optional<ConstantView> weights = constantViewOf(adaptor.getW());
    if (!weights)
      return op.emitError("the weights (input W) must be a constant");
    std::optional<ref::Tensor> bias;
    if (adaptor.getB() && !(bias = constantOf(adaptor.getB())))
      return op.emitError("the bias (input B) must be a constant");
    auto inType = cast<RankedTensorType>(op.getX().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    FailureOr<TransposedWindow> transposed = transposedWindow(op);
    if (failed(transposed))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *context = getContext();
    size_t rank = transposed->outputs.size();
    int64_t channels = inType.getShape().back(), group = op.getGroup();
    int64_t cg = channels / group, og = weights->shape[1];
    int64_t outChannels = og * group;
    int64_t kernelSize = 1;
    for (int64_t k : ArrayRef<int64_t>(weights->shape).drop_front(2))
      kernelSize *= k;
    std::string name = nameOf(op, "convtranspose");

    int64_t batch = inType.getDimSize(0);
    Window padded;
    padded.batch = batch;
    padded.channels = channels;
    padded.in.assign(inType.getShape().begin() + 1, inType.getShape().end() - 1);
    padded.low = transposed->low;
    padded.high = transposed->high;
    for (size_t d = 0; d < rank; ++d)
      padded.padded.push_back(padded.in[d] + padded.low[d] + padded.high[d]);
    Value input = paddedInput(rewriter, loc, adaptor.getX(), padded, 0.0f);
    Value biasValue =
        bias ? lowering.constant(rewriter, loc, name + "_bias", *bias) : Value();
    auto phaseType = f32Tensor(context, [&] {
      SmallVector<int64_t> shape = {batch};
      llvm::append_range(shape, transposed->outputs);
      shape.push_back(outChannels);
      return shape;
    }());

    SmallVector<Value> phaseResults;
    for (auto [p, phase] : llvm::enumerate(transposed->phases)) {
      std::string phaseName = name + "_p" + std::to_string(p);
      if (llvm::is_contained(phase.kernel, 0)) {
        // No kernel position reaches these outputs: the bias alone.
        std::vector<float> values(phaseType.getNumElements(), 0.0f);
        for (size_t i = 0; bias && i < values.size(); ++i)
          values[i] = bias->data[i % outChannels];
        phaseResults.push_back(lowering.constant(
            rewriter, loc, phaseName + "_bias",
            ref::Tensor(phaseType.getShape().vec(), std::move(values))));
        continue;
      }
      // The phase: a stride-1 window over its slice of the padded input.
      Window w;
      w.batch = batch;
      w.channels = channels;
      w.out = transposed->outputs;
      w.kernel = phase.kernel;
      w.dilations = phase.dilations;
      w.strides.assign(rank, 1);
      w.low.assign(rank, 0);
      w.high.assign(rank, 0);
      for (size_t d = 0; d < rank; ++d)
        w.in.push_back(w.out[d] + (w.kernel[d] - 1) * w.dilations[d]);
      w = w.over(w.in);
      SmallVector<int64_t> offsets = {0}, sizes = {batch};
      llvm::append_range(offsets, phase.start);
      llvm::append_range(sizes, w.in);
      offsets.push_back(0);
      sizes.push_back(channels);
      Value phaseInput = ArrayRef<int64_t>(sizes) == cast<ShapedType>(input.getType()).getShape()
                             ? input
                             : slice(rewriter, loc, input, offsets, sizes, sizes);
      // The ConvTranspose kernel position of each of the phase's positions.
      int64_t positions = w.kernelPositions();
      SmallVector<int64_t> kernelIndex(positions);
      for (int64_t u = 0; u < positions; ++u) {
        int64_t index = 0;
        for (size_t d = 0, rest = u; d < rank; ++d) {
          int64_t inner = 1;
          for (size_t e = d + 1; e < rank; ++e)
            inner *= w.kernel[e];
          index = index * weights->shape[d + 2] + phase.taps[d][rest / inner];
          rest %= inner;
        }
        kernelIndex[u] = index;
      }
      DenseTiling tiling = denseTiling(lowering.arch, positions * cg, og);
      std::vector<Band> bands =
          bandsOf(rewriter, loc, phaseInput, w, outChannels, lowering.arch, plannedBands(op),
                  lowering.evenSplits, lowering.oneInference,
                  group * tiling.rowTiles * tiling.blocks, lowering.interleaveRows,
                  &lowering.rowsInterleaved);
      SmallVector<SmallVector<Value>> groups;
      for (int64_t g = 0; g < group; ++g) {
        // Rows (phase position, channel), as a convolution's; W is [C, og, K...].
        std::vector<float> matrix(positions * cg * og);
        for (int64_t u = 0; u < positions; ++u)
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t o = 0; o < og; ++o)
              matrix[(u * cg + c) * og + o] =
                  weights->data[((g * cg + c) * og + o) * kernelSize + kernelIndex[u]];
        std::string groupName = group > 1 ? phaseName + "_g" + std::to_string(g) : phaseName;
        GlobalOp global = lowering.addGlobal(
            rewriter, loc, groupName + "_weights",
            makeFloatConstant(f32Tensor(context, {positions * cg, og}), std::move(matrix),
                              groupName));
        Value groupBias =
            biasValue ? slice(rewriter, loc, biasValue, {g * og}, {og}, {og}) : Value();
        groups.push_back(lowerDenseGroup(rewriter, loc, lowering, w, bands, global, groupBias,
                                         g * cg, cg, og));
      }
      SmallVector<Value> bandResults;
      for (size_t b = 0; b < bands.size(); ++b) {
        SmallVector<Value> parts;
        for (auto &perBand : groups)
          parts.push_back(perBand[b]);
        bandResults.push_back(
            parts.size() == 1 ? parts.front()
                              : rewriter.create<tensor::ConcatOp>(loc, 1, parts).getResult());
      }
      phaseResults.push_back(assembleBands(rewriter, loc, bandResults, phaseType));
    }
    // Interleave the phases, the last spatial dimension first: its
    // remainders vary fastest among the phases.
    for (size_t d = rank; d-- > 0;) {
      int64_t s = transposed->strides[d];
      SmallVector<Value> merged;
      for (size_t first = 0; first < phaseResults.size(); first += s)
        merged.push_back(interleave(rewriter, loc,
                                    ArrayRef<Value>(phaseResults).slice(first, s), d));
      phaseResults = std::move(merged);
    }
    Value all = phaseResults.front();
    SmallVector<int64_t> offsets = {0};
    llvm::append_range(offsets, transposed->crop);
    offsets.push_back(0);
    if (cast<RankedTensorType>(all.getType()) != resultType)
      all = slice(rewriter, loc, all, offsets, resultType.getShape(), resultType.getShape());
    rewriter.replaceOp(op, all);
    return success();
  }
};

/// The smallest value lldi can write: the padding of max pooling.
constexpr float kMaxPoolPad = -2147483648.0f;

template <typename PoolOp>
struct LowerPool : public LoweringPattern<PoolOp> {
  using LoweringPattern<PoolOp>::LoweringPattern;
  LogicalResult matchAndRewrite(PoolOp op, typename PoolOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<PoolOp, onnx::MaxPoolOp>;
    if (!op.getChannelsLast() || !op.getKernelShape() || op.getAutoPad() != "NOTSET")
      return op.emitError("pooling is not in channels-last normal form (run "
                          "onnx-canonicalize and onnx-channels-last)");
    std::optional<ArrayRef<int64_t>> dilations;
    if constexpr (isMax)
      dilations = op.getDilations();
    FailureOr<Window> window = windowOf(op, op.getX(), op.getY(), *op.getKernelShape(),
                                        op.getStrides(), op.getPads(), dilations);
    if (failed(window))
      return failure();
    const Window &w = *window;
    Location loc = op.getLoc();
    LoweringContext &lowering = this->lowering;
    int64_t channels = w.channels, positions = w.kernelPositions();
    Value padded = paddedInput(rewriter, loc, adaptor.getX(), w, isMax ? kMaxPoolPad : 0.0f);
    std::vector<Band> bands = bandsOf(rewriter, loc, padded, w, channels, lowering.arch,
                                      plannedBands(op), lowering.evenSplits);
    std::string name = nameOf(op, "pool");

    SmallVector<Value> bandResults;
    for (const Band &band : bands) {
      SmallVector<Value> laneInputs, shared = {band.input};
      if constexpr (!isMax) {
        // 1 / (the elements a window averages), for every lane.
        bool includePad = op.getCountIncludePad();
        std::vector<float> reciprocal;
        for (int64_t lane = 0; lane < band.lanes(); ++lane) {
          SmallVector<int64_t> position(w.rank());
          for (int64_t d = w.rank() - 1, rest = lane; d >= 0; --d) {
            position[d] = rest % band.laneDims[d] +
                          (d == 0 ? band.first : d == 1 ? band.firstCol : 0);
            rest /= band.laneDims[d];
          }
          int64_t count = 1;
          for (size_t d = 0; d < w.rank(); ++d) {
            int64_t start = position[d] * w.strides[d] - w.low[d];
            int64_t lowLimit = includePad ? -w.low[d] : 0;
            int64_t highLimit =
                includePad ? w.in[d] + (op.getPads() ? (*op.getPads())[w.rank() + d] : 0)
                           : w.in[d];
            int64_t inside = 0;
            for (int64_t k = 0; k < w.kernel[d]; ++k)
              inside += start + k >= lowLimit && start + k < highLimit;
            count *= inside;
          }
          reciprocal.push_back(1.0f / std::max<int64_t>(count, 1));
        }
        bool uniform = llvm::all_equal(reciprocal);
        if (uniform)
          shared.push_back(lowering.constant(rewriter, loc, name + "_scale",
                                             ref::Tensor::filled({channels}, reciprocal[0])));
        else {
          std::vector<float> rows;
          for (float r : reciprocal)
            rows.insert(rows.end(), channels, r);
          laneInputs.push_back(lowering.constant(
              rewriter, loc, name + "_scale",
              ref::Tensor({band.lanes(), channels}, std::move(rows))));
        }
      }
      bool laneScale = !laneInputs.empty();
      ComputeOpInterface compute = bandCompute(
          rewriter, loc, band, laneInputs, shared, {}, channels,
          [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
            // Arguments: the lane's scale (if per lane), then the band input
            // and a shared scale.
            Value input = args[laneScale ? 1 : 0];
            Value result = windowChannels(b, l, input, band, 0, 0, channels);
            for (int64_t k = 1; k < positions; ++k) {
              Value x = windowChannels(b, l, input, band, k, 0, channels);
              result = isMax ? b.create<MaxOp>(l, result, x).getResult()
                             : b.create<AddOp>(l, result, x).getResult();
            }
            if (!isMax)
              result = b.create<MulOp>(l, result, laneScale ? args[0] : args[1]);
            return {result};
          });
      bandResults.push_back(bandRows(rewriter, loc, compute, band.lanes(), channels));
    }
    rewriter.replaceOp(op, assembleBands(rewriter, loc, bandResults,
                                         cast<RankedTensorType>(op.getType())));
    return success();
  }
};

/// Global pooling of P pixels (per sample of the batch): groups of G pixels
/// (G dividing P, at most 64) are reduced by a compute each, their results
/// by another.
template <typename PoolOp>
struct LowerGlobalPool : public LoweringPattern<PoolOp> {
  using LoweringPattern<PoolOp>::LoweringPattern;
  LogicalResult matchAndRewrite(PoolOp op, typename PoolOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<PoolOp, onnx::GlobalMaxPoolOp>;
    if (!op.getChannelsLast())
      return op.emitError("global pooling is not channels-last (run onnx-channels-last)");
    auto inType = cast<RankedTensorType>(op.getX().getType());
    int64_t batch = inType.getDimSize(0);
    int64_t channels = inType.getShape().back();
    int64_t pixels = inType.getNumElements() / batch / channels;
    Location loc = op.getLoc();
    auto reduce = [&](OpBuilder &b, Location l, Value input, int64_t count,
                      ArrayRef<int64_t> laneDims, ArrayRef<int64_t> laneStrides) {
      Value result;
      for (int64_t p = 0; p < count; ++p) {
        Value x = b.create<LaneSliceOp>(l, f32Tensor(b.getContext(), {channels}), input,
                                        b.getI64IntegerAttr(p * channels),
                                        b.getDenseI64ArrayAttr(laneDims),
                                        b.getDenseI64ArrayAttr(laneStrides));
        result = !result ? x
                 : isMax ? b.create<MaxOp>(l, result, x).getResult()
                         : b.create<AddOp>(l, result, x).getResult();
      }
      return result;
    };
    int64_t group = 1;
    for (int64_t g = std::min<int64_t>(64, pixels); g >= 1; --g)
      if (pixels % g == 0) {
        group = g;
        break;
      }
    Value scale;
    // The pooled [C] row of one sample's pixels.
    auto poolSample = [&](Value input) -> Value {
      int64_t count = pixels;
      if (group < pixels && group > 1) {
        // Each group on a core of its own if need be: one core reducing all
        // of them would also receive all the pixels.
        count = pixels / group;
        Value rows = reshape(rewriter, loc, input, {pixels, channels});
        SmallVector<Value> partials;
        for (int64_t g = 0; g < count; ++g) {
          Value pixelsOfGroup =
              slice(rewriter, loc, rows, {g * group, 0}, {group, channels}, {group, channels});
          ComputeOpInterface partial = buildCompute(
              rewriter, loc, 1, {}, {pixelsOfGroup}, {},
              {f32Tensor(rewriter.getContext(), {channels})},
              [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
                return {reduce(b, l, args[0], group, {}, {})};
              });
          partials.push_back(reshape(rewriter, loc, partial->getResult(0), {1, channels}));
        }
        input = rewriter.create<tensor::ConcatOp>(loc, 0, partials).getResult();
      }
      SmallVector<Value> shared = {input};
      if (!isMax && !scale)
        scale = this->lowering.constant(rewriter, loc, nameOf(op, "pool") + "_scale",
                                        ref::Tensor::filled({channels}, 1.0f / pixels));
      if (!isMax)
        shared.push_back(scale);
      ComputeOpInterface total = buildCompute(
          rewriter, loc, 1, {}, shared, {}, {f32Tensor(rewriter.getContext(), {channels})},
          [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
            Value result = reduce(b, l, args[0], count, {}, {});
            if (!isMax)
              result = b.create<MulOp>(l, result, args[1]);
            return {result};
          });
      return total->getResult(0);
    };
    Value pooled;
    if (batch == 1) {
      pooled = poolSample(adaptor.getX());
    } else {
      // One reduction per sample, each on its own pixels.
      Value rows = reshape(rewriter, loc, adaptor.getX(), {batch * pixels, channels});
      SmallVector<Value> samples;
      for (int64_t n = 0; n < batch; ++n) {
        Value sample =
            slice(rewriter, loc, rows, {n * pixels, 0}, {pixels, channels}, {pixels, channels});
        samples.push_back(reshape(rewriter, loc, poolSample(sample), {1, channels}));
      }
      pooled = rewriter.create<tensor::ConcatOp>(loc, 0, samples).getResult();
    }
    rewriter.replaceOp(op, reshape(rewriter, loc, pooled,
                                   cast<RankedTensorType>(op.getType()).getShape()));
    return success();
  }
};
} // namespace

FailureOr<TransposedWindow> lowering::transposedWindow(onnx::ConvTransposeOp op) {
  llvm::Expected<ref::ConvTransposeAttrs> attrs = op.resolved();
  if (!attrs) {
    op.emitError() << llvm::toString(attrs.takeError());
    return failure();
  }
  auto inType = cast<RankedTensorType>(op.getX().getType());
  ArrayRef<int64_t> input = inType.getShape().drop_front().drop_back();
  ArrayRef<int64_t> kernel = cast<RankedTensorType>(op.getW().getType()).getShape().drop_front(2);
  size_t rank = input.size();
  TransposedWindow result;
  result.strides.assign(attrs->strides.begin(), attrs->strides.end());
  // One spatial dimension of a phase.
  struct DimPhase {
    SmallVector<int64_t> taps;
    int64_t dilation, start;
  };
  SmallVector<SmallVector<DimPhase>> perDim(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t s = attrs->strides[d], dl = attrs->dilations[d];
    int64_t begin = attrs->beginPads[d], output = attrs->output[d];
    // Output o is position t = o + begin of the full transposed output;
    // phase r holds t = j * s + r for j in [first, first + Q).
    int64_t first = llvm::divideFloorSigned(begin, s);
    int64_t q = llvm::divideCeilSigned(begin + output, s) - first;
    result.outputs.push_back(q);
    result.crop.push_back(begin - first * s);
    int64_t low = 0, high = 0;
    for (int64_t r = 0; r < s; ++r) {
      // Kernel position k reaches t when k * dl = m * s + r; then t reads
      // input j - m. The taps by decreasing m read increasing input
      // positions, `step` apart.
      DimPhase phase;
      SmallVector<int64_t> shifts;
      for (int64_t k = kernel[d] - 1; k >= 0; --k)
        if (k * dl >= r && (k * dl - r) % s == 0) {
          phase.taps.push_back(k);
          shifts.push_back((k * dl - r) / s);
        }
      phase.dilation = shifts.size() > 1 ? shifts[0] - shifts[1] : 1;
      // A remainder no kernel position reaches (a stride larger than the
      // kernel's reach) has only the bias: no input.
      if (shifts.empty()) {
        phase.start = 0;
        perDim[d].push_back(std::move(phase));
        continue;
      }
      phase.start = first - shifts.front();
      int64_t end = phase.start + (q - 1) + (int64_t(shifts.size()) - 1) * phase.dilation + 1;
      low = std::max(low, -phase.start);
      high = std::max(high, end - input[d]);
      perDim[d].push_back(std::move(phase));
    }
    result.low.push_back(low);
    result.high.push_back(high);
    for (DimPhase &phase : perDim[d])
      if (!phase.taps.empty())
        phase.start += low;
  }
  // The phases of all dimensions, row-major over the remainders.
  result.phases.push_back({});
  for (size_t d = 0; d < rank; ++d) {
    std::vector<TransposedWindow::Phase> next;
    for (const TransposedWindow::Phase &outer : result.phases)
      for (const DimPhase &inner : perDim[d]) {
        TransposedWindow::Phase phase = outer;
        phase.kernel.push_back(inner.taps.size());
        phase.dilations.push_back(inner.dilation);
        phase.start.push_back(inner.start);
        phase.taps.push_back(inner.taps);
        next.push_back(std::move(phase));
      }
    result.phases = std::move(next);
  }
  return result;
}

bool lowering::isDepthwise(onnx::ConvOp conv) {
  auto w = cast<RankedTensorType>(conv.getW().getType());
  return w.getDimSize(1) == 1 && w.getDimSize(0) == conv.getGroup();
}

/// Work that takes a stage of its own in a pipeline: a product with a
/// constant matrix (depthwise convolutions run on the vector unit).
static bool hasWeights(Operation *op) {
  if (auto conv = dyn_cast<onnx::ConvOp>(op))
    return !isDepthwise(conv);
  if (auto matmul = dyn_cast<onnx::MatMulOp>(op))
    return matmul.getB().getDefiningOp<onnx::ConstantOp>() != nullptr;
  return isa<onnx::GemmOp>(op);
}

/// A value, before its pixels were regrouped (onnx-pack-pixels).
static Value ungrouped(Value value) {
  auto reshape = value.getDefiningOp<onnx::ReshapeOp>();
  return reshape ? reshape.getData() : value;
}

void lowering::planPassThroughs(ModuleOp module, LoweringContext &lowering) {
  if (lowering.oneInference)
    return;
  // The depth of a value: the most layers with weights on a path to it.
  DenseMap<Value, int64_t> depth;
  auto deepestInput = [&](Operation *op) {
    Value deepest;
    for (Value input : op->getOperands())
      if (!deepest || depth.lookup(input) > depth.lookup(deepest))
        deepest = input;
    return deepest;
  };
  // The layer with weights on the deepest path to `v`, if it is at `layerDepth`.
  auto layerAt = [&](Value v, int64_t layerDepth) -> Operation * {
    while (Operation *def = v.getDefiningOp()) {
      if (depth.lookup(v) < layerDepth)
        return nullptr;
      if (hasWeights(def) && depth.lookup(v) == layerDepth)
        return def;
      v = deepestInput(def);
      if (!v)
        return nullptr;
    }
    return nullptr;
  };
  SmallVector<std::pair<Operation *, Operation *>> delayed; // (reader, passer)
  module.walk([&](Operation *op) {
    int64_t d = 0;
    for (Value input : op->getOperands())
      d = std::max(d, depth.lookup(input));
    d += hasWeights(op);
    for (Value result : op->getResults())
      depth[result] = d;
    if (auto add = dyn_cast<onnx::AddOp>(op);
        add && std::abs(depth.lookup(add.getA()) - depth.lookup(add.getB())) == 2) {
      unsigned early = depth.lookup(add.getA()) < depth.lookup(add.getB()) ? 0 : 1;
      Value skipped = op->getOperand(early);
      // The layer between, on the other operand's deepest path, must read
      // the skipped operand itself.
      auto conv = dyn_cast_or_null<onnx::ConvOp>(
          layerAt(op->getOperand(1 - early), depth.lookup(skipped) + 1));
      if (conv && ungrouped(conv.getX()) == ungrouped(skipped))
        lowering.skips[op] = {early, conv};
      return;
    }
    if (!isa<onnx::ConcatOp>(op))
      return;
    // A branch one layer shallower than the deepest, whose convolution reads
    // what a deeper branch's first convolution reads. (Passing the input
    // of a pooling branch on as well made googlenet's pipeline slower.)
    int64_t deepest = 0;
    for (Value input : op->getOperands())
      deepest = std::max(deepest, depth.lookup(input));
    SmallVector<std::pair<Operation *, Value>> shallow; // (convolution, the input it reads)
    DenseSet<Operation *> shallowLayers;
    for (Value input : op->getOperands()) {
      if (deepest < 2 || depth.lookup(input) != deepest - 1)
        continue;
      auto conv = dyn_cast_or_null<onnx::ConvOp>(layerAt(input, deepest - 1));
      if (!conv)
        continue;
      shallowLayers.insert(conv);
      shallow.push_back({conv, ungrouped(conv.getX())});
    }
    // A convolution of a deeper branch that reads the same input passes it.
    for (auto [reader, x] : shallow) {
      SmallVector<Operation *> users(x.getUsers());
      for (Operation *user : x.getUsers())
        if (isa<onnx::ReshapeOp>(user))
          llvm::append_range(users, user->getUsers());
      for (Operation *user : users) {
        auto conv = dyn_cast<onnx::ConvOp>(user);
        if (conv && hasWeights(conv) && !shallowLayers.contains(conv) && conv.getGroup() == 1 &&
            ungrouped(conv.getX()) == x && depth.lookup(conv.getY()) == depth.lookup(x) + 1) {
          delayed.push_back({reader, conv});
          break;
        }
      }
    }
  });
  // The convolution that passes the input on lowers first: it moves before
  // the one that reads it, if its operands are there already (the input they
  // share, constants).
  for (auto [reader, passer] : delayed) {
    Block *block = reader->getBlock();
    if (block != passer->getBlock())
      continue;
    if (reader->isBeforeInBlock(passer)) {
      Operation *first = reader;
      bool movable = llvm::all_of(passer->getOperands(), [&](Value v) {
        Operation *def = v.getDefiningOp();
        return !def || def->getBlock() != block || def->isBeforeInBlock(first);
      });
      if (!movable)
        continue;
      passer->moveBefore(reader);
    }
    lowering.delays[reader] = passer;
  }
}

void lowering::populateWindowPatterns(RewritePatternSet &patterns,
                                      LoweringContext &lowering) {
  patterns.add<LowerConv, LowerConvTranspose, LowerPool<onnx::MaxPoolOp>, LowerPool<onnx::AveragePoolOp>,
               LowerGlobalPool<onnx::GlobalAveragePoolOp>,
               LowerGlobalPool<onnx::GlobalMaxPoolOp>>(patterns.getContext(), lowering);
}
