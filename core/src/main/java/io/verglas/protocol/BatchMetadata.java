package io.verglas.protocol;

import io.verglas.wal.WalSegmentCodec;

/**
 * What a client says about one {@code DoPut} batch, in the batch's app metadata.
 *
 * @param idempotencyKey a client-chosen key naming the batch, or null. A retried batch carries
 *     the same key so that it is applied once; keys are non-blank and at most
 *     {@value WalSegmentCodec#MAX_KEY_LENGTH} characters.
 */
public record BatchMetadata(String idempotencyKey) {
  public static final BatchMetadata NONE = new BatchMetadata(null);

  public BatchMetadata {
    if (idempotencyKey != null) {
      if (idempotencyKey.isBlank()) {
        throw new IllegalArgumentException("Invalid idempotency key: blank");
      }
      if (idempotencyKey.length() > WalSegmentCodec.MAX_KEY_LENGTH) {
        throw new IllegalArgumentException("Invalid idempotency key: " + idempotencyKey.length()
            + " characters, at most " + WalSegmentCodec.MAX_KEY_LENGTH + " allowed");
      }
    }
  }

  public static BatchMetadata withKey(String idempotencyKey) {
    return new BatchMetadata(idempotencyKey);
  }
}
