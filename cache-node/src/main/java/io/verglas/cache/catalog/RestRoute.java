package io.verglas.cache.catalog;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.rest.Endpoint;

/**
 * The REST catalog operations /catalog serves, each matched by Iceberg's own {@link Endpoint}
 * (method and path template) without the {@code {prefix}} segment: the config response
 * advertises no prefix. Views, scan planning and multi-table transactions are not served, and
 * not advertised, so clients do not try them.
 */
enum RestRoute {
  LIST_NAMESPACES(Endpoint.V1_LIST_NAMESPACES),
  CREATE_NAMESPACE(Endpoint.V1_CREATE_NAMESPACE),
  NAMESPACE_EXISTS(Endpoint.V1_NAMESPACE_EXISTS),
  LOAD_NAMESPACE(Endpoint.V1_LOAD_NAMESPACE),
  DROP_NAMESPACE(Endpoint.V1_DELETE_NAMESPACE),
  UPDATE_NAMESPACE(Endpoint.V1_UPDATE_NAMESPACE),
  LIST_TABLES(Endpoint.V1_LIST_TABLES),
  CREATE_TABLE(Endpoint.V1_CREATE_TABLE),
  TABLE_EXISTS(Endpoint.V1_TABLE_EXISTS),
  LOAD_TABLE(Endpoint.V1_LOAD_TABLE),
  UPDATE_TABLE(Endpoint.V1_UPDATE_TABLE),
  DROP_TABLE(Endpoint.V1_DELETE_TABLE),
  RENAME_TABLE(Endpoint.V1_RENAME_TABLE),
  REGISTER_TABLE(Endpoint.V1_REGISTER_TABLE),
  REPORT_METRICS(Endpoint.V1_REPORT_METRICS),
  CONFIG(Endpoint.create("GET", "/v1/config"));

  /** A matched request: the route and its path variables, still percent-encoded. */
  record Match(RestRoute route, Map<String, String> rawVariables) {}

  private final Endpoint endpoint;
  private final List<String> template;

  RestRoute(Endpoint endpoint) {
    this.endpoint = endpoint;
    this.template = segments(endpoint.path().replace("/{prefix}", ""));
  }

  Endpoint endpoint() {
    return endpoint;
  }

  /** The route of {@code method} on {@code rawPath} (relative to /catalog), or null. */
  static Match match(String method, String rawPath) {
    List<String> path = segments(rawPath);
    for (RestRoute route : values()) {
      Map<String, String> variables = route.variables(method, path);
      if (variables != null) {
        return new Match(route, variables);
      }
    }
    return null;
  }

  private Map<String, String> variables(String method, List<String> path) {
    if (!endpoint.httpMethod().equals(method) || path.size() != template.size()) {
      return null;
    }
    Map<String, String> variables = new HashMap<>();
    for (int i = 0; i < template.size(); i++) {
      String part = template.get(i);
      if (part.startsWith("{") && part.endsWith("}")) {
        if (path.get(i).isEmpty()) {
          return null;
        }
        variables.put(part.substring(1, part.length() - 1), path.get(i));
      } else if (!part.equals(path.get(i))) {
        return null;
      }
    }
    return variables;
  }

  /** The segments of a path; an empty one (a doubled or trailing slash) never matches a template. */
  private static List<String> segments(String path) {
    List<String> parts = new ArrayList<>(List.of(path.split("/", -1)));
    if (!parts.isEmpty() && parts.get(0).isEmpty()) {
      parts.remove(0);
    }
    return parts;
  }
}
