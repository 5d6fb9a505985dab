package io.verglas.materializer.store;

import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.wal.StreamHighWater;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalLayout.SegmentName;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;

/** {@link WalStore} over an S3 endpoint (the cache node or the origin). */
public final class S3WalStore implements WalStore {
  /** The most keys one DeleteObjects request may name. */
  static final int MAX_DELETE_KEYS = 1000;

  private final S3Client s3;
  private final String bucket;
  private final WalLayout layout;
  private final Map<String, Long> marks = new ConcurrentHashMap<>();

  public S3WalStore(S3Client s3, String bucket, WalLayout layout) {
    this.s3 = s3;
    this.bucket = bucket;
    this.layout = layout;
  }

  public static S3WalStore open(ObjectStoreEndpoint endpoint, WalLayout layout) {
    return new S3WalStore(endpoint.newClient(), endpoint.bucket(), layout);
  }

  @Override
  public List<String> listStreams() {
    List<String> streams = new ArrayList<>();
    String prefix = layout.prefix();
    String token = null;
    do {
      ListObjectsV2Response page = s3.listObjectsV2(ListObjectsV2Request.builder()
          .bucket(bucket).prefix(prefix).delimiter("/").continuationToken(token).build());
      for (CommonPrefix common : page.commonPrefixes()) {
        String stream = common.prefix().substring(prefix.length());
        if (stream.endsWith("/")) {
          streams.add(stream.substring(0, stream.length() - 1));
        }
      }
      token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
    } while (token != null);
    return streams;
  }

  @Override
  public List<SegmentName> listSegments(String streamId, String startAfter, int max) {
    List<SegmentName> segments = new ArrayList<>();
    String token = null;
    do {
      ListObjectsV2Request.Builder request = ListObjectsV2Request.builder().bucket(bucket)
          .prefix(layout.streamPrefix(streamId)).maxKeys(Math.min(1000, max - segments.size()));
      if (token != null) {
        request.continuationToken(token);
      } else if (startAfter != null) {
        request.startAfter(startAfter);
      }
      ListObjectsV2Response page = s3.listObjectsV2(request.build());
      for (S3Object object : page.contents()) {
        // Other objects under a stream prefix (a fencing marker, say) are not segments.
        layout.parse(object.key()).ifPresent(segments::add);
      }
      token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
    } while (token != null && segments.size() < max);
    return segments;
  }

  @Override
  public Optional<byte[]> get(String key) {
    try {
      return Optional.of(s3.getObject(b -> b.bucket(bucket).key(key), S3WalStore::readBody));
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    }
  }

  /**
   * The body, read into an array of the length the response declares. Why not the SDK's
   * {@code getObjectAsBytes}: it collects the body in a growing buffer and copies that out, so
   * each segment (about a megabyte) was allocated some three times over, the last copies as
   * humongous objects of the collector.
   */
  private static byte[] readBody(GetObjectResponse response, InputStream body)
      throws IOException {
    Long declared = response.contentLength();
    if (declared == null) {
      return body.readAllBytes();
    }
    byte[] bytes = new byte[Math.toIntExact(declared)];
    int read = body.readNBytes(bytes, 0, bytes.length);
    if (read != bytes.length) {
      throw new IOException("Cannot read WAL segment: the body ended after " + read + " of "
          + bytes.length + " bytes");
    }
    return bytes;
  }

  /**
   * Deletes segments, after raising each stream's high-water mark to cover them (once per stream,
   * to the highest sequence among them), so a restarted writer never reuses a sequence (see
   * {@link StreamHighWater}); then one DeleteObjects request per {@value #MAX_DELETE_KEYS} keys.
   */
  @Override
  public void delete(Collection<String> keys) {
    Map<String, Long> highest = new HashMap<>();
    for (String key : keys) {
      layout.parse(key).ifPresent(name ->
          highest.merge(name.streamId(), name.sequence(), Math::max));
    }
    highest.forEach(this::raiseMark);
    List<String> batch = List.copyOf(keys);
    for (int from = 0; from < batch.size(); from += MAX_DELETE_KEYS) {
      deleteObjects(batch.subList(from, Math.min(batch.size(), from + MAX_DELETE_KEYS)));
    }
  }

  private void raiseMark(String streamId, long sequence) {
    // marks only rise, so a remembered mark is a safe lower bound that saves a round trip
    Long known = marks.get(streamId);
    if (known == null || known < sequence) {
      marks.merge(streamId, StreamHighWater.raise(s3, bucket, layout, streamId, sequence),
          Math::max);
    }
  }

  private void deleteObjects(List<String> keys) {
    List<ObjectIdentifier> objects = new ArrayList<>(keys.size());
    for (String key : keys) {
      objects.add(ObjectIdentifier.builder().key(key).build());
    }
    DeleteObjectsResponse response = s3.deleteObjects(b -> b.bucket(bucket)
        .delete(d -> d.objects(objects).quiet(true)));
    if (!response.errors().isEmpty()) {
      S3Error first = response.errors().get(0);
      throw new IllegalStateException("Cannot delete " + response.errors().size() + " of "
          + keys.size() + " WAL segments, " + first.key() + " among them: " + first.code() + " "
          + first.message());
    }
  }

  @Override
  public void close() {
    s3.close();
  }
}
