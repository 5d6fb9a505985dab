package io.verglas.materializer.write;

/**
 * The name the key index entry serializer's snapshot had before the key index got its own
 * package ({@code io.verglas.materializer.keyindex}). Checkpoints and savepoints taken before
 * then name {@code io.verglas.materializer.write.KeyEntrySerializer$Snapshot} for the per-key
 * index state; Flink instantiates the snapshot class by that name on restore, so the name
 * stays, and restores {@link io.verglas.materializer.keyindex.KeyEntrySerializer}.
 */
public final class KeyEntrySerializer {
  private KeyEntrySerializer() {}

  /** Reads as the key index package's snapshot (same format, same serializer). */
  public static final class Snapshot
      extends io.verglas.materializer.keyindex.KeyEntrySerializer.Snapshot {}
}
