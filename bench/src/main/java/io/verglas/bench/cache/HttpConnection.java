package io.verglas.bench.cache;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * One keep-alive HTTP/1.1 connection over a blocking socket: the benchmark's load generator.
 *
 * <p>Design: the benchmark compares servers, so the client must cost as little as possible and
 * the same for every server. It writes a request in one {@code write}, parses the status line
 * and headers from its own read buffer, and hands the body to a {@link BodySink} in pieces of
 * that buffer (counting bytes allocates nothing). Bodies are delimited by
 * {@code Content-Length} or chunked encoding; anything else (and {@code Connection: close})
 * ends the connection after the response. A body that ends early (the server reset or closed
 * the connection) is an {@link IOException}, so a truncated response is never taken for a
 * whole one.
 */
final class HttpConnection implements AutoCloseable {
  private static final int BUFFER = 64 * 1024;
  private static final int MAX_HEAD = 16 * 1024;

  /** Receives a response body piece by piece; the array is reused after the call returns. */
  interface BodySink {
    void accept(byte[] buffer, int offset, int length) throws IOException;
  }

  /** The response head: status, body length as announced (-1 if chunked), keep-alive. */
  record Head(int status, long contentLength, boolean chunked, boolean keepAlive) {}

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final String hostHeader;
  private final byte[] buffer = new byte[BUFFER];
  private int position;
  private int limit;
  private boolean reusable = true;
  private boolean answerStarted;

  HttpConnection(URI endpoint, int timeoutMillis) throws IOException {
    this.socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(timeoutMillis);
    socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), timeoutMillis);
    this.in = socket.getInputStream();
    this.out = socket.getOutputStream();
    this.hostHeader = endpoint.getHost() + ":" + endpoint.getPort();
  }

  /** True once a byte of the current request's answer has arrived. */
  boolean answerStarted() {
    return answerStarted;
  }

  /** False once the connection cannot carry another request. */
  boolean reusable() {
    return reusable && !socket.isClosed();
  }

  /**
   * Sends one request ({@code extraHeaders}: complete header lines, each ending in CRLF) and
   * streams the response body into {@code sink}; returns the head.
   */
  Head exchange(String method, String path, String extraHeaders, byte[] body, BodySink sink) throws IOException {
    StringBuilder request = new StringBuilder(160).append(method).append(' ').append(path)
        .append(" HTTP/1.1\r\nHost: ").append(hostHeader).append("\r\n").append(extraHeaders);
    if (body != null) {
      request.append("Content-Length: ").append(body.length).append("\r\n");
    }
    request.append("\r\n");
    reusable = false; // until the whole response has been read
    answerStarted = position < limit; // bytes already buffered belong to this answer
    byte[] head = request.toString().getBytes(StandardCharsets.US_ASCII);
    if (body == null || body.length == 0) {
      out.write(head);
    } else {
      byte[] all = new byte[head.length + body.length];
      System.arraycopy(head, 0, all, 0, head.length);
      System.arraycopy(body, 0, all, head.length, body.length);
      out.write(all);
    }
    out.flush();
    Head response = readHead();
    if (!"HEAD".equals(method) && response.status() != 204 && response.status() != 304) {
      if (response.chunked()) {
        readChunked(sink);
      } else if (response.contentLength() >= 0) {
        readFixed(response.contentLength(), sink);
      } else {
        throw new IOException("Cannot delimit a response without Content-Length or chunked encoding");
      }
    }
    reusable = response.keepAlive();
    return response;
  }

  private Head readHead() throws IOException {
    int status = -1;
    long length = -1;
    boolean chunked = false;
    boolean keepAlive = true;
    int headBytes = 0;
    String line;
    while (!(line = readLine()).isEmpty() || status < 0) {
      headBytes += line.length() + 2;
      if (headBytes > MAX_HEAD) {
        throw new IOException("Cannot read a response head longer than " + MAX_HEAD + " bytes");
      }
      if (status < 0) {
        if (!line.startsWith("HTTP/1.") || line.length() < 12) {
          throw new IOException("Cannot parse the status line: " + line);
        }
        status = Integer.parseInt(line.substring(9, 12));
        continue;
      }
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw new IOException("Cannot parse a header line: " + line);
      }
      String name = line.substring(0, colon).trim();
      String value = line.substring(colon + 1).trim();
      if (name.equalsIgnoreCase("Content-Length")) {
        length = Long.parseLong(value);
      } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
        chunked = value.equalsIgnoreCase("chunked");
      } else if (name.equalsIgnoreCase("Connection")) {
        keepAlive = !value.equalsIgnoreCase("close");
      }
    }
    if (status == 100) {
      return readHead(); // an interim answer: the real one follows
    }
    return new Head(status, length, chunked, keepAlive);
  }

  private void readFixed(long length, BodySink sink) throws IOException {
    long remaining = length;
    while (remaining > 0) {
      if (position == limit) {
        fill();
      }
      int n = (int) Math.min(remaining, limit - position);
      sink.accept(buffer, position, n);
      position += n;
      remaining -= n;
    }
  }

  private void readChunked(BodySink sink) throws IOException {
    while (true) {
      String sizeLine = readLine();
      int semicolon = sizeLine.indexOf(';');
      long size = Long.parseLong((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
      if (size == 0) {
        while (!readLine().isEmpty()) {
          // trailers: ignored
        }
        return;
      }
      readFixed(size, sink);
      if (!readLine().isEmpty()) {
        throw new IOException("Cannot parse a chunked body: no CRLF after a chunk");
      }
    }
  }

  private String readLine() throws IOException {
    StringBuilder line = new StringBuilder(64);
    while (true) {
      if (position == limit) {
        fill();
      }
      byte b = buffer[position++];
      if (b == '\n') {
        int n = line.length();
        return n > 0 && line.charAt(n - 1) == '\r' ? line.substring(0, n - 1) : line.toString();
      }
      if (line.length() > MAX_HEAD) {
        throw new IOException("Cannot read a line longer than " + MAX_HEAD + " bytes");
      }
      line.append((char) (b & 0xFF));
    }
  }

  private void fill() throws IOException {
    int n = in.read(buffer, 0, buffer.length);
    if (n < 0) {
      throw new EOFException("The server closed the connection before the response ended");
    }
    position = 0;
    limit = n;
    answerStarted = true;
  }

  @Override
  public void close() {
    reusable = false;
    try {
      socket.close();
    } catch (IOException e) {
      // closing: nothing left to do
    }
  }
}
