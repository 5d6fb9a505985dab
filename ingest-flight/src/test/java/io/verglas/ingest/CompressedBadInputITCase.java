package io.verglas.ingest;

import io.verglas.sdk.BatchCompression;

/**
 * Every bad-input test of {@link BadInputITCase} again, with the SDK sending every batch
 * zstd-compressed: the server decompresses what validation reads, so the refusals, their
 * messages and their counts are the same, and nothing of a refused batch is written.
 */
class CompressedBadInputITCase extends BadInputITCase {
  @Override
  BatchCompression compression() {
    return BatchCompression.of(BatchCompression.Codec.ZSTD, 0);
  }
}
