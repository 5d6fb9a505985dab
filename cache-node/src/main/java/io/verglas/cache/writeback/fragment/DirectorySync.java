package io.verglas.cache.writeback.fragment;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * fsync of a directory, so that a file created, renamed or deleted in it stays so after a
 * crash: on Linux a file's own fsync does not make its directory entry durable.
 */
public final class DirectorySync {
  private DirectorySync() {}

  public static void force(Path directory) throws IOException {
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    }
  }
}
