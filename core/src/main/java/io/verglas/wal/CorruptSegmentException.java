package io.verglas.wal;

/** A WAL segment that fails its structure or checksum checks; it must never be read as valid. */
public class CorruptSegmentException extends RuntimeException {
  public CorruptSegmentException(String message) {
    super(message);
  }

  public CorruptSegmentException(String message, Throwable cause) {
    super(message, cause);
  }
}
