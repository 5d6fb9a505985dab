package io.verglas.cache.s3;

import java.util.concurrent.CompletableFuture;

/**
 * Told of every write through this node to a key (put, copy, delete, multipart completion),
 * after the origin answered and before the client is: in a cache cluster, the other nodes drop
 * their resolved ETag of the key, so none of them answers a read that starts after the write
 * with the old version. The write waits for the returned future (whose failure is ignored: a
 * peer that cannot be told still revalidates after the metadata TTL).
 */
@FunctionalInterface
public interface KeyChanges {
  KeyChanges NONE = (bucket, key) -> CompletableFuture.completedFuture(null);

  CompletableFuture<Void> changed(String bucket, String key);
}
