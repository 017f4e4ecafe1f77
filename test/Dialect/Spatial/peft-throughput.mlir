// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --spat-peft-schedule | FileCheck %s --check-prefix=LATENCY
// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --spat-peft-schedule="throughput=true" | FileCheck %s --check-prefix=PIPELINE
// RUN: pimc-opt %s --pimc-set-arch="arch=%inputs/tiny-arch.json" --spat-peft-schedule="throughput=true balance-weightless=true" | FileCheck %s --check-prefix=BALANCED

spat.global constant @w : tensor<16x16xf32> = dense<1.0> : tensor<16x16xf32>
spat.global constant @v : tensor<16x16xf32> = dense<1.0> : tensor<16x16xf32>

// Two layers in a row. For one inference the second runs where the first
// did (no transfer). When the programs loop, each layer is a stage with a
// core of its own, so that a core works on one sample while the other core
// works on the next; the weightless compute after the second layer belongs
// to its stage.
// LATENCY-LABEL: func @two_layers
// LATENCY: spat.compute{{.*}}spat.core = [[C:[0-9]+]] : i64
// LATENCY: spat.compute{{.*}}spat.core = [[C]] : i64
// LATENCY: spat.compute{{.*}}spat.core = [[C]] : i64
// PIPELINE-LABEL: func @two_layers
// PIPELINE: spat.compute{{.*}}spat.core = [[A:[0-9]+]] : i64
// PIPELINE: spat.compute{{.*}}spat.core = [[B:[0-9]+]] : i64
// PIPELINE-NOT: spat.core = [[A]] :
// PIPELINE: spat.compute{{.*}}spat.core = [[B]] : i64
func.func @two_layers(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.layer = 0 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %b = spat.compute(%a : tensor<16xf32>) tiles [#spat.tile<@v[0, 0], [16, 16]>] attributes {spat.layer = 1 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %r = spat.compute(%b : tensor<16xf32>) attributes {spat.layer = 2 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.relu %in : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// Two computes of exactly half a core's crossbars fit one core. When the
// programs loop, their stage gets that one core, and the other three go to
// the stage that takes longest.
// PIPELINE-LABEL: func @halves
// PIPELINE: spat.compute{{.*}}@half{{.*}}spat.core = [[H:[0-9]+]] : i64
// PIPELINE: spat.compute{{.*}}@half{{.*}}spat.core = [[H]] : i64
spat.global constant @half : tensor<16x32xf32> = dense<1.0> : tensor<16x32xf32>
func.func @halves(%x: tensor<16xf32>) -> (tensor<32xf32>, tensor<32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %h0 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@half[0, 0], [16, 32]>] attributes {spat.layer = 3 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<32xf32>
    spat.yield %o : tensor<32xf32>
  } -> tensor<32xf32>
  %h1 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@half[0, 0], [16, 32]>] attributes {spat.layer = 3 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<32xf32>
    spat.yield %o : tensor<32xf32>
  } -> tensor<32xf32>
  %w0 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.layer = 4 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %m0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m1 = spat.mvm %m0 tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m2 = spat.mvm %m1 tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m3 = spat.mvm %m2 tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %m3 : tensor<16xf32>
  } -> tensor<16xf32>
  %w1 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.layer = 4 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %m0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m1 = spat.mvm %m0 tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m2 = spat.mvm %m1 tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m3 = spat.mvm %m2 tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %m3 : tensor<16xf32>
  } -> tensor<16xf32>
  %w2 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.layer = 4 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %m0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m1 = spat.mvm %m0 tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m2 = spat.mvm %m1 tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m3 = spat.mvm %m2 tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %m3 : tensor<16xf32>
  } -> tensor<16xf32>
  return %h0, %h1, %w0, %w1, %w2 : tensor<32xf32>, tensor<32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// A core goes to a stage only when it shortens the stage. Four equal
