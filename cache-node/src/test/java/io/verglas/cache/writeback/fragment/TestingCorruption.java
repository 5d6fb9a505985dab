package io.verglas.cache.writeback.fragment;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/** Damages fragment files the way a failing disk does: one flipped bit. */
public final class TestingCorruption {
  private TestingCorruption() {}

  /** Flips a bit of the last cell's last byte (just before its CRC) of the store's only fragment. */
  public static void flipLastCellByte(FragmentStore store) throws IOException {
    Path file = store.list().get(0).file();
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      long at = raf.length() - 1 - FragmentFormat.CELL_CRC_BYTES;
      raf.seek(at);
      int b = raf.read();
      raf.seek(at);
      raf.write(b ^ 0x10);
    }
  }
}
