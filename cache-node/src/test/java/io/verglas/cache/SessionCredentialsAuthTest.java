package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.access.ObjectGrant;
import io.verglas.access.ScopedTokens;
import io.verglas.access.SessionCredentials;
import io.verglas.access.TableScope;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.DeletedObject;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * STS-style session credentials of scoped tokens against a real node: the signature is checked
 * with the secret derived from the presented token, the request against the token's object
 * grants.
 */
class SessionCredentialsAuthTest {
  private static final String KEY = "0123456789abcdef0123456789abcdef";
  private static final ScopedTokens TOKENS = new ScopedTokens(KEY, Clock.systemUTC());
  private static final List<ObjectGrant> GRANTS = List.of(
      ObjectGrant.readWrite(BUCKET, "_queues/orders/"),
      ObjectGrant.read(BUCKET, "_queues/audit/"));

  @TempDir java.nio.file.Path dir;
  private TestingCacheNode t;

  @BeforeEach
  void start() {
    t = new TestingCacheNode(dir, o -> o, b -> b.scopedTokens(TOKENS));
    t.s3.putObject(b -> b.bucket(BUCKET).key("_queues/audit/a"), RequestBody.fromString("audit"));
    t.s3.putObject(b -> b.bucket(BUCKET).key("tables/orders/data.parquet"),
        RequestBody.fromString("table"));
  }

  @AfterEach
  void stop() {
    t.close();
  }

  /** Credentials minted at {@code mintedAt} (by a minter whose clock says so), valid 5 minutes. */
  private static SessionCredentials session(Instant mintedAt) {
    ScopedTokens minter = new ScopedTokens(KEY, Clock.fixed(mintedAt, java.time.ZoneOffset.UTC));
    return minter.session(minter.mint(new TableScope("hourly/run-1", mintedAt.plusSeconds(300),
        Set.of(), Set.of(), GRANTS)));
  }

  private static SessionCredentials session() {
    return session(Instant.now());
  }

  private S3Client client(String accessKey, String secret, String token) {
    return t.client(StaticCredentialsProvider.create(
        AwsSessionCredentials.create(accessKey, secret, token)));
  }

  private S3Client client(SessionCredentials c) {
    return client(c.accessKeyId(), c.secretAccessKey(), c.sessionToken());
  }

  private static void assertRefused(Executable call, String code, String message) {
    assertRefused(call, 403, code, message);
  }

  /** S3 answers InvalidToken and ExpiredToken with 400 Bad Request. */
  private static void assertBadToken(Executable call, String code, String message) {
    assertRefused(call, 400, code, message);
  }

  private static void assertRefused(Executable call, int status, String code, String message) {
    assertThatThrownBy(call::execute).isInstanceOfSatisfying(S3Exception.class, e -> {
      assertThat(e.statusCode()).isEqualTo(status);
      assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
      assertThat(e.awsErrorDetails().errorMessage()).contains(message);
    });
  }

