package io.verglas.cache.s3;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import java.nio.file.Path;
import java.util.Map;

/**
 * Receives one request body: undoes aws-chunked framing (verifying chunk signatures), feeds the
 * integrity checks, enforces the size limit, and spools the bytes. {@link #finish()} returns the
 * verified body; any failure is an {@link S3Exception} and nothing reaches the origin.
 */
final class BodyReceiver implements AutoCloseable {
  private final AwsChunkedDecoder chunked;
  private final PayloadChecksums checksums;
  private final SpooledBody spool;
  private final long declaredLength;
  private final long maxLength;
  private final S3ErrorCode tooLarge;
  private long received;

  private BodyReceiver(S3Request request, Authentication auth, long maxLength,
      S3ErrorCode tooLarge, long memoryThreshold, Path spoolDirectory) {
    this.maxLength = maxLength;
    this.tooLarge = tooLarge;
    PayloadMode mode = auth.mode();
    if (mode.signedChunks && auth.chunkSigner() == null) {
      throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
          "A signed aws-chunked payload needs a signed request");
    }
    this.declaredLength = declaredLength(request, mode, tooLarge == S3ErrorCode.ENTITY_TOO_LARGE);
    if (declaredLength > maxLength) {
      throw tooLarge(declaredLength);
    }
    this.checksums = PayloadChecksums.of(request.headers,
        mode == PayloadMode.SHA256 ? auth.payloadSha256() : null);
    this.chunked = mode.chunked
        ? new AwsChunkedDecoder(auth.chunkSigner(), mode.signedChunks && mode.trailer, this::consume)
        : null;
    this.spool = new SpooledBody(memoryThreshold, spoolDirectory, declaredLength);
  }

  /** A receiver for object content (PutObject, UploadPart). */
  static BodyReceiver forObject(S3Request request, Authentication auth, long maxLength,
      long memoryThreshold, Path spoolDirectory) {
    return new BodyReceiver(request, auth, maxLength, S3ErrorCode.ENTITY_TOO_LARGE,
        memoryThreshold, spoolDirectory);
  }

  /** A receiver for a small XML document, kept in memory. */
  static BodyReceiver forXml(S3Request request, Authentication auth, long maxLength) {
    return new BodyReceiver(request, auth, maxLength, S3ErrorCode.MAX_MESSAGE_LENGTH_EXCEEDED,
        maxLength, null);
  }

  /** The decoded body length, -1 if unknown (HTTP chunked); an XML body may omit it (empty). */
  private static long declaredLength(S3Request request, PayloadMode mode, boolean lengthRequired) {
    if (mode.chunked) {
      String decoded = request.header("x-amz-decoded-content-length");
      if (decoded == null) {
        if (chunkedTransfer(request)) {
          return -1;
        }
        throw new S3Exception(S3ErrorCode.MISSING_CONTENT_LENGTH,
            "You must provide x-amz-decoded-content-length with an aws-chunked body.");
      }
      return parseLength(decoded, "x-amz-decoded-content-length");
    }
    String contentLength = request.header(HttpHeaderNames.CONTENT_LENGTH);
    if (contentLength == null) {
      if (chunkedTransfer(request)) {
        return -1;
      }
      if (!lengthRequired) {
        return 0;
      }
      throw new S3Exception(S3ErrorCode.MISSING_CONTENT_LENGTH,
          "You must provide the Content-Length HTTP header.");
    }
    return parseLength(contentLength, "Content-Length");
  }

  private static boolean chunkedTransfer(S3Request request) {
    return request.headers.containsValue(
        HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED, true);
  }

  private static long parseLength(String value, String header) {
    try {
      long length = Long.parseLong(value.trim());
      if (length >= 0) {
        return length;
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid " + header + ": " + value);
  }

  void accept(ByteBuf content) {
    if (chunked != null) {
      chunked.decode(content);
    } else {
      consume(content);
    }
  }

  private void consume(ByteBuf data) {
    received += data.readableBytes();
    if (received > maxLength) {
      throw tooLarge(received);
    }
    if (declaredLength >= 0 && received > declaredLength) {
      throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
          "The body is longer than the declared length " + declaredLength);
    }
    checksums.update(data);
    spool.write(data);
  }

  /** Ends the body: checks length, trailers and digests; returns the verified content. */
  SpooledBody finish() {
    Map<String, String> trailers = chunked != null ? chunked.finish() : Map.of();
    if (declaredLength >= 0 && received != declaredLength) {
      throw new S3Exception(S3ErrorCode.INCOMPLETE_BODY,
          "You did not provide the number of bytes specified by the Content-Length HTTP header:"
              + " received " + received + " of " + declaredLength);
    }
    checksums.verify(trailers);
    spool.complete();
    return spool;
  }

  PayloadChecksums checksums() {
    return checksums;
  }

  private S3Exception tooLarge(long length) {
    return new S3Exception(tooLarge,
        "Your proposed upload exceeds the maximum allowed size: " + length + " bytes (at most "
            + maxLength + ")");
  }

  @Override
  public void close() {
    spool.close();
  }
}
