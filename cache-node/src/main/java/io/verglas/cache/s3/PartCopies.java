package io.verglas.cache.s3;

import io.netty.buffer.Unpooled;
import io.verglas.cache.origin.MultipartUpload;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * UploadPartCopy: a part of a multipart upload copied from (a byte range of) another object.
 *
 * <p>Design: the endpoint copies, so every origin supports it the same way. The source is
 * resolved to one version (its ETag, after the {@code x-amz-copy-source-if-*} conditions), read
 * in chunks pinned to that ETag (a concurrent overwrite fails the copy instead of mixing
 * versions) into a {@link SpooledBody}, and uploaded as the part. Memory: one chunk at a time plus
 * the spool's in-memory threshold; larger parts go to the spool directory, which the body deletes
 * when the upload is done.
 *
 * <p>Errors as S3: a range that is not {@code bytes=first-last} or ends beyond the source is
 * InvalidArgument (400); a missing source is NoSuchKey.
 */
final class PartCopies {
  private static final int CHUNK = 8 * 1024 * 1024;

  private final Origin origin;
  private final long spoolThreshold;
  private final Path spoolDirectory;

  PartCopies(Origin origin, long spoolThreshold, Path spoolDirectory) {
    this.origin = origin;
    this.spoolThreshold = spoolThreshold;
    this.spoolDirectory = spoolDirectory;
  }

  /** A byte range {@code [first, last]} of the source, both inclusive. */
  record CopyRange(long first, long last) {
    long length() {
      return last - first + 1;
    }

    /** The range of an {@code x-amz-copy-source-range} header; null means the whole source. */
    static CopyRange parse(String header, long sourceSize) {
      if (header == null) {
        return sourceSize == 0 ? new CopyRange(0, -1) : new CopyRange(0, sourceSize - 1);
      }
      String h = header.trim();
      int dash = h.indexOf('-');
      long first;
      long last;
      try {
        if (!h.startsWith("bytes=") || dash < 0) {
          throw new NumberFormatException();
        }
        first = Long.parseLong(h.substring("bytes=".length(), dash).trim());
        last = Long.parseLong(h.substring(dash + 1).trim());
      } catch (NumberFormatException e) {
        throw malformed(header);
      }
      if (first < 0 || last < first) {
        throw malformed(header);
      }
      if (last >= sourceSize) {
        throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
            "Range specified is not valid for source object of size: " + sourceSize)
            .detail("ArgumentName", "x-amz-copy-source-range").detail("ArgumentValue", header);
      }
      return new CopyRange(first, last);
    }

    private static S3Exception malformed(String header) {
      return new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
          "The x-amz-copy-source-range value must be of the form bytes=first-last where first and"
              + " last are the zero-based offsets of the first and last bytes to copy")
          .detail("ArgumentName", "x-amz-copy-source-range").detail("ArgumentValue", header);
    }
  }

  CompletableFuture<S3Response> copy(S3Request r, MultipartUpload upload, int partNumber) {
    ObjectWrites.CopySource source = ObjectWrites.CopySource.parse(r.header("x-amz-copy-source"));
    CompletableFuture<ObjectMeta> head = source.versionId() == null
        ? origin.head(source.bucket(), source.key())
        : origin.headVersion(source.bucket(), source.key(), source.versionId());
    return head.thenCompose(meta -> {
      S3Headers.evaluateCopySource(r, meta);
      CopyRange range = CopyRange.parse(r.header("x-amz-copy-source-range"), meta.size());
      SpooledBody body = new SpooledBody(spoolThreshold, spoolDirectory, range.length());
      return fill(body, source, meta, range.first(), range.last() + 1)
          .thenCompose(v -> {
            body.complete();
            return origin.uploadPart(upload, partNumber, body);
          })
          .whenComplete((etag, error) -> body.close())
          .thenApply(etag -> {
            S3Response response = S3Response.xml(S3Xml.document("CopyPartResult")
                .element("LastModified", S3Dates.xml(meta.lastModified()))
                .element("ETag", etag));
            if (source.versionId() != null) {
              response.header("x-amz-copy-source-version-id", source.versionId());
            }
            return response;
          });
    });
  }

  /** Appends [from, end) of the source version to the body, one chunk after another. */
  private CompletableFuture<Void> fill(SpooledBody body, ObjectWrites.CopySource source, ObjectMeta meta,
      long from, long end) {
    if (from >= end) {
      return CompletableFuture.completedFuture(null);
    }
    int length = (int) Math.min(CHUNK, end - from);
    CompletableFuture<byte[]> chunk = source.versionId() == null
        ? origin.readRange(source.bucket(), source.key(), meta.etag(), from, length)
        : origin.readVersionRange(source.bucket(), source.key(), source.versionId(), from, length);
    return chunk.thenCompose(bytes -> {
      body.write(Unpooled.wrappedBuffer(bytes));
      return fill(body, source, meta, from + length, end);
    });
  }
}
