package io.verglas.cache.awareness;

import io.verglas.cache.origin.ObjectMeta;
import java.util.concurrent.CompletableFuture;

/**
 * The two primitives of a cache node's read path that background warming builds on: resolving
 * a key to its current version (through the node's ETag cache, as a GET does) and reading bytes
 * of one version from the origin (counted and protected like a cache fill).
 */
public interface NodeReads {
  CompletableFuture<ObjectMeta> resolve(String bucket, String key);

  CompletableFuture<byte[]> readVersion(String bucket, String key, String etag, long offset, int length);
}
