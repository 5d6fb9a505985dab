package io.verglas.cli.local;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.verglas.workers.webhook.WebhookEndpoint;
import io.verglas.workers.webhook.WebhookReply;
import io.verglas.workers.webhook.WebhookRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;

/**
 * Serves a {@link WebhookEndpoint} over HTTP on 127.0.0.1 with the JDK's server, as the admin
 * port will mount it: the head is checked before the body is read, the body is read within the
 * bound, and the reply is written as the endpoint made it.
 */
final class WebhookHttpServer implements AutoCloseable {
  private final HttpServer server;

  WebhookHttpServer(WebhookEndpoint endpoint) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    server.createContext(WebhookEndpoint.PREFIX, exchange -> serve(endpoint, exchange));
    server.setExecutor(Executors.newFixedThreadPool(2));
    server.start();
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  private static void serve(WebhookEndpoint endpoint, HttpExchange exchange) throws IOException {
    try (exchange) {
      Map<String, String> headers = new LinkedHashMap<>();
      exchange.getRequestHeaders().forEach((name, values) -> headers.put(name, String.join(", ", values)));
      String method = exchange.getRequestMethod();
      String path = exchange.getRequestURI().getPath();
      Optional<WebhookReply> refused = endpoint.check(method, path, headers);
      WebhookReply reply;
      if (refused.isPresent()) {
        reply = refused.get();
      } else {
        byte[] body = readBounded(exchange.getRequestBody(), endpoint.settings().maxBodyBytes());
        reply = endpoint.handle(new WebhookRequest(method, path, headers, body));
      }
      reply.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      byte[] out = reply.body();
      exchange.sendResponseHeaders(reply.status(), out.length);
      try (OutputStream stream = exchange.getResponseBody()) {
        stream.write(out);
      }
    }
  }

  /** At most {@code max} + 1 bytes: one more than allowed is enough to refuse. */
  private static byte[] readBounded(InputStream in, int max) throws IOException {
    return in.readNBytes(max + 1);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
