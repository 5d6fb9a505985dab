package io.verglas.cache.writeback;

import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import io.verglas.cache.writeback.journal.JournalRecord;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How an S3 object's metadata travels in a write journal record: one flat map of header names,
 * {@code content-type}, {@code x-amz-meta-NAME} for user metadata, the other stored content
 * headers by name, {@code etag}, the write's quoted ETag (the MD5 of the body, as the origin
 * will give it), and {@link OriginExpectation#NAME} when the write has one. A pure mapping: no I/O.
 */
final class WriteBackMetadata {
  static final String ETAG = "etag";
  static final String CONTENT_TYPE = "content-type";
  static final String USER = "x-amz-meta-";

  private WriteBackMetadata() {}

  static Map<String, String> of(WriteOptions options, String etag) {
    Map<String, String> map = new HashMap<>(options.contentHeaders());
    if (options.contentType() != null) {
      map.put(CONTENT_TYPE, options.contentType());
    }
    options.userMetadata().forEach((name, value) -> map.put(USER + name, value));
    map.put(ETAG, etag);
    return map;
  }

  /** As {@link #of(WriteOptions, String)}, with what the origin may hold when the write is propagated. */
  static Map<String, String> of(WriteOptions options, String etag, Optional<OriginExpectation> expected) {
    Map<String, String> map = of(options, etag);
    expected.ifPresent(e -> map.put(OriginExpectation.NAME, e.encoded()));
    return map;
  }

  /** The options to write the record's object to the origin with (unconditional). */
  static WriteOptions options(Map<String, String> metadata) {
    Map<String, String> user = new HashMap<>();
    Map<String, String> headers = new HashMap<>();
    metadata.forEach((name, value) -> {
      if (name.startsWith(USER)) {
        user.put(name.substring(USER.length()), value);
      } else if (!name.equals(ETAG) && !name.equals(CONTENT_TYPE) && !name.equals(OriginExpectation.NAME)) {
        headers.put(name, value);
      }
    });
    return new WriteOptions(metadata.get(CONTENT_TYPE), user, headers, WriteCondition.NONE);
  }

  /** What a HEAD of the buffered write answers. */
  static ObjectMeta meta(JournalRecord.Staged record) {
    WriteOptions options = options(record.metadata());
    return new ObjectMeta(etag(record), record.bodyLength(), Instant.ofEpochMilli(record.stagedAtMillis()),
        options.contentType(), options.userMetadata(), options.contentHeaders());
  }

  static String etag(JournalRecord.Staged record) {
    String etag = record.metadata().get(ETAG);
    if (etag == null) {
      throw new IllegalStateException("Cannot serve " + record.identity() + ": its journal record has no ETag");
    }
    return etag;
  }
}
