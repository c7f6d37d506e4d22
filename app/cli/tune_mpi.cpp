// The MPI half of tune (tune_mpi.hpp). Built with -DKVSCOPE_MPI=ON (KVSCOPE_HAVE_MPI), else
// stubs that are never reached: tune refuses to run under a launcher without MPI.
//
// Protocol (point to point): a worker sends `ready` once, then a `result` for each config it
// scored; rank 0 answers either with the next config's grid index, or -1 to stop. Rank 0 keeps
// idle workers waiting between batches, so one set of workers serves the whole search.
#include "tune_mpi.hpp"

#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpi_include.hpp"

namespace kvscope::cli {

#ifdef KVSCOPE_HAVE_MPI
namespace {

constexpr int tune_tag_ready = 11, tune_tag_result = 12, tune_tag_assign = 13;

// A score as bytes: fixed-width numbers and length-prefixed strings, in field order.
class byte_writer {
 public:
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void text(const std::string& s) {
    u64(s.size());
    bytes_ += s;
  }
  std::string take() { return std::move(bytes_); }

 private:
  void raw(const void* p, std::size_t n) { bytes_.append(static_cast<const char*>(p), n); }
  std::string bytes_;
};

class byte_reader {
 public:
  explicit byte_reader(const std::string& bytes) : bytes_(bytes) {}
  std::uint64_t u64() { return fixed<std::uint64_t>(); }
  double f64() { return fixed<double>(); }
  std::string text() {
    const auto n = static_cast<std::size_t>(u64());
    need(n);
    std::string s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }

