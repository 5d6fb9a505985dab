package io.verglas.cache.writeback;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/** Where write-back writes an object through synchronously when it cannot stage it. */
@FunctionalInterface
public interface OriginWriter {
  void put(String bucket, String key, Map<String, String> metadata, long length, InputStream body) throws IOException;
}
