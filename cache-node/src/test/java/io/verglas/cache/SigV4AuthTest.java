package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.ACCESS_KEY;
import static io.verglas.cache.TestingCacheNode.BUCKET;
import static io.verglas.cache.TestingCacheNode.SECRET_KEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.s3.presigner.model.PresignedPutObjectRequest;

/** SigV4 in every form a client uses, and every way it can be wrong. */
class SigV4AuthTest extends CacheNodeTestBase {
  @BeforeEach
  void putObject() {
    t.s3.putObject(b -> b.bucket(BUCKET).key("obj"), RequestBody.fromString("payload"));
  }

  private static void assertS3Error(Throwable e, int status, String code) {
    assertThat(e).isInstanceOfSatisfying(S3Exception.class, s3 -> {
      assertThat(s3.statusCode()).isEqualTo(status);
      assertThat(s3.awsErrorDetails().errorCode()).isEqualTo(code);
    });
  }

  @Test
  void wrongSecretIsSignatureDoesNotMatch() {
    try (S3Client c = t.client(ACCESS_KEY, "not-the-secret")) {
      assertThatThrownBy(() -> c.getObjectAsBytes(b -> b.bucket(BUCKET).key("obj")))
          .satisfies(e -> assertS3Error(e, 403, "SignatureDoesNotMatch"));
      assertThatThrownBy(() -> c.putObject(b -> b.bucket(BUCKET).key("obj"), RequestBody.fromString("x")))
          .satisfies(e -> assertS3Error(e, 403, "SignatureDoesNotMatch"));
    }
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("obj")).asUtf8String()).isEqualTo("payload");
  }

  @Test
  void unknownAccessKeyIsInvalidAccessKeyId() {
    try (S3Client c = t.client("nobody", SECRET_KEY)) {
      assertThatThrownBy(() -> c.listBuckets())
          .satisfies(e -> assertS3Error(e, 403, "InvalidAccessKeyId"));
    }
  }

  @Test
  void anonymousIsRefusedUnlessAllowed() throws Exception {
    try (S3Client anon = t.anonymousClient()) {
      assertThatThrownBy(() -> anon.getObjectAsBytes(b -> b.bucket(BUCKET).key("obj")))
          .satisfies(e -> assertS3Error(e, 403, "AccessDenied"));
    }
    try (TestingCacheNode open = new TestingCacheNode(dir.resolve("open"), o -> o, b -> b.allowAnonymous(true));
        S3Client anon = open.anonymousClient()) {
      anon.putObject(b -> b.bucket(BUCKET).key("public"), RequestBody.fromString("hi"));
      assertThat(anon.getObjectAsBytes(b -> b.bucket(BUCKET).key("public")).asUtf8String()).isEqualTo("hi");
    }
  }

  private S3Presigner presigner() {
    return S3Presigner.builder()
        .endpointOverride(t.node.endpoint())
        .region(Region.US_EAST_1)
        .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .build();
  }

  private static HttpResponse<String> fetch(URI url) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(url).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void presignedGetWorksUntilItExpires() throws Exception {
    URI url;
    try (S3Presigner presigner = presigner()) {
      url = presigner.presignGetObject(p -> p.signatureDuration(Duration.ofMinutes(10))
          .getObjectRequest(g -> g.bucket(BUCKET).key("obj"))).url().toURI();
    }
    HttpResponse<String> ok = fetch(url);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).isEqualTo("payload");

    URI tampered = URI.create(url.toString().replace("X-Amz-Expires=600", "X-Amz-Expires=601"));
    assertThat(fetch(tampered).body()).contains("<Code>SignatureDoesNotMatch</Code>");

    t.clock.shift(Duration.ofMinutes(11));
    HttpResponse<String> expired = fetch(url);
    assertThat(expired.statusCode()).isEqualTo(403);
    assertThat(expired.body()).contains("<Code>AccessDenied</Code>").contains("Request has expired");
  }

  @Test
  void anUnsignedCopySourceIsRefusedAndASignedOneCopies() throws Exception {
    String path = "/" + BUCKET + "/copy";
    URI uri = URI.create(t.node.endpoint() + path);
    Map<String, String> copySource = Map.of("x-amz-copy-source", "/" + BUCKET + "/obj");
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      // A signed empty PUT, with the copy source added after signing.
      Map<String, String> added = headers(TestingRawHttp.sign(uri, SdkHttpMethod.PUT, new byte[0],
          false, ACCESS_KEY, SECRET_KEY));
      added.putAll(copySource);
      TestingRawHttp.Response refused = http.exchange("PUT", path, added, new byte[0]);
      assertThat(refused.status()).isEqualTo(403);
      assertThat(refused.text()).contains("<Code>AccessDenied</Code>")
          .contains("<HeadersNotSigned>x-amz-copy-source</HeadersNotSigned>");
      assertThatThrownBy(() -> t.s3.headObject(b -> b.bucket(BUCKET).key("copy")))
          .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));

      TestingRawHttp.Response copied = http.exchange("PUT", path,
          headers(TestingRawHttp.sign(uri, SdkHttpMethod.PUT, new byte[0], copySource, ACCESS_KEY, SECRET_KEY)),
          new byte[0]);
      assertThat(copied.status()).isEqualTo(200);
      assertThat(copied.text()).contains("<CopyObjectResult");
    }
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("copy")).asUtf8String()).isEqualTo("payload");
  }

  @Test
  void aPresignedRequestMustSignEveryAmzHeaderItSends() throws Exception {
    PresignedPutObjectRequest plain;
    PresignedPutObjectRequest withMetadata;
    try (S3Presigner presigner = presigner()) {
      plain = presigner.presignPutObject(p -> p.signatureDuration(Duration.ofMinutes(10))
          .putObjectRequest(o -> o.bucket(BUCKET).key("presigned")));
      withMetadata = presigner.presignPutObject(p -> p.signatureDuration(Duration.ofMinutes(10))
          .putObjectRequest(o -> o.bucket(BUCKET).key("presigned").metadata(Map.of("owner", "me"))));
    }
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      TestingRawHttp.Response refused = http.exchange("PUT", pathAndQuery(plain.url().toURI()),
          Map.of("x-amz-copy-source", "/" + BUCKET + "/obj"), new byte[0]);
      assertThat(refused.status()).isEqualTo(403);
      assertThat(refused.text()).contains("<Code>AccessDenied</Code>")
          .contains("<HeadersNotSigned>x-amz-copy-source</HeadersNotSigned>");
      assertThatThrownBy(() -> t.s3.headObject(b -> b.bucket(BUCKET).key("presigned")))
          .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));

      TestingRawHttp.Response stored = http.exchange("PUT", pathAndQuery(withMetadata.url().toURI()),
          Map.of("x-amz-meta-owner", "me"), "signed".getBytes(StandardCharsets.UTF_8));
      assertThat(stored.status()).isEqualTo(200);
    }
    assertThat(t.s3.headObject(b -> b.bucket(BUCKET).key("presigned")).metadata()).containsEntry("owner", "me");
  }

  private static String pathAndQuery(URI url) {
    return url.getRawPath() + "?" + url.getRawQuery();
  }

  @Test
  void skewedClockIsRequestTimeTooSkewed() {
    t.clock.shift(Duration.ofMinutes(20));
    try (S3Client noRetry = S3Client.builder()
        .endpointOverride(t.node.endpoint()).forcePathStyle(true).region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .httpClient(UrlConnectionHttpClient.create())
        .overrideConfiguration(o -> o.retryPolicy(RetryPolicy.none()))
        .build()) {
      assertThatThrownBy(() -> noRetry.getObjectAsBytes(b -> b.bucket(BUCKET).key("obj")))
          .satisfies(e -> assertS3Error(e, 403, "RequestTimeTooSkewed"));
    }
    // The SDK corrects its clock from our Date header and retries: the skew error is actionable.
    try (S3Client retrying = t.client(ACCESS_KEY, SECRET_KEY)) {
      assertThat(retrying.getObjectAsBytes(b -> b.bucket(BUCKET).key("obj")).asUtf8String()).isEqualTo("payload");
    }
  }

  @Test
  void plainBodyWithSignedSha256IsVerified() throws Exception {
    try (S3Client plain = S3Client.builder()
        .endpointOverride(t.node.endpoint()).forcePathStyle(true).region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .httpClient(UrlConnectionHttpClient.create())
        .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build())
        .build()) {
      plain.putObject(b -> b.bucket(BUCKET).key("plain"), RequestBody.fromString("signed body"));
      assertThat(plain.getObjectAsBytes(b -> b.bucket(BUCKET).key("plain")).asUtf8String()).isEqualTo("signed body");
    }
    // Same signature, different body of the same length.
    URI uri = URI.create(t.node.endpoint() + "/" + BUCKET + "/tampered");
    SignedRequest signed = TestingRawHttp.sign(uri, SdkHttpMethod.PUT,
        "hello".getBytes(StandardCharsets.UTF_8), false, ACCESS_KEY, SECRET_KEY);
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      TestingRawHttp.Response r = http.exchange("PUT", "/" + BUCKET + "/tampered",
          headers(signed), "HELLO".getBytes(StandardCharsets.UTF_8));
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.text()).contains("<Code>XAmzContentSHA256Mismatch</Code>");
    }
    assertThatThrownBy(() -> t.s3.headObject(b -> b.bucket(BUCKET).key("tampered")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
  }

  @Test
  void tamperedSignedChunkIsRefused() throws Exception {
    URI uri = URI.create(t.node.endpoint() + "/" + BUCKET + "/chunked");
    byte[] content = new byte[100_000];
    SignedRequest signed = TestingRawHttp.sign(uri, SdkHttpMethod.PUT, content, true, ACCESS_KEY, SECRET_KEY);
    byte[] encoded;
    try (InputStream in = signed.payload().orElseThrow().newStream()) {
      encoded = in.readAllBytes();
    }
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      TestingRawHttp.Response ok = http.exchange("PUT", "/" + BUCKET + "/chunked", headers(signed), encoded);
      assertThat(ok.status()).isEqualTo(200);
    }
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("chunked")).asByteArray()).isEqualTo(content);

    byte[] bad = encoded.clone();
    int dataStart = new String(bad, StandardCharsets.ISO_8859_1).indexOf("\r\n") + 2;
    bad[dataStart + 10] ^= 1;
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      TestingRawHttp.Response r = http.exchange("PUT", "/" + BUCKET + "/chunked", headers(signed), bad);
      assertThat(r.status()).isEqualTo(403);
      assertThat(r.text()).contains("<Code>SignatureDoesNotMatch</Code>");
    }
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("chunked")).asByteArray()).isEqualTo(content);
  }

  @Test
  void unsignedChunksWithTrailingChecksumAreVerified() throws Exception {
    // The SDK signer only leaves payloads unsigned over TLS; the scheme is not signed.
    URI uri = URI.create(t.node.endpoint().toString().replace("http:", "https:") + "/" + BUCKET + "/trailer");
    byte[] content = new byte[70_000];
    new java.util.Random(1).nextBytes(content);
    SignedRequest signed = TestingRawHttp.sign(uri, SdkHttpMethod.PUT, content, true, false,
        software.amazon.awssdk.checksums.DefaultChecksumAlgorithm.CRC32C, ACCESS_KEY, SECRET_KEY);
    assertThat(signed.request().firstMatchingHeader("x-amz-content-sha256"))
        .hasValue("STREAMING-UNSIGNED-PAYLOAD-TRAILER");
    byte[] encoded;
    try (InputStream in = signed.payload().orElseThrow().newStream()) {
      encoded = in.readAllBytes();
    }
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      TestingRawHttp.Response ok = http.exchange("PUT", "/" + BUCKET + "/trailer", headers(signed), encoded);
      assertThat(ok.status()).isEqualTo(200);
      assertThat(ok.headers()).containsKey("x-amz-checksum-crc32c");
      byte[] bad = encoded.clone();
      int dataStart = new String(bad, StandardCharsets.ISO_8859_1).indexOf("\r\n") + 2;
      bad[dataStart + 5] ^= 1;
      TestingRawHttp.Response r = http.exchange("PUT", "/" + BUCKET + "/trailer", headers(signed), bad);
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.text()).contains("<Code>BadDigest</Code>");
    }
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("trailer")).asByteArray()).isEqualTo(content);
  }

  @Test
  void encodedDotDotSegmentsAreRejectedToo() throws Exception {
    URI uri = URI.create(t.node.endpoint() + "/" + BUCKET + "/a/%2E%2E/obj");
    SignedRequest signed = TestingRawHttp.sign(uri, SdkHttpMethod.GET, new byte[0], false, ACCESS_KEY, SECRET_KEY);
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      TestingRawHttp.Response r = http.exchange("GET", "/" + BUCKET + "/a/%2E%2E/obj", headers(signed), new byte[0]);
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.text()).contains("<Code>InvalidArgument</Code>").contains("'..'");
    }
  }

  @Test
  void aTamperedSignedHeaderIsSignatureDoesNotMatch() throws Exception {
    String path = "/" + BUCKET + "/obj";
    SignedRequest signed = TestingRawHttp.sign(URI.create(t.node.endpoint() + path), SdkHttpMethod.GET,
        new byte[0], false, ACCESS_KEY, SECRET_KEY);
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      // The Host header is signed; the same request sent with another name for the host.
      http.host("localhost:" + t.node.endpoint().getPort());
      TestingRawHttp.Response r = http.exchange("GET", path, headers(signed), new byte[0]);
      assertThat(r.status()).isEqualTo(403);
      assertThat(r.text()).contains("<Code>SignatureDoesNotMatch</Code>");
    }
  }

  @Test
  void keysWithNulOrInvalidUtf8AreRejected() throws Exception {
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      for (String path : List.of("/" + BUCKET + "/a%00b", "/" + BUCKET + "/bad%C3%28utf8")) {
        URI uri = URI.create(t.node.endpoint() + path);
        SignedRequest signed = TestingRawHttp.sign(uri, SdkHttpMethod.PUT, "x".getBytes(), false, ACCESS_KEY, SECRET_KEY);
        TestingRawHttp.Response r = http.exchange("PUT", path, headers(signed), "x".getBytes());
        assertThat(r.status()).as(path).isEqualTo(400);
        assertThat(r.text()).as(path).containsAnyOf("<Code>InvalidArgument</Code>", "<Code>InvalidURI</Code>");
      }
    }
    assertThat(t.s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("a")).contents()).isEmpty();
    assertThat(t.s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("bad")).contents()).isEmpty();
  }

  @Test
  void malformedHttpIsAnsweredAndClosed() throws Exception {
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      TestingRawHttp.Response r = http.exchange("GET", "/" + BUCKET + "/obj",
          Map.of("Bad Header Name", "x"), new byte[0]);
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.headers().get("connection")).isEqualTo("close");
    }
  }

  @Test
  void sigV2IsRefusedClearly() throws Exception {
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      TestingRawHttp.Response r = http.exchange("GET", "/" + BUCKET + "/obj",
          Map.of("Authorization", "AWS " + ACCESS_KEY + ":c2lnbmF0dXJl", "Date", "Mon, 01 Jan 2024 00:00:00 GMT"),
          new byte[0]);
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.text()).contains("Please use AWS4-HMAC-SHA256");
      assertThat(r.headers()).containsKey("x-amz-request-id");
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    URI uri = URI.create(t.node.endpoint() + "/" + BUCKET + "/obj");
    SignedRequest signed = TestingRawHttp.sign(uri, SdkHttpMethod.GET, new byte[0], false, ACCESS_KEY, SECRET_KEY);
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      for (int i = 0; i < 3; i++) {
        http.send("GET", "/" + BUCKET + "/obj", headers(signed), new byte[0]);
      }
      http.send("HEAD", "/" + BUCKET + "/missing", Map.of(), new byte[0]);
      for (int i = 0; i < 3; i++) {
        TestingRawHttp.Response r = http.read(false);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("payload");
      }
      TestingRawHttp.Response anon = http.read(true);
      assertThat(anon.status()).isEqualTo(403); // HEAD errors have no body
    }
  }

  private static Map<String, String> headers(SignedRequest signed) {
    Map<String, String> headers = new LinkedHashMap<>();
    signed.request().headers().forEach((k, v) -> headers.put(k, String.join(",", v)));
    return headers;
  }

}
