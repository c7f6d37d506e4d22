// Block map repaint benchmark: a 262,144-frame pool repainted offscreen, median of N.
// Not a test (no timed assertions): it prints figures and ratios to two baselines measured in
// the same run — blitting the cached image (paint without a rebuild) and a plain fill of an
// image of the same size.
// --follow S follows sequence S (0..499) as a click would: the rest dimmed, its blocks traced.
//   QT_QPA_PLATFORM=offscreen block_map_bench [--frames N] [--iterations N] [--size WxH] [--threads N]
//       [--follow S]
#include <QApplication>
#include <QElapsedTimer>

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "plots/block_map_widget.hpp"

namespace {

using kvscope::engine_snapshot;
using kvscope::frame_info;
using kvscope::precision;

// A mixed pool like a busy cache under pressure: fp16, q8 and q4 frames, some free, some cached.
std::shared_ptr<engine_snapshot> syntheticPool(std::uint32_t frames, std::uint64_t seed) {
  auto s = std::make_shared<engine_snapshot>();
  auto pool = std::make_shared<kvscope::pool_view>();
  s->pool = pool;
  pool->frames.block_size = 16;
  pool->frames.frames.resize(frames);
  s->budget_bytes = std::uint64_t{frames} << 21;
  std::uint64_t x = seed;
  const auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  for (frame_info& f : pool->frames.frames) {
    const auto kind = next() % 100;
    if (kind < 15) continue;  // free
    f.tier = kind < 55 ? precision::fp16 : (kind < 75 ? precision::q8 : precision::q4);
    f.slot_count = static_cast<std::uint8_t>(f.tier == precision::fp16 ? 1 : (f.tier == precision::q8 ? 2 : 4));
    for (int i = 0; i < f.slot_count; ++i) {
      auto& slot = f.blocks[static_cast<std::size_t>(i)];
      const auto r = next();
      if (r % 10 == 0) continue;  // a free half/quarter
      slot.owner = static_cast<kvscope::sequence_id>(r % 500);
      slot.logical_index = static_cast<std::int32_t>(r % 300);
      slot.fill = static_cast<std::uint16_t>(r % 7 == 0 ? 1 + r % 16 : 16);
      slot.refcount = static_cast<std::uint16_t>(r % 23 == 0 ? 2 : 1);
      if (r % 31 == 0) {
        slot.refcount = 0;
        slot.cached = true;
      }
    }
  }
  // The running sequences' block tables (in frame order; good enough for a path to draw), so a
  // followed sequence has blocks to highlight.
  pool->sequences.resize(500);
  for (std::size_t i = 0; i < pool->sequences.size(); ++i) pool->sequences[i].id = static_cast<kvscope::sequence_id>(i);
  for (std::uint32_t f = 0; f < frames; ++f) {
    const frame_info& fr = pool->frames.frames[f];
    for (int i = 0; i < fr.slot_count; ++i) {
      const auto& slot = fr.blocks[static_cast<std::size_t>(i)];
      if (slot.refcount == 0 || slot.owner < 0) continue;
      pool->sequences[static_cast<std::size_t>(slot.owner)].block_table.push_back(
          {f, static_cast<std::uint8_t>(i), fr.tier, slot.refcount > 1});
    }
  }
  return s;
}

// CPU time of the whole process (GUI thread and fill threads): unlike wall time, it does not
// grow when other programs share the cores.
double processCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Stats {
  double median = 0, p90 = 0, min = 0;
};
Stats summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 9 / 10)], v.front()};
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  std::uint32_t frames = 262'144;
  int iterations = 50, width = 1280, height = 800, threads = 2, follow = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--frames")) frames = static_cast<std::uint32_t>(std::stoul(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--iterations")) iterations = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--size")) std::sscanf(argv[i + 1], "%dx%d", &width, &height);
    else if (!std::strcmp(argv[i], "--threads")) threads = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--follow")) follow = std::stoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "block_map_bench: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  const auto a = syntheticPool(frames, 1), b = syntheticPool(frames, 2);
  kvscope::ui::BlockMapWidget map;
  map.resize(width, height);
  map.setRenderThreads(threads);
  map.setSnapshot(a);
  if (follow >= 0) map.selectSequence(follow);
  map.show();
  QApplication::processEvents();

  std::vector<double> full, fill, blit, baseline, cpu;
  QElapsedTimer timer;
  for (int i = 0; i < iterations; ++i) {
    // A new snapshot each time: the image is rebuilt through scanLine() and painted.
    map.setSnapshot(i % 2 ? a : b);
    const double cpu0 = processCpuMs();
    timer.start();
    map.repaint();
    full.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    cpu.push_back(processCpuMs() - cpu0);
    fill.push_back(map.lastFillMs());
    // Baseline 1: the same repaint with nothing new (only the blit of the cached image).
    timer.start();
    map.repaint();
    blit.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
  }
  QImage plain(map.layout().size, QImage::Format_RGB32);
  for (int i = 0; i < iterations; ++i) {  // Baseline 2: filling an image that size with one colour
    timer.start();
    plain.fill(static_cast<uint>(0xff000000u + static_cast<uint>(i)));
    baseline.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
  }
  const auto& l = map.layout();
  const Stats f = summarize(full), g = summarize(fill), p = summarize(blit), z = summarize(baseline),
              u = summarize(cpu);
  std::printf("block map repaint, %u frames in %dx%d px (cell %d px, %d frames/px), %d iterations, "
              "up to %d fill threads, followed sequence %d\n",
              frames, l.size.width(), l.size.height(), l.cell, l.framesPerPixel, iterations, threads,
              static_cast<int>(map.selectedSequence()));
  std::printf("  full repaint (rebuild + paint): median %.2f ms  p90 %.2f ms  min %.2f ms  (target <= 8 ms)\n",
              f.median, f.p90, f.min);
  std::printf("    of which image fill:         median %.2f ms\n", g.median);
  std::printf("    CPU time (all threads):      median %.2f ms\n", u.median);
  std::printf("  baseline repaint, no rebuild:  median %.2f ms  -> full/baseline %.1fx\n", p.median,
              f.median / std::max(p.median, 1e-6));
  std::printf("  baseline plain image fill:     median %.2f ms  -> full/fill %.1fx\n", z.median,
              f.median / std::max(z.median, 1e-6));
  return 0;
}
