#pragma once
// A tour as slides: one page per step with the step's title, the block map (block ids written,
// the step's blocks ringed, its sequence traced), the narration, the numbers that matter and
// the block table it talks about, laid out 16:9 in type a projector shows from the back row.
#include <QWidget>

#include "common/theme.hpp"
#include "tour/tour_run.hpp"

class QLabel;

namespace kvscope::ui {

class BlockMapWidget;
class ColorLegend;

// The running sequence whose block table a step shows: its first highlighted request, else the
// one holding its first highlighted block; no_sequence when none.
sequence_id tourTableSequence(const tour_frame& frame);
// The block table of `sequence` at that step as an HTML table, its highlighted rows marked.
QString tourTableHtml(const tour_frame& frame, sequence_id sequence, const Theme& theme);

class TourSlide : public QWidget {
  Q_OBJECT
 public:
  explicit TourSlide(QWidget* parent = nullptr);
  void showStep(const tour_run& run, int index, const Theme& theme = lightTheme());
  BlockMapWidget* blockMap() const { return map_; }

 private:
  QLabel* title_ = nullptr;
  QLabel* subtitle_ = nullptr;
  BlockMapWidget* map_ = nullptr;
  ColorLegend* legend_ = nullptr;
  QLabel* narration_ = nullptr;
  QLabel* numbers_ = nullptr;
  QLabel* table_ = nullptr;
  QLabel* footer_ = nullptr;
};

// Writes one 16:9 page per step of `run`, atomically; false with a message naming the file.
bool exportTourPdf(const tour_run& run, const QString& path, QString* error);

}  // namespace kvscope::ui
