package io.verglas.catalog;

import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/** Builds an Iceberg catalog from the same properties any Iceberg client would use. */
public final class Catalogs {
  private Catalogs() {}

  public static Catalog load(String name, Map<String, String> properties) {
    return CatalogUtil.buildIcebergCatalog(name, properties, new Configuration(false));
  }

  /** Properties of a JDBC catalog on a SQLite file, with the given FileIO properties. */
  public static Map<String, String> sqlite(String dbPath, String warehouse, Map<String, String> io) {
    java.util.Map<String, String> props = new java.util.LinkedHashMap<>();
    props.put("type", "jdbc");
    props.put("uri", "jdbc:sqlite:" + dbPath);
    props.put("warehouse", warehouse);
    props.put("jdbc.schema-version", "V1");
    props.putAll(io);
    return props;
  }
}
