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
 * whatever its outcome, so the writer's next read sees its write.
 */
final class WriteGate {
  private final Origin origin;
  private final ObjectMetaCache metas;
  private final KeyedSequencer sequencer = new KeyedSequencer();

  WriteGate(Origin origin, ObjectMetaCache metas) {
    this.origin = origin;
    this.metas = metas;
  }

  <T> CompletableFuture<T> write(String bucket, String key, WritePreconditions conditions,
      Function<WriteCondition, CompletableFuture<T>> write) {
    return sequencer.run(bucket, key, () -> condition(bucket, key, conditions).thenCompose(write))
        .whenComplete((result, error) -> metas.invalidate(bucket, key));
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
