#include "sweep/pareto_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kvscope {
namespace {

constexpr double width = 720, height = 480;
constexpr double left = 90, right = 30, top = 50, bottom = 70;

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

// In long double: the span of two finite doubles far apart (1e308 and -1e308) overflows a
// double to inf, and every pixel position computed from it would be nan.
struct scale {
  long double lo = 0, hi = 1, step = 0.2;
  double pixel_lo = 0, pixel_hi = 1;
  double at(long double v) const {
    return static_cast<double>(pixel_lo + (v - lo) / (hi - lo) * (pixel_hi - pixel_lo));
  }
};

// A range widened to round ticks: steps of 1, 2 or 5 × 10^k, about five of them.
scale nice_scale(long double lo, long double hi, double pixel_lo, double pixel_hi) {
  if (!(hi > lo)) {
    const long double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1L;
    lo -= pad;
    hi += pad;
  }
  const long double raw = (hi - lo) / 5;
  const long double magnitude = std::pow(10.0L, std::floor(std::log10(raw)));
  long double step = magnitude;
  for (long double m : {1.0L, 2.0L, 5.0L, 10.0L}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  return {std::floor(lo / step) * step, std::ceil(hi / step) * step, step, pixel_lo, pixel_hi};
}

}  // namespace

std::string pareto_svg(const std::vector<plot_point>& points, const pareto_plot_spec& spec) {
  std::vector<plot_point> shown;
  for (const auto& p : points) {
    if (std::isfinite(p.x) && std::isfinite(p.y)) shown.push_back(p);
  }
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  if (!shown.empty()) {
    const auto [xmin, xmax] = std::minmax_element(shown.begin(), shown.end(), [](auto& a, auto& b) { return a.x < b.x; });
    const auto [ymin, ymax] = std::minmax_element(shown.begin(), shown.end(), [](auto& a, auto& b) { return a.y < b.y; });
    x_lo = xmin->x, x_hi = xmax->x, y_lo = ymin->y, y_hi = ymax->y;
  }
  const scale sx = nice_scale(x_lo, x_hi, left, width - right);
  const scale sy = nice_scale(y_lo, y_hi, height - bottom, top);

  std::string svg;
  const auto add = [&svg](const std::string& s) { svg += s; svg += '\n'; };
  add("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
  add("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(width) + "\" height=\"" + number(height) +
      "\" viewBox=\"0 0 " + number(width) + " " + number(height) + "\" font-family=\"sans-serif\" font-size=\"12\">");
  add("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
  add("<text x=\"" + number(width / 2) + "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">" + escaped(spec.title) + "</text>");
  if (const std::size_t left_out = points.size() - shown.size(); left_out > 0) {
    // A nan or infinite objective has no place on the axes: say so rather than drop it silently.
    add("<text x=\"" + number(width - right) + "\" y=\"40\" text-anchor=\"end\" fill=\"#666\">" +
        std::to_string(left_out) + (left_out == 1 ? " config" : " configs") +
        " not drawn (a value is not a finite number)</text>");
  }
  // Grid lines and tick labels.
  for (long double v = sx.lo; v <= sx.hi + sx.step * 1e-9L; v += sx.step) {
    const double x = sx.at(v);
    add("<line x1=\"" + number(x) + "\" y1=\"" + number(top) + "\" x2=\"" + number(x) + "\" y2=\"" +
        number(height - bottom) + "\" stroke=\"#e4e4e4\"/>");
    add("<text x=\"" + number(x) + "\" y=\"" + number(height - bottom + 18) + "\" text-anchor=\"middle\">" +
        number(std::fabs(v) < sx.step * 1e-9L ? 0 : static_cast<double>(v)) + "</text>");
  }
  for (long double v = sy.lo; v <= sy.hi + sy.step * 1e-9L; v += sy.step) {
    const double y = sy.at(v);
    add("<line x1=\"" + number(left) + "\" y1=\"" + number(y) + "\" x2=\"" + number(width - right) + "\" y2=\"" +
        number(y) + "\" stroke=\"#e4e4e4\"/>");
    add("<text x=\"" + number(left - 8) + "\" y=\"" + number(y + 4) + "\" text-anchor=\"end\">" +
        number(std::fabs(v) < sy.step * 1e-9L ? 0 : static_cast<double>(v)) + "</text>");
  }
  add("<rect x=\"" + number(left) + "\" y=\"" + number(top) + "\" width=\"" + number(width - left - right) +
      "\" height=\"" + number(height - top - bottom) + "\" fill=\"none\" stroke=\"#444\"/>");
  add("<text x=\"" + number((left + width - right) / 2) + "\" y=\"" + number(height - 22) +
      "\" text-anchor=\"middle\">" + escaped(spec.x_label) + "</text>");
  add("<text transform=\"translate(22," + number((top + height - bottom) / 2) +
      ") rotate(-90)\" text-anchor=\"middle\">" + escaped(spec.y_label) + "</text>");

  std::vector<plot_point> front;
  for (const auto& p : shown) {
    if (p.on_front) {
      front.push_back(p);
    } else {
      add("<circle cx=\"" + number(sx.at(p.x)) + "\" cy=\"" + number(sy.at(p.y)) +
          "\" r=\"3\" fill=\"#b0b0b0\"><title>config " + std::to_string(p.index) + "</title></circle>");
    }
  }
  if (spec.staircase && front.size() > 1) {
    // Along the front the x objective gets better as the y objective gets worse: a staircase.
    std::sort(front.begin(), front.end(), [&](auto& a, auto& b) { return spec.x_maximize ? a.x < b.x : a.x > b.x; });
    std::string path = "M" + number(sx.at(front[0].x)) + "," + number(sy.at(front[0].y));
    for (std::size_t i = 1; i < front.size(); ++i) {
      path += " H" + number(sx.at(front[i].x)) + " V" + number(sy.at(front[i].y));
    }
    add("<path d=\"" + path + "\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\"/>");
  }
  for (const auto& p : front) {
    const std::string x = number(sx.at(p.x)), y = number(sy.at(p.y));
    add("<circle cx=\"" + x + "\" cy=\"" + y + "\" r=\"5\" fill=\"#d62728\"><title>config " +
        std::to_string(p.index) + "</title></circle>");
    add("<text x=\"" + number(sx.at(p.x) + 7) + "\" y=\"" + number(sy.at(p.y) - 7) + "\" fill=\"#d62728\">" +
        std::to_string(p.index) + "</text>");
  }
  add("</svg>");
  return svg;
}

}  // namespace kvscope
