package io.verglas.cache.writeback;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** An origin in memory: what write-back wrote through, by bucket/key. */
final class TestingOrigin implements OriginWriter {
  final Map<String, byte[]> objects = new ConcurrentHashMap<>();

  @Override
  public void put(String bucket, String key, Map<String, String> metadata, long length, InputStream body)
      throws IOException {
    byte[] bytes = body.readAllBytes();
    if (bytes.length != length) {
      throw new IOException("Cannot write " + bucket + "/" + key + ": " + bytes.length + " bytes, declared " + length);
    }
    objects.put(bucket + "/" + key, bytes);
  }
}
