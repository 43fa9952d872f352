// S3Storage's handling of responses moto never gives (5xx, 409, partial delete failures),
// against a scripted HTTP server on 127.0.0.1 that answers each request with the next
// scripted response and records what it was asked.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <deque>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "lakeshore/storage/storage.h"
#include "testing/status_test_util.h"

namespace lakeshore {
namespace {

struct Scripted {
  int status;
  std::string body;
};

class ScriptedHttpServer {
 public:
  explicit ScriptedHttpServer(std::deque<Scripted> script) : script_(std::move(script)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    ::listen(fd_, 16);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedHttpServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string uri() const {
    return "s3://bkt/t?endpoint_override=127.0.0.1:" + std::to_string(port_) + "&scheme=http";
  }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  void Serve() {
    while (true) {
      int conn = ::accept(fd_, nullptr, nullptr);
      if (conn < 0) return;
      std::string in;
      char buf[65536];
      size_t header_end;
      while ((header_end = in.find("\r\n\r\n")) == std::string::npos) {
        ssize_t n = ::read(conn, buf, sizeof(buf));
        if (n <= 0) break;
        in.append(buf, n);
      }
      size_t length = 0;
      if (size_t pos = in.find("Content-Length: "); pos != std::string::npos) length = std::stoul(in.substr(pos + 16));
      while (header_end != std::string::npos && in.size() < header_end + 4 + length) {
        ssize_t n = ::read(conn, buf, sizeof(buf));
        if (n <= 0) break;
        in.append(buf, n);
      }
      Scripted reply{500, ""};
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(in.substr(0, in.find(' ', in.find(' ') + 1)));  // "METHOD /path"
        if (!script_.empty()) {
          reply = script_.front();
          script_.pop_front();
        }
      }
      std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " X\r\nContent-Length: " +
                        std::to_string(reply.body.size()) + "\r\nConnection: close\r\n\r\n";
      if (in.rfind("HEAD ", 0) != 0) out += reply.body;
      (void)::write(conn, out.data(), out.size());
      ::close(conn);
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::deque<Scripted> script_;
  std::vector<std::string> requests_;
};

StorageOptions Keys() {
  StorageOptions options;
  options.s3_access_key = "k";
  options.s3_secret_key = "s";
  return options;
}

TEST(S3ErrorPaths, PutIfAbsentAfterAmbiguousFailureReadsBackItsOwnContent) {
  ScriptedHttpServer server({{500, ""}, {412, ""}, {200, "mine"}});
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server.uri(), Keys()));
  ASSERT_OK_AND_ASSIGN(bool created, storage->PutIfAbsentString("lock", "mine"));
  EXPECT_TRUE(created) << "the first PUT may have written it: identical content is ours";
  EXPECT_EQ(server.requests(), (std::vector<std::string>{"PUT /bkt/t/lock", "PUT /bkt/t/lock", "GET /bkt/t/lock"}));
}

TEST(S3ErrorPaths, PutIfAbsentAfterAmbiguousFailureSeesAnotherWritersContent) {
  ScriptedHttpServer server({{503, ""}, {412, ""}, {200, "theirs"}});
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server.uri(), Keys()));
  ASSERT_OK_AND_ASSIGN(bool created, storage->PutIfAbsentString("lock", "mine"));
  EXPECT_FALSE(created);
}

TEST(S3ErrorPaths, ConflictingConditionalWritesAreRetriedUntilDecided) {
  {
    ScriptedHttpServer server({{409, "<Error><Code>ConditionalRequestConflict</Code></Error>"}, {409, ""}, {412, ""}});
    ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server.uri(), Keys()));
    ASSERT_OK_AND_ASSIGN(bool created, storage->PutIfAbsentString("lock", "mine"));
    EXPECT_FALSE(created);
    EXPECT_EQ(server.requests().size(), 3u) << "a 409 is not ambiguous: no read-back";
  }
  {
    ScriptedHttpServer server({{409, ""}, {200, ""}});
    ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server.uri(), Keys()));
    ASSERT_OK_AND_ASSIGN(bool created, storage->PutIfAbsentString("lock", "mine"));
    EXPECT_TRUE(created);
  }
}

TEST(S3ErrorPaths, ClientErrorsAreReportedWithCodeAndPath) {
  ScriptedHttpServer server({{403, "<Error><Code>AccessDenied</Code><Message>no</Message></Error>"}});
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server.uri(), Keys()));
  auto put = storage->PutIfAbsentString("a/lock", "mine");
  ASSERT_FALSE(put.ok());
  EXPECT_NE(put.status().message().find("a/lock"), std::string::npos) << put.status().ToString();
  EXPECT_NE(put.status().message().find("AccessDenied"), std::string::npos) << put.status().ToString();
  EXPECT_EQ(server.requests().size(), 1u) << "a 403 is final";
}

TEST(S3ErrorPaths, PerKeyDeleteErrorsFailTheBatchNamingTheKey) {
  ScriptedHttpServer server(
      {{200, ""}, {200, "<DeleteResult><Error><Key>t/p/f</Key><Code>AccessDenied</Code><Message>no</Message></Error></DeleteResult>"}});
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server.uri(), Keys()));
  auto outcome = storage->DeleteFiles({"p/f"});
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(outcome.status().message().find("t/p/f"), std::string::npos) << outcome.status().ToString();
  EXPECT_EQ(server.requests(), (std::vector<std::string>{"HEAD /bkt/t/p/f", "POST /bkt?delete="}));
}

