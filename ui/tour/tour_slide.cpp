#include "tour/tour_slide.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QVBoxLayout>

#include <algorithm>

#include "plots/block_map_render.hpp"
#include "plots/block_map_widget.hpp"
#include "common/level_legend.hpp"
#include "tour/tour_panel.hpp"

namespace kvscope::ui {
namespace {

// A slide is laid out in pixels of 1/96 inch and printed at that size, whatever the screen:
// 1600 × 900 px is a 1200 × 675 pt page and a pixel is 0.75 pt. So the type sizes below are
// fixed on the page, and chosen for a lecture hall: the narration at 21 pt (28 px), tables,
// legend, numbers and footer at 14.25 pt (19 px). tests/gui/tour_slides_test.cpp reads them back
// from the PDF.
constexpr int slideWidth = 1600, slideHeight = 900, slideDpi = 96;
constexpr int narrationPixels = 28, tablePixels = 19;

QLabel* textLabel(int pixels, bool bold = false) {
  auto* l = new QLabel;
  l->setWordWrap(true);
  l->setTextFormat(Qt::RichText);
  l->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  QFont f = l->font();
  f.setPixelSize(pixels);
  f.setBold(bold);
  l->setFont(f);
  return l;
}

// What the footer says of the pool, the policy and the counters (the same counters as the text
// of the tour, with what this step added: what the narration speaks of).
QString stateLine(const tour_state& s, const tour_state* before) {
  QString line = QObject::tr("pressure %1 · EWMA %2 · level %3 · free frames %4 of %5")
                     .arg(s.pressure, 0, 'f', 3)
                     .arg(s.ewma, 0, 'f', 3)
                     .arg(levelName(s.level))
                     .arg(s.free_frames)
                     .arg(s.frames);
  for (const std::string& c : tour_counters(s, before)) line += QStringLiteral(" · ") + QString::fromStdString(c);
  return line;
}

}  // namespace

sequence_id tourTableSequence(const tour_frame& f) {
  if (!f.focus.sequences.empty()) return f.focus.sequences.front();
  for (const block_id b : f.focus.blocks) {
    for (const tour_sequence& q : f.state.sequences) {
      if (std::find(q.table.begin(), q.table.end(), b) != q.table.end()) return q.id;
    }
  }
  return no_sequence;
}

QString tourTableHtml(const tour_frame& f, sequence_id sequence, const Theme& theme) {
  const tour_state& s = f.state;
  const tour_sequence* q = s.sequence(sequence);
  if (!q) {
    QString why;
    for (const std::string& name : f.focus.absent) {
      why += QObject::tr("Request %1 is not running (waiting or finished). ").arg(QString::fromStdString(name).toHtmlEscaped());
    }
    return QObject::tr("<i>%1No block table shown: %2 sequences running, %3 cached blocks.</i>")
        .arg(why)
        .arg(s.sequences.size())
        .arg(s.cached_blocks());
  }
  QString html = QObject::tr("<b>Block table of request %1</b> (%2, %3 tokens)")
                     .arg(QString::fromStdString(q->request_name).toHtmlEscaped(),
                          q->prefill ? QObject::tr("prefill") : QObject::tr("decoding"))
                     .arg(q->tokens);
  html += QStringLiteral("<table cellspacing='0' cellpadding='1' style='margin-top:4px'><tr>");
  for (const QString& h : {QObject::tr("logical"), QObject::tr("block"), QObject::tr("frame/slot"),
                           QObject::tr("level"), QObject::tr("refcount"), QObject::tr("tokens")}) {
    html += QStringLiteral("<th align='right'>&nbsp;%1&nbsp;</th>").arg(h);
  }
  html += QStringLiteral("</tr>");
  for (std::size_t i = 0; i < q->table.size(); ++i) {
    const tour_block* b = s.block(q->table[i]);
    if (!b) continue;
    const bool marked = std::find(f.focus.blocks.begin(), f.focus.blocks.end(), b->id) != f.focus.blocks.end();
    const QString style = marked ? QStringLiteral(" style='font-weight:bold; background:%1'").arg(mix(theme.accent, theme.base, 0.75).name())
                                 : QString();
    html += QStringLiteral("<tr%1><td align='right'>%2</td><td align='right'>#%3</td><td align='right'>%4/%5</td>"
                           "<td align='right'><span style='color:%6'>■</span> %7</td><td align='right'>%8</td>"
                           "<td align='right'>%9/%10</td></tr>")
                .arg(style)
                .arg(i)
                .arg(b->id)
                .arg(b->frame)
                .arg(b->slot)
                .arg(theme.levelColor(b->level).name(), levelName(b->level))
                .arg(b->refcount)
                .arg(b->fill)
                .arg(s.block_size);
  }
  return html + QStringLiteral("</table>");
}

TourSlide::TourSlide(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("tourSlide"));
  setAutoFillBackground(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(40, 28, 40, 20);
  layout->setSpacing(10);
  title_ = textLabel(38, true);
  subtitle_ = textLabel(tablePixels);
  map_ = new BlockMapWidget;
  map_->setMaxCell(150);
  map_->setShowBlockIds(true);
  map_->setOutlineFrames(true);
  map_->setDimUnhighlighted(false);
  map_->setRenderThreads(1);
  legend_ = new ColorLegend;
  QFont legendFont = legend_->font();
  legendFont.setPixelSize(tablePixels);
  legend_->setFont(legendFont);
  narration_ = textLabel(narrationPixels);
  numbers_ = textLabel(tablePixels);
  table_ = textLabel(tablePixels);
  footer_ = textLabel(tablePixels);
  title_->setObjectName(QStringLiteral("slideTitle"));
  narration_->setObjectName(QStringLiteral("slideNarration"));
  numbers_->setObjectName(QStringLiteral("slideNumbers"));
  table_->setObjectName(QStringLiteral("slideTable"));
  footer_->setObjectName(QStringLiteral("slideFooter"));
  // At these sizes the narration and a block table of a dozen rows take the whole height of a
  // column: the numbers go under the map.
  auto* left = new QVBoxLayout;
  left->addWidget(map_, 1);
  left->addWidget(numbers_);
  auto* right = new QVBoxLayout;
  right->addWidget(narration_);
  right->addWidget(table_);
  right->addStretch();
  auto* middle = new QHBoxLayout;
  middle->setSpacing(28);
  middle->addLayout(left, 8);
  middle->addLayout(right, 12);
  layout->addWidget(title_);
  layout->addWidget(subtitle_);
  layout->addLayout(middle, 1);
  layout->addWidget(legend_);  // the whole width: two lines, not four under the map
  layout->addWidget(footer_);
  resize(slideWidth, slideHeight);
}

void TourSlide::showStep(const tour_run& run, int index, const Theme& theme) {
  const auto i = static_cast<std::size_t>(index);
  const tour_frame& f = run.frames.at(i);
  setPalette(theme.palette());
  map_->setTheme(theme);
  map_->setSnapshot(f.snapshot);
  map_->setMarkedBlocks(f.focus.blocks);
  const sequence_id shown = tourTableSequence(f);
  map_->selectSequence(shown);
  legend_->setEntries({{theme.level[0], QStringLiteral("fp16"), {}, false, {}},
                       {theme.level[1], QStringLiteral("q8 (2 per frame)"), {}, false, {}},
                       {theme.level[3], QStringLiteral("q4 (4 per frame)"), {}, false, {}},
                       {theme.cachedBlock, tr("cached (refcount 0)"), {}, false, {}},
                       {theme.freeFrame, tr("free"), {}, false, {}},
                       {theme.level[0], tr("shared (refcount > 1)"), {}, true, Qt::white},
                       {theme.freeFrame, tr("ringed: this step's blocks"), {}, false, theme.text, ColorLegend::Swatch::ring},
                       {theme.level[0], tr("pale top: room in a block not yet written"), {}, false,
                        QColor(BlockMapColors::fromTheme(theme).levelUnfilled[0]), ColorLegend::Swatch::unwritten}});
  title_->setText(tr("%1. %2").arg(index + 1).arg(QString::fromStdString(run.script.steps[i].title).toHtmlEscaped()));
  subtitle_->setText(tr("<span style='color:%1'>%2 · step %3 of %4 · engine step %5 · t = %6 s</span>")
                         .arg(theme.mutedText.name(), QString::fromStdString(run.script.title).toHtmlEscaped())
                         .arg(index + 1)
                         .arg(run.frames.size())
                         .arg(f.state.engine_step)
                         .arg(f.state.sim_time_s, 0, 'f', 3));
  narration_->setText(QString::fromStdString(run.script.steps[i].narration).toHtmlEscaped());
  numbers_->setText(tourNumbersHtml(f));
  numbers_->setVisible(!f.numbers.empty());
  table_->setText(tourTableHtml(f, shown, theme));
  const tour_state* before = index > 0 ? &run.frames[i - 1].state : nullptr;
  footer_->setText(tr("<span style='color:%1'>%2</span>").arg(theme.mutedText.name(), stateLine(f.state, before)));
}

bool exportTourPdf(const tour_run& run, const QString& path, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
    return false;
  }
  TourSlide slide;
  slide.setAttribute(Qt::WA_DontShowOnScreen);
  slide.show();  // lays the slide out; never on screen
  {
    // One slide pixel to one device pixel of the writer (vector), at 1/96 inch whatever the
    // screen's dpi: the type sizes stay those chosen above, in points on the page.
    QPdfWriter pdf(&file);
    pdf.setCreator(QStringLiteral("kvscope"));
    pdf.setTitle(QString::fromStdString(run.script.title));
    pdf.setResolution(slideDpi);
    pdf.setPageSize(QPageSize(QSizeF(slideWidth * 1.0 / slideDpi, slideHeight * 1.0 / slideDpi), QPageSize::Inch,
                              QStringLiteral("Slide 16:9"), QPageSize::ExactMatch));
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    QPainter painter(&pdf);
    for (int i = 0; i < static_cast<int>(run.frames.size()); ++i) {
      if (i > 0) pdf.newPage();
      slide.showStep(run, i);
      slide.layout()->activate();
      const double scale = std::min(pdf.width() * 1.0 / slide.width(), pdf.height() * 1.0 / slide.height());
      painter.save();
      painter.scale(scale, scale);
      slide.render(&painter, QPoint(), QRegion(), QWidget::DrawWindowBackground | QWidget::DrawChildren);
      painter.restore();
    }
  }
  if (!file.commit()) {
    if (error) *error = QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace kvscope::ui
