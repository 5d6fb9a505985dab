package io.verglas.catalog;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/**
 * Builds an Iceberg catalog from the same properties any Iceberg client would use.
 *
 * <p>Two sets of properties exist on purpose. The advertised ones (what {@code endpoints.json}
 * and the README hand to Spark, Trino, PyIceberg or a Java client) name nothing beyond the
 * catalog, the warehouse and the S3 endpoint, so Iceberg's own runtime jars and
 * {@code iceberg-aws-bundle} work with them unchanged. Our own processes add their own
 * settings on top ({@link #forOurProcesses}): they ship the AWS SDK's URL-connection HTTP
 * client and not the Apache one that S3FileIO picks by default.
 */
public final class Catalogs {
  /** Iceberg's S3FileIO property that picks the AWS SDK's HTTP client. */
  public static final String HTTP_CLIENT_TYPE = "http-client.type";
  private static final String OUR_HTTP_CLIENT = "urlconnection";
  /**
   * Connections of the Iceberg JDBC catalog's pool on PostgreSQL (Iceberg's {@code clients},
   * 2 by default). Every catalog call holds one for each statement, so with two a process's
   * concurrent calls (create-table requests, table loads) queue behind each other; the pool
   * opens connections only as calls need them.
   */
  static final String POSTGRESQL_CLIENTS = "8";

  private Catalogs() {}

  /**
   * A catalog for one of our processes: {@code properties} plus {@link #forOurProcesses}; a JDBC
   * catalog on PostgreSQL gets its tables in its own schema and their prefix indexes first
   * ({@link JdbcCatalogSetup}), unless {@code jdbc.init-catalog-tables} is {@code false}.
   */
  public static Catalog load(String name, Map<String, String> properties) {
    Map<String, String> props = forOurProcesses(properties);
    if ("jdbc".equals(props.get(CatalogUtil.ICEBERG_CATALOG_TYPE))) {
      JdbcCatalogSetup.ensure(props); // Iceberg may believe another schema's tables are ours
    }
    return CatalogUtil.buildIcebergCatalog(name, props, new Configuration(false));
  }

  /**
   * {@code properties} with the settings our processes need, unless the properties choose
   * otherwise: the HTTP client our classpath holds, and on PostgreSQL a connection pool of
   * {@value #POSTGRESQL_CLIENTS}.
   */
  public static Map<String, String> forOurProcesses(Map<String, String> properties) {
    Map<String, String> props = new LinkedHashMap<>(properties);
    props.putIfAbsent(HTTP_CLIENT_TYPE, OUR_HTTP_CLIENT);
    if (String.valueOf(props.get(CatalogProperties.URI)).startsWith("jdbc:postgresql:")) {
      props.putIfAbsent(CatalogProperties.CLIENT_POOL_SIZE, POSTGRESQL_CLIENTS);
    }
    return props;
  }

  /** Properties of a JDBC catalog on a SQLite file, with the given FileIO properties. */
  public static Map<String, String> sqlite(String dbPath, String warehouse, Map<String, String> io) {
    return jdbc("jdbc:sqlite:" + dbPath, warehouse, io);
  }

  /**
   * Properties of Iceberg's JDBC catalog on the database at {@code uri} (SQLite or PostgreSQL),
   * with the given FileIO properties.
   */
  public static Map<String, String> jdbc(String uri, String warehouse, Map<String, String> io) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("type", "jdbc");
    props.put("uri", uri);
    props.put("warehouse", warehouse);
    props.put("jdbc.schema-version", "V1");
    props.putAll(io);
    return props;
  }
}