std::string ListPage(const std::string& entries, const std::string& next_token) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
         "<Name>bkt</Name><Prefix>t%2F</Prefix><EncodingType>url</EncodingType>" +
         entries + "<IsTruncated>" + (next_token.empty() ? "false" : "true") + "</IsTruncated>" +
         (next_token == "-" || next_token.empty() ? "" : "<NextContinuationToken>" + next_token + "</NextContinuationToken>") +
         "</ListBucketResult>";
}

std::string Object(const std::string& key, int64_t size, const std::string& modified) {
  return "<Contents><Key>" + key + "</Key><LastModified>" + modified + "</LastModified><Size>" + std::to_string(size) +
         "</Size></Contents>";
}

TEST(S3ErrorPaths, ListingsFollowPagesAndDecodeKeys) {
  ScriptedHttpServer server({
      {200, ListPage(Object("t%2Fp%3D1%2Fa+b.parquet", 10, "2026-12-05T07:00:01.250Z") +
                         Object("t%2Fp%3D1%2F", 0, "2026-12-05T07:00:00.000Z") +      // a folder marker
                         Object("t%2Fp%3D1%2F%2Fodd", 1, "2026-12-05T07:00:00.000Z"),  // no path of the table
                     "tok&amp;1")},
      {200, ListPage(Object("t%2Fq%2F%C3%A9t%C3%A9%2Bx", 7, "1970-01-01T00:00:01Z"), "")},
  });
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server.uri(), Keys()));
  ASSERT_OK_AND_ASSIGN(auto entries, storage->List("", /*recursive=*/true));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].path, "p=1/a b.parquet");
  EXPECT_EQ(entries[0].size, 10);
  EXPECT_EQ(entries[0].mtime_ms, 1796454001250);
  EXPECT_EQ(entries[1].path, "q/\xC3\xA9t\xC3\xA9+x");
  EXPECT_EQ(entries[1].mtime_ms, 1999);  // a whole second: its last millisecond, never older
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[1].find("continuation-token=tok%261"), std::string::npos) << requests[1];
}

TEST(S3ErrorPaths, KeysOfAServerIgnoringTheUrlEncodingAreTakenAsSent) {
  // No <EncodingType>url</EncodingType> in the answer: the keys are raw, '+' and '%' included.
  ScriptedHttpServer server({{200, "<ListBucketResult><Name>bkt</Name>" + Object("t/a+b%41.parquet", 1, "2026-12-05T07:00:00Z") +
                                       "<IsTruncated>false</IsTruncated></ListBucketResult>"}});
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server.uri(), Keys()));
  ASSERT_OK_AND_ASSIGN(auto entries, storage->List("", /*recursive=*/true));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].path, "a+b%41.parquet");
}

TEST(S3ErrorPaths, FoldersOfAShallowListingAreItsCommonPrefixes) {
  ScriptedHttpServer server({{200, ListPage(Object("t%2Fa%2Ff", 3, "2026-12-05T07:00:00Z") +
                                                "<CommonPrefixes><Prefix>t%2Fa%2Fp%3D1%2F</Prefix></CommonPrefixes>",
                                            "")}});
  ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server.uri(), Keys()));
  ASSERT_OK_AND_ASSIGN(auto entries, storage->List("a", /*recursive=*/false));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].path, "a/f");
  EXPECT_FALSE(entries[0].is_dir);
  EXPECT_EQ(entries[1].path, "a/p=1");
  EXPECT_TRUE(entries[1].is_dir);
  EXPECT_NE(server.requests()[0].find("delimiter=%2F"), std::string::npos) << server.requests()[0];
  EXPECT_NE(server.requests()[0].find("prefix=t%2Fa%2F"), std::string::npos) << server.requests()[0];
}

TEST(S3ErrorPaths, AListingThatWouldNeverEndIsAnError) {
  // A server answering "truncated" with the token it was sent made the listing ask the same
  // page for ever (Arrow's S3 file system kept paging); with no token, it could not go on.
  {
    const std::string page = ListPage(Object("t%2Fa", 1, "2026-12-05T07:00:00Z"), "same");
    ScriptedHttpServer server({{200, page}, {200, page}, {200, page}});
    ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server.uri(), Keys()));
    auto entries = storage->List("", true);
    ASSERT_FALSE(entries.ok());
    EXPECT_NE(entries.status().message().find("same continuation token twice"), std::string::npos) << entries.status();
    EXPECT_EQ(server.requests().size(), 2u);
  }
  {
    ScriptedHttpServer server({{200, ListPage(Object("t%2Fa", 1, "2026-12-05T07:00:00Z"), "-")}});
    ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server.uri(), Keys()));
    auto entries = storage->List("", true);
    ASSERT_FALSE(entries.ok());
    EXPECT_NE(entries.status().message().find("no continuation token"), std::string::npos) << entries.status();
  }
  {
    ScriptedHttpServer server({{200, ListPage(Object("t%2Fa", 1, "yesterday"), "")}});
    ASSERT_OK_AND_ASSIGN(auto storage, Storage::Open(server.uri(), Keys()));
    auto entries = storage->List("", true);
    ASSERT_FALSE(entries.ok());
    EXPECT_NE(entries.status().message().find("'a'"), std::string::npos) << entries.status();
  }
}

}  // namespace
}  // namespace lakeshore
