package io.verglas.cli.local;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.function.Function;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * A page about one table, {@code GET <path>?table=ns.t}, as JSON: {@code /maintenance} (last
 * maintenance, pending work, file counts and sizes) and {@code /heat} (what clients read of it,
 * by partition and column); 400 without a table, 404 for an unknown one.
 */
final class TablePageHandler {
  private final Function<String, String> statusJson;

  TablePageHandler(Function<String, String> statusJson) {
    this.statusJson = statusJson;
  }

  FullHttpResponse answer(QueryStringDecoder uri) {
    List<String> tables = uri.parameters().get("table");
    String table = tables == null || tables.isEmpty() ? null : tables.get(0);
    if (table == null || table.isBlank()) {
      return AdminResponses.error(HttpResponseStatus.BAD_REQUEST,
          "Missing query parameter: table=ns.t");
    }
    try {
      return AdminResponses.json(HttpResponseStatus.OK, statusJson.apply(table));
    } catch (NoSuchTableException e) {
      return AdminResponses.error(HttpResponseStatus.NOT_FOUND, "No such table: " + table);
    } catch (IllegalArgumentException e) {
      return AdminResponses.error(HttpResponseStatus.BAD_REQUEST, e.getMessage());
    }
  }
}
