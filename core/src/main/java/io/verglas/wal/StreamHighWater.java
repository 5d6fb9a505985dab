package io.verglas.wal;

import io.verglas.store.ConditionalWrite;
import java.nio.charset.StandardCharsets;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * A stream's high-water mark: the highest sequence of the stream whose segment may already be
 * deleted.
 *
 * <p>Why: sequence numbers must never be reused, because the materializer records committed
 * positions as (stream, sequence) and skips what they cover. A restarted writer finds its next
 * sequence by listing its segments, but committed segments are deleted. So whoever deletes a
 * segment first raises the mark to at least its sequence, and a writer starts after
 * {@code max(highest listed segment, mark)}. The mark only rises: it is raised with a
 * compare-and-swap (If-Match on the ETag, If-None-Match when absent) because several readers
 * may delete segments of one stream at once.
 */
public final class StreamHighWater {
  private static final int MAX_ATTEMPTS = 16;

  private StreamHighWater() {}

  public static byte[] encode(long sequence) {
    return Long.toString(sequence).getBytes(StandardCharsets.US_ASCII);
  }

  public static long decode(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.US_ASCII).trim();
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new CorruptSegmentException("Cannot read stream high-water mark: '" + text + "'", e);
    }
  }

  /** The mark, or -1 when the stream has none. */
  public static long read(S3Client s3, String bucket, WalLayout layout, String streamId) {
    try {
      return decode(s3.getObjectAsBytes(b -> b.bucket(bucket).key(layout.highWaterKey(streamId)))
          .asByteArrayUnsafe());
    } catch (NoSuchKeyException e) {
      return -1;
    }
  }

  /** Raises the mark to at least {@code sequence}; returns the mark now stored. */
  public static long raise(S3Client s3, String bucket, WalLayout layout, String streamId,
      long sequence) {
    String key = layout.highWaterKey(streamId);
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      String etag = null;
      try {
        ResponseBytes<GetObjectResponse> current = s3.getObjectAsBytes(b -> b.bucket(bucket).key(key));
        long mark = decode(current.asByteArrayUnsafe());
        if (mark >= sequence) {
          return mark;
        }
        etag = current.response().eTag();
      } catch (NoSuchKeyException e) {
        // absent: create it, unless someone else does first
      }
      if (tryWrite(s3, bucket, key, sequence, etag)) {
        return sequence;
      }
    }
    throw new IllegalStateException("Cannot raise the high-water mark of stream " + streamId
        + " to " + sequence + ": " + MAX_ATTEMPTS + " concurrent updates in a row");
  }

  private static boolean tryWrite(S3Client s3, String bucket, String key, long sequence, String etag) {
    return ConditionalWrite.put(s3, bucket, key, etag, RequestBody.fromBytes(encode(sequence)));
  }
}
