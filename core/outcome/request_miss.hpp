#pragma once
// Whether one completed request missed its SLO and, if so, why: the per-request form of
// slo_miss_tally (outcome/slo_misses.hpp), for views that split misses by request or by time.
// It counts as the tally does: with an SLO, a rejected request is a miss (cause `rejected`) and a
// finished one misses when meets_slo says so; without an SLO nothing misses.
#include <optional>

#include "outcome/request_record.hpp"
#include "outcome/slo.hpp"
#include "outcome/slo_misses.hpp"

namespace kvscope {

// The dominant cause of `r`'s miss, or nullopt when it met `slo` (or `slo` is empty).
std::optional<miss_cause> miss_cause_of(const slo_spec& slo, const request_record& r);

}  // namespace kvscope
