package io.verglas.cache.origin;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The content of a write, fully received and verified before the origin sees it. It may be held
 * in memory or spooled to a file; {@link #openStream()} can be called more than once (a retrying
 * origin reads it again).
 */
public interface ObjectBody {
  long length();

  InputStream openStream() throws IOException;

  static ObjectBody ofBytes(byte[] bytes) {
    byte[] copy = bytes.clone();
    return new ObjectBody() {
      @Override
      public long length() {
        return copy.length;
      }

      @Override
      public InputStream openStream() {
        return new ByteArrayInputStream(copy);
      }
    };
  }
}
