package io.verglas.ingest;

import io.verglas.catalog.Catalogs;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalSegment;
import io.verglas.wal.WalSegmentCodec;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.Catalog;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * What the server tests run against, all in this JVM: an S3 server (s3proxy, in memory, SigV4
 * with real keys) holding the WAL bucket and the warehouse, and a JDBC catalog on SQLite whose
 * tables live in that bucket through S3FileIO.
 */
final class TestEnvironment implements Closeable {
  static final String TOKEN = "test-token";
  static final String BUCKET = "verglas";
  static final WalLayout LAYOUT = WalLayout.defaults();

  private final S3Proxy s3proxy;
  private final ObjectStoreEndpoint endpoint;
  private final Catalog catalog;
  private final S3Client s3;

  TestEnvironment(Path dir) throws Exception {
    s3proxy = S3Proxy.builder()
        .blobStore(new TransientNio2BlobStore())
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "access", "secret")
        .ignoreUnknownHeaders(true)
        .stopTimeout(100)
        .build();
    s3proxy.start();
    while (!s3proxy.getState().equals("STARTED")) {
      Thread.sleep(5);
    }
    endpoint = new ObjectStoreEndpoint(URI.create("http://127.0.0.1:" + s3proxy.getPort()),
        "us-east-1", "access", "secret", BUCKET);
    s3 = endpoint.newClient();
    s3.createBucket(b -> b.bucket(BUCKET));
    catalog = Catalogs.load("test", Catalogs.sqlite(dir.resolve("catalog.db").toString(),
        endpoint.warehouse() + "warehouse", endpoint.s3FileIoProperties()));
  }

  ObjectStoreEndpoint endpoint() {
    return endpoint;
  }

  Catalog catalog() {
    return catalog;
  }

  /** A server builder with the test's store, catalog and token, flushing quickly. */
  IngestServer.Builder server(String streamId) {
    return IngestServer.builder()
        .catalog(catalog)
        .objectStore(endpoint)
        .streamId(streamId)
        .token(TOKEN)
        .flushInterval(Duration.ofMillis(20));
  }

  /**
   * Waits (up to 10 s) until the server buffers no batch: everything it accepted is in the WAL
   * or was refused, so a test may look at the WAL.
   */
  static void awaitDrained(IngestServer server) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.metrics().snapshot().bufferedBytes() > 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the server still buffers "
            + server.metrics().snapshot().bufferedBytes() + " bytes after 10 s");
      }
      Thread.onSpinWait();
    }
  }

  /** The keys of the stream's segments, in listing (= sequence) order. */
  List<String> segmentKeys(String streamId) {
    return s3.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(BUCKET)
            .prefix(LAYOUT.streamPrefix(streamId)).build())
        .contents().stream().map(S3Object::key).collect(Collectors.toList());
  }

  WalSegment segment(String key) {
    return WalSegmentCodec.decode(s3.getObjectAsBytes(
        GetObjectRequest.builder().bucket(BUCKET).key(key).build()).asByteArray());
  }

  List<WalSegment> segments(String streamId) {
    return segmentKeys(streamId).stream().map(this::segment).collect(Collectors.toList());
  }

  /** The segments of every lane of an ingest stream ({@code id}, {@code id.1}, ...). */
  List<WalSegment> laneSegments(String streamId) {
    return s3.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(BUCKET)
            .prefix(LAYOUT.prefix()).build())
        .contents().stream().map(S3Object::key)
        .filter(key -> LAYOUT.parse(key).map(name -> name.streamId().equals(streamId)
            || name.streamId().startsWith(streamId + ".")).orElse(false))
        .map(this::segment).collect(Collectors.toList());
  }

  S3Client s3() {
    return s3;
  }

  /** Stops the S3 server (the catalog object stays open): the object store is gone. */
  void stopObjectStore() throws Exception {
    try {
      s3proxy.stop();
    } catch (java.util.concurrent.TimeoutException e) {
      // stopped; idle connections timed out
    }
  }

  @Override
  public void close() throws IOException {
    try {
      if (catalog instanceof Closeable closeable) {
        closeable.close();
      }
      s3.close();
      s3proxy.stop();
    } catch (java.util.concurrent.TimeoutException e) {
      // Jetty's graceful stop timed out on idle keep-alive connections; the server is stopped.
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }
}
