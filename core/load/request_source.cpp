#include "load/request_source.hpp"

namespace kvscope {

std::optional<request> request_source::next_request() {
  request r;
  if (!next(r)) return std::nullopt;
  return r;
}

void for_each_request(request_source& source, const std::function<void(const request&)>& visit,
                      const progress_fn& progress) {
  constexpr std::uint64_t progress_every = 1 << 16;
  request r;
  std::uint64_t n = 0;
  while (source.next(r)) {
    visit(r);
    if (progress && ++n % progress_every == 0) progress(source);
  }
  if (progress) progress(source);
}

std::vector<request> read_all(request_source& source) {
  std::vector<request> all;
  request r;
  while (source.next(r)) all.push_back(r);
  return all;
}

}  // namespace kvscope
