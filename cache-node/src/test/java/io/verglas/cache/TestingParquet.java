package io.verglas.cache;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/** Parquet-shaped bytes for footer tests: "PAR1", data, footer, footer length (LE), "PAR1". */
public final class TestingParquet {
  private TestingParquet() {}

  public static byte[] file(int dataLength, int footerLength, long seed) {
    byte[] file = new byte[4 + dataLength + footerLength + 8];
    new Random(seed).nextBytes(file);
    byte[] magic = "PAR1".getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(magic, 0, file, 0, 4);
    int at = file.length - 8;
    file[at] = (byte) footerLength;
    file[at + 1] = (byte) (footerLength >>> 8);
    file[at + 2] = (byte) (footerLength >>> 16);
    file[at + 3] = (byte) (footerLength >>> 24);
    System.arraycopy(magic, 0, file, file.length - 4, 4);
    return file;
  }
}
