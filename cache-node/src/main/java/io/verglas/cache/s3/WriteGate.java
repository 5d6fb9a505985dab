package io.verglas.cache.s3;

import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.WriteCondition;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Where every write of the endpoint to a key passes: in key order through a
 * {@link KeyedSequencer}, with its {@link WritePreconditions} reduced to a basic
 * {@link WriteCondition} that the origin evaluates (a HEAD first when the request's conditions
 * need the current version). The metadata cache entry of the key is dropped after the write,
 * whatever its outcome, so the writer's next read sees its write; then the other nodes of a
 * cache cluster are told ({@link KeyChanges}) before the write is answered.
 */
final class WriteGate {
  private final Origin origin;
  private final ObjectMetaCache metas;
  private final KeyChanges changes;
  private final KeyedSequencer sequencer = new KeyedSequencer();

  WriteGate(Origin origin, ObjectMetaCache metas, KeyChanges changes) {
    this.origin = origin;
    this.metas = metas;
    this.changes = changes;
  }

  <T> CompletableFuture<T> write(String bucket, String key, WritePreconditions conditions,
      Function<WriteCondition, CompletableFuture<T>> write) {
    return sequencer.run(bucket, key, () -> condition(bucket, key, conditions).thenCompose(write))
        .handle((result, error) -> {
          metas.invalidate(bucket, key);
          return announce(bucket, key).thenCompose(v -> error == null
              ? CompletableFuture.completedFuture(result) : CompletableFuture.<T>failedFuture(error));
        })
        .thenCompose(answer -> answer);
  }

  /** Tells the other nodes; never fails. */
  private CompletableFuture<Void> announce(String bucket, String key) {
    CompletableFuture<Void> told;
    try {
      told = changes.changed(bucket, key);
    } catch (RuntimeException e) {
      told = CompletableFuture.completedFuture(null);
    }
    return told.handle((v, e) -> null);
  }

  private CompletableFuture<WriteCondition> condition(String bucket, String key,
      WritePreconditions conditions) {
    WriteCondition basic = conditions.basic();
    if (basic != null) {
      return CompletableFuture.completedFuture(basic);
    }
    return origin.head(bucket, key).handle((meta, error) -> {
      if (error == null) {
        return conditions.resolve(meta, key);
      }
      Throwable e = S3Errors.unwrap(error);
      if (e instanceof OriginException o && o.reason() == OriginException.Reason.NO_SUCH_KEY) {
        return conditions.resolve((ObjectMeta) null, key);
      }
      throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
    });
  }
}
