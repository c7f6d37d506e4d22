#include "tour/tour_panel.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "tour/tour_text.hpp"

namespace kvscope::ui {
namespace {

QLabel* wrapped(int pointDelta, bool bold = false) {
  auto* l = new QLabel;
  l->setWordWrap(true);
  l->setTextFormat(Qt::RichText);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont f = l->font();
  f.setPointSizeF(f.pointSizeF() + pointDelta);
  f.setBold(bold);
  l->setFont(f);
  return l;
}

}  // namespace

QString tourNumbersHtml(const tour_frame& frame) {
  if (frame.numbers.empty()) return {};
  QString html = QStringLiteral("<ul style='margin-left:-20px'>");
  for (const std::string& n : frame.numbers) {
    html += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(n).toHtmlEscaped());
  }
  return html + QStringLiteral("</ul>");
}

TourPanel::TourPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("tourPanel"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 6, 8, 6);
  position_ = wrapped(0);
  title_ = wrapped(4, true);
  narration_ = wrapped(2);
  numbers_ = wrapped(1);
  focus_ = wrapped(0);
  auto* text = new QWidget;
  auto* column = new QVBoxLayout(text);
  column->setContentsMargins(0, 0, 0, 0);
  for (QLabel* l : {position_, title_, narration_, numbers_, focus_}) column->addWidget(l);
  column->addStretch();
  auto* scroll = new QScrollArea;  // a long narration scrolls rather than squeezing the map
  scroll->setWidget(text);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  back_ = new QPushButton(tr("◀ Back"));
  next_ = new QPushButton(tr("Next ▶"));
  restart_ = new QPushButton(tr("Restart"));
  back_->setToolTip(tr("The previous step, exactly as it was (Left)"));
  next_->setToolTip(tr("Run the engine to the next step (Right or Space)"));
  restart_->setToolTip(tr("Back to the first step (Home)"));
  for (QPushButton* b : {back_, next_, restart_}) b->setFocusPolicy(Qt::NoFocus);  // keys stay the tour's
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(restart_);
  buttons->addStretch();
  buttons->addWidget(back_);
  buttons->addWidget(next_);
  layout->addWidget(scroll, 1);
  layout->addLayout(buttons);
  connect(back_, &QPushButton::clicked, this, &TourPanel::backRequested);
  connect(next_, &QPushButton::clicked, this, &TourPanel::nextRequested);
  connect(restart_, &QPushButton::clicked, this, &TourPanel::restartRequested);
}

void TourPanel::showStep(const tour_run& run, int index) {
  const auto i = static_cast<std::size_t>(index);
  const tour_frame& f = run.frames.at(i);
  const tour_step& step = run.script.steps.at(i);
  position_->setText(tr("Step %1 of %2 · engine step %3 · t = %4 s")
                         .arg(index + 1)
                         .arg(run.frames.size())
                         .arg(f.state.engine_step)
                         .arg(f.state.sim_time_s, 0, 'f', 3));
  title_->setText(QString::fromStdString(step.title).toHtmlEscaped());
  narration_->setText(QString::fromStdString(step.narration).toHtmlEscaped());
  numbers_->setText(tourNumbersHtml(f));
  numbers_->setVisible(!f.numbers.empty());
  const QString focus = QString::fromStdString(format_tour_focus(f));
  focus_->setText(focus.isEmpty() ? QString() : tr("<i>Highlighted:</i> %1").arg(focus.toHtmlEscaped()));
  back_->setEnabled(index > 0);
  next_->setEnabled(index + 1 < static_cast<int>(run.frames.size()));
  restart_->setEnabled(index > 0);
}

QString TourPanel::narration() const { return narration_->text(); }

}  // namespace kvscope::ui