 private:
  template <class T>
  T fixed() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, bytes_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  void need(std::size_t n) const {
    if (bytes_.size() - at_ < n) throw std::runtime_error("tune over MPI: a truncated score message");
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

// status, engine runs, then the score (status 0) or the error text (status 1).
std::string encode_result(const tune_score& s, std::uint64_t runs) {
  byte_writer w;
  w.u64(0);
  w.u64(runs);
  w.f64(s.objective);
  w.f64(s.objective_high);
  w.u64(s.constraint_values.size());
  for (const double v : s.constraint_values) w.f64(v);
  w.text(s.detail);
  w.text(s.invalid);
  w.u64(s.figures.size());
  for (const auto& [key, value] : s.figures) {
    w.text(key);
    w.f64(value);
  }
  w.f64(s.infeasible_share);
  w.f64(s.capacity_factor);
  // The runs behind the score, so that rank 0 counts the reused ones as one process does.
  w.u64(s.runs.size());
  for (const auto& run : s.runs) {
    w.f64(run.rate_factor);
    w.u64(run.facts ? 1 : 0);
    const reuse_facts facts = run.facts.value_or(reuse_facts{});
    w.f64(facts.peak_usage);
    w.u64(facts.level_transitions);
    w.u64(facts.steps);
  }
  return w.take();
}

std::string encode_failure(const std::string& error, std::uint64_t runs) {
  byte_writer w;
  w.u64(1);
  w.u64(runs);
  w.text(error);
  return w.take();
}

void send_bytes(const std::string& bytes, int tag) {
  MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, tag, MPI_COMM_WORLD);
}

// A config to score: its grid index (-1: stop), and where its capacity search starts (the hint's
// rate factor as its bits, and the config it came from).
struct assignment {
  std::int64_t index = -1;
  std::int64_t hint_bits = 0;
  std::int64_t hint_config = 0;
};

void assign(int rank, std::int64_t index, const capacity_hint& hint = {}) {
  assignment a{index, 0, static_cast<std::int64_t>(hint.config)};
  std::memcpy(&a.hint_bits, &hint.rate_factor, sizeof a.hint_bits);
  MPI_Send(&a, 3, MPI_INT64_T, rank, tune_tag_assign, MPI_COMM_WORLD);
}

struct message {
  int source = 0;
  int tag = 0;
  std::string bytes;
};

// The next ready or result message from any worker.
message receive_any() {
  const MPI_Status status = wait_for_message(MPI_ANY_TAG);
  int size = 0;
  MPI_Get_count(&status, MPI_BYTE, &size);
  message m{status.MPI_SOURCE, status.MPI_TAG, std::string(static_cast<std::size_t>(size), '\0')};
  MPI_Recv(m.bytes.data(), size, MPI_BYTE, m.source, m.tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return m;
}

// Decodes a result into `score`; throws the worker's error.
std::uint64_t decode_result(const message& m, tune_score& score) {
  byte_reader r(m.bytes);
  const std::uint64_t status = r.u64();
  const std::uint64_t runs = r.u64();
  if (status != 0) throw std::runtime_error("rank " + std::to_string(m.source) + ": " + r.text());
  score.objective = r.f64();
  score.objective_high = r.f64();
  score.constraint_values.resize(static_cast<std::size_t>(r.u64()));
  for (double& v : score.constraint_values) v = r.f64();
  score.detail = r.text();
  score.invalid = r.text();
  score.figures.resize(static_cast<std::size_t>(r.u64()));
  for (auto& [key, value] : score.figures) {
    key = r.text();
    value = r.f64();
  }
  score.infeasible_share = r.f64();
  score.capacity_factor = r.f64();
  score.runs.resize(static_cast<std::size_t>(r.u64()));
  for (auto& run : score.runs) {
    run.rate_factor = r.f64();
    const bool known = r.u64() != 0;
    reuse_facts facts;
    facts.peak_usage = r.f64();
    facts.level_transitions = r.u64();
    facts.steps = r.u64();
    if (known) run.facts = facts;
  }
  return runs;
}

}  // namespace

// Rank 0's view of the workers, shared by every batch and by the final stop.
struct tune_workers::state {
  std::deque<int> idle;
  std::map<int, std::size_t> busy;  // rank -> position in the current batch
  int stopped = 0;
  int workers = 0;
};

tune_workers::tune_workers(const mpi_session& mpi) : state_(std::make_shared<state>()) {
  state_->workers = mpi.size() - 1;
}

tune_workers::~tune_workers() {
  state& pool = *state_;
  for (;;) {
    while (!pool.idle.empty()) {
      assign(pool.idle.front(), -1);
      pool.idle.pop_front();
      ++pool.stopped;
    }
    if (pool.stopped >= state_->workers) return;
    // A worker still starting, or one still scoring a config of an abandoned batch.
    const message m = receive_any();
    pool.busy.erase(m.source);
    pool.idle.push_back(m.source);
  }
}

tune_evaluator tune_workers::evaluator(const tune_problem& problem, std::atomic<std::size_t>& engine_runs,
                                       bool capacity_hints_on) {
  std::shared_ptr<state> pool = state_;
  auto known = std::make_shared<capacity_hints>();
  return [pool, known, capacity_hints_on, &problem, &engine_runs](const std::vector<grid_point>& points) {
    std::vector<tune_score> scores(points.size());
    const auto hints = capacity_hints_on ? known->for_batch(points) : std::vector<capacity_hint>(points.size());
    std::size_t next = 0, done = 0;
    while (done < points.size()) {
      while (!pool->idle.empty() && next < points.size()) {
        const int rank = pool->idle.front();
        pool->idle.pop_front();
        pool->busy[rank] = next;
        assign(rank, static_cast<std::int64_t>(grid_index(problem, points[next])), hints[next]);
        ++next;
      }
      const message m = receive_any();
      if (m.tag == tune_tag_result) {
        const std::size_t position = pool->busy.at(m.source);
        pool->busy.erase(m.source);
        pool->idle.push_back(m.source);
        engine_runs += decode_result(m, scores[position]);
        ++done;
      } else if (m.tag == tune_tag_ready) {
        pool->idle.push_back(m.source);
      }
    }
    known->record(problem, points, scores);
    return scores;
  };
}

std::string serve_tune(const mpi_session& mpi, const tune_problem& problem, const tune_hinted_evaluator& local,
                       const std::atomic<std::size_t>& engine_runs) {
  (void)mpi;
  std::string first_error;
  send_bytes({}, tune_tag_ready);
  for (;;) {
    assignment a;
    MPI_Recv(&a, 3, MPI_INT64_T, 0, tune_tag_assign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (a.index < 0) return first_error;
    capacity_hint hint;
    std::memcpy(&hint.rate_factor, &a.hint_bits, sizeof hint.rate_factor);
    hint.config = static_cast<std::size_t>(a.hint_config);
    const std::size_t runs_before = engine_runs.load();
    try {
      const auto scores = local({grid_point_at(problem, static_cast<std::size_t>(a.index))}, {hint});
      send_bytes(encode_result(scores.front(), engine_runs.load() - runs_before), tune_tag_result);
    } catch (const std::exception& e) {
      if (first_error.empty()) first_error = e.what();
      send_bytes(encode_failure(e.what(), engine_runs.load() - runs_before), tune_tag_result);
    }
  }
}

#else

struct tune_workers::state {};
tune_workers::tune_workers(const mpi_session&) {}
tune_workers::~tune_workers() = default;
tune_evaluator tune_workers::evaluator(const tune_problem&, std::atomic<std::size_t>&, bool) {
  return [](const std::vector<grid_point>&) -> std::vector<tune_score> {
    throw std::runtime_error("kvscope-cli was built without MPI");
  };
}
std::string serve_tune(const mpi_session&, const tune_problem&, const tune_hinted_evaluator&,
                       const std::atomic<std::size_t>&) {
  return "kvscope-cli was built without MPI";
}

#endif

}  // namespace kvscope::cli
