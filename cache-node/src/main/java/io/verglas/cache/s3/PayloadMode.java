package io.verglas.cache.s3;

/** How a request body is framed and protected, from {@code x-amz-content-sha256}. */
enum PayloadMode {
  /** Plain body, not hashed by the signer. */
  UNSIGNED(false, false, false),
  /** Plain body whose hex SHA-256 was signed; verified once the body is in. */
  SHA256(false, false, false),
  /** aws-chunked, each chunk signed. */
  STREAMING_SIGNED(true, true, false),
  /** aws-chunked, each chunk signed, signed trailing checksum. */
  STREAMING_SIGNED_TRAILER(true, true, true),
  /** aws-chunked, unsigned chunks, trailing checksum. */
  STREAMING_UNSIGNED_TRAILER(true, false, true);

  final boolean chunked;
  final boolean signedChunks;
  final boolean trailer;

  PayloadMode(boolean chunked, boolean signedChunks, boolean trailer) {
    this.chunked = chunked;
    this.signedChunks = signedChunks;
    this.trailer = trailer;
  }

  /** The mode named by an x-amz-content-sha256 value (null: unsigned). */
  static PayloadMode of(String contentSha256) {
    if (contentSha256 == null || contentSha256.equals("UNSIGNED-PAYLOAD")) {
      return UNSIGNED;
    }
    switch (contentSha256) {
      case "STREAMING-AWS4-HMAC-SHA256-PAYLOAD":
        return STREAMING_SIGNED;
      case "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER":
        return STREAMING_SIGNED_TRAILER;
      case "STREAMING-UNSIGNED-PAYLOAD-TRAILER":
        return STREAMING_UNSIGNED_TRAILER;
      case "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD":
      case "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER":
        throw S3Exception.notImplemented("SigV4a (ECDSA) signed payloads");
      default:
        if (contentSha256.length() == 64 && contentSha256.chars().allMatch(
            c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
          return SHA256;
        }
        throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
            "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER,"
                + " STREAMING-AWS4-HMAC-SHA256-PAYLOAD(-TRAILER), or a valid sha256 value: "
                + contentSha256);
    }
  }
}
