package io.verglas.cache.iceberg;

import java.io.EOFException;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A read-only Iceberg {@link FileIO} over an {@link ObjectSource}, so Iceberg's own parsers
 * ({@code TableMetadataParser}, manifest lists, {@code ManifestFiles}) read through whatever the
 * source reads through (the cache node's caches). Each input file reads its object at most once,
 * on its first stream, and serves every stream and seek from those bytes.
 *
 * <p>Not serializable in practice (the source is transient): it lives inside one cache node.
 */
public final class ReadOnlyFileIO implements FileIO {
  private final transient ObjectSource source;

  public ReadOnlyFileIO(ObjectSource source) {
    this.source = Objects.requireNonNull(source, "source");
  }

  @Override
  public InputFile newInputFile(String path) {
    return new SourceFile(source, path, -1);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return new SourceFile(source, path, length);
  }

  /** No properties: in particular no manifest content cache (the node's caches are the cache). */
  @Override
  public Map<String, String> properties() {
    return Map.of();
  }

  @Override
  public OutputFile newOutputFile(String path) {
    throw new UnsupportedOperationException("Cannot write " + path + ": this FileIO is read-only");
  }

  @Override
  public void deleteFile(String path) {
    throw new UnsupportedOperationException("Cannot delete " + path + ": this FileIO is read-only");
  }

  /** One object; its bytes are read on the first stream and kept for later ones. */
  private static final class SourceFile implements InputFile {
    private final ObjectSource source;
    private final String location;
    private long length;
    private byte[] bytes;

    SourceFile(ObjectSource source, String location, long length) {
      this.source = source;
      this.location = location;
      this.length = length;
    }

    @Override
    public long getLength() {
      if (length < 0) {
        length = bytes != null ? bytes.length : source.length(location);
      }
      return length;
    }

    @Override
    public SeekableInputStream newStream() {
      if (bytes == null) {
        bytes = source.read(location);
        length = bytes.length;
      }
      return new BytesStream(bytes);
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public boolean exists() {
      try {
        getLength();
        return true;
      } catch (RuntimeException e) {
        return false;
      }
    }
  }

  /** A seekable stream over an array. */
  private static final class BytesStream extends SeekableInputStream {
    private final byte[] bytes;
    private int pos;

    BytesStream(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) throws EOFException {
      if (newPos < 0 || newPos > bytes.length) {
        throw new EOFException("Cannot seek to " + newPos + " in " + bytes.length + " bytes");
      }
      pos = (int) newPos;
    }

    @Override
    public int read() {
      return pos < bytes.length ? bytes[pos++] & 0xFF : -1;
    }

    @Override
    public int read(byte[] buffer, int offset, int len) {
      Objects.checkFromIndexSize(offset, len, buffer.length);
      if (len == 0) {
        return 0;
      }
      if (pos >= bytes.length) {
        return -1;
      }
      int n = Math.min(len, bytes.length - pos);
      System.arraycopy(bytes, pos, buffer, offset, n);
      pos += n;
      return n;
    }

    @Override
    public long skip(long n) {
      long skipped = Math.max(0, Math.min(n, bytes.length - pos));
      pos += (int) skipped;
      return skipped;
    }

    @Override
    public int available() {
      return bytes.length - pos;
    }
  }
}
