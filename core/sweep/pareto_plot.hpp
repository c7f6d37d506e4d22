#pragma once
// A Pareto front drawn as SVG: every point in grey, the front's points in colour with their
// config index, joined by a staircase when there are exactly two objectives, axes with ticks
// and labels (metric and unit). Plain SVG 1.1, no scripts or external fonts.
#include <cstddef>
#include <string>
#include <vector>

namespace kvscope {

struct plot_point {
  double x = 0, y = 0;
  std::size_t index = 0;  // the config's index, written beside front points
  bool on_front = false;
};

struct pareto_plot_spec {
  std::string title;
  std::string x_label, y_label;  // "goodput_rps (requests/s), higher is better"
  bool staircase = false;        // join the front (two objectives only)
  bool x_maximize = true, y_maximize = true;
};

// Points with a non-finite coordinate are not drawn; a note in the corner counts them. Every
// coordinate written is finite, however far apart the values.
std::string pareto_svg(const std::vector<plot_point>& points, const pareto_plot_spec& spec);

}  // namespace kvscope
