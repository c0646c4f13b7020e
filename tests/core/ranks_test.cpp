// SPDX-License-Identifier: Apache-2.0
// What ranks send each other (ByteWriter / ByteReader) and the one-rank group.
#include "cityforge/core/ranks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace cityforge {
namespace {

TEST(Bytes, RoundTripValuesVectorsAndStrings) {
  ByteWriter w;
  w.put<std::uint64_t>(42);
  w.put(3.5);
  w.put_vector(std::vector<std::array<float, 3>>{{1, 2, 3}, {4, 5, 6}});
  w.put_vector(std::vector<std::uint32_t>{});
  w.put_string("tiles/3/1/2.glb");
  const std::string bytes = w.take();
  ByteReader r(bytes, "test");
  std::uint64_t n = 0;
  double d = 0;
  std::vector<std::array<float, 3>> v;
  std::vector<std::uint32_t> empty{7};
  std::string s;
  ASSERT_TRUE(r.get(n).ok());
  ASSERT_TRUE(r.get(d).ok());
  ASSERT_TRUE(r.get_vector(v).ok());
  ASSERT_TRUE(r.get_vector(empty).ok());
  ASSERT_TRUE(r.get_string(s).ok());
  EXPECT_TRUE(r.done());
  EXPECT_EQ(n, 42U);
  EXPECT_EQ(d, 3.5);
  ASSERT_EQ(v.size(), 2U);
  EXPECT_EQ(v[1][2], 6.0F);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(s, "tiles/3/1/2.glb");
}

TEST(Bytes, AShortOrLyingMessageIsAnErrorNotAReadPastTheEnd) {
  ByteWriter w;
  w.put<std::uint64_t>(1000000);  // Claims a million floats, holds none.
  const std::string lying = w.take();
  ByteReader r(lying, "rank 3's tiles");
  std::vector<float> v;
  const Status s = r.get_vector(v);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().where, "rank 3's tiles");
  const std::string three = "abc";
  ByteReader r2(three, "x");
  std::uint64_t n = 0;
  EXPECT_FALSE(r2.get(n).ok());
  std::string str;
  ByteReader r3(lying, "y");
  EXPECT_FALSE(r3.get_string(str).ok());
}

TEST(SingleRank, IsOneProcessAndAgreeReturnsItsOwnStatus) {
  const Ranks& one = single_rank();
  EXPECT_EQ(one.rank(), 0);
  EXPECT_EQ(one.size(), 1);
  EXPECT_EQ(one.gather("x"), std::vector<std::string>{"x"});
  EXPECT_EQ(one.broadcast("y"), "y");
  EXPECT_EQ(all_gather(one, "z"), std::vector<std::string>{"z"});
  EXPECT_TRUE(agree(one, Ok{}).ok());
  const Status failed = agree(one, Error::io("tiles/0/0/0.glb", "disk full"));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().to_string(), "tiles/0/0/0.glb: disk full") << "no rank prefix";
}

}  // namespace
}  // namespace cityforge

namespace cityforge {
namespace {

/// Ranks played by threads of this process (a std::barrier between the steps of each
/// collective), to test the collectives without MPI.
class ThreadRanks final : public Ranks {
 public:
  struct Group {
    explicit Group(int n) : size(n), slots(static_cast<std::size_t>(n)), sync(n) {}
    int size;
    std::vector<std::string> slots;
    std::string shared;
    std::barrier<> sync;
  };
  ThreadRanks(Group& g, int rank) : m_group(g), m_rank(rank) {}
  int rank() const override { return m_rank; }
  int size() const override { return m_group.size; }
  std::vector<std::string> gather(const std::string& mine) const override {
    m_group.slots[static_cast<std::size_t>(m_rank)] = mine;
    m_group.sync.arrive_and_wait();
    std::vector<std::string> all;
    if (m_rank == 0) all = m_group.slots;
    m_group.sync.arrive_and_wait();
    return all;
  }
  std::string broadcast(const std::string& value) const override {
    if (m_rank == 0) m_group.shared = value;
    m_group.sync.arrive_and_wait();
    std::string out = m_group.shared;
    m_group.sync.arrive_and_wait();
    return out;
  }
  [[noreturn]] void abort(int code) const override { std::exit(code); }

