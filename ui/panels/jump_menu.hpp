#pragma once
// The "Jump to" menu: a run's moments (core's run_moments) as actions, each saying when and what
// ("peak pressure 0.93 at 1,234.5 s", "q4 from 812.0 s"). Level changes and preemptions can be
// thousands: the first few are listed, then the first time at each level they do not reach, and
// the next and previous one from the live view's step.
#include <QString>

#include <cstdint>
#include <functional>
#include <optional>

#include "run/moments.hpp"

class QMenu;

namespace kvscope::ui {

// How many level changes, and how many preemptions, the menu lists by name.
inline constexpr int jumpMenuListed = 5;

// A moment for people: "peak pressure 0.93 at 1,234.5 s", "busiest minute: 600.0–660.0 s (41.3
// running on average)", "q8 from 812.0 s", "preemption at 900.1 s (2 sequences)".
QString momentText(const moment& m);

// kvscope --jump-to's names: "peak", "busiest", "level" (the first level change), "preemption"
// (the first one); none for anything else.
std::optional<moment_kind> momentKindNamed(const QString& name);

// Fills `menu` (cleared first) with `found`'s moments; `shownStep` is the step the live view
// shows (its snapshot's latest.step), for "next" and "previous"; `jump` is called with the
// chosen one.
void fillJumpMenu(QMenu* menu, const run_moments& found, std::uint64_t shownStep,
                  const std::function<void(const moment&)>& jump);

}  // namespace kvscope::ui