  @Test
  void aGrantedPrefixIsWrittenReadAndListed() {
    try (S3Client s3 = client(session())) {
      s3.putObject(b -> b.bucket(BUCKET).key("_queues/orders/1"), RequestBody.fromString("one"));
      assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("_queues/orders/1")).asUtf8String())
          .isEqualTo("one");
      assertThat(s3.headObject(b -> b.bucket(BUCKET).key("_queues/orders/1")).contentLength())
          .isEqualTo(3);
      assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("_queues/orders/")).contents())
          .extracting(S3Object::key).containsExactly("_queues/orders/1");
      s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey("_queues/audit/a")
          .destinationBucket(BUCKET).destinationKey("_queues/orders/copy"));
      assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("_queues/audit/a")).asUtf8String())
          .isEqualTo("audit");
      s3.deleteObject(b -> b.bucket(BUCKET).key("_queues/orders/1"));
    }
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("_queues/orders/copy"))
        .asUtf8String()).isEqualTo("audit");
  }

  @Test
  void everythingOutsideTheGrantsIsAccessDenied() {
    try (S3Client s3 = client(session())) {
      assertRefused(() -> s3.putObject(b -> b.bucket(BUCKET).key("_queues/other/1"),
          RequestBody.fromString("x")), "AccessDenied",
          "Cannot write object warehouse/_queues/other/1: token for hourly/run-1 grants only");
      assertRefused(() -> s3.putObject(b -> b.bucket(BUCKET).key("tables/orders/data.parquet"),
          RequestBody.fromString("overwritten")), "AccessDenied", "Cannot write object");
      assertRefused(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET)
          .key("tables/orders/data.parquet")), "AccessDenied", "Cannot read object");
      assertRefused(() -> s3.putObject(b -> b.bucket(BUCKET).key("_queues/audit/b"),
          RequestBody.fromString("x")), "AccessDenied", "Cannot write object");
      assertRefused(() -> s3.deleteObject(b -> b.bucket(BUCKET).key("_queues/audit/a")),
          "AccessDenied", "Cannot write object");
      assertRefused(() -> s3.copyObject(b -> b.sourceBucket(BUCKET)
          .sourceKey("tables/orders/data.parquet").destinationBucket(BUCKET)
          .destinationKey("_queues/orders/stolen")), "AccessDenied", "Cannot read object");
      assertRefused(() -> s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("_queues/")),
          "AccessDenied", "Cannot list warehouse/_queues/*");
      assertRefused(() -> s3.listObjectsV2(b -> b.bucket(BUCKET)), "AccessDenied",
          "Cannot list warehouse/*");
      assertRefused(() -> s3.getObjectAsBytes(b -> b.bucket("other").key("_queues/orders/1")),
          "AccessDenied", "Cannot read object other/_queues/orders/1");
      assertRefused(s3::listBuckets, "AccessDenied", "ListBuckets is not granted");
      assertRefused(() -> s3.createBucket(b -> b.bucket("other")), "AccessDenied",
          "CreateBucket is not granted");
      assertRefused(() -> s3.deleteObjects(b -> b.bucket("other").delete(d -> d.objects(
          o -> o.key("_queues/orders/1")))), "AccessDenied",
          "Cannot delete objects of other: token for hourly/run-1 grants only");
    }
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("tables/orders/data.parquet"))
        .asUtf8String()).isEqualTo("table");
    assertThat(Files.exists(dir.resolve(BUCKET).resolve("_queues/other/1"))).isFalse();
    assertThat(Files.exists(dir.resolve(BUCKET).resolve("_queues/orders/stolen"))).isFalse();
    assertThat(Files.exists(dir.resolve("other"))).isFalse();
  }

  @Test
  void deleteObjectsDeletesTheGrantedKeysAndReportsTheOthersAccessDenied() {
    t.s3.putObject(b -> b.bucket(BUCKET).key("_queues/orders/1"), RequestBody.fromString("1"));
    t.s3.putObject(b -> b.bucket(BUCKET).key("_queues/orders/2"), RequestBody.fromString("2"));
    DeleteObjectsResponse result;
    try (S3Client s3 = client(session())) {
      result = s3.deleteObjects(b -> b.bucket(BUCKET).delete(d -> d.objects(
          o -> o.key("_queues/orders/1"), o -> o.key("tables/orders/data.parquet"),
          o -> o.key("_queues/orders/2"), o -> o.key("_queues/audit/a"))));
    }
    assertThat(result.deleted()).extracting(DeletedObject::key)
        .containsExactlyInAnyOrder("_queues/orders/1", "_queues/orders/2");
    assertThat(result.errors()).extracting(S3Error::key)
        .containsExactlyInAnyOrder("tables/orders/data.parquet", "_queues/audit/a");
    assertThat(result.errors()).allSatisfy(e -> {
      assertThat(e.code()).isEqualTo("AccessDenied");
      assertThat(e.message()).contains("Cannot write object warehouse/" + e.key());
    });
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("tables/orders/data.parquet"))
        .asUtf8String()).isEqualTo("table");
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("_queues/audit/a"))
        .asUtf8String()).isEqualTo("audit");
    assertThat(t.s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("_queues/orders/")).contents())
        .isEmpty();
  }

  @Test
  void aForgedTokenIsRefused() {
    SessionCredentials real = session();
    String[] parts = real.sessionToken().split("\\.");
    String claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
        .replace("_queues/orders/", "");
    String forged = parts[0] + "." + Base64.getUrlEncoder().withoutPadding()
        .encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
    try (S3Client s3 = client(real.accessKeyId(), real.secretAccessKey(), forged)) {
      assertBadToken(() -> s3.putObject(b -> b.bucket(BUCKET).key("tables/x"),
          RequestBody.fromString("x")), "InvalidToken", "bad signature");
    }
    SessionCredentials otherKey = new ScopedTokens("fedcba9876543210fedcba9876543210",
        Clock.systemUTC()).session(new ScopedTokens("fedcba9876543210fedcba9876543210",
        Clock.systemUTC()).mint(new TableScope("x/run", Instant.now().plusSeconds(60),
        Set.of(), Set.of(), GRANTS)));
    try (S3Client s3 = client(otherKey)) {
      assertBadToken(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("_queues/audit/a")),
          "InvalidToken", "bad signature");
    }
    assertThat(Files.exists(dir.resolve(BUCKET).resolve("tables/x"))).isFalse();
  }

  @Test
  void anExpiredTokenIsRefused() {
    try (S3Client s3 = client(session(Instant.now().minusSeconds(301)))) {
      assertBadToken(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("_queues/audit/a")),
          "ExpiredToken", "expired at");
    }
  }

  @Test
  void aTokenVerifiedForEarlierRequestsIsRefusedOnceItExpired() {
    TestingClock tokenTime = new TestingClock();
    SessionCredentials c = session();
    try (TestingCacheNode node = new TestingCacheNode(dir.resolve("cached"), o -> o,
            b -> b.scopedTokens(new ScopedTokens(KEY, tokenTime)));
        S3Client s3 = node.client(StaticCredentialsProvider.create(AwsSessionCredentials.create(
            c.accessKeyId(), c.secretAccessKey(), c.sessionToken())))) {
      s3.putObject(b -> b.bucket(BUCKET).key("_queues/orders/1"), RequestBody.fromString("one"));
      assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("_queues/orders/1"))
          .asUtf8String()).isEqualTo("one");
      tokenTime.shift(Duration.ofSeconds(301));
      assertBadToken(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("_queues/orders/1")),
          "ExpiredToken", "expired at");
    }
  }

  @Test
  void aWrongSecretOrAccessKeyIdIsRefused() {
    SessionCredentials real = session();
    try (S3Client s3 = client(real.accessKeyId(), "not-the-derived-secret", real.sessionToken())) {
      assertRefused(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("_queues/audit/a")),
          "SignatureDoesNotMatch", "signature");
    }
    try (S3Client s3 = client(TestingCacheNode.ACCESS_KEY, real.secretAccessKey(),
        real.sessionToken())) {
      assertBadToken(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("_queues/audit/a")),
          "InvalidToken", "is not the one of the session token");
    }
  }

  @Test
  void anUnsignedTokenHeaderIsRefused() throws Exception {
    SessionCredentials c = session();
    URI uri = URI.create(t.node.endpoint() + "/" + BUCKET + "/_queues/audit/a");
    SignedRequest signed = TestingRawHttp.sign(uri, SdkHttpMethod.GET, new byte[0], false,
        c.accessKeyId(), c.secretAccessKey());
    Map<String, String> headers = new LinkedHashMap<>();
    signed.request().headers().forEach((k, v) -> headers.put(k, String.join(",", v)));
    headers.put("x-amz-security-token", c.sessionToken());
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      TestingRawHttp.Response refused = http.exchange("GET", uri.getRawPath(), headers, new byte[0]);
      assertThat(refused.status()).isEqualTo(403);
      assertThat(refused.text()).contains("<Code>AccessDenied</Code>")
          .contains("must be among the signed headers");
    }
  }

  @Test
  void aPresignedGetCarriesTheToken() throws Exception {
    SessionCredentials c = session();
    URI granted;
    URI outside;
    try (S3Presigner presigner = S3Presigner.builder().endpointOverride(t.node.endpoint())
        .region(Region.US_EAST_1)
        .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
        .credentialsProvider(StaticCredentialsProvider.create(AwsSessionCredentials.create(
            c.accessKeyId(), c.secretAccessKey(), c.sessionToken())))
        .build()) {
      granted = presigner.presignGetObject(p -> p.signatureDuration(Duration.ofMinutes(5))
          .getObjectRequest(g -> g.bucket(BUCKET).key("_queues/audit/a"))).url().toURI();
      outside = presigner.presignGetObject(p -> p.signatureDuration(Duration.ofMinutes(5))
          .getObjectRequest(g -> g.bucket(BUCKET).key("tables/orders/data.parquet"))).url().toURI();
    }
    assertThat(granted.getRawQuery()).contains("X-Amz-Security-Token=");
    HttpResponse<String> ok = fetch(granted);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).isEqualTo("audit");
    HttpResponse<String> refused = fetch(outside);
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(refused.body()).contains("<Code>AccessDenied</Code>").contains("Cannot read object");
  }

  @Test
  void aNodeWithoutScopedTokensRefusesSessionTokens() throws Exception {
    try (TestingCacheNode plain = new TestingCacheNode(dir.resolve("plain"));
        S3Client s3 = plain.client(StaticCredentialsProvider.create(AwsSessionCredentials.create(
            session().accessKeyId(), session().secretAccessKey(), session().sessionToken())))) {
      assertBadToken(() -> s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("_queues/orders/")),
          "InvalidToken", "no scoped token key");
    }
  }

  private static HttpResponse<String> fetch(URI url) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(url).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
