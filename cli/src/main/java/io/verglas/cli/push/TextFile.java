package io.verglas.cli.push;

import java.io.BufferedReader;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A UTF-8 text file read through a buffer, knowing how much of it has been read. */
final class TextFile implements AutoCloseable {
  private final CountingInput counting;
  private final BufferedReader reader;
  private final long size;

  TextFile(Path file) throws IOException {
    this.size = Math.max(1, Files.size(file));
    this.counting = new CountingInput(Files.newInputStream(file));
    this.reader = new BufferedReader(new InputStreamReader(counting, StandardCharsets.UTF_8), 1 << 16);
  }

  BufferedReader reader() {
    return reader;
  }

  double progress() {
    return Math.min(1.0, counting.count / (double) size);
  }

  @Override
  public void close() {
    try {
      reader.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static final class CountingInput extends FilterInputStream {
    private long count;

    CountingInput(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        count += n;
      }
      return n;
    }
  }
}
