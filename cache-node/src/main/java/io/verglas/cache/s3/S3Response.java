package io.verglas.cache.s3;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * What an operation answers: status, headers and either a small body held in memory or a
 * {@link BodyStream} that writes the content after the head (GetObject). The connection handler
 * adds the common headers (request id, date, connection) and writes it.
 */
final class S3Response {
  static final String XML_TYPE = "application/xml";

  final HttpResponseStatus status;
  final HttpHeaders headers = new DefaultHttpHeaders();
  private byte[] body = new byte[0];
  private int bodyOffset;
  private int bodyLength;
  private BodyStream stream;

  private S3Response(HttpResponseStatus status) {
    this.status = status;
  }

  static S3Response of(HttpResponseStatus status) {
    return new S3Response(status);
  }

  static S3Response ok() {
    return new S3Response(HttpResponseStatus.OK);
  }

  static S3Response noContent() {
    return new S3Response(HttpResponseStatus.NO_CONTENT);
  }

  static S3Response xml(S3Xml document) {
    return ok().body(document.toBytes(), XML_TYPE);
  }

  S3Response header(CharSequence name, Object value) {
    if (value != null) {
      headers.set(name, value);
    }
    return this;
  }

  S3Response body(byte[] bytes, String contentType) {
    this.body = bytes;
    this.bodyOffset = 0;
    this.bodyLength = bytes.length;
    headers.set(HttpHeaderNames.CONTENT_TYPE, contentType);
    return this;
  }

  /** Object content held in memory: {@code length} bytes of {@code bytes} from {@code offset}. */
  S3Response content(byte[] bytes, int offset, int length) {
    this.body = bytes;
    this.bodyOffset = offset;
    this.bodyLength = length;
    return this;
  }

  /** Content written by a stream after the head; Content-Length must already be set. */
  S3Response stream(BodyStream bodyStream) {
    this.stream = bodyStream;
    return this;
  }

  byte[] body() {
    return body;
  }

  int bodyOffset() {
    return bodyOffset;
  }

  int bodyLength() {
    return bodyLength;
  }

  BodyStream stream() {
    return stream;
  }

  /**
   * Writes response content after the head, on the channel's event loop, honouring writability,
   * and completes {@code done} after the last content is flushed or fails it (the handler then
   * closes the connection, since the response is cut short).
   */
  interface BodyStream {
    void start(ChannelHandlerContext ctx, ChannelPromise done);

    void writabilityChanged();

    /** The connection went away: stop and release what is held. */
    void abort();
  }
}
