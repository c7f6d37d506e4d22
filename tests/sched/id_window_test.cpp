// The scheduler-id window: reads as a plain map, holds only ids from the oldest one still set.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "sched/id_window.hpp"

namespace kvscope {
namespace {

TEST(IdWindow, MillionsOfShortLivedIdsHoldAWindowNotAHistory) {
  id_window w;
  // Ids begun in order, each ended 100 ids later; one old id stays live the whole time.
  w.set(0, 7);
  for (sequence_id id = 1; id < 2'000'000; ++id) {
    w.set(id, id % 1000);
    if (id > 100) w.clear(id - 100);
    if (id == 1'000'000) w.clear(0);  // the old one ends: the window may move
  }
  EXPECT_EQ(w.get(0), no_sequence);
  EXPECT_EQ(w.get(1'999'950), 1'999'950 % 1000);
  EXPECT_EQ(w.get(1'999'899), no_sequence);
  EXPECT_LT(w.window(), 4096u);
}

TEST(IdWindow, AgreesWithAMapUnderRandomUse) {
  id_window w;
  std::map<sequence_id, sequence_id> want;
  std::mt19937 rng(42);
  sequence_id next = 0;
  for (int step = 0; step < 50'000; ++step) {
    const auto r = rng() % 10;
    if (r < 4) {
      want[next] = static_cast<sequence_id>(rng() % 500);
      w.set(next, want[next]);
      ++next;
    } else if (r < 8 && !want.empty()) {  // end the oldest or a random live one
      auto it = r < 6 ? want.begin() : std::next(want.begin(), static_cast<long>(rng() % want.size()));
      w.clear(it->first);
      want.erase(it);
    } else if (next > 0) {  // an ended id comes back (a preempted sequence begins again)
      const sequence_id id = static_cast<sequence_id>(rng() % static_cast<unsigned>(next));
      if (!want.contains(id)) {
        want[id] = 3;
        w.set(id, 3);
      }
    }
    const sequence_id probe = next == 0 ? 0 : static_cast<sequence_id>(rng() % static_cast<unsigned>(next));
    const auto it = want.find(probe);
    ASSERT_EQ(w.get(probe), it == want.end() ? no_sequence : it->second) << "step " << step;
  }
}

}  // namespace
}  // namespace kvscope