 private:
  Group& m_group;
  int m_rank;
};

/// Runs `body(ranks)` on `n` thread ranks at once.
void on_ranks(int n, const std::function<void(const Ranks&)>& body) {
  ThreadRanks::Group group(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&group, r, &body] {
      const ThreadRanks me(group, r);
      body(me);
    });
  }
  for (std::thread& t : threads)
    t.join();
}

TEST(ShareJobs, EveryJobRunsOnceAndEveryRankGetsAllResultsInOrder) {
  constexpr std::size_t kJobs = 37;
  for (int n = 1; n <= 4; ++n) {
    std::vector<std::atomic<int>> runs(kJobs);
    std::mutex m;
    std::vector<std::vector<std::string>> seen(static_cast<std::size_t>(n));
    std::vector<std::set<std::size_t>> ran_on(static_cast<std::size_t>(n));
    on_ranks(n, [&](const Ranks& ranks) {
      const std::vector<std::string> out = share_jobs(
          ranks, kJobs, [](std::size_t i) { return 1.0 + static_cast<double>(i % 5); },
          [&](std::size_t i) {
            ++runs[i];
            std::lock_guard lock(m);
            ran_on[static_cast<std::size_t>(ranks.rank())].insert(i);
            return "job " + std::to_string(i * i);
          });
      std::lock_guard lock(m);
      seen[static_cast<std::size_t>(ranks.rank())] = out;
    });
    for (std::size_t i = 0; i < kJobs; ++i)
      EXPECT_EQ(runs[i].load(), 1) << "job " << i << " on " << n << " ranks";
    for (int r = 0; r < n; ++r) {
      ASSERT_EQ(seen[static_cast<std::size_t>(r)].size(), kJobs);
      for (std::size_t i = 0; i < kJobs; ++i)
        EXPECT_EQ(seen[static_cast<std::size_t>(r)][i], "job " + std::to_string(i * i));
      // Every rank some work, and about the same total cost: dealt heaviest first, no rank
      // carries more than the lightest rank plus the heaviest job (5).
      const auto& mine = ran_on[static_cast<std::size_t>(r)];
      ASSERT_FALSE(mine.empty()) << "rank " << r << " of " << n;
    }
    std::vector<double> load(static_cast<std::size_t>(n), 0.0);
    for (int r = 0; r < n; ++r) {
      for (const std::size_t i : ran_on[static_cast<std::size_t>(r)])
        load[static_cast<std::size_t>(r)] += 1.0 + static_cast<double>(i % 5);
    }
    EXPECT_LE(*std::max_element(load.begin(), load.end()),
              *std::min_element(load.begin(), load.end()) + 5.0)
        << n << " ranks";
  }
}

