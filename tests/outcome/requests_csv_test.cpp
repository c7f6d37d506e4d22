// Per-request CSV rows, byte for byte.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <string_view>

#include "outcome/request_outcomes.hpp"
#include "outcome/requests_csv.hpp"

namespace kvscope {
namespace {

TEST(RequestsCsv, Header) {
  EXPECT_EQ(requests_csv_header_before_parts(),
            "request_id,arrival_s,first_scheduled_s,first_token_s,finish_s,prompt_tokens,"
            "output_tokens,cached_prompt_tokens,preemptions,recomputed_tokens,outcome,reason,"
            "ttft_s,tpot_s,e2e_s,queue_s");
  EXPECT_EQ(requests_csv_header(),
            std::string(requests_csv_header_before_parts()) +
                ",client_wait_s,alone_ttft_s,alone_tpot_s,arrival_step_s,wait_kv_memory_s,wait_batch_slots_s,"
                "wait_token_budget_s,wait_preempted_s,prefill_s,prefill_batched_s,recompute_s,decode_s,"
                "decode_prefill_s,decode_migration_s,decode_preempted_s");
}

// The cells after queue_s of a record the tracker was given no step of: no client wait, no
// estimate alone, every part 0.
const std::string no_parts = ",0,,,0,0,0,0,0,0,0,0,0,0,0,0";

// Request 7 finishes (after a prefix hit and a preemption), request 9 is rejected with `reason`.
void finish_one_reject_one(std::string& csv, std::string_view reason) {
  request_outcomes o([&csv](const request_record& r) { append_requests_csv_row(csv, r); });
  const request_handle a = o.arrived(7, 0.5, 12, 3);
  const request_handle b = o.arrived(9, 2.0, 9000, 4);
  o.scheduled(a, 0.75);
  o.prefix_hit(a, 8);
  o.emitted(a, 1.0);
  o.preempted(a, 13);
  o.emitted(a, 1.25);
  o.emitted(a, 1.5);
  o.finished(a, 1.5);
  o.rejected(b, 2.5, reason);
}

TEST(RequestsCsv, FinishedAndRejectedRowsFromTheTracker) {
  std::string csv;
  finish_one_reject_one(csv, "prompt of 9000 tokens needs 563 blocks, the pool has 512");
  EXPECT_EQ(csv,
            "7,0.5,0.75,1,1.5,12,3,8,1,13,finished,,0.5,0.25,1,0.25" + no_parts + "\n" +
                "9,2,,,2.5,9000,0,0,0,0,rejected,"
                "\"prompt of 9000 tokens needs 563 blocks, the pool has 512\",,,," +
                no_parts + "\n");
}

TEST(RequestsCsv, UndefinedCellsAreEmpty) {
  request_record r;
  r.request_id = 3;
  r.arrival_s = 1;
  r.first_scheduled_s = 1;
  r.first_token_s = 2;
  r.finish_s = 2;
  r.prompt_tokens = 5;
  r.output_tokens = 1;  // one token: no TPOT
  std::string out = "x\n";
  append_requests_csv_row(out, r);
  EXPECT_EQ(out, "x\n3,1,1,2,2,5,1,0,0,0,finished,,1,,1,0" + no_parts + "\n");
}

TEST(RequestsCsv, NumbersAreShortestExactText) {
  request_record r;
  r.arrival_s = 0.1;
  r.first_scheduled_s = 1.0 / 3;
  r.first_token_s = 0.30000000000000004;  // 0.1 + 0.2 stays distinguishable from 0.3
  r.finish_s = 4294967296.3;
  r.output_tokens = 4;
  r.recomputed_tokens = 18446744073709551615u;
  std::string out;
  append_requests_csv_row(out, r);
  EXPECT_EQ(out,
            "0,0.1,0.3333333333333333,0.30000000000000004,4294967296.3,0,4,0,0,18446744073709551615,"
            "finished,,0.20000000000000004,1431655765.3333333,4294967296.2,0.2333333333333333" +
                no_parts + "\n");
}

// A record's latencies are its times': they cannot disagree.
TEST(RequestsCsv, LatenciesComeFromTheTimes) {
  request_record r;
  r.arrival_s = 1;
  r.first_scheduled_s = 1.5;
  r.first_token_s = 2;
  r.finish_s = 5;
  r.output_tokens = 4;
  EXPECT_EQ(r.ttft_s(), 1.0);
  EXPECT_EQ(r.tpot_s(), 1.0);
  EXPECT_EQ(r.e2e_s(), 4.0);
  EXPECT_EQ(r.queue_s(), 0.5);
  r.output_tokens = 1;
  EXPECT_TRUE(std::isnan(r.tpot_s()));
  r.outcome = request_outcome::rejected;  // no latency, but it may have waited
  EXPECT_TRUE(std::isnan(r.ttft_s()));
  EXPECT_TRUE(std::isnan(r.e2e_s()));
  EXPECT_EQ(r.queue_s(), 0.5);
  r.first_scheduled_s = std::nan("");
  EXPECT_TRUE(std::isnan(r.queue_s()));
}

TEST(RequestsCsv, ReasonsAreQuotedOnlyWhenTheyMustBe) {
  request_record r;
  r.outcome = request_outcome::rejected;
  r.first_scheduled_s = r.first_token_s = std::nan("");
  const auto reason_cell = [&r](std::string reason) {
    r.reason = std::move(reason);
    std::string out;
    append_requests_csv_row(out, r);
    // The reason sits between ",rejected," and the four empty latency cells and the parts.
    const std::size_t from = out.find(",rejected,") + 10;
    return out.substr(from, out.size() - from - 5 - no_parts.size());
  };
  EXPECT_EQ(reason_cell("too long"), "too long");
  EXPECT_EQ(reason_cell("say \"no\""), "\"say \"\"no\"\"\"");
  EXPECT_EQ(reason_cell("a,b"), "\"a,b\"");
  EXPECT_EQ(reason_cell("line\nbreak"), "\"line\nbreak\"");
  EXPECT_EQ(reason_cell(""), "");
  // A reader trims blanks around unquoted cells, so blanks at either end need quotes.
  EXPECT_EQ(reason_cell(" leading"), "\" leading\"");
  EXPECT_EQ(reason_cell("trailing\t"), "\"trailing\t\"");
  EXPECT_EQ(reason_cell("in between"), "in between");
}

// Found by fuzzing: a reason with a leading blank was written bare and read back trimmed.
TEST(RequestsCsv, ReasonsWithBlanksAtTheEndsReadBackWhole) {
  std::string csv = std::string(requests_csv_header()) + "\n";
  finish_one_reject_one(csv, "  needs 563 blocks ");
  const auto rows = parse_requests_csv(csv, "run.csv");
  ASSERT_TRUE(rows) << rows.error();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[1].reason, "  needs 563 blocks ");
}

TEST(RequestsCsv, ReadsBackWhatItWrote) {
  std::string csv = std::string(requests_csv_header()) + "\r\n";
  finish_one_reject_one(csv, "needs \"563\" blocks, the pool has 512");
  const auto rows = parse_requests_csv(csv, "run.csv");
  ASSERT_TRUE(rows) << rows.error();
  ASSERT_EQ(rows->size(), 2u);
  // Every number is checked by writing the rows again, below.
  EXPECT_EQ((*rows)[0].outcome, request_outcome::finished);
  EXPECT_EQ((*rows)[0].tpot_s(), 0.25);
  const request_record& r = (*rows)[1];
  EXPECT_EQ(r.outcome, request_outcome::rejected);
  EXPECT_EQ(r.reason, "needs \"563\" blocks, the pool has 512");
  EXPECT_TRUE(std::isnan(r.ttft_s()));
  EXPECT_TRUE(std::isnan(r.first_token_s));
  // Written again, the rows are the same bytes.
  std::string again;
  for (const request_record& x : *rows) append_requests_csv_row(again, x);
  EXPECT_EQ(std::string(requests_csv_header()) + "\r\n" + again, csv);
}

// Files written before the latency parts (16 columns) still read; their rows check as before.
TEST(RequestsCsv, ReadErrorsNameTheLineAndColumn) {
  const std::string header(requests_csv_header_before_parts());
  const auto error = [](const std::string& text) {
    const auto rows = parse_requests_csv(text, "run.csv");
    return rows ? std::string("no error") : rows.error();
  };
  EXPECT_EQ(error(header + "\n7,0.5,0.75,1,1.5,12,3,0,0,0,finished,,abc,0.25,1,0.25\n"),
            "run.csv:2: column ttft_s: 'abc' is not a number");
  EXPECT_EQ(error(header + "\n7,0.5\n"), "run.csv:2: expected 16 cells, found 2");
  // A latency the row's times contradict, one where they give none, and one left out.
  EXPECT_EQ(error(header + "\n7,0.5,0.75,1,1.5,12,3,0,0,0,finished,,0.5,0.3,1,0.25\n"),
            "run.csv:2: column tpot_s: '0.3' is not what the row's times and outcome give ('0.25')");
  EXPECT_EQ(error(header + "\n9,2,,,2.5,9000,0,0,0,0,rejected,too long,,,0.5,\n"),
            "run.csv:2: column e2e_s: '0.5' is not what the row's times and outcome give ('')");
  EXPECT_EQ(error(header + "\n7,0.5,0.75,1,1.5,12,3,0,0,0,finished,,0.5,0.25,1,\n"),
            "run.csv:2: column queue_s: '' is not what the row's times and outcome give ('0.25')");
  EXPECT_EQ(error(header + "\n\n7,0.5,0.75,1,1.5,12,3,0,0,0,done,,1,0.25,1,0.25\n"),
            "run.csv:3: column outcome: 'done' is neither finished nor rejected");
  EXPECT_EQ(error("request_id,arrival_s\n"),
            "run.csv:1: not a per-request CSV: expected the header " + std::string(requests_csv_header()));
  EXPECT_EQ(error(std::string(requests_csv_header()) + "\n7,0.5,0.75,1,1.5,12,3,0,0,0,finished,,0.5,0.25,1,0.25\n"),
            "run.csv:2: expected 31 cells, found 16");
  EXPECT_EQ(error(std::string(requests_csv_header()) + "\n7,0.5,0.75,1,1.5,12,3,0,0,0,finished,,0.5,0.25,1,0.25" +
                  ",0,,,0,0,0,x,0,0,0,0,0,0,0,0\n"),
            "run.csv:2: column wait_token_budget_s: 'x' is not a number");
  EXPECT_EQ(error(""), "run.csv: empty file, expected a per-request CSV");
}

}  // namespace
}  // namespace kvscope
