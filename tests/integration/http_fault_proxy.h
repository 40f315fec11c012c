// HttpFaultProxy: an HTTP/1.1 proxy on 127.0.0.1 in front of a `deltacommit
// serve`, for end-to-end tests of what a writer sees when the network
// between it and the service misbehaves. It acts only on POST /v1/commits:
//   - it can lose the reply to the first one: the request reaches serve,
//     which commits it and answers, but the writer's connection is closed
//     instead of the answer arriving, either once serve's answer is in
//     (kAfterTheAnswer) or as soon as the request is forwarded, while
//     serve is still working on it (kBeforeTheAnswer);
//   - it can rewrite each one's body (to tamper with what serve receives).
// Everything else is passed through unchanged, one request at a time per
// connection (as libcurl sends them). Messages are framed by Content-Length,
// which libcurl's requests and serve's answers carry; chunked bodies are not
// understood.
//
// Thread-safety: the accessors may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace deltacommit::testing {

class HttpFaultProxy {
 public:
  enum class LoseReply { kNever, kAfterTheAnswer, kBeforeTheAnswer };
  struct Faults {
    // Which reply to the first POST /v1/commits the writer loses, if any.
    LoseReply lose_first_commit_reply = LoseReply::kNever;
    // Applied to the body of every POST /v1/commits before it is forwarded
    // (on the proxy's threads, one request at a time).
    // It must keep the body's length (the Content-Length is not rewritten);
    // a request whose length changed is not forwarded: its connection is
    // closed.
    std::function<void(std::string& body)> rewrite_commit_body;
  };

  HttpFaultProxy(uint16_t target_port, Faults faults);
  // Closes every connection and joins the threads.
  ~HttpFaultProxy();
  HttpFaultProxy(const HttpFaultProxy&) = delete;
  HttpFaultProxy& operator=(const HttpFaultProxy&) = delete;

  uint16_t port() const { return port_; }  // 0 when it could not listen
  // "http://127.0.0.1:<port>".
  std::string Url() const;
  // The bodies of the POST /v1/commits requests received so far, as the
  // writer sent them (before rewrite_commit_body).
  std::vector<std::string> commit_bodies() const;
  // serve's answers to them so far (status line, headers and body), also
  // those the writer did not get.
  std::vector<std::string> commit_answers() const;
  // True once the writer's connection was closed instead of a reply.
  bool reply_lost() const { return reply_lost_; }

 private:
  void Accept();
  void Relay(int client);  // one writer connection, until either side closes
  // Applies the faults to `request`, a POST /v1/commits; false when it must
  // not be forwarded.
  bool Rewrite(std::string& request, bool& lose_reply);

  const uint16_t target_port_;
  const Faults faults_;
  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> lose_claimed_{false};
  std::atomic<bool> reply_lost_{false};
  mutable std::mutex mu_;
  std::vector<std::string> commit_bodies_;   // guarded by mu_
  std::vector<std::string> commit_answers_;  // guarded by mu_
  std::vector<std::thread> relays_;          // guarded by mu_
  std::thread acceptor_;
};

}  // namespace deltacommit::testing
