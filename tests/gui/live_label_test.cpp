// LiveLabel: text that changes without re-laying out the window, unless it needs more room.
#include <QApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QImage>
#include <QVBoxLayout>

#include <gtest/gtest.h>

#include "common/live_label.hpp"

namespace kvscope::ui {
namespace {

// Counts the layout requests a widget receives: what QLabel::setText sets off on every change.
class LayoutRequests : public QObject {
 public:
  int count = 0;
  bool eventFilter(QObject*, QEvent* e) override {
    if (e->type() == QEvent::LayoutRequest) ++count;
    return false;
  }
};

struct Window {
  QWidget top;
  LiveLabel* label;
  LayoutRequests requests;
  explicit Window(Qt::TextFormat format = Qt::PlainText) {
    auto* layout = new QHBoxLayout(&top);
    label = new LiveLabel(format);
    layout->addWidget(label);
    layout->addStretch();
    label->setText(QStringLiteral("step 1000"));
    top.resize(400, 60);
    top.show();
    QApplication::processEvents();
    top.installEventFilter(&requests);
  }
  int requestsAfter(const QString& text) {
    requests.count = 0;
    label->setText(text);
    QApplication::processEvents();
    return requests.count;
  }
};

bool hasInk(const QImage& image) {
  const QRgb background = image.pixel(image.width() - 1, image.height() - 1);
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) {
      if (qGray(image.pixel(x, y)) + 60 < qGray(background)) return true;
    }
  }
  return false;
}

TEST(LiveLabel, TextThatFitsOnlyRepaints) {
  Window w;
  EXPECT_EQ(w.requestsAfter(QStringLiteral("step 1001")), 0);
  EXPECT_EQ(w.requestsAfter(QStringLiteral("step 7")), 0);  // shorter: keeps its room
  EXPECT_EQ(w.label->text(), QStringLiteral("step 7"));
  EXPECT_TRUE(hasInk(w.label->grab().toImage()));
}

TEST(LiveLabel, TextThatNeedsRoomAsksForIt) {
  Window w;
  const int before = w.label->sizeHint().width();
  EXPECT_GE(w.requestsAfter(QStringLiteral("step 1000 of a much longer run")), 1);
  EXPECT_GT(w.label->sizeHint().width(), before);
  EXPECT_GE(w.label->width(), w.label->sizeHint().width());  // the layout gave it the room
}

TEST(LiveLabel, ReservedRoomAvoidsTheFirstRelayouts) {
  Window w;
  w.label->reserveRoomFor(QStringLiteral("step 0000000"));
  QApplication::processEvents();
  EXPECT_EQ(w.requestsAfter(QStringLiteral("step 123456")), 0);
}

TEST(LiveLabel, RichTextIsDrawnAndMeasured) {
  Window w(Qt::RichText);
  EXPECT_GE(w.requestsAfter(QStringLiteral("level <b>q4</b> and a longer tail")), 1);
  EXPECT_EQ(w.requestsAfter(QStringLiteral("level <b>q8</b>")), 0);
  EXPECT_TRUE(hasInk(w.label->grab().toImage()));
}

TEST(LiveLabel, WrappedTextGrowsTallerWhenNarrower) {
  LiveLabel label(Qt::RichText);
  label.setWordWrap(true);
  label.setText(QStringLiteral("<b>In use 15.9 MiB</b> = blocks 14.5 MiB + scales 1.4 MiB. The same "
                               "blocks in fp16 would take 31.8 MiB: <b>49.8 % saved</b>."));
  EXPECT_TRUE(label.hasHeightForWidth());
  EXPECT_GT(label.heightForWidth(120), label.heightForWidth(600));
  EXPECT_EQ(label.heightForWidth(600), label.heightForWidth(600));
}

TEST(LiveLabel, ElidableTextGivesUpItsMinimumWidth) {
  LiveLabel label;
  label.setText(QStringLiteral("— 1024 frames × 16 KiB (16 MiB budget, model tiny) · 889 frames in use"));
  EXPECT_EQ(label.minimumSizeHint().width(), label.sizeHint().width());
  label.setElidable(true);
  EXPECT_LT(label.minimumSizeHint().width(), label.sizeHint().width() / 4);
}

}  // namespace
}  // namespace kvscope::ui
