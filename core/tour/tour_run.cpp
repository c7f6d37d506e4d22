#include "tour/tour_run.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "load/open_load.hpp"
#include "run/run_summary.hpp"

namespace kvscope {
namespace {

// The script's explicit requests, in order.
class listed_requests final : public request_source {
 public:
  explicit listed_requests(std::vector<request> requests) : requests_(std::move(requests)) {}
  bool next(request& out) override {
    if (next_ == requests_.size()) return false;
    out = requests_[next_++];
    ++counters_.requests;
    return true;
  }
  double progress() const noexcept override {
    return requests_.empty() ? 1.0 : static_cast<double>(next_) / static_cast<double>(requests_.size());
  }
  std::string_view format_name() const noexcept override { return "tour"; }

 private:
  std::vector<request> requests_;
  std::size_t next_ = 0;
};

std::vector<std::string> request_names(const tour_script& script) {
  std::vector<std::string> names;
  for (const request& r : script.requests) names.push_back(request_name(r));
  return names;
}

bool request_running(const tour_state& s, const std::string& name) {
  return std::any_of(s.sequences.begin(), s.sequences.end(),
                     [&](const tour_sequence& q) { return q.request_name == name; });
}

bool holds(const tour_test& t, const tour_state& now, const tour_state& before) {
  if (t.name == "level") return ordinal(now.level) == static_cast<int>(t.value);
  if (t.name == "request_running") return request_running(now, t.request);
  const tour_quantity* q = find_tour_quantity(t.name);
  double v = q->value(now);
  if (t.since_previous) v -= q->value(before);
  return t.op == tour_test::compare::at_most ? v <= t.value : v >= t.value;
}

bool holds(const tour_condition& c, const tour_state& now, const tour_state& before) {
  return std::all_of(c.tests.begin(), c.tests.end(), [&](const tour_test& t) { return holds(t, now, before); });
}

// What a stuck condition was looking at, for the error message.
std::string where_it_stands(const tour_condition& c, const tour_state& now, const tour_state& before) {
  std::string out;
  for (const tour_test& t : c.tests) {
    if (!out.empty()) out += ", ";
    if (t.name == "level") {
      out += "level " + std::string(tag(now.level));
      continue;
    }
    if (t.name == "request_running") {
      out += "request " + t.request + (request_running(now, t.request) ? " running" : " not running");
      continue;
    }
    const tour_quantity* q = find_tour_quantity(t.name);
    const double v = q->value(now) - (t.since_previous ? q->value(before) : 0);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s %g", t.since_previous ? "new " : "", t.name.c_str(), v);
    out += buf;
  }
  return out;
}

std::shared_ptr<const engine_snapshot> snapshot_of(const engine& e, std::vector<step_metrics> fresh,
                                                   std::vector<std::shared_ptr<const std::vector<step_metrics>>>& chunks,
                                                   const std::string& load) {
  auto s = std::make_shared<engine_snapshot>();
  fill_from_engine(*s, e);
  s->pool = std::make_shared<const pool_view>(e.view_pool());
  s->summary = std::make_shared<const run_summary>(summarize(e, load, 0));
  if (!fresh.empty()) chunks.push_back(std::make_shared<const std::vector<step_metrics>>(fresh));
  s->recent_chunks = chunks;
  s->new_metrics = std::move(fresh);
  return s;
}

}  // namespace

std::unique_ptr<engine> make_tour_engine(const tour_script& script) {
  std::unique_ptr<request_source> load;
  if (script.load_spec.empty()) {
    load = std::make_unique<listed_requests>(script.requests);
  } else {
    load = open_load(script.load_spec, load_format::automatic, read_options{});
  }
  return std::make_unique<engine>(script.options, std::move(load));
}

tour_state tour_state_at(const tour_script& script, std::uint64_t engine_steps) {
  auto e = make_tour_engine(script);
  while (e->steps_done() < engine_steps && e->step()) {
  }
  return capture_tour_state(*e, request_names(script));
}

tour_focus resolve_focus(const tour_highlight& h, const tour_state& state) {
  tour_focus f;
  for (const std::string& name : h.requests) {
    bool running = false;
    for (const tour_sequence& s : state.sequences) {
      if (s.request_name == name) {
        f.sequences.push_back(s.id);
        running = true;
      }
    }
    if (!running) f.absent.push_back(name);
  }
  std::set<block_id> blocks;
  for (const block_id b : h.blocks) {
    if (state.block(b)) blocks.insert(b);
  }
  for (const tour_block& b : state.blocks) {
    const bool at_level = !b.cached && std::find(h.levels.begin(), h.levels.end(), b.level) != h.levels.end();
    if (at_level || (h.cached && b.cached) || (h.shared && b.refcount > 1)) blocks.insert(b.id);
  }
  f.blocks.assign(blocks.begin(), blocks.end());
  return f;
}

expected<tour_run, std::string> run_tour(const tour_script& script) {
  tour_run run;
  run.script = script;
  std::unique_ptr<engine> e;
  try {
    e = make_tour_engine(script);
  } catch (const std::exception& ex) {
    return unexpected{script.source + ": engine: " + ex.what()};
  }
  const std::vector<std::string> names = request_names(script);
  const std::string load = script.load_spec.empty() ? script.source : script.load_spec;
  std::vector<std::shared_ptr<const std::vector<step_metrics>>> chunks;
  std::vector<step_metrics> fresh;
  tour_state before = capture_tour_state(*e, names);
  for (std::size_t i = 0; i < script.steps.size(); ++i) {
    const tour_step& step = script.steps[i];
    const std::string where = script.source + ": steps[" + std::to_string(i) + "]";
    tour_state now = before;
    std::uint64_t ran = 0;
    for (;;) {
      if (step.steps && ran == *step.steps) break;
      if (step.until) {
        now = capture_tour_state(*e, names);
        if (holds(*step.until, now, before)) break;
        if (ran == step.until->max_steps) {
          return unexpected{where + ".until: not reached within " + std::to_string(ran) +
                            " engine steps (max_steps); at engine step " + std::to_string(e->steps_done()) +
                            ": " + where_it_stands(*step.until, now, before)};
        }
      }
      if (!e->step()) {
        return unexpected{where + (step.steps ? ".steps" : ".until") + ": every request has finished at engine step " +
                          std::to_string(e->steps_done()) + ", before the step was done"};
      }
      fresh.push_back(e->last_metrics());
      ++ran;
    }
    if (step.steps) now = capture_tour_state(*e, names);
    tour_frame frame;
    frame.focus = resolve_focus(step.highlight, now);
    std::vector<block_id> counted = frame.focus.blocks;
    for (const sequence_id id : frame.focus.sequences) {
      const auto& table = now.sequence(id)->table;
      counted.insert(counted.end(), table.begin(), table.end());
    }
    for (const std::string& name : step.show) frame.numbers.push_back(format_tour_quantity(name, now, counted, &before));
    frame.snapshot = snapshot_of(*e, std::move(fresh), chunks, load);
    fresh.clear();
    frame.state = std::move(now);
    before = frame.state;
    run.frames.push_back(std::move(frame));
  }
  return run;
}

}  // namespace kvscope
