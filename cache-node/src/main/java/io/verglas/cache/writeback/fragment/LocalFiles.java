package io.verglas.cache.writeback.fragment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** The two file operations write-back's on-disk formats share: a directory's fsync and positional full reads. */
public final class LocalFiles {
  private LocalFiles() {}

  /**
   * fsync of a directory, so that a file created, renamed or deleted in it stays so after a
   * crash: on Linux a file's own fsync does not make its directory entry durable.
   */
  public static void forceDirectory(Path directory) throws IOException {
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    }
  }

  /** Fills {@code into} from {@code offset} on; false when the file ends first. */
  public static boolean readFully(FileChannel channel, ByteBuffer into, long offset) throws IOException {
    long at = offset;
    while (into.hasRemaining()) {
      int n = channel.read(into, at);
      if (n < 0) {
        return false;
      }
      at += n;
    }
    return true;
  }
}
