package io.verglas.cache.catalog;

import com.github.benmanes.caffeine.cache.Ticker;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.verglas.cache.s3.ServiceEndpoint;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;

/**
 * The cache node's Iceberg REST catalog ({@code /catalog}): a shallow proxy over a configured
 * {@code org.apache.iceberg.catalog.Catalog} (the local stack's JDBC catalog on SQLite).
 *
 * <p>Design: requests arrive from the S3 endpoint's event loops ({@link ServiceEndpoint}); the
 * bearer token is checked there on the request head, and everything else runs on a bounded
 * pool of catalog threads, since a backing catalog may block (JDBC does). A full queue answers
 * 503 rather than queue without bound; bodies are bounded by the S3 layer before they are read.
 * Operations are Iceberg's own server-side handlers ({@link RestOperations}), so the proxy
 * holds no authoritative state: writes go through to the backing catalog before they are
 * answered, and the only state kept is a short-lived cache of loaded tables
 * ({@link LoadTableCache}), invalidated by every change made through it and by
 * {@link #invalidate} for changes made elsewhere (the change feed's commit events).
 *
 * <p>Clients: Iceberg's {@code RESTCatalog} with {@code uri=<node endpoint>/catalog} and
 * {@code token=<token>}. The config response points their S3 at this node: {@code s3.endpoint}
 * and {@code s3.path-style-access} as overrides, {@code io-impl} (S3FileIO),
 * {@code client.region} and {@code s3.region} as defaults; S3 credentials stay the client's own.
 *
 * <p>Loads (config, namespace, table) carry an ETag and answer 304 Not Modified to a matching
 * If-None-Match ({@link CatalogETags}), so a client polling a table's metadata downloads it once
 * per commit; Iceberg's own client does this with its table cache.
 */
public final class CatalogProxy implements ServiceEndpoint, AutoCloseable {
  /** The path segment the catalog is served under: {@code /catalog}. */
  public static final String SEGMENT = "catalog";
  private static final String PATH = "/" + SEGMENT;
  static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";
  /** The loads answered with an ETag, and 304 for a matching If-None-Match. */
  private static final Set<RestRoute> TAGGED = EnumSet.of(RestRoute.CONFIG, RestRoute.LOAD_NAMESPACE,
      RestRoute.LOAD_TABLE);

  private final RestCatalogConfig config;
  private final byte[] expectedAuthorization;
  private final Supplier<URI> s3Endpoint;
  private final String region;
  private final LoadTableCache loads;
  private final RestOperations operations;
  private final ThreadPoolExecutor executor;
  private final LongAdder notModified = new LongAdder();

  /**
   * A proxy over {@code config}'s catalog whose config response points clients at
   * {@code s3Endpoint} (asked at each config request: the port is known once the node is bound).
   */
  public CatalogProxy(RestCatalogConfig config, Supplier<URI> s3Endpoint, String region, Clock clock) {
    this.config = config;
    this.expectedAuthorization = sha256("Bearer " + config.token());
    this.s3Endpoint = s3Endpoint;
    this.region = region;
    Ticker ticker = () -> TimeUnit.MILLISECONDS.toNanos(clock.millis());
    this.loads = new LoadTableCache(config.loadCacheTtl(), config.loadCacheMaxEntries(), ticker);
    this.operations = new RestOperations(config.catalog(), loads, this::configResponse);
    this.executor = executor(config.threads(), config.queueCapacity());
  }