// computes take as long on three cores as on two, so their stage keeps two
// cores and leaves the fourth core of the chip unused.
// PIPELINE-LABEL: func @four_on_two
// PIPELINE: spat.compute{{.*}}spat.core = [[F:[0-9]+]] : i64
// PIPELINE: spat.compute{{.*}}spat.core = [[G:[0-9]+]] : i64
// PIPELINE: spat.compute{{.*}}spat.core = [[F]] : i64
// PIPELINE: spat.compute{{.*}}spat.core = [[G]] : i64
func.func @four_on_two(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %f0 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.layer = 5 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %m0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m1 = spat.mvm %m0 tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %m1 : tensor<16xf32>
  } -> tensor<16xf32>
  %f1 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.layer = 5 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %m0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m1 = spat.mvm %m0 tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %m1 : tensor<16xf32>
  } -> tensor<16xf32>
  %f2 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.layer = 5 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %m0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m1 = spat.mvm %m0 tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %m1 : tensor<16xf32>
  } -> tensor<16xf32>
  %f3 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.layer = 5 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %m0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m1 = spat.mvm %m0 tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %m1 : tensor<16xf32>
  } -> tensor<16xf32>
  %l = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@v[0, 0], [16, 16]>] attributes {spat.layer = 6 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  return %f0, %f1, %f2, %f3, %l : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// A sum of a layer and of a skip connection that passed another layer of
// weights (a downsample, whose stage comes later but is no deeper) belongs
// to the deeper layer's stage: in the skip's, it would hold that stage a
// round long. Four stages take the four cores.
// PIPELINE-LABEL: func @skip_sum
// PIPELINE: spat.compute{{.*}}@w{{.*}}spat.core
// PIPELINE: spat.compute{{.*}}@v{{.*}}spat.core = [[DEEP:[0-9]+]] : i64
// PIPELINE: spat.compute{{.*}}@u{{.*}}spat.core
// PIPELINE: spat.compute{{.*}}@t{{.*}}spat.core
// PIPELINE: spat.compute(%{{.*}}, %{{.*}} : tensor<16xf32>, tensor<16xf32>) attributes {spat.core = [[DEEP]] : i64
// PIPELINE: spat.add
spat.global constant @u : tensor<16x16xf32> = dense<1.0> : tensor<16x16xf32>
spat.global constant @t : tensor<16x16xf32> = dense<1.0> : tensor<16x16xf32>
func.func @skip_sum(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %a = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.layer = 7 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %b = spat.compute(%a : tensor<16xf32>) tiles [#spat.tile<@v[0, 0], [16, 16]>] attributes {spat.layer = 8 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %c = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@u[0, 0], [16, 16]>] attributes {spat.layer = 9 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %d = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@t[0, 0], [16, 16]>] attributes {spat.layer = 10 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %s = spat.compute(%b, %c : tensor<16xf32>, tensor<16xf32>) attributes {spat.layer = 11 : i64} {
  ^bb0(%p: tensor<16xf32>, %q: tensor<16xf32>):
    %o = spat.add %p, %q : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  return %s, %d : tensor<16xf32>, tensor<16xf32>
}

// A layer cut into a long piece (four tiles, a core's crossbars) and a short
// one, and the sum of their partial products. By earliest finish the sum
// goes beside the long piece, whose partial it need not wait a transfer
// for; when the programs loop, that core's round is then the longest. With
// balance-weightless it goes to the core with less work.
// PIPELINE-LABEL: func @pieces
// PIPELINE: spat.compute{{.*}}@w4{{.*}}spat.core = [[LONG:[0-9]+]] : i64
// PIPELINE: spat.compute{{.*}}@w1{{.*}}spat.core = [[SHORT:[0-9]+]] : i64
// PIPELINE: spat.compute(%{{.*}}, %{{.*}} : tensor<16xf32>, tensor<16xf32>) attributes {spat.core = [[LONG]] : i64
// BALANCED-LABEL: func @pieces
// BALANCED: spat.compute{{.*}}@w4{{.*}}spat.core = [[LONG:[0-9]+]] : i64
// BALANCED: spat.compute{{.*}}@w1{{.*}}spat.core = [[SHORT:[0-9]+]] : i64
// BALANCED: spat.compute(%{{.*}}, %{{.*}} : tensor<16xf32>, tensor<16xf32>) attributes {spat.core = [[SHORT]] : i64
spat.global constant @w4 : tensor<16x64xf32> = dense<1.0> : tensor<16x64xf32>
spat.global constant @w1 : tensor<16x16xf32> = dense<1.0> : tensor<16x16xf32>
func.func @pieces(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w4[0, 0], [16, 16]>, #spat.tile<@w4[0, 16], [16, 16]>, #spat.tile<@w4[0, 32], [16, 16]>, #spat.tile<@w4[0, 48], [16, 16]>] attributes {spat.layer = 12 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %p0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %p1 = spat.mvm %in tile 1 : tensor<16xf32> -> tensor<16xf32>
    %p2 = spat.mvm %in tile 2 : tensor<16xf32> -> tensor<16xf32>
    %p3 = spat.mvm %in tile 3 : tensor<16xf32> -> tensor<16xf32>
    %s0 = spat.add %p0, %p1 : tensor<16xf32>
    %s1 = spat.add %p2, %p3 : tensor<16xf32>
    %o = spat.add %s0, %s1 : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %b = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w1[0, 0], [16, 16]>] attributes {spat.layer = 12 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %s = spat.compute(%a, %b : tensor<16xf32>, tensor<16xf32>) attributes {spat.layer = 11 : i64} {
  ^bb0(%p: tensor<16xf32>, %q: tensor<16xf32>):
    %o = spat.add %p, %q : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// Three pieces of a layer, each on a core of its own: four, two and one
// mvms. The relu of the two-mvm piece stays beside it, where its input is
// and where the core keeps well within the stage's time (the four-mvm
// piece's), rather than going to the one-mvm piece's core, which has less
// work but would have to receive the input.
// BALANCED-LABEL: func @beside_input
// BALANCED: spat.compute{{.*}}@m4{{.*}}spat.core
// BALANCED: spat.compute{{.*}}@m2{{.*}}spat.core = [[TWO:[0-9]+]] : i64
// BALANCED: spat.compute{{.*}}@m1{{.*}}spat.core
// BALANCED: spat.compute(%{{.*}} : tensor<16xf32>) attributes {spat.core = [[TWO]] : i64
// BALANCED: spat.relu
spat.global constant @m4 : tensor<16x64xf32> = dense<1.0> : tensor<16x64xf32>
spat.global constant @m2 : tensor<16x48xf32> = dense<1.0> : tensor<16x48xf32>
spat.global constant @m1 : tensor<16x48xf32> = dense<1.0> : tensor<16x48xf32>
func.func @beside_input(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %a = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@m4[0, 0], [16, 16]>, #spat.tile<@m4[0, 16], [16, 16]>, #spat.tile<@m4[0, 32], [16, 16]>, #spat.tile<@m4[0, 48], [16, 16]>] attributes {spat.layer = 13 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %p0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %p1 = spat.mvm %p0 tile 1 : tensor<16xf32> -> tensor<16xf32>
    %p2 = spat.mvm %p1 tile 2 : tensor<16xf32> -> tensor<16xf32>
    %p3 = spat.mvm %p2 tile 3 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %p3 : tensor<16xf32>
  } -> tensor<16xf32>
  %b = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@m2[0, 0], [16, 16]>, #spat.tile<@m2[0, 16], [16, 16]>, #spat.tile<@m2[0, 32], [16, 16]>] attributes {spat.layer = 13 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %p0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %p1 = spat.mvm %p0 tile 1 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %p1 : tensor<16xf32>
  } -> tensor<16xf32>
  %c = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@m1[0, 0], [16, 16]>, #spat.tile<@m1[0, 16], [16, 16]>, #spat.tile<@m1[0, 32], [16, 16]>] attributes {spat.layer = 13 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %p0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %p0 : tensor<16xf32>
  } -> tensor<16xf32>
  %r = spat.compute(%b : tensor<16xf32>) attributes {spat.layer = 2 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.relu %in : tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  return %a, %r, %c : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// A stage's cores spend every round on taking their inputs, too. The two
// "wide" computes each take the source's 512 values for one mvm, the two
// "deep" ones do two mvms on a few values from the chip's input: counting
// the transfers, the wide stage takes longer, and the chip's last core goes
// to it (without them, to the deep stage).
// PIPELINE-LABEL: func @wide_input
// PIPELINE: spat.compute{{.*}}@w{{.*}}spat.core
// PIPELINE: spat.compute{{.*}}@v{{.*}}spat.core = [[W0:[0-9]+]] : i64
// PIPELINE-NOT: spat.core = [[W0]] :
// PIPELINE: spat.compute{{.*}}@v{{.*}}spat.core
// PIPELINE: spat.compute{{.*}}@u{{.*}}spat.core = [[D:[0-9]+]] : i64
// PIPELINE: spat.compute{{.*}}@u{{.*}}spat.core = [[D]] : i64
func.func @wide_input(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %src = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.layer = 14 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %c = tensor.concat dim(0) %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o, %o : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<512xf32>
    spat.yield %c : tensor<512xf32>
  } -> tensor<512xf32>
  %a0 = spat.compute(%src : tensor<512xf32>) tiles [#spat.tile<@v[0, 0], [16, 16]>] attributes {spat.layer = 15 : i64} {
  ^bb0(%in: tensor<512xf32>):
    %s = tensor.extract_slice %in[0] [16] [1] : tensor<512xf32> to tensor<16xf32>
    %o = spat.mvm %s tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %a1 = spat.compute(%src : tensor<512xf32>) tiles [#spat.tile<@v[0, 0], [16, 16]>] attributes {spat.layer = 15 : i64} {
  ^bb0(%in: tensor<512xf32>):
    %s = tensor.extract_slice %in[16] [16] [1] : tensor<512xf32> to tensor<16xf32>
    %o = spat.mvm %s tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %d0 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@u[0, 0], [16, 16]>] attributes {spat.layer = 16 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %m0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m1 = spat.mvm %m0 tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %m1 : tensor<16xf32>
  } -> tensor<16xf32>
  %d1 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@u[0, 0], [16, 16]>] attributes {spat.layer = 16 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %m0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m1 = spat.mvm %m0 tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %m1 : tensor<16xf32>
  } -> tensor<16xf32>
  return %a0, %a1, %d0, %d1 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// Two light layers that read one input ("left" and "right", as a block's
// convolution and its downsample) are as deep in the pipeline: they work
// on the same sample in a round, so they share one core, and the core that
// frees goes to the "heavy" layer, whose two computes then run apart.
// PIPELINE-LABEL: func @siblings
// PIPELINE: spat.compute{{.*}}@w{{.*}}spat.core
// PIPELINE: spat.compute{{.*}}@v{{.*}}spat.core = [[S:[0-9]+]] : i64
// PIPELINE: spat.compute{{.*}}@u{{.*}}spat.core = [[S]] : i64
// PIPELINE: spat.compute{{.*}}@t{{.*}}spat.core = [[H:[0-9]+]] : i64
// PIPELINE-NOT: spat.core = [[H]] :
// PIPELINE: spat.compute{{.*}}@t{{.*}}spat.core
func.func @siblings(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %a = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@w[0, 0], [16, 16]>] attributes {spat.layer = 17 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %l = spat.compute(%a : tensor<16xf32>) tiles [#spat.tile<@v[0, 0], [16, 16]>] attributes {spat.layer = 18 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %r = spat.compute(%a : tensor<16xf32>) tiles [#spat.tile<@u[0, 0], [16, 16]>] attributes {spat.layer = 19 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %o = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %o : tensor<16xf32>
  } -> tensor<16xf32>
  %h0 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@t[0, 0], [16, 16]>] attributes {spat.layer = 4 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %m0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m1 = spat.mvm %m0 tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m2 = spat.mvm %m1 tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m3 = spat.mvm %m2 tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %m3 : tensor<16xf32>
  } -> tensor<16xf32>
  %h1 = spat.compute(%x : tensor<16xf32>) tiles [#spat.tile<@t[0, 0], [16, 16]>] attributes {spat.layer = 4 : i64} {
  ^bb0(%in: tensor<16xf32>):
    %m0 = spat.mvm %in tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m1 = spat.mvm %m0 tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m2 = spat.mvm %m1 tile 0 : tensor<16xf32> -> tensor<16xf32>
    %m3 = spat.mvm %m2 tile 0 : tensor<16xf32> -> tensor<16xf32>
    spat.yield %m3 : tensor<16xf32>
  } -> tensor<16xf32>
  return %l, %r, %h0, %h1 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}
