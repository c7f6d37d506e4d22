#pragma once
// Capacity search as Vidur-Search does it: the highest arrival rate at which the share of
// requests meeting their SLOs stays at or above a target. The load's arrivals are scaled in
// time (run_description::arrival_time_scale = 1 / rate factor) and the factor is bracketed by
// doubling or halving from 1, then narrowed by bisection (geometric, the midpoint of the
// bracket's logarithms) until the bracket is within `tolerance` of its lower end. It assumes
// attainment falls as the rate rises; a load where it does not gets some passing rate.
//
// Every rate the search tries lies on one lattice: the powers of two and the geometric midpoints
// bisection makes of them, down to the depth the tolerance asks for. Given a hint (a capacity
// found for a similar config), the search starts at the lattice interval holding the hint and
// gallops out from it, then bisects: it ends in the same interval, with the same doubles, as the
// search from 1 would when attainment falls monotonically with the rate, in a few runs when the
// hint is close instead of about nine.
#include <cmath>
#include <functional>
#include <vector>

namespace kvscope {

struct capacity_options {
  double target = 0.99;       // SLO attainment to keep, in (0, 1]
  double tolerance = 0.01;    // stop when high / low - 1 <= tolerance
  double max_factor = 65536;  // search rate factors in [1 / max_factor, max_factor]
  double hint = 0;            // a rate factor near the answer to start from; 0: start from 1
};

// One run at a rate factor: whether it met the target.
struct capacity_probe {
  double rate_factor = 1;
  bool pass = false;
  double attainment = NAN;  // NaN when the run stopped as soon as it could not pass
  // Share of the load's requests completed when the run ended: 1 for a whole run, less when it
  // stopped as soon as it could not pass.
  double completed_share = 1;
};

struct capacity_result {
  double low = 0;                // highest factor that passed; 0 when none did
  double high = INFINITY;        // lowest factor that failed; infinity when none did
  std::vector<capacity_probe> probes;  // in the order run
};

// `probe(f)` runs the load at f times its rate.
capacity_result search_capacity(const std::function<capacity_probe(double rate_factor)>& probe,
                                const capacity_options& options);

}  // namespace kvscope
