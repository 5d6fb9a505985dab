package io.verglas.cache.s3;

/**
 * Who sent a request and how its body must be checked.
 *
 * @param accessKey null for an anonymous request
 * @param payloadSha256 the signed hex SHA-256 of the body when mode is SHA256
 * @param chunkSigner verifies chunk signatures when mode has signed chunks, otherwise null
 */
record Authentication(String accessKey, PayloadMode mode, String payloadSha256, ChunkSigner chunkSigner) {
  boolean anonymous() {
    return accessKey == null;
  }
}