  private static ThreadPoolExecutor executor(int threads, int queueCapacity) {
    AtomicInteger count = new AtomicInteger();
    ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(queueCapacity), r -> {
          Thread t = new Thread(r, "verglas-catalog-" + count.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * Forgets what is cached for {@code table}, so the next load asks the backing catalog: for
   * commits made by other writers (the change feed's commit events), which /catalog cannot see.
   */
  public void invalidate(TableIdentifier table) {
    loads.invalidate(table);
  }

  /** Loads answered 304 Not Modified (the client's If-None-Match named the current ETag). */
  public long notModified() {
    return notModified.sum();
  }

  /** loadTable requests answered from the cache. */
  public long loadCacheHits() {
    return loads.hits();
  }

  /** loadTable requests that asked the backing catalog. */
  public long loadCacheMisses() {
    return loads.misses();
  }

  @Override
  public String segment() {
    return SEGMENT;
  }

  @Override
  public long maxBodyBytes() {
    return config.maxRequestBytes();
  }

  @Override
  public Reply check(String method, HttpHeaders headers) {
    String authorization = headers.get(HttpHeaderNames.AUTHORIZATION);
    if (authorization == null) {
      return reply(RestErrors.of(401, "NotAuthorizedException",
          "Cannot serve /catalog: the request has no Authorization: Bearer <token> header"));
    }
    // Digests compared in constant time: the answer's timing tells neither how much of a guessed
    // token was right nor how long the token is.
    if (!MessageDigest.isEqual(sha256(authorization), expectedAuthorization)) {
      return reply(RestErrors.of(401, "NotAuthorizedException",
          "Cannot serve /catalog: the bearer token is not valid"));
    }
    return null;
  }

  private static byte[] sha256(String value) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot check catalog tokens: no SHA-256 in this JVM", e);
    }
  }

  @Override
  public CompletableFuture<Reply> handle(Call call) {
    String path = call.rawPath().substring(PATH.length());
    RestRoute.Match match = RestRoute.match(call.method(), path);
    if (match == null) {
      return CompletableFuture.completedFuture(error(400,
          "Cannot serve /catalog: no route for " + call.method() + " " + path));
    }
    try {
      return CompletableFuture.supplyAsync(() -> run(match, call), executor);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.completedFuture(reply(RestErrors.of(
          new RejectedExecutionException("Cannot serve /catalog: " + config.queueCapacity()
              + " requests are waiting already; retry later"))));
    }
  }

  private Reply run(RestRoute.Match match, Call call) {
    try {
      RESTResponse response = operations.run(match, call.params(), call.body());
      if (response == null) {
        return new Reply(204, null);
      }
      return TAGGED.contains(match.route()) ? tagged(response, call) : new Reply(200, RestJson.write(response));
    } catch (RuntimeException e) {
      return reply(RestErrors.of(e));
    }
  }

  /**
   * A load with its ETag ({@link CatalogETags}); 304 without a body when the request's
   * If-None-Match names it. A table's tag comes from its metadata location, so a matching
   * table load is not serialized at all.
   */
  private Reply tagged(RESTResponse response, Call call) {
    byte[] body = null;
    String tag;
    if (response instanceof LoadTableResponse load && load.metadataLocation() != null) {
      tag = CatalogETags.table(load.metadataLocation(), call.params().get("snapshots"));
    } else {
      body = RestJson.write(response);
      tag = CatalogETags.body(body);
    }
    // spelled as Iceberg's client looks it up (case-sensitively): Netty's constant is "etag"
    Map<String, String> headers = Map.of("ETag", tag);
    if (CatalogETags.matches(call.headers().get(HttpHeaderNames.IF_NONE_MATCH), tag)) {
      notModified.increment();
      return new Reply(304, null, Reply.JSON, headers);
    }
    return new Reply(200, body != null ? body : RestJson.write(response), Reply.JSON, headers);
  }

  @Override
  public Reply error(int status, String message) {
    return reply(RestErrors.of(status, RestErrors.typeFor(status), message));
  }

  private static Reply reply(ErrorResponse error) {
    return new Reply(error.code(), RestJson.write(error));
  }

  private RESTResponse configResponse() {
    Map<String, String> overrides = new LinkedHashMap<>();
    overrides.put("s3.endpoint", s3Endpoint.get().toString());
    overrides.put("s3.path-style-access", "true");
    Map<String, String> defaults = new LinkedHashMap<>();
    defaults.put("io-impl", S3_FILE_IO);
    defaults.put("client.region", region);
    // PyIceberg before client.* properties read the region from here; Java clients ignore it.
    defaults.put("s3.region", region);
    List<Endpoint> endpoints = Arrays.stream(RestRoute.values())
        .filter(route -> route != RestRoute.CONFIG)
        .map(RestRoute::endpoint)
        .toList();
    return ConfigResponse.builder()
        .withOverrides(overrides)
        .withDefaults(defaults)
        .withEndpoints(endpoints)
        .build();
  }

  /** Stops the catalog threads; requests still queued are dropped. Idempotent. */
  @Override
  public void close() {
    executor.shutdownNow();
  }

  @Override
  public String toString() {
    return "CatalogProxy[" + config + "]";
  }
}
