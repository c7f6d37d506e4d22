#pragma once
// Jumping to the moments of the live run. They are found on a background run of the run ahead
// of the live engine (core's run_ahead: the same load and config, and the config changes the
// live run has had since its last reset) through the run service, so they are the live run's own
// future steps. A jump runs the live engine forward flat out to the moment's step, then on at the
// run panel's pace; a moment behind the live view is reached by a reset and a run to it, when
// a reset replays the same steps (otherwise the jump is refused and the status bar says why).
// The live view after a jump is the engine's snapshot at exactly that step. It also sets the
// default pace from the run's length (core's default_steps_per_second) until the user picks one.
// A whole run the what-if made of exactly the run ahead (its current config's, which carries the
// moments too) is taken instead of running the load again.
#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>

#include "common/meta_types.hpp"
#include "jobs/background_run.hpp"  // OutcomePtr
#include "run/commands.hpp"
#include "run/moments.hpp"
#include "run/run_description.hpp"

class QMenu;
class QTimer;

namespace kvscope::ui {

class BackgroundRun;
class EngineBridge;
class PolicyController;
class RunPanel;
class WhatIfController;

class MomentsController : public QObject {
  Q_OBJECT
 public:
  MomentsController(EngineBridge* bridge, RunPanel* runPanel, PolicyController* policy,
                    QObject* parent = nullptr);

  // The run now live (a new load, seed or session): its moments are found afresh.
  void setRun(const run_description& run);
  // Off in a tour, which drives the view itself: nothing is found, nothing to jump to.
  void setActive(bool active);
  // Takes the moments from `whatIf`'s run of the current config when it is exactly the run ahead.
  void shareRunsWith(const WhatIfController* whatIf);
  // The background runs this controller started (a run taken from the what-if is not one).
  const BackgroundRun* jobs() const { return jobs_; }
  // The moments of the run ahead, or null while they are being found (or could not be).
  const run_moments* moments() const { return moments_.get(); }
  // What they were found on (the run ahead when they were asked for).
  const run_description& ahead() const { return ahead_; }
  // The menu of moments (the run panel's "Jump to" button and the Run menu show it).
  QMenu* menu() const { return menu_; }
  // Runs the live engine to `m`; `resume`: play on at the panel's pace once there, else stay
  // paused there. False, with a statusMessage saying why, when it cannot.
  bool jumpTo(const moment& m, bool resume);
  // kvscope --jump-to: the first moment of `kind`, as soon as they are found, paused there.
  void jumpWhenFound(moment_kind kind);
  // The pace was chosen (--speed): the run's length no longer sets it.
  void setSpeedChosen() { speedChosen_ = true; }
  bool jumping() const { return jump_.has_value(); }

 Q_SIGNALS:
  void statusMessage(const QString& text, int timeoutMs);
  // A moment behind the live view: the window resets the run (re-applying the policy as tuned).
  void restartRequested();
  void momentsChanged();
  // A jump arrived: the live view shows the engine `step` steps in (its snapshot's step).
  void landed(std::uint64_t step);

 private:
  struct Jump {
    std::uint64_t target = 0;         // the engine's steps done once there (moment.step + 1)
    std::uint64_t generation = 0;     // of the run it was asked in
    std::size_t logSize = 0;          // that run's command log when the pause was posted
    bool restarted = false;           // it lands after a reset, in the next generation
    bool running = false;             // the steps are posted
    bool resume = true;
    moment to;
  };
  void find(const run_description& ahead);
  void take(const OutcomePtr& outcome);  // the moments found, by our run or the what-if's
  void post(const runner_command& c);  // ours, not the user's
  void onSnapshot(const SnapshotPtr& s);
  void onCommandPosted(const runner_command& c);
  void checkAhead();  // after a reconfigure or reset: are the moments still the live run's?
  void land(const SnapshotPtr& s);
  void abandon(const QString& why);
  void showState(const QString& busyText = {});
  void refillMenu();
  void chooseSpeed();
  std::optional<moment> firstOf(moment_kind kind) const;

  EngineBridge* bridge_;
  RunPanel* runPanel_;
  PolicyController* policy_;
  const WhatIfController* whatIf_ = nullptr;
  BackgroundRun* jobs_ = nullptr;
  QMenu* menu_ = nullptr;
  QTimer* check_ = nullptr;
  QTimer* start_ = nullptr;  // the first find waits for the event loop: a tour turns it off first
  run_description run_;
  run_description ahead_;
  std::shared_ptr<const run_moments> moments_;
  QString error_;
  bool active_ = true;
  bool frontEndChanged_ = false;  // a reconfigure or reset was posted since the run started
  int enginePosts_ = 0;           // how many
  bool posting_ = false;          // our own posts: not the user's
  std::optional<Jump> jump_;
  std::optional<moment_kind> pendingKind_;  // --jump-to
  bool speedChosen_ = false;
  double autoSpeed_ = -1;  // the pace this controller last chose (-1: none yet)
};

}  // namespace kvscope::ui
