#pragma once
// The narration of a guided tour beside the block map: which step of how many, its title and
// text, the numbers that matter now, what is highlighted, and Back / Next / Restart.
#include <QWidget>

#include "tour/tour_run.hpp"

class QLabel;
class QPushButton;

namespace kvscope::ui {

// A step's numbers as an HTML list.
QString tourNumbersHtml(const tour_frame& frame);

class TourPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TourPanel(QWidget* parent = nullptr);

  void showStep(const tour_run& run, int index);
  QString narration() const;
  QPushButton* backButton() const { return back_; }
  QPushButton* nextButton() const { return next_; }
  QPushButton* restartButton() const { return restart_; }

 Q_SIGNALS:
  void backRequested();
  void nextRequested();
  void restartRequested();

 private:
  QLabel* position_ = nullptr;
  QLabel* title_ = nullptr;
  QLabel* narration_ = nullptr;
  QLabel* numbers_ = nullptr;
  QLabel* focus_ = nullptr;
  QPushButton* back_ = nullptr;
  QPushButton* next_ = nullptr;
  QPushButton* restart_ = nullptr;
};

}  // namespace kvscope::ui
