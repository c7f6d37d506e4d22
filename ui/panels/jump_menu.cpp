#include "panels/jump_menu.hpp"
#include "common/theme.hpp"

#include <QAction>
#include <QLocale>
#include <QMenu>

#include <algorithm>
#include <vector>

namespace kvscope::ui {
namespace {

// Simulated seconds with thousands separated: an hour of trace is "3,412.7 s".
QString simSeconds(double s) { return QLocale(QLocale::English).toString(s, 'f', 1); }

// One kind of many moments: the first few by name, then the next and the previous one from the
// live view, and a count of the rest.
void addSeries(QMenu* menu, const QString& title, const std::vector<moment>& all, std::uint64_t total,
               std::uint64_t shownStep, const std::function<void(const moment&)>& jump,
               const std::vector<moment>& firsts = {}) {
  menu->addSection(title);
  const auto add = [&](const QString& text, const moment& m) {
    QAction* a = menu->addAction(text);
    QObject::connect(a, &QAction::triggered, menu, [jump, m] { jump(m); });
  };
  const int listed = std::min<int>(jumpMenuListed, static_cast<int>(all.size()));
  for (int i = 0; i < listed; ++i) add(momentText(all[static_cast<std::size_t>(i)]), all[static_cast<std::size_t>(i)]);
  if (total > static_cast<std::uint64_t>(listed)) {
    menu->addAction(QObject::tr("… %1 more").arg(total - static_cast<std::uint64_t>(listed)))->setEnabled(false);
  }
  for (const moment& m : firsts) {
    if (listed == 0 || m.step > all[static_cast<std::size_t>(listed - 1)].step) add(QObject::tr("first %1").arg(momentText(m)), m);
  }
  const auto next = std::find_if(all.begin(), all.end(), [&](const moment& m) { return m.step > shownStep; });
  const auto previous = std::find_if(all.rbegin(), all.rend(), [&](const moment& m) { return m.step < shownStep; });
  if (next != all.end()) add(QObject::tr("Next: %1").arg(momentText(*next)), *next);
  if (previous != all.rend()) add(QObject::tr("Previous: %1").arg(momentText(*previous)), *previous);
}

}  // namespace

QString momentText(const moment& m) {
  switch (m.kind) {
    case moment_kind::peak_pressure:
      return QObject::tr("peak pressure %1 at %2 s").arg(m.value, 0, 'f', 3).arg(simSeconds(m.sim_time_s));
    case moment_kind::busiest_minute:
      return QObject::tr("busiest minute: %1–%2 s (%3 running on average)")
          .arg(simSeconds(m.sim_time_s), simSeconds(m.until_s))
          .arg(m.value, 0, 'f', 1);
    case moment_kind::level_change:
      return QObject::tr("%1 from %2 s").arg(levelName(m.level), simSeconds(m.sim_time_s));
    case moment_kind::preemption:
      return m.value > 1 ? QObject::tr("preemption at %1 s (%2 sequences)").arg(simSeconds(m.sim_time_s)).arg(m.value)
                         : QObject::tr("preemption at %1 s").arg(simSeconds(m.sim_time_s));
  }
  return {};
}

std::optional<moment_kind> momentKindNamed(const QString& name) {
  if (name == QLatin1String("peak")) return moment_kind::peak_pressure;
  if (name == QLatin1String("busiest")) return moment_kind::busiest_minute;
  if (name == QLatin1String("level")) return moment_kind::level_change;
  if (name == QLatin1String("preemption")) return moment_kind::preemption;
  return std::nullopt;
}

void fillJumpMenu(QMenu* menu, const run_moments& found, std::uint64_t shownStep,
                  const std::function<void(const moment&)>& jump) {
  menu->clear();
  for (const std::optional<moment>& m : {found.peak_pressure, found.busiest_minute}) {
    if (!m) continue;
    QAction* a = menu->addAction(momentText(*m));
    QObject::connect(a, &QAction::triggered, menu, [jump, m = *m] { jump(m); });
  }
  if (found.level_changes_total == 0) {
    menu->addAction(QObject::tr("no level change in this run"))->setEnabled(false);
  } else {
    // The first time at each level, when the first few changes do not reach it (a policy
    // flapping between fp16 and q8 for a while before it first goes to q4).
    std::vector<moment> firsts;
    for (const std::optional<moment>& m : found.first_at_level) {
      if (m) firsts.push_back(*m);
    }
    std::sort(firsts.begin(), firsts.end(), [](const moment& a, const moment& b) { return a.step < b.step; });
    addSeries(menu, QObject::tr("Level changes (%1)").arg(found.level_changes_total), found.level_changes,
              found.level_changes_total, shownStep, jump, firsts);
  }
  if (found.preemption_steps_total == 0) {
    menu->addAction(QObject::tr("no preemption in this run"))->setEnabled(false);
  } else {
    addSeries(menu, QObject::tr("Preemptions (%1)").arg(found.preemption_steps_total), found.preemptions,
              found.preemption_steps_total, shownStep, jump);
  }
}

}  // namespace kvscope::ui
