#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sweep/pareto.hpp"
#include "sweep/pareto_plot.hpp"

namespace kvscope {
namespace {

// Every point checked against every other: the definition, slowly.
std::vector<std::size_t> brute_force_front(const std::vector<objective>& objectives,
                                           const std::vector<std::vector<double>>& points) {
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < points.size(); ++i) {
    bool has_nan = false;
    for (double v : points[i]) has_nan = has_nan || std::isnan(v);
    if (has_nan) continue;
    bool dominated = false;
    for (std::size_t j = 0; j < points.size() && !dominated; ++j) {
      bool j_nan = false;
      for (double v : points[j]) j_nan = j_nan || std::isnan(v);
      if (j == i || j_nan) continue;
      bool all_at_least = true, one_better = false;
      for (std::size_t k = 0; k < objectives.size(); ++k) {
        const double a = objectives[k].dir == direction::maximize ? points[j][k] : -points[j][k];
        const double b = objectives[k].dir == direction::maximize ? points[i][k] : -points[i][k];
        all_at_least = all_at_least && a >= b;
        one_better = one_better || a > b;
      }
      dominated = all_at_least && one_better;
    }
    if (!dominated) front.push_back(i);
  }
  return front;
}

// Random clouds in 1 to 4 objectives, with coarse values (many ties and duplicates) and some
// NaNs: the fast front is exactly the brute-force one.
TEST(Pareto, MatchesBruteForceOnRandomData) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t dims = 1 + trial % 4;
    const std::size_t n = 1 + rng() % 120;
    const int levels = trial % 3 == 0 ? 4 : 1000;  // few distinct values: ties everywhere
    std::vector<objective> objectives;
    for (std::size_t k = 0; k < dims; ++k) {
      objectives.push_back({"m" + std::to_string(k), rng() % 2 ? direction::maximize : direction::minimize});
    }
    std::vector<std::vector<double>> points(n);
    for (auto& p : points) {
      for (std::size_t k = 0; k < dims; ++k) {
        p.push_back(rng() % 50 == 0 ? NAN : static_cast<double>(rng() % static_cast<unsigned>(levels)) / 7.0);
      }
    }
    ASSERT_EQ(pareto_front(objectives, points), brute_force_front(objectives, points)) << "trial " << trial;
  }
}

TEST(Pareto, TradeOffOfTwoObjectives) {
  const std::vector<objective> o{{"goodput_rps", direction::maximize}, {"attention_error_exposure", direction::minimize}};
  // (goodput, error): 2 and 3 trade off, 0 is dominated by 2, 1 by 3, 4 equals 3.
  const std::vector<std::vector<double>> p{{1, 0.05}, {2, 0.2}, {3, 0.04}, {5, 0.1}, {5, 0.1}};
  EXPECT_EQ(pareto_front(o, p), (std::vector<std::size_t>{2, 3, 4}));
  EXPECT_TRUE(dominates(o, p[2], p[0]));
  EXPECT_FALSE(dominates(o, p[3], p[4]));
}

TEST(Pareto, ObjectivesAndConstraintsParse) {
  auto o = parse_objectives("max:goodput_rps, attention_error_exposure,latency.ttft_s.p99", "--objectives");
  ASSERT_TRUE(o) << o.error();
  ASSERT_EQ(o->size(), 3u);
  EXPECT_EQ((*o)[1].dir, direction::minimize);  // the metric table says lower is better
  EXPECT_EQ((*o)[2].dir, direction::minimize);
  auto neither = parse_objectives("steps", "--objectives");
  ASSERT_FALSE(neither);
  EXPECT_EQ(neither.error(), "--objectives: 'steps': no direction known: write max:steps or min:steps");
  EXPECT_FALSE(parse_objectives("max:a,min:a", "--objectives"));
  auto c = parse_constraint("attention_error_exposure <= 0.05", "--constraint");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(to_string(*c), "attention_error_exposure<=0.05");
  EXPECT_TRUE(satisfied(*c, 0.05));
  EXPECT_FALSE(satisfied(*c, 0.06));
  EXPECT_FALSE(satisfied(*c, NAN));
  EXPECT_DOUBLE_EQ(violation(*c, 0.06), 0.2);
  EXPECT_TRUE(satisfied(*parse_constraint("slo_attainment>0.9", "x"), 0.95));
  EXPECT_FALSE(parse_constraint("goodput_rps=3", "--constraint"));
  EXPECT_FALSE(parse_constraint("goodput_rps<=fast", "--constraint"));
}

// A latency bound typed in milliseconds: warned about (with the bound in seconds), not refused.
TEST(Pareto, ALatencyBoundInMillisecondsIsWarnedAbout) {
  const auto ms = parse_constraint("latency.ttft_s.p99<=1000", "--constraint");
  ASSERT_TRUE(ms) << ms.error();
  EXPECT_EQ(implausible_bound(*ms, "--constraint"),
            "--constraint: 'latency.ttft_s.p99<=1000': 1000 s is more than 600 s, implausible for a time to "
            "first token; limits are in seconds; if it is in milliseconds, write latency.ttft_s.p99<=1");
  EXPECT_TRUE(implausible_bound(*parse_constraint("latency.itl_s.mean<50", "x"), "x"));
  EXPECT_FALSE(implausible_bound(*parse_constraint("latency.ttft_s.p99<=2", "x"), "x"));
  EXPECT_FALSE(implausible_bound(*parse_constraint("latency.queue_s.p99<=1000", "x"), "x"));
  EXPECT_FALSE(implausible_bound(*parse_constraint("goodput_rps>=1000", "x"), "x"));
}

TEST(ParetoPlot, DrawsAxesLabelsAndTheFront) {
  const std::vector<plot_point> points{{1, 0.05, 0, false}, {3, 0.04, 2, true}, {5, 0.1, 3, true}, {NAN, 1, 9, false}};
  const auto svg = pareto_svg(points, {"front", "goodput_rps (requests/s), higher is better",
                                       "attention_error_exposure, lower is better", true, true, false});
  EXPECT_TRUE(svg.starts_with("<?xml"));
  EXPECT_NE(svg.find("goodput_rps (requests/s), higher is better"), std::string::npos);
  EXPECT_NE(svg.find("<path d=\"M"), std::string::npos);
  EXPECT_EQ(svg.find("config 9"), std::string::npos);  // NaN is not drawn
  EXPECT_NE(svg.find("config 2"), std::string::npos);
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
}

TEST(ParetoPlot, ValuesFarApartOrInfiniteGiveNoNanCoordinates) {
  // 1e308 - (-1e308) overflows a double: every position computed from that span was "-nan".
  const std::vector<plot_point> points{{1e308, 0.5, 0, true}, {-1e308, 0.7, 1, false}, {2, 0.6, 2, true},
                                       {-INFINITY, 0.4, 3, true}, {5, INFINITY, 4, false}};
  const auto svg = pareto_svg(points, {"front", "x", "y", true, false, true});
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
  EXPECT_NE(svg.find("config 1<"), std::string::npos);
  EXPECT_NE(svg.find(">2 configs not drawn (a value is not a finite number)<"), std::string::npos);
}

}  // namespace
}  // namespace kvscope
