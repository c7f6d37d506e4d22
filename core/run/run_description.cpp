#include "run/run_description.hpp"

namespace kvscope {

std::unique_ptr<request_source> open_run_load(const run_description& run) {
  read_options options;
  options.skip_bad_rows = run.skip_bad_rows;
  return open_load(run.load_spec, run.format, options);
}

std::unique_ptr<engine> make_engine(const run_description& run) {
  return std::make_unique<engine>(run.options, open_run_load(run));
}

}  // namespace kvscope
