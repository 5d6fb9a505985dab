package io.verglas.cache.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.verglas.cache.CacheNode;
import io.verglas.cache.TestingClock;
import io.verglas.cache.TestingRawHttp;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.s3.S3Origin;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A cache node in front of one kind of origin (the local directory origin, or s3proxy in process
 * through {@link S3Origin}) and an AWS SDK v2 client against it, for specs that run the same
 * requests on every origin. One node per class; tests use disjoint keys.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class S3NodeFixture {
  static final String ACCESS_KEY = "surface-client";
  static final String SECRET_KEY = "surface-client-secret";
  static final int MIB = CacheNode.MIB;

  enum OriginKind { LOCAL, S3PROXY }

  protected final OriginKind kind;
  protected final String bucket;
  protected final TestingClock clock = new TestingClock();
  protected CacheNode node;
  protected Origin origin;
  protected S3Client s3;
  private Path dir;
  private TestingS3Proxy proxy;

  S3NodeFixture(OriginKind kind, String bucket) {
    this.kind = kind;
    this.bucket = bucket;
  }

  @BeforeAll
  void startNode() throws Exception {
    if (kind == OriginKind.LOCAL) {
      dir = Files.createTempDirectory("surface-local-");
      origin = new LocalDirectoryOrigin(dir);
    } else {
      proxy = new TestingS3Proxy();
      origin = S3Origin.builder().endpoint(proxy.endpoint())
          .credentials(TestingS3Proxy.ACCESS, TestingS3Proxy.SECRET).build();
    }
    node = CacheNode.builder().credentials(ACCESS_KEY, SECRET_KEY).origin(origin).clock(clock)
        .blockSize(MIB).dramCapacityBytes(16L * MIB).metadataTtl(Duration.ofSeconds(30)).build().start();
    s3 = S3Client.builder().endpointOverride(node.endpoint()).forcePathStyle(true).region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .httpClient(ApacheHttpClient.builder().maxConnections(64).build()).build();
    s3.createBucket(b -> b.bucket(bucket));
  }

  @AfterAll
  void stopNode() throws Exception {
    s3.close();
    node.close();
    origin.close();
    if (proxy != null) {
      proxy.close();
    }
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  static byte[] bytes(int length, long seed) {
    byte[] b = new byte[length];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** Asserts that the call fails with this HTTP status and S3 error code, and returns the error. */
  static S3Exception assertS3Error(ThrowingCallable call, int status, String code) {
    S3Exception e = catchThrowableOfType(S3Exception.class, call);
    assertThat(e).as("expected %d %s", status, code).isNotNull();
    assertThat(e.statusCode()).as("status of %s", e.getMessage()).isEqualTo(status);
    if (code != null) {
      assertThat(e.awsErrorDetails().errorCode()).as("code of %s", e.getMessage()).isEqualTo(code);
    }
    return e;
  }

  /** A signed request the SDK would not send as it is (an empty delimiter, say); path is raw. */
  TestingRawHttp.Response raw(String method, String pathAndQuery, Map<String, String> headers, byte[] body)
      throws IOException {
    URI uri = URI.create(node.endpoint() + pathAndQuery);
    SignedRequest signed = TestingRawHttp.sign(uri, SdkHttpMethod.fromValue(method), body, headers,
        ACCESS_KEY, SECRET_KEY);
    Map<String, String> all = new LinkedHashMap<>();
    signed.request().headers().forEach((k, v) -> all.put(k, String.join(",", v)));
    try (TestingRawHttp http = new TestingRawHttp(node.endpoint())) {
      return http.exchange(method, pathAndQuery, all, body);
    }
  }

  String text(String key) {
    return s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asUtf8String();
  }

  String etag(String key) {
    return s3.headObject(b -> b.bucket(bucket).key(key)).eTag();
  }

  String put(String key, String content) {
    return s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString(content)).eTag();
  }
}
