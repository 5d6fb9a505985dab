package io.verglas.cache.writeback.fragment;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One acknowledged-or-staged write: the object's bucket and key, and the write's pod-unique id.
 * Two PUTs of one key are two identities: they share no fragments and no journal state.
 */
public record ObjectIdentity(String bucket, String key, String writeId) {
  /** The longest name of each part, in UTF-8 bytes (they are stored with a u16 length). */
  public static final int MAX_NAME_BYTES = 0xFFFF;

  public ObjectIdentity {
    check(bucket, "bucket");
    check(key, "key");
    check(writeId, "write id");
  }

  private static void check(String value, String what) {
    Objects.requireNonNull(value, what);
    if (value.isEmpty()) {
      throw new IllegalArgumentException("Invalid " + what + ": empty");
    }
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_NAME_BYTES) {
      throw new IllegalArgumentException("Invalid " + what + ": " + bytes + " bytes, at most " + MAX_NAME_BYTES);
    }
  }
}
