package io.verglas.cache.s3;

import java.util.zip.Checksum;

/**
 * CRC-64/NVME (reflected polynomial 0x9A6C9329AC4BC9B5, initial value and final XOR all ones),
 * the {@code x-amz-checksum-crc64nvme} algorithm; the JDK has no CRC-64. Table-driven, a byte at
 * a time: fast enough for verifying uploads, and the check value of "123456789" is
 * 0xAE8B14860A799888.
 */
final class Crc64Nvme implements Checksum {
  private static final long POLY = 0x9A6C9329AC4BC9B5L;
  private static final long[] TABLE = new long[256];

  static {
    for (int i = 0; i < 256; i++) {
      long crc = i;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 1) != 0 ? (crc >>> 1) ^ POLY : crc >>> 1;
      }
      TABLE[i] = crc;
    }
  }

  private long crc = -1L;

  @Override
  public void update(int b) {
    crc = TABLE[(int) ((crc ^ b) & 0xff)] ^ (crc >>> 8);
  }

  @Override
  public void update(byte[] b, int off, int len) {
    long c = crc;
    for (int i = off; i < off + len; i++) {
      c = TABLE[(int) ((c ^ b[i]) & 0xff)] ^ (c >>> 8);
    }
    crc = c;
  }

  @Override
  public long getValue() {
    return ~crc;
  }

  @Override
  public void reset() {
    crc = -1L;
  }
}
