package io.verglas.cache.catalog;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.RESTCatalogProperties.SnapshotMode;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.RegisterTableRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.ReportMetricsRequest;
import org.apache.iceberg.rest.requests.UpdateNamespacePropertiesRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;

/**
 * Runs one matched REST operation against the backing catalog with Iceberg's own server-side
 * handlers ({@link CatalogHandlers}): they check requirements, apply metadata updates and commit
 * with the catalog's own retries, so /catalog adds no semantics of its own. Loads go through
 * the {@link LoadTableCache}; every operation that can change a table's metadata (create,
 * commit, drop, rename, register) invalidates the tables it names once it has run.
 * Runs on a catalog thread (the backing catalog may block).
 */
final class RestOperations {
  private final Supplier<Catalog> catalog;
  private final LoadTableCache loads;
  private final Supplier<RESTResponse> config;

  RestOperations(Supplier<Catalog> catalog, LoadTableCache loads, Supplier<RESTResponse> config) {
    this.catalog = catalog;
    this.loads = loads;
    this.config = config;
  }

  /** The response, or null for an answer without a body (204). */
  RESTResponse run(RestRoute.Match match, Map<String, String> params, byte[] body) {
    Map<String, String> vars = match.rawVariables();
    return switch (match.route()) {
      case CONFIG -> config.get();
      case LIST_NAMESPACES -> listNamespaces(params);
      case CREATE_NAMESPACE -> CatalogHandlers.createNamespace(namespaces(),
          RestJson.read(body, CreateNamespaceRequest.class));
      case NAMESPACE_EXISTS -> {
        CatalogHandlers.namespaceExists(namespaces(), namespace(vars));
        yield null;
      }
      case LOAD_NAMESPACE -> CatalogHandlers.loadNamespace(namespaces(), namespace(vars));
      case DROP_NAMESPACE -> {
        CatalogHandlers.dropNamespace(namespaces(), namespace(vars));
        yield null;
      }
      case UPDATE_NAMESPACE -> CatalogHandlers.updateNamespaceProperties(namespaces(), namespace(vars),
          RestJson.read(body, UpdateNamespacePropertiesRequest.class));
      case LIST_TABLES -> params.containsKey("pageSize")
          ? CatalogHandlers.listTables(catalog(), namespace(vars), params.get("pageToken"), params.get("pageSize"))
          : CatalogHandlers.listTables(catalog(), namespace(vars));
      case TABLE_EXISTS -> {
        CatalogHandlers.tableExists(catalog(), table(vars));
        yield null;
      }
      case LOAD_TABLE -> loadTable(table(vars), params.get("snapshots"));
      case CREATE_TABLE -> createTable(namespace(vars), RestJson.read(body, CreateTableRequest.class));
      case UPDATE_TABLE -> invalidating(List.of(table(vars)), () -> CatalogHandlers.updateTable(
          catalog(), table(vars), RestJson.read(body, UpdateTableRequest.class)));
      case DROP_TABLE -> invalidating(List.of(table(vars)), () -> dropTable(table(vars), params));
      case RENAME_TABLE -> renameTable(RestJson.read(body, RenameTableRequest.class));
      case REGISTER_TABLE -> registerTable(namespace(vars), RestJson.read(body, RegisterTableRequest.class));
      case REPORT_METRICS -> {
        // Accepted and dropped: the node keeps no scan metrics, but a client must not fail.
        RestJson.read(body, ReportMetricsRequest.class);
        yield null;
      }
    };
  }

  /**
   * Runs a change, then forgets the cached loads of the tables it names, whether it succeeded
   * or not (a failed commit may still have landed).
   */
  private RESTResponse invalidating(List<TableIdentifier> tables, Supplier<RESTResponse> change) {
    try {
      return change.get();
    } finally {
      tables.forEach(loads::invalidate);
    }
  }

  private RESTResponse createTable(Namespace namespace, CreateTableRequest request) {
    return invalidating(List.of(TableIdentifier.of(namespace, request.name())), () -> request.stageCreate()
        ? CatalogHandlers.stageTableCreate(catalog(), namespace, request)
        : CatalogHandlers.createTable(catalog(), namespace, request));
  }

  private RESTResponse dropTable(TableIdentifier table, Map<String, String> params) {
    if (Boolean.parseBoolean(params.get("purgeRequested"))) {
      CatalogHandlers.purgeTable(catalog(), table);
    } else {
      CatalogHandlers.dropTable(catalog(), table);
    }
    return null;
  }

  private RESTResponse renameTable(RenameTableRequest request) {
    return invalidating(List.of(request.source(), request.destination()), () -> {
      CatalogHandlers.renameTable(catalog(), request);
      return null;
    });
  }

  private RESTResponse registerTable(Namespace namespace, RegisterTableRequest request) {
    return invalidating(List.of(TableIdentifier.of(namespace, request.name())),
        () -> CatalogHandlers.registerTable(catalog(), namespace, request));
  }

  private RESTResponse listNamespaces(Map<String, String> params) {
    String parent = params.get("parent");
    Namespace namespace = parent == null ? Namespace.empty() : RESTUtil.namespaceFromQueryParam(parent);
    return params.containsKey("pageSize")
        ? CatalogHandlers.listNamespaces(namespaces(), namespace, params.get("pageToken"), params.get("pageSize"))
        : CatalogHandlers.listNamespaces(namespaces(), namespace);
  }

  private RESTResponse loadTable(TableIdentifier table, String snapshots) {
    SnapshotMode mode = snapshotMode(snapshots);
    return loads.get(new LoadTableCache.Key(table, mode),
        () -> CatalogHandlers.loadTable(catalog(), table, mode));
  }

  private static SnapshotMode snapshotMode(String value) {
    if (value == null || value.equalsIgnoreCase("all")) {
      return SnapshotMode.ALL;
    }
    if (value.equalsIgnoreCase("refs")) {
      return SnapshotMode.REFS;
    }
    throw new IllegalArgumentException("Cannot load a table: invalid snapshots mode: " + value
        + " (all or refs)");
  }

  private Catalog catalog() {
    Catalog backing = catalog.get();
    if (backing == null) {
      throw new ServiceUnavailableException("Cannot serve /catalog: the backing catalog is not ready yet");
    }
    return backing;
  }

  private SupportsNamespaces namespaces() {
    Catalog backing = catalog();
    if (backing instanceof SupportsNamespaces namespaces) {
      return namespaces;
    }
    throw new UnsupportedOperationException(
        "Cannot serve namespace operations: catalog " + backing.name() + " does not support namespaces");
  }

  private static Namespace namespace(Map<String, String> vars) {
    return RESTUtil.decodeNamespace(vars.get("namespace"));
  }

  private static TableIdentifier table(Map<String, String> vars) {
    return TableIdentifier.of(namespace(vars), RESTUtil.decodeString(vars.get("table")));
  }
}
