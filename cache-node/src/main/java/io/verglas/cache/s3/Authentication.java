package io.verglas.cache.s3;

import io.verglas.access.TableScope;

/**
 * Who sent a request and how its body must be checked.
 *
 * @param accessKey null for an anonymous request
 * @param payloadSha256 the signed hex SHA-256 of the body when mode is SHA256
 * @param chunkSigner verifies chunk signatures when mode has signed chunks, otherwise null
 * @param session the scope of the session token the request was signed with (its objects are
 *     all it may reach, see {@link SessionAuthorization}), or null for a stack's key
 */
record Authentication(String accessKey, PayloadMode mode, String payloadSha256,
    ChunkSigner chunkSigner, TableScope session) {
  Authentication(String accessKey, PayloadMode mode, String payloadSha256, ChunkSigner chunkSigner) {
    this(accessKey, mode, payloadSha256, chunkSigner, null);
  }

  boolean anonymous() {
    return accessKey == null;
  }
}
