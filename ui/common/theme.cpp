#include "common/theme.hpp"

#include "common/qcustomplot_include.hpp"

#include <cmath>
#include <functional>
#include <string_view>

namespace kvscope::ui {
namespace {

Theme makeTheme(bool dark) {
  Theme t;
  t.dark = dark;
  // q3 takes a dark red beyond q4's vermillion: the further along the ramp, the more compact.
  t.level = {QColor(0x00, 0x72, 0xB2), QColor(0x00, 0x9E, 0x73), QColor(0xE6, 0x9F, 0x00),
             QColor(0xD5, 0x5E, 0x00), QColor(0x9E, 0x1B, 0x32)};
  if (dark) {
    t.level[0] = QColor(0x3A, 0x9A, 0xE0);  // lifted so fp16 stays readable on dark grey
    t.window = QColor(0x2B, 0x2D, 0x31);
    t.base = QColor(0x1F, 0x21, 0x24);
    t.text = QColor(0xE6, 0xE6, 0xE6);
    t.mutedText = QColor(0xA0, 0xA4, 0xAA);
    t.grid = QColor(0x45, 0x48, 0x4E);
    t.accent = QColor(0x5C, 0xA8, 0xF0);
    t.freeFrame = QColor(0x3A, 0x3D, 0x42);
    t.cachedBlock = QColor(0x8E, 0x7C, 0xB8);
    t.mapBackground = QColor(0x1F, 0x21, 0x24);
    t.scales = QColor(0xC0, 0x7A, 0xB0);
    t.usageLine = QColor(0x9A, 0xA0, 0xA8);
    t.ewmaLine = QColor(0xF2, 0xF2, 0xF2);
    t.bandFill = QColor(0x90, 0x90, 0x90, 70);
  } else {
    t.window = QColor(0xEF, 0xF0, 0xF1);
    t.base = QColor(0xFF, 0xFF, 0xFF);
    t.text = QColor(0x1E, 0x1E, 0x1E);
    t.mutedText = QColor(0x5F, 0x63, 0x68);
    t.grid = QColor(0xDA, 0xDC, 0xE0);
    t.accent = QColor(0x1A, 0x6F, 0xC4);
    t.freeFrame = QColor(0xE4, 0xE6, 0xE9);
    t.cachedBlock = QColor(0xB9, 0xA8, 0xDB);
    t.mapBackground = QColor(0xFF, 0xFF, 0xFF);
    t.scales = QColor(0xCC, 0x79, 0xA7);
    t.usageLine = QColor(0x70, 0x78, 0x80);
    t.ewmaLine = QColor(0x10, 0x10, 0x10);
    t.bandFill = QColor(0x60, 0x60, 0x60, 45);
  }
  for (std::size_t i = 0; i < kv_level_count; ++i) t.levelTint[i] = mix(t.base, t.level[i], dark ? 0.15 : 0.13);
  return t;
}

}  // namespace

QColor mix(const QColor& a, const QColor& b, double t) {
  const auto lerp = [t](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * t)); };
  return QColor(lerp(a.red(), b.red()), lerp(a.green(), b.green()), lerp(a.blue(), b.blue()),
                lerp(a.alpha(), b.alpha()));
}

QColor Theme::sequenceColor(sequence_id id) const {
  if (id < 0) return freeFrame;
  // Golden-angle hue steps keep consecutive ids far apart on the wheel; the palette repeats
  // every sequencePaletteSize ids so the block map can keep it in a lookup table.
  id %= sequencePaletteSize;
  const double hue = std::fmod(static_cast<double>(id) * 137.50776405, 360.0);
  const double sat = (id % 3 == 0) ? 0.55 : (id % 3 == 1 ? 0.70 : 0.45);
  const double val = dark ? 0.88 : ((id % 2) ? 0.80 : 0.66);
  return QColor::fromHsvF(static_cast<float>(hue / 360.0), static_cast<float>(sat),
                          static_cast<float>(val));
}

QColor Theme::causeColor(miss_cause cause) const {
  // Okabe–Ito where it can: memory red and purple, scheduling orange and blues, migration
  // green; grey for what the cache cannot help (infeasible alone) and what was never served.
  // On the dark theme the two blues move apart: lifted as fp16's is, they were one colour.
  struct Known {
    std::string_view key;
    QRgb light, dark;
  };
  static constexpr Known known[] = {
      {"infeasible_alone", 0x9A9A9A, 0x8A8A8A}, {"kv_memory", 0xD55E00, 0xE8743A},
      {"batch_slots", 0xE69F00, 0xE69F00},      {"behind_prefills", 0x56B4E9, 0x86CBF2},
      {"prefill_interference", 0x0072B2, 0x1A78C2}, {"preemption", 0xCC79A7, 0xCC79A7},
      {"migration", 0x009E73, 0x1FB88A},        {"own_work", 0xD9C62B, 0xF0E442},
      {"rejected", 0x3C3C3C, 0xD8D8D8},
  };
  const std::string_view key = key_of(cause);
  for (const Known& k : known) {
    if (k.key == key) return QColor::fromRgb(dark ? k.dark : k.light);
  }
  const double hue = std::fmod(static_cast<double>(std::hash<std::string_view>{}(key) % 360) * 137.50776405, 360.0);
  return QColor::fromHsvF(static_cast<float>(hue / 360.0), 0.6f, dark ? 0.85f : 0.7f);
}

QPalette Theme::palette() const {
  QPalette p;
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, mix(base, window, 0.5));
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, mutedText);
  p.setColor(QPalette::Highlight, accent);
  p.setColor(QPalette::HighlightedText, QColor(Qt::white));
  p.setColor(QPalette::Link, accent);
  p.setColor(QPalette::BrightText, QColor(0xFF, 0x55, 0x55));
  p.setColor(QPalette::Light, mix(window, QColor(Qt::white), 0.3));
  p.setColor(QPalette::Midlight, mix(window, QColor(Qt::white), 0.15));
  p.setColor(QPalette::Mid, mix(window, text, 0.3));
  p.setColor(QPalette::Dark, mix(window, QColor(Qt::black), 0.35));
  p.setColor(QPalette::Shadow, QColor(Qt::black));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
    p.setColor(QPalette::Disabled, role, mutedText);
  }
  return p;
}

const Theme& lightTheme() {
  static const Theme t = makeTheme(false);
  return t;
}

const Theme& darkTheme() {
  static const Theme t = makeTheme(true);
  return t;
}

QString levelName(precision p) { return QString::fromLatin1(tag(p).data()); }

void applyPlotTheme(QCustomPlot* plot, const Theme& t) {
  plot->setBackground(t.base);
  plot->axisRect()->setBackground(t.base);
  for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
    axis->setBasePen(QPen(t.mutedText, 1));
    axis->setTickPen(QPen(t.mutedText, 1));
    axis->setSubTickPen(QPen(t.mutedText, 1));
    axis->setTickLabelColor(t.text);
    axis->setLabelColor(t.text);
    axis->grid()->setPen(QPen(t.grid, 1, Qt::DotLine));
  }
  plot->legend->setBrush(t.base);
  plot->legend->setBorderPen(Qt::NoPen);
  plot->legend->setTextColor(t.text);
}

}  // namespace kvscope::ui
