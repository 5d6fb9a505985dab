package io.verglas.cache.writeback;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** An origin in memory: what write-back wrote, by bucket/key; it can be down, and counts its PUTs. */
final class TestingOrigin implements OriginWriter {
  final Map<String, byte[]> objects = new ConcurrentHashMap<>();
  final AtomicInteger puts = new AtomicInteger();
  volatile boolean down;

  @Override
  public void put(String bucket, String key, Map<String, String> metadata, long length, InputStream body)
      throws IOException {
    if (down) {
      throw new IOException("Cannot write " + bucket + "/" + key + ": origin unavailable (503)");
    }
    byte[] bytes = body.readAllBytes();
    if (bytes.length != length) {
      throw new IOException("Cannot write " + bucket + "/" + key + ": " + bytes.length + " bytes, declared " + length);
    }
    objects.put(bucket + "/" + key, bytes);
    puts.incrementAndGet();
  }

  @Override
  public void delete(String bucket, String key, Map<String, String> metadata) throws IOException {
    if (down) {
      throw new IOException("Cannot delete " + bucket + "/" + key + ": origin unavailable (503)");
    }
    objects.remove(bucket + "/" + key);
  }
}
