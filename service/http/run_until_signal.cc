#include "service/http/run_until_signal.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>

namespace deltacommit::http {

int RunUntilSignal(HttpServer& server,
                   const std::function<void()>& on_waiting) {
  boost::asio::io_context context;
  boost::asio::signal_set signals(context, SIGTERM, SIGINT);
  int received = 0;
  signals.async_wait(
      [&received](const boost::system::error_code& ec, int number) {
        if (!ec) received = number;
      });
  if (on_waiting) on_waiting();
  context.run();
  server.Stop();
  return received;
}

}  // namespace deltacommit::http
