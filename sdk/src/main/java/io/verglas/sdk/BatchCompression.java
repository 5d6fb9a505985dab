package io.verglas.sdk;

import java.util.Locale;
import java.util.Objects;

/**
 * How a writer compresses the batches it sends: Arrow IPC buffer compression with one codec,
 * applied to batches of at least {@code minBufferBytes} of Arrow buffers. The server validates
 * a compressed batch and writes its compressed buffers to the WAL as they are, so compression
 * done here is not done again there; batches below the threshold go uncompressed (and the
 * server compresses them), since for a few kilobytes the per-buffer framing costs more than it
 * saves. Default: zstd (level 1) from 64 KiB.
 */
public final class BatchCompression {
  /** The codecs of Arrow's IPC format ({@code BodyCompression}). */
  public enum Codec {
    NONE,
    ZSTD,
    LZ4_FRAME;

    /** Parses {@code none}, {@code zstd} or {@code lz4_frame} (any case). */
    public static Codec parse(String name) {
      try {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Invalid compression codec: '" + name
            + "' (expected none, zstd or lz4_frame)");
      }
    }
  }

  /** Batches with fewer bytes of Arrow buffers go uncompressed by default. */
  public static final long MIN_BUFFER_BYTES_DEFAULT = 64L << 10;
  /** The zstd level: the server's own level, the fastest that still compresses well. */
  public static final int ZSTD_LEVEL = 1;

  private static final BatchCompression NONE = new BatchCompression(Codec.NONE, Long.MAX_VALUE);
  private static final BatchCompression DEFAULT =
      new BatchCompression(Codec.ZSTD, MIN_BUFFER_BYTES_DEFAULT);

  private final Codec codec;
  private final long minBufferBytes;

  private BatchCompression(Codec codec, long minBufferBytes) {
    this.codec = codec;
    this.minBufferBytes = minBufferBytes;
  }

  /** zstd from 64 KiB. */
  public static BatchCompression defaults() {
    return DEFAULT;
  }

  /** Every batch uncompressed (the server compresses). */
  public static BatchCompression none() {
    return NONE;
  }

  /** {@code codec} for batches of at least {@code minBufferBytes} of Arrow buffers. */
  public static BatchCompression of(Codec codec, long minBufferBytes) {
    Objects.requireNonNull(codec, "codec");
    if (codec == Codec.NONE) {
      return NONE;
    }
    if (minBufferBytes < 0) {
      throw new IllegalArgumentException("Invalid minimum compressed batch bytes: "
          + minBufferBytes);
    }
    return new BatchCompression(codec, minBufferBytes);
  }

  public Codec codec() {
    return codec;
  }

  public long minBufferBytes() {
    return minBufferBytes;
  }

  /** Whether a batch of {@code bufferBytes} of Arrow buffers is sent compressed. */
  public boolean compresses(long bufferBytes) {
    return codec != Codec.NONE && bufferBytes >= minBufferBytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BatchCompression other && codec == other.codec
        && minBufferBytes == other.minBufferBytes;
  }

  @Override
  public int hashCode() {
    return Objects.hash(codec, minBufferBytes);
  }

  @Override
  public String toString() {
    return codec == Codec.NONE ? "none"
        : codec.name().toLowerCase(Locale.ROOT) + " from " + minBufferBytes + " bytes";
  }
}