TEST(ShareResults, TypedResultsInOrderAndAMessageThatDoesNotReadBackIsAnError) {
  constexpr std::size_t kJobs = 11;
  const auto put = [](ByteWriter& w, const std::vector<int>& v) { w.put_vector(v); };
  for (int n = 1; n <= 3; ++n) {
    std::mutex m;
    std::vector<std::vector<std::vector<int>>> seen(static_cast<std::size_t>(n));
    on_ranks(n, [&](const Ranks& ranks) {
      Result<std::vector<std::vector<int>>> out = share_results<std::vector<int>>(
          ranks, kJobs, "test", [](std::size_t i) { return 1.0 + static_cast<double>(i); },
          [](std::size_t i) { return std::vector<int>(i, static_cast<int>(i)); }, put,
          [](ByteReader& r, std::vector<int>& v) { return r.get_vector(v); });
      std::lock_guard lock(m);
      ASSERT_TRUE(out.ok()) << n;
      seen[static_cast<std::size_t>(ranks.rank())] = *out;
    });
    for (int r = 0; r < n; ++r) {
      ASSERT_EQ(seen[static_cast<std::size_t>(r)].size(), kJobs);
      for (std::size_t i = 0; i < kJobs; ++i)
        EXPECT_EQ(seen[static_cast<std::size_t>(r)][i], std::vector<int>(i, static_cast<int>(i)));
    }
  }
  // A reader that leaves bytes unread, on two ranks: an internal error naming the message.
  std::mutex m;
  std::vector<std::string> errors;
  on_ranks(2, [&](const Ranks& ranks) {
    Result<std::vector<std::vector<int>>> out = share_results<std::vector<int>>(
        ranks, 4, "test message", [](std::size_t) { return 1.0; },
        [](std::size_t i) { return std::vector<int>(i + 1, 7); }, put,
        [](ByteReader& r, std::vector<int>& v) {
          std::uint64_t size = 0;
          v.clear();
          return r.get(size);
        });
    std::lock_guard lock(m);
    errors.push_back(out.ok() ? "" : out.error().where + ": " + out.error().message);
  });
  ASSERT_EQ(errors.size(), 2U);
  for (const std::string& e : errors)
    EXPECT_NE(e.find("test message"), std::string::npos) << e;
}

TEST(Agree, EveryRankGetsTheLowestFailingRanksErrorNamed) {
  on_ranks(4, [](const Ranks& ranks) {
    const Status mine =
        ranks.rank() == 2 || ranks.rank() == 3
            ? Status(Error::io("tiles/2/1/1.glb", "disk full on " + std::to_string(ranks.rank())))
            : Status(Ok{});
    const Status all = agree(ranks, mine);
    ASSERT_FALSE(all.ok());
    EXPECT_EQ(all.error().to_string(), "rank 2: tiles/2/1/1.glb: disk full on 2");
    EXPECT_EQ(all.error().code, ErrorCode::io);
    EXPECT_TRUE(agree(ranks, Ok{}).ok());
    const std::vector<std::string> every = all_gather(ranks, std::to_string(ranks.rank() * 10));
    EXPECT_EQ(every, (std::vector<std::string>{"0", "10", "20", "30"}));
  });
}

// The personalised exchange (by default through all_gather; MPI_Alltoallv in the MPI module,
// which the traffic's halo exchange runs over mpirun in tests/app/mpi_test.cpp): each rank gets,
// in rank order, what every rank addressed to it, its own message included, empty ones too.
TEST(AllToAll, EachRankGetsWhatEveryRankSentItInRankOrder) {
  for (int n = 1; n <= 4; ++n) {
    std::vector<std::vector<std::string>> got(static_cast<std::size_t>(n));
    on_ranks(n, [&](const Ranks& ranks) {
      std::vector<std::string> to(static_cast<std::size_t>(n));
      for (int k = 0; k < n; ++k) {
        // Rank 1 sends nothing to rank 0: an empty message arrives as one.
        if (ranks.rank() == 1 && k == 0) continue;
        to[static_cast<std::size_t>(k)] =
            "from " + std::to_string(ranks.rank()) + " to " + std::to_string(k);
      }
      got[static_cast<std::size_t>(ranks.rank())] = ranks.all_to_all(to);
    });
    for (int r = 0; r < n; ++r) {
      const std::vector<std::string>& in = got[static_cast<std::size_t>(r)];
      ASSERT_EQ(in.size(), static_cast<std::size_t>(n)) << "n " << n << " rank " << r;
      for (int k = 0; k < n; ++k) {
        const std::string want =
            k == 1 && r == 0 ? "" : "from " + std::to_string(k) + " to " + std::to_string(r);
        EXPECT_EQ(in[static_cast<std::size_t>(k)], want) << "n " << n << " rank " << r;
      }
    }
  }
}

}  // namespace
}  // namespace cityforge
