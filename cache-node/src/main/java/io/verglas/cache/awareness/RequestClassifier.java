package io.verglas.cache.awareness;

import io.verglas.cache.s3.ReadObserver;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Classifies each range read the node serves to the (table, partition, column) coordinates it
 * touches and hands them to the heat ledger's buffer.
 *
 * <p>Design: the request path reads the current {@link FileIndex} through one volatile field,
 * looks the object up, binary-searches its column chunks and offers each overlapped chunk's
 * shared coordinates to {@link HeatSamples}: no lock, no I/O, no allocation. Objects the index
 * does not know (metadata, files of unwalked tables, other buckets' objects) are only counted.
 * The index is replaced whole by {@link #publish} (one volatile write), so a reader sees either
 * the old or the new index, never a mix.
 */
final class RequestClassifier implements ReadObserver {
  private final HeatSamples samples;
  private final Consumer<HeatCoordinates> offer;
  private final LongAdder classified = new LongAdder();
  private final LongAdder unknown = new LongAdder();
  private volatile FileIndex index = FileIndex.EMPTY;

  RequestClassifier(HeatSamples samples) {
    this.samples = samples;
    this.offer = samples::offer;
  }

  @Override
  public void onRead(String bucket, String key, long first, long last) {
    FileLayout layout = layout(bucket, key);
    if (layout != null) {
      layout.classify(first, last, offer);
    }
  }

  @Override
  public void onCutShortRead(String bucket, String key, long first, long last) {
    FileLayout layout = layout(bucket, key);
    if (layout != null) {
      layout.classifyCutShort(first, last, offer);
    }
  }

  /** The layout of a known object (counted as classified), else null (counted as unknown). */
  private FileLayout layout(String bucket, String key) {
    FileLayout layout = index.lookup(bucket, key);
    if (layout == null) {
      unknown.increment();
    } else {
      classified.increment();
    }
    return layout;
  }

  FileIndex index() {
    return index;
  }

  /** Makes {@code next} the index reads are classified against. Warmer thread only. */
  void publish(FileIndex next) {
    index = next;
  }

  HeatSamples samples() {
    return samples;
  }

  long classified() {
    return classified.sum();
  }

  long unknown() {
    return unknown.sum();
  }
}
