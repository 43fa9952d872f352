#include "testing/moto_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include <arrow/filesystem/s3fs.h>
#include <gtest/gtest.h>

#include "storage/s3_storage.h"

namespace lakeshore::testing {
namespace {

std::mutex g_mu;
MotoServer* g_server = nullptr;
Status g_start_error = Status::OK();
bool g_started = false;

std::string PythonExecutable() {
  if (const char* py = std::getenv("LAKESHORE_PYTHON"); py != nullptr && *py != '\0') return py;
  if (::access("/work/main/.venv/bin/python", X_OK) == 0) return "/work/main/.venv/bin/python";
  return "python3";
}

Result<int> FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Status::IOError("socket() failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int rc = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  if (rc == 0) rc = ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  if (rc != 0) return Status::IOError("cannot find a free port on 127.0.0.1");
  return static_cast<int>(ntohs(addr.sin_port));
}

bool Answers(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

std::string Tail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

class MotoEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { MotoServer::StopShared(); }
};
[[maybe_unused]] ::testing::Environment* const g_env =
    ::testing::AddGlobalTestEnvironment(new MotoEnvironment());

}  // namespace

Result<MotoServer*> MotoServer::Shared() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_started) {
    g_started = true;
    auto server = Start();
    if (server.ok()) {
      g_server = *server;
    } else {
      g_start_error = server.status();
    }
  }
  if (g_server == nullptr) return g_start_error;
  return g_server;
}

void MotoServer::StopShared() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_server != nullptr) g_server->Stop();
}

Result<MotoServer*> MotoServer::Start() {
  ARROW_ASSIGN_OR_RAISE(int port, FreePort());
  std::string python = PythonExecutable();
  std::string log = (std::filesystem::temp_directory_path() /
                     ("lakeshore_moto_" + std::to_string(::getpid()) + ".log")).string();
  std::string port_text = std::to_string(port);
  std::vector<std::string> args = {python, "-m", "moto.server", "-H", "127.0.0.1", "-p", port_text};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return Status::IOError("cannot fork to start moto");
  if (pid == 0) {  // child: only async-signal-safe calls until exec
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!Answers(port)) {
    int wstatus = 0;
    if (::waitpid(pid, &wstatus, WNOHANG) == pid) {
      return Status::IOError("moto server (", python, " -m moto.server) exited with status ",
                             WEXITSTATUS(wstatus), "; log ", log, ":\n", Tail(log));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      return Status::IOError("moto server did not answer on 127.0.0.1:", port, " within 60 s; log ", log);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return new MotoServer(pid, "127.0.0.1:" + port_text, log);
}

void MotoServer::Stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 50; ++i) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      std::filesystem::remove(log_);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

Status MotoServer::CreateBucket(const std::string& bucket) const {
  ARROW_RETURN_NOT_OK(EnsureS3Ready());
  auto options = arrow::fs::S3Options::FromAccessKey("testing", "testing");
  options.endpoint_override = endpoint_;
  options.scheme = "http";
  options.region = "us-east-1";
  options.allow_bucket_creation = true;
  ARROW_ASSIGN_OR_RAISE(auto fs, arrow::fs::S3FileSystem::Make(options));
  return fs->CreateDir(bucket, /*recursive=*/false);
}

std::string MotoServer::Uri(const std::string& bucket, const std::string& prefix) const {
  return "s3://" + bucket + "/" + prefix + "?endpoint_override=" + endpoint_ + "&scheme=http&region=us-east-1";
}

StorageOptions MotoServer::Options() const {
  StorageOptions options;
  options.s3_access_key = "testing";
  options.s3_secret_key = "testing";
  options.s3_region = "us-east-1";
  return options;
}

}  // namespace lakeshore::testing
