package io.verglas.cache.s3;

import io.netty.buffer.ByteBuf;
import io.verglas.cache.origin.ObjectBody;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * A request body held in memory up to a threshold and spilled to a temp file beyond it, so a
 * 5 GiB upload costs disk, not heap. Writes happen on the connection's event loop, like Netty's
 * own disk-backed uploads: a local file write is short, and blocking there also throttles a
 * client that sends faster than the disk takes it. The temp file is deleted on {@link #close()}.
 */
final class SpooledBody implements ObjectBody, AutoCloseable {
  private static final int INITIAL = 16 * 1024;

  private final long memoryThreshold;
  private final Path spoolDirectory;
  private byte[] memory;
  private int memoryLength;
  private Path file;
  private FileChannel channel;
  private long length;
  private boolean complete;

  SpooledBody(long memoryThreshold, Path spoolDirectory, long expectedLength) {
    this.memoryThreshold = memoryThreshold;
    this.spoolDirectory = spoolDirectory;
    int initial = expectedLength >= 0 && expectedLength <= memoryThreshold
        ? (int) expectedLength
        : (int) Math.min(INITIAL, memoryThreshold);
    this.memory = new byte[initial];
  }

  void write(ByteBuf data) {
    int n = data.readableBytes();
    if (n == 0) {
      return;
    }
    try {
      if (file == null && memoryLength + (long) n <= memoryThreshold) {
        if (memoryLength + n > memory.length) {
          long grown = Math.max((long) memory.length * 2, memoryLength + (long) n);
          memory = Arrays.copyOf(memory, (int) Math.min(grown, memoryThreshold));
        }
        data.getBytes(data.readerIndex(), memory, memoryLength, n);
        memoryLength += n;
      } else {
        if (file == null) {
          spill();
        }
        int index = data.readerIndex();
        int left = n;
        while (left > 0) {
          int written = data.getBytes(index, channel, channel.size(), left);
          index += written;
          left -= written;
        }
      }
      length += n;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot spool a request body to " + spoolDirectory, e);
    }
  }

  private void spill() throws IOException {
    Files.createDirectories(spoolDirectory);
    file = Files.createTempFile(spoolDirectory, "verglas-body-", ".spool");
    channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ);
    if (memoryLength > 0) {
      channel.write(java.nio.ByteBuffer.wrap(memory, 0, memoryLength), 0);
    }
    memory = null;
    memoryLength = 0;
  }

  void complete() {
    complete = true;
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      channel = null;
    }
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public InputStream openStream() throws IOException {
    if (!complete) {
      throw new IllegalStateException("Cannot read a request body before it is complete");
    }
    return file == null ? new ByteArrayInputStream(memory, 0, memoryLength) : Files.newInputStream(file);
  }

  /** The content of a small in-memory body (XML requests). */
  byte[] bytes() {
    if (file != null) {
      throw new IllegalStateException("The body was spooled to disk");
    }
    return Arrays.copyOf(memory, memoryLength);
  }

  @Override
  public void close() {
    try {
      if (channel != null) {
        channel.close();
        channel = null;
      }
      if (file != null) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      // best effort: a leftover spool file in the temp directory is harmless
    }
    memory = null;
  }
}
