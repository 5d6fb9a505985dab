package io.verglas.cli.local;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * {@code GET /maintenance?table=ns.t}: the table's maintenance status (last maintenance,
 * pending work, file counts and sizes) as JSON; 400 without a table, 404 for an unknown one.
 */
final class MaintenanceStatusHandler implements HttpHandler {
  private final Function<String, String> statusJson;

  MaintenanceStatusHandler(Function<String, String> statusJson) {
    this.statusJson = statusJson;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    String table = table(exchange.getRequestURI().getRawQuery());
    if (!"GET".equals(exchange.getRequestMethod())) {
      error(exchange, 405, "Method not allowed: use GET");
    } else if (table == null || table.isBlank()) {
      error(exchange, 400, "Missing query parameter: table=ns.t");
    } else {
      try {
        AdminServer.json(exchange, statusJson.apply(table));
      } catch (NoSuchTableException e) {
        error(exchange, 404, "No such table: " + table);
      } catch (IllegalArgumentException e) {
        error(exchange, 400, e.getMessage());
      }
    }
  }

  private static String table(String query) {
    if (query == null) {
      return null;
    }
    for (String pair : query.split("&")) {
      if (pair.startsWith("table=")) {
        return URLDecoder.decode(pair.substring("table=".length()), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  private static void error(HttpExchange exchange, int status, String message) throws IOException {
    try (exchange) {
      byte[] body = ("{\"error\":\"" + message.replace("\\", "\\\\").replace("\"", "\\\"")
          + "\"}").getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, body.length);
      exchange.getResponseBody().write(body);
    }
  }
}
