package io.verglas.cache.s3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.verglas.access.InvalidTokenException;
import io.verglas.access.SessionCredentials;
import io.verglas.access.TableScope;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Verifies AWS Signature Version 4 on every request: the {@code Authorization} header form and the
 * presigned-URL query form.
 *
 * <p>The canonical request is rebuilt from what arrived: the path is percent-decoded and
 * re-encoded once with the SigV4 rules (S3 does not double-encode), query parameters are decoded,
 * re-encoded and sorted, signed headers are trimmed with inner whitespace folded. Any region in the
 * credential scope is accepted (the signature still proves the secret); the service must be
 * {@code s3}. Time comes from the injected clock; requests outside the skew window are refused,
 * presigned URLs also after their expiry. Signatures are compared in constant time.
 *
 * <p>Every {@code x-amz-*} header a request carries must be among its signed headers, as S3
 * requires: these headers change what a request does ({@code x-amz-copy-source} turns an empty PUT
 * into a copy of another object, {@code x-amz-metadata-directive} replaces metadata), so whoever
 * relays a signed request or holds a presigned URL must not be able to add one. Exempt are only the
 * headers the signature binds by other means: with the Authorization header, the value of
 * {@code x-amz-content-sha256} is the last line of the canonical request and {@code x-amz-date} is
 * the timestamp of the string to sign. A presigned request takes both from its query, so there no
 * header is exempt. {@code x-amzn-trace-id} and the SDK's {@code amz-sdk-*} headers, which signers
 * may leave out, do not start with {@code x-amz-}.
 *
 * <p>Session credentials. A request carrying a session token ({@code x-amz-security-token}
 * header, or {@code X-Amz-Security-Token} in a presigned URL's query) is signed with
 * {@link SessionCredentials} of a scoped token: the token must verify with the node's
 * {@code ScopedTokens} (signed with a key it accepts, unexpired; {@link VerifiedSessions} keeps
 * recently verified tokens), the access key id must be the
 * one derived from it, and the signature is checked with the secret derived from it. The header
 * must be signed (the query parameter is, as part of the canonical query). The token's scope rides
 * on the {@link Authentication}; {@link SessionAuthorization} checks the request against it.
 */
final class SigV4Verifier {
  private static final int MAX_PRESIGN_SECONDS = 7 * 24 * 3600;
  private static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";
  private static final String AMZ_HEADER_PREFIX = "x-amz-";
  private static final Set<String> BOUND_WITH_AUTHORIZATION_HEADER =
      Set.of("x-amz-content-sha256", "x-amz-date");

  static final String SECURITY_TOKEN_HEADER = "x-amz-security-token";
  private static final String SECURITY_TOKEN_PARAM = "X-Amz-Security-Token";

  private final Map<String, String> secrets;
  private final VerifiedSessions sessions;
  private final boolean allowAnonymous;
  private final Clock clock;
  private final Duration maxSkew;

  SigV4Verifier(Map<String, String> secrets, boolean allowAnonymous, Clock clock, Duration maxSkew) {
    this(secrets, null, allowAnonymous, clock, maxSkew);
  }

  /** @param sessions verifies session tokens; null refuses every request that presents one */
  SigV4Verifier(Map<String, String> secrets, VerifiedSessions sessions, boolean allowAnonymous,
      Clock clock, Duration maxSkew) {
    this.secrets = Map.copyOf(secrets);
    this.sessions = sessions;
    this.allowAnonymous = allowAnonymous;
    this.clock = clock;
    this.maxSkew = maxSkew;
  }

  Authentication verify(S3Request request) {
    String authorization = request.header(HttpHeaderNames.AUTHORIZATION);
    if (authorization != null) {
      return verifyHeader(request, authorization.trim());
    }
    if (request.hasParam("X-Amz-Signature") || request.hasParam("X-Amz-Algorithm")
        || request.hasParam("X-Amz-Credential")) {
      return verifyPresigned(request);
    }
    if (request.hasParam("Signature") && request.hasParam("AWSAccessKeyId")) {
      throw sigV2();
    }
    if (!allowAnonymous) {
      throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
          "Access Denied: anonymous requests are not allowed; sign requests with SigV4");
    }
    String contentSha256 = request.header(S3Headers.X_AMZ_CONTENT_SHA256);
    return new Authentication(null, PayloadMode.of(contentSha256), contentSha256, null);
  }

  private Authentication verifyHeader(S3Request request, String authorization) {
    if (authorization.startsWith("AWS ")) {
      throw sigV2();
    }
    if (authorization.startsWith("AWS4-ECDSA-P256-SHA256")) {
      throw S3Exception.notImplemented("SigV4a (AWS4-ECDSA-P256-SHA256) signatures");
    }
    if (!authorization.startsWith(SigV4Signing.ALGORITHM + " ")) {
      throw malformed("Unsupported authorization algorithm: " + authorization.split(" ", 2)[0]);
    }
    String credential = null;
    String signedHeaders = null;
    String signature = null;
    for (String part : authorization.substring(SigV4Signing.ALGORITHM.length() + 1).split(",")) {
      String p = part.trim();
      int eq = p.indexOf('=');
      if (eq < 0) {
        continue;
      }
      String value = p.substring(eq + 1).trim();
      switch (p.substring(0, eq).trim()) {
        case "Credential" -> credential = value;
        case "SignedHeaders" -> signedHeaders = value;
        case "Signature" -> signature = value;
        default -> { }
      }
    }
    if (credential == null || signedHeaders == null || signature == null) {
      throw malformed("The authorization header is malformed: it needs Credential, SignedHeaders"
          + " and Signature");
    }
    String timestamp = request.header("x-amz-date");
    Instant time = S3Dates.parseAmz(timestamp);
    if (time == null && timestamp == null) {
      time = S3Dates.parseHttp(request.header("date"));
      timestamp = time == null ? null : S3Dates.amz(time);
    }
    if (time == null) {
      throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
          "AWS authentication requires a valid Date or x-amz-date header");
    }
    Scope scope = Scope.parse(credential, timestamp, false);
    String token = request.header(SECURITY_TOKEN_HEADER);
    Signer signer = signerFor(scope.accessKey(), token);
    checkSkew(time);
    String payloadHash = request.header("x-amz-content-sha256");
    if (payloadHash == null) {
      throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
          "Missing required header for this request: x-amz-content-sha256");
    }
    PayloadMode mode = PayloadMode.of(payloadHash);
    List<String> headerNames = List.of(signedHeaders.toLowerCase(Locale.ROOT).split(";"));
    if (!headerNames.contains("host")) {
      throw malformed("SignedHeaders must include host: " + signedHeaders);
    }
    if (token != null && !headerNames.contains(SECURITY_TOKEN_HEADER)) {
      throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Access Denied: the session token ("
          + SECURITY_TOKEN_HEADER + ") must be among the signed headers: " + signedHeaders);
    }
    byte[] key = SigV4Signing.signingKey(signer.secret(), scope.date(), scope.region(),
        scope.service());
    checkSignature(request, headerNames, payloadHash, false, key, timestamp, scope, signature);
    checkAmzHeadersSigned(request, headerNames, BOUND_WITH_AUTHORIZATION_HEADER);
    ChunkSigner chunkSigner = mode.signedChunks
        ? new ChunkSigner(key, timestamp, scope.value(), signature.toLowerCase(Locale.ROOT))
        : null;
    return new Authentication(scope.accessKey(), mode, payloadHash, chunkSigner, signer.session());
  }

  private Authentication verifyPresigned(S3Request request) {
    String algorithm = request.param("X-Amz-Algorithm");
    String credential = request.param("X-Amz-Credential");
    String timestamp = request.param("X-Amz-Date");
    String expires = request.param("X-Amz-Expires");
    String signedHeaders = request.param("X-Amz-SignedHeaders");
    String signature = request.param("X-Amz-Signature");
    if (!SigV4Signing.ALGORITHM.equals(algorithm)) {
      throw queryError("X-Amz-Algorithm only supports \"" + SigV4Signing.ALGORITHM + "\"");
    }
    if (credential == null || timestamp == null || expires == null || signedHeaders == null
        || signature == null) {
      throw queryError("Query-string authentication version 4 requires the X-Amz-Algorithm,"
          + " X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and"
          + " X-Amz-Expires parameters.");
    }
    Instant time = S3Dates.parseAmz(timestamp);
    if (time == null) {
      throw queryError("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
    }
    long expirySeconds;
    try {
      expirySeconds = Long.parseLong(expires);
    } catch (NumberFormatException e) {
      throw queryError("X-Amz-Expires should be a number: " + expires);
    }
    if (expirySeconds < 0 || expirySeconds > MAX_PRESIGN_SECONDS) {
      throw queryError("X-Amz-Expires must be between 0 and " + MAX_PRESIGN_SECONDS
          + " seconds: " + expires);
    }
    Scope scope = Scope.parse(credential, timestamp, true);
    Signer signer = signerFor(scope.accessKey(), request.param(SECURITY_TOKEN_PARAM));
    Instant now = clock.instant();
    if (now.isBefore(time.minus(maxSkew))) {
      throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Request is not valid yet")
          .detail("X-Amz-Date", timestamp).detail("ServerTime", S3Dates.xml(now));
    }
    if (now.isAfter(time.plusSeconds(expirySeconds))) {
      throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Request has expired")
          .detail("X-Amz-Expires", expires)
          .detail("Expires", S3Dates.xml(time.plusSeconds(expirySeconds)))
          .detail("ServerTime", S3Dates.xml(now));
    }
    List<String> headerNames = List.of(signedHeaders.toLowerCase(Locale.ROOT).split(";"));
    if (!headerNames.contains("host")) {
      throw queryError("X-Amz-SignedHeaders must include host: " + signedHeaders);
    }
    String payloadHash = request.param("X-Amz-Content-Sha256") != null
        ? request.param("X-Amz-Content-Sha256")
        : UNSIGNED_PAYLOAD;
    PayloadMode mode = PayloadMode.of(payloadHash);
    if (mode.chunked) {
      throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
          "Presigned requests cannot use aws-chunked payloads");
    }
    byte[] key = SigV4Signing.signingKey(signer.secret(), scope.date(), scope.region(),
        scope.service());
    checkSignature(request, headerNames, payloadHash, true, key, timestamp, scope, signature);
    checkAmzHeadersSigned(request, headerNames, Set.of());
    return new Authentication(scope.accessKey(), mode, payloadHash, null, signer.session());
  }

  /**
   * Checks the signature over the canonical request. The path is tried in its normalized form
   * (decoded, re-encoded once) and, if the client sent it differently encoded (e.g. {@code %2E}),
   * also exactly as sent: signers differ in whether they normalize, and both forms name the same
   * resource.
   */
  private static void checkSignature(S3Request request, List<String> headerNames, String payloadHash,
      boolean presigned, byte[] key, String timestamp, Scope scope, String signature) {
    String normalizedPath = UriEncoding.encode(UriEncoding.decode(request.rawPath), true);
    String canonical = canonicalRequest(request, normalizedPath, headerNames, payloadHash, presigned);
    String stringToSign = SigV4Signing.stringToSign(timestamp, scope.value(), canonical);
    if (SigV4Signing.signaturesEqual(SigV4Signing.signature(key, stringToSign), signature)) {
      return;
    }
    if (!normalizedPath.equals(request.rawPath)) {
      String asSent = canonicalRequest(request, request.rawPath, headerNames, payloadHash, presigned);
      String asSentToSign = SigV4Signing.stringToSign(timestamp, scope.value(), asSent);
      if (SigV4Signing.signaturesEqual(SigV4Signing.signature(key, asSentToSign), signature)) {
        return;
      }
    }
    throw signatureMismatch(stringToSign, canonical);
  }

  /** Refuses an {@code x-amz-*} header that is neither signed nor bound (see the class note). */
  private static void checkAmzHeadersSigned(S3Request request, List<String> signedHeaders,
      Set<String> bound) {
    Set<String> unsigned = new TreeSet<>();
    for (String name : request.headers.names()) {
      String lower = name.toLowerCase(Locale.ROOT);
      if (lower.startsWith(AMZ_HEADER_PREFIX) && !signedHeaders.contains(lower)
          && !bound.contains(lower)) {
        unsigned.add(lower);
      }
    }
    if (!unsigned.isEmpty()) {
      String names = String.join(", ", unsigned);
      throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
          "There were headers present in the request which were not signed: " + names)
          .detail("HeadersNotSigned", names);
    }
  }

  static String canonicalRequest(S3Request request, String canonicalPath, List<String> signedHeaders,
      String payloadHash, boolean presigned) {
    StringBuilder out = new StringBuilder(512);
    out.append(request.method.name()).append('\n');
    out.append(canonicalPath).append('\n');
    List<String[]> params = new ArrayList<>();
    for (S3Request.QueryParam p : request.query) {
      if (presigned && p.name().equals("X-Amz-Signature")) {
        continue;
      }
      params.add(new String[] {UriEncoding.encode(p.name(), false), UriEncoding.encode(p.value(), false)});
    }
    params.sort(Comparator.<String[], String>comparing(p -> p[0]).thenComparing(p -> p[1]));
    for (int i = 0; i < params.size(); i++) {
      if (i > 0) {
        out.append('&');
      }
      out.append(params.get(i)[0]).append('=').append(params.get(i)[1]);
    }
    out.append('\n');
    for (String name : signedHeaders) {
      out.append(name).append(':');
      List<String> values = request.headers.getAll(name);
      for (int i = 0; i < values.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        out.append(values.get(i).trim().replaceAll("\\s+", " "));
      }
      out.append('\n');
    }
    out.append('\n').append(String.join(";", signedHeaders)).append('\n').append(payloadHash);
    return out.toString();
  }

  /** The secret a request's signature is checked with, and the session scope it grants. */
  private record Signer(String secret, TableScope session) {}

  private Signer signerFor(String accessKey, String sessionToken) {
    if (sessionToken == null) {
      return new Signer(secretFor(accessKey), null);
    }
    if (sessions == null) {
      throw new S3Exception(S3ErrorCode.INVALID_TOKEN, "The provided token is not accepted here:"
          + " this node verifies no session tokens (it has no scoped token key)");
    }
    try {
      SessionCredentials session = sessions.verify(accessKey, sessionToken);
      return new Signer(session.secretAccessKey(), session.scope());
    } catch (InvalidTokenException e) {
      throw new S3Exception(e.reason() == InvalidTokenException.Reason.EXPIRED
          ? S3ErrorCode.EXPIRED_TOKEN : S3ErrorCode.INVALID_TOKEN,
          "The provided token is invalid: " + e.getMessage());
    }
  }

  private String secretFor(String accessKey) {
    String secret = secrets.get(accessKey);
    if (secret == null) {
      throw new S3Exception(S3ErrorCode.INVALID_ACCESS_KEY_ID,
          "The AWS Access Key Id you provided does not exist in our records.")
          .detail("AWSAccessKeyId", accessKey);
    }
    return secret;
  }

  private void checkSkew(Instant time) {
    Instant now = clock.instant();
    if (Duration.between(time, now).abs().compareTo(maxSkew) > 0) {
      throw new S3Exception(S3ErrorCode.REQUEST_TIME_TOO_SKEWED,
          "The difference between the request time and the current time is too large.")
          .detail("RequestTime", S3Dates.xml(time))
          .detail("ServerTime", S3Dates.xml(now))
          .detail("MaxAllowedSkewMilliseconds", Long.toString(maxSkew.toMillis()));
    }
  }

  private static S3Exception signatureMismatch(String stringToSign, String canonical) {
    return new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH,
        "The request signature we calculated does not match the signature you provided. Check"
            + " your key and signing method.")
        .detail("StringToSign", stringToSign)
        .detail("CanonicalRequest", canonical);
  }

  private static S3Exception sigV2() {
    return new S3Exception(S3ErrorCode.INVALID_REQUEST,
        "The authorization mechanism you have provided is not supported. Please use"
            + " AWS4-HMAC-SHA256.");
  }

  private static S3Exception malformed(String message) {
    return new S3Exception(S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED, message);
  }

  private static S3Exception queryError(String message) {
    return new S3Exception(S3ErrorCode.AUTHORIZATION_QUERY_PARAMETERS_ERROR, message);
  }

  /** The credential scope: access key / date / region / service / aws4_request. */
  record Scope(String accessKey, String date, String region, String service) {
    String value() {
      return date + "/" + region + "/" + service + "/aws4_request";
    }

    static Scope parse(String credential, String timestamp, boolean presigned) {
      String[] parts = credential.split("/");
      if (parts.length != 5 || !parts[4].equals("aws4_request")) {
        throw error(presigned, "The credential is malformed; expected"
            + " \"<access key>/<YYYYMMDD>/<region>/s3/aws4_request\": " + credential);
      }
      if (!timestamp.startsWith(parts[1])) {
        throw error(presigned, "Invalid credential date \"" + parts[1]
            + "\". This date is not the same as X-Amz-Date: \"" + timestamp.substring(0, Math.min(8, timestamp.length())) + "\".");
      }
      if (!parts[3].equals("s3")) {
        throw error(presigned, "The credential scope names service \"" + parts[3]
            + "\"; expected \"s3\"");
      }
      return new Scope(parts[0], parts[1], parts[2], parts[3]);
    }

    private static S3Exception error(boolean presigned, String message) {
      return presigned ? queryError(message) : malformed(message);
    }
  }
}
