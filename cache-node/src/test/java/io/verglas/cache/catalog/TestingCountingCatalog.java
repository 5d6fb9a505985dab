package io.verglas.cache.catalog;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/** A catalog that forwards to a real one and counts loadTable calls. */
final class TestingCountingCatalog implements Catalog, SupportsNamespaces {
  private final Catalog delegate;
  private final SupportsNamespaces namespaces;
  final AtomicInteger loads = new AtomicInteger();

  TestingCountingCatalog(Catalog delegate) {
    this.delegate = delegate;
    this.namespaces = (SupportsNamespaces) delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public Table loadTable(TableIdentifier identifier) {
    loads.incrementAndGet();
    return delegate.loadTable(identifier);
  }

  @Override
  public boolean tableExists(TableIdentifier identifier) {
    return delegate.tableExists(identifier);
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    return delegate.listTables(namespace);
  }

  @Override
  public TableBuilder buildTable(TableIdentifier identifier, Schema schema) {
    return delegate.buildTable(identifier, schema);
  }

  @Override
  public boolean dropTable(TableIdentifier identifier, boolean purge) {
    return delegate.dropTable(identifier, purge);
  }

  @Override
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    delegate.renameTable(from, to);
  }

  @Override
  public Table registerTable(TableIdentifier identifier, String metadataFileLocation) {
    return delegate.registerTable(identifier, metadataFileLocation);
  }

  @Override
  public void createNamespace(Namespace namespace, Map<String, String> metadata) {
    namespaces.createNamespace(namespace, metadata);
  }

  @Override
  public List<Namespace> listNamespaces(Namespace namespace) {
    return namespaces.listNamespaces(namespace);
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(Namespace namespace) {
    return namespaces.loadNamespaceMetadata(namespace);
  }

  @Override
  public boolean dropNamespace(Namespace namespace) {
    return namespaces.dropNamespace(namespace);
  }

  @Override
  public boolean setProperties(Namespace namespace, Map<String, String> properties) {
    return namespaces.setProperties(namespace, properties);
  }

  @Override
  public boolean removeProperties(Namespace namespace, java.util.Set<String> properties) {
    return namespaces.removeProperties(namespace, properties);
  }

  @Override
  public boolean namespaceExists(Namespace namespace) {
    return namespaces.namespaceExists(namespace);
  }
}
