package io.verglas.cache.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The examples of the AWS "Signature Version 4 for Amazon S3" documentation. */
class SigV4VerifierTest {
  static final String ACCESS = "AKIAIOSFODNN7EXAMPLE";
  static final String SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  static final Clock AT_EXAMPLE_TIME = Clock.fixed(Instant.parse("2013-05-24T00:00:00Z"), ZoneOffset.UTC);

  private static SigV4Verifier verifier(Clock clock) {
    return new SigV4Verifier(Map.of(ACCESS, SECRET), false, clock, Duration.ofMinutes(15));
  }

  private static S3Request getObjectExample(String signature) {
    DefaultHttpRequest http = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/test.txt");
    http.headers()
        .set("Host", "examplebucket.s3.amazonaws.com")
        .set("Range", "bytes=0-9")
        .set("x-amz-content-sha256", SigV4Signing.EMPTY_SHA256)
        .set("x-amz-date", "20130524T000000Z")
        .set("Authorization", "AWS4-HMAC-SHA256 Credential=" + ACCESS
            + "/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            + "Signature=" + signature);
    return S3Request.parse(http, "test", "s3.amazonaws.com");
  }

  @Test
  void getObjectExampleVerifies() {
    S3Request request = getObjectExample("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    assertThat(request.bucket).isEqualTo("examplebucket"); // virtual-host style
    Authentication auth = verifier(AT_EXAMPLE_TIME).verify(request);
    assertThat(auth.accessKey()).isEqualTo(ACCESS);
    assertThat(auth.mode()).isEqualTo(PayloadMode.SHA256);
  }

  @Test
  void putObjectExampleVerifies() {
    DefaultHttpRequest http = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/test$file.text");
    http.headers()
        .set("Host", "examplebucket.s3.amazonaws.com")
        .set("Date", "Fri, 24 May 2013 00:00:00 GMT")
        .set("x-amz-date", "20130524T000000Z")
        .set("x-amz-storage-class", "REDUCED_REDUNDANCY")
        .set("x-amz-content-sha256", "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        .set("Authorization", "AWS4-HMAC-SHA256 Credential=" + ACCESS + "/20130524/us-east-1/s3/aws4_request,"
            + "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
            + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
    Authentication auth = verifier(AT_EXAMPLE_TIME).verify(S3Request.parse(http, "test", "s3.amazonaws.com"));
    assertThat(auth.payloadSha256()).startsWith("44ce7dd6");
  }

  @Test
  void oneWrongDigitFailsWithTheStringToSign() {
    S3Request request = getObjectExample("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb42");
    assertThatThrownBy(() -> verifier(AT_EXAMPLE_TIME).verify(request))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.code()).isEqualTo(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH);
          assertThat(e.details().get("CanonicalRequest")).startsWith("GET\n/test.txt\n\nhost:examplebucket");
        });
  }

  @Test
  void clockSkewBeyondTheWindowIsRefused() {
    Clock later = Clock.offset(AT_EXAMPLE_TIME, Duration.ofMinutes(16));
    S3Request request = getObjectExample("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    assertThatThrownBy(() -> verifier(later).verify(request))
        .isInstanceOfSatisfying(S3Exception.class,
            e -> assertThat(e.code()).isEqualTo(S3ErrorCode.REQUEST_TIME_TOO_SKEWED));
    verifier(Clock.offset(AT_EXAMPLE_TIME, Duration.ofMinutes(14))).verify(request);
  }

  @Test
  void anonymousRequestsNeedPermission() {
    DefaultHttpRequest http = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/b/k");
    S3Request request = S3Request.parse(http, "test", null);
    assertThatThrownBy(() -> verifier(AT_EXAMPLE_TIME).verify(request))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.code()).isEqualTo(S3ErrorCode.ACCESS_DENIED));
    Authentication open = new SigV4Verifier(Map.of(), true, AT_EXAMPLE_TIME, Duration.ofMinutes(15)).verify(request);
    assertThat(open.anonymous()).isTrue();
  }

  /** A GET signed over host alone, the way a minimal client signs, carrying {@code extra} too. */
  private static S3Request signedOverHostOnly(Map<String, String> extra) {
    DefaultHttpRequest http = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/test.txt");
    http.headers()
        .set("Host", "examplebucket.s3.amazonaws.com")
        .set("x-amz-content-sha256", SigV4Signing.EMPTY_SHA256)
        .set("x-amz-date", "20130524T000000Z");
    extra.forEach(http.headers()::set);
    S3Request unsigned = S3Request.parse(http, "test", "s3.amazonaws.com");
    String canonical = SigV4Verifier.canonicalRequest(unsigned, "/test.txt", java.util.List.of("host"),
        SigV4Signing.EMPTY_SHA256, false);
    String scope = "20130524/us-east-1/s3/aws4_request";
    String signature = SigV4Signing.signature(
        SigV4Signing.signingKey(SECRET, "20130524", "us-east-1", "s3"),
        SigV4Signing.stringToSign("20130524T000000Z", scope, canonical));
    http.headers().set("Authorization", "AWS4-HMAC-SHA256 Credential=" + ACCESS + "/" + scope
        + ",SignedHeaders=host,Signature=" + signature);
    return S3Request.parse(http, "test", "s3.amazonaws.com");
  }

  @Test
  void unsignedHeadersTheSignatureBindsOrThatAreNotAmzAreAccepted() {
    // x-amz-content-sha256 and x-amz-date enter the string to sign by value; x-amzn-trace-id and
    // amz-sdk-invocation-id are not x-amz-* headers.
    S3Request request = signedOverHostOnly(Map.of("x-amzn-trace-id", "Root=1-abc",
        "amz-sdk-invocation-id", "42", "User-Agent", "test"));
    assertThat(verifier(AT_EXAMPLE_TIME).verify(request).accessKey()).isEqualTo(ACCESS);
  }

  @Test
  void everyOtherUnsignedAmzHeaderIsAccessDenied() {
    S3Request request = signedOverHostOnly(Map.of("X-Amz-Copy-Source", "/other/secret",
        "x-amz-meta-owner", "me"));
    assertThatThrownBy(() -> verifier(AT_EXAMPLE_TIME).verify(request))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.code()).isEqualTo(S3ErrorCode.ACCESS_DENIED);
          assertThat(e.details()).containsEntry("HeadersNotSigned", "x-amz-copy-source, x-amz-meta-owner");
          assertThat(e.getMessage()).contains("x-amz-copy-source, x-amz-meta-owner");
        });
  }
}
