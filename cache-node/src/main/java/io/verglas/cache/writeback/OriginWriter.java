package io.verglas.cache.writeback;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/** Where write-back applies buffered changes, and writes an object through when it cannot stage it. */
public interface OriginWriter {
  void put(String bucket, String key, Map<String, String> metadata, long length, InputStream body) throws IOException;

  /**
   * Deletes the key's current object; deleting a missing key succeeds. {@code metadata} is the
   * buffered delete's journal metadata (its {@link OriginExpectation}, if it has one).
   */
  void delete(String bucket, String key, Map<String, String> metadata) throws IOException;
}
