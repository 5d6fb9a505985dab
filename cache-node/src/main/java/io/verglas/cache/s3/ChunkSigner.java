package io.verglas.cache.s3;

import java.util.HexFormat;

/**
 * Verifies the signature chain of a {@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD} body: each chunk is
 * signed over the previous signature (starting from the request's seed signature) and the SHA-256
 * of its data; the optional trailer is signed over the last chunk signature and the SHA-256 of the
 * trailing header lines. Not thread-safe: one instance per request body.
 */
final class ChunkSigner {
  private final byte[] signingKey;
  private final String timestamp;
  private final String scope;
  private String previous;

  ChunkSigner(byte[] signingKey, String timestamp, String scope, String seedSignature) {
    this.signingKey = signingKey;
    this.timestamp = timestamp;
    this.scope = scope;
    this.previous = seedSignature;
  }

  void verifyChunk(String signature, byte[] dataSha256) {
    String stringToSign = "AWS4-HMAC-SHA256-PAYLOAD\n" + timestamp + "\n" + scope + "\n" + previous
        + "\n" + SigV4Signing.EMPTY_SHA256 + "\n" + HexFormat.of().formatHex(dataSha256);
    check(signature, stringToSign, "chunk");
  }

  void verifyTrailer(String signature, String canonicalTrailer) {
    String stringToSign = "AWS4-HMAC-SHA256-TRAILER\n" + timestamp + "\n" + scope + "\n" + previous
        + "\n" + SigV4Signing.sha256Hex(canonicalTrailer);
    check(signature, stringToSign, "trailer");
  }

  private void check(String signature, String stringToSign, String what) {
    String expected = SigV4Signing.signature(signingKey, stringToSign);
    if (!SigV4Signing.signaturesEqual(expected, signature)) {
      throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH,
          "The " + what + " signature we calculated does not match the signature you provided.")
          .detail("StringToSign", stringToSign);
    }
    previous = signature;
  }
}
