package io.verglas.cache;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;

/**
 * A bare HTTP/1.1 client over a socket, for requests an SDK will not send: tampered bodies, odd
 * paths, pipelined requests. Requests are signed with the SDK's own SigV4 signer.
 */
public final class TestingRawHttp implements AutoCloseable {
  /** A response; {@code complete} is false if the connection ended (EOF or reset) mid-body. */
  public record Response(int status, Map<String, String> headers, byte[] body, boolean complete) {
    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private String host;

  public TestingRawHttp(URI endpoint) throws IOException {
    this.socket = new Socket(endpoint.getHost(), endpoint.getPort());
    socket.setSoTimeout(20_000);
    this.in = socket.getInputStream();
    this.out = socket.getOutputStream();
    this.host = endpoint.getHost() + ":" + endpoint.getPort();
  }

  /** Signs a request with the SDK signer; returns the headers (incl. Authorization) and payload. */
  public static SignedRequest sign(URI uri, SdkHttpMethod method, byte[] payload, boolean chunked,
      String accessKey, String secretKey) {
    return sign(uri, method, payload, chunked, true, null, accessKey, secretKey);
  }

  /** With payloadSigning false and a checksum: STREAMING-UNSIGNED-PAYLOAD-TRAILER. */
  public static SignedRequest sign(URI uri, SdkHttpMethod method, byte[] payload, boolean chunked,
      boolean payloadSigning, software.amazon.awssdk.checksums.spi.ChecksumAlgorithm checksum,
      String accessKey, String secretKey) {
    return sign(uri, method, payload, Map.of(), chunked, payloadSigning, checksum, accessKey, secretKey);
  }

  /** With {@code headers} added to the request before signing, so they are signed too. */
  public static SignedRequest sign(URI uri, SdkHttpMethod method, byte[] payload,
      Map<String, String> headers, String accessKey, String secretKey) {
    return sign(uri, method, payload, headers, false, true, null, accessKey, secretKey);
  }

  private static SignedRequest sign(URI uri, SdkHttpMethod method, byte[] payload,
      Map<String, String> headers, boolean chunked, boolean payloadSigning,
      software.amazon.awssdk.checksums.spi.ChecksumAlgorithm checksum, String accessKey,
      String secretKey) {
    SdkHttpRequest.Builder builder = SdkHttpRequest.builder().method(method).uri(uri)
        .putHeader("Content-Length", Integer.toString(payload.length));
    headers.forEach(builder::putHeader);
    SdkHttpRequest request = builder.build();
    return AwsV4HttpSigner.create().sign(r -> r
        .identity(AwsBasicCredentials.create(accessKey, secretKey))
        .request(request)
        .payload(ContentStreamProvider.fromByteArray(payload))
        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
        .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
        .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
        .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, payloadSigning)
        .putProperty(AwsV4HttpSigner.CHUNK_ENCODING_ENABLED, chunked)
        .putProperty(AwsV4HttpSigner.CHECKSUM_ALGORITHM, checksum));
  }

  /** Sends {@code value} as the Host header from now on (e.g. a virtual-host-style name). */
  public TestingRawHttp host(String value) {
    this.host = value;
    return this;
  }

  public void send(String method, String pathAndQuery, Map<String, String> headers, byte[] body)
      throws IOException {
    StringBuilder head = new StringBuilder();
    head.append(method).append(' ').append(pathAndQuery).append(" HTTP/1.1\r\n");
    Map<String, String> all = new LinkedHashMap<>();
    all.put("Host", host);
    headers.forEach((k, v) -> {
      if (!k.equalsIgnoreCase("host")) {
        all.put(k, v);
      }
    });
    if (body.length > 0 && all.keySet().stream().noneMatch(k -> k.equalsIgnoreCase("content-length"))) {
      all.put("Content-Length", Integer.toString(body.length));
    }
    all.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
    head.append("\r\n");
    out.write(head.toString().getBytes(StandardCharsets.UTF_8));
    out.write(body);
    out.flush();
  }

  /** Sends bytes as they are, for requests whose head no well-formed client would write. */
  public void sendRaw(String head, byte[] body) throws IOException {
    out.write(head.getBytes(StandardCharsets.ISO_8859_1));
    out.write(body);
    out.flush();
  }

  /** Whether the server has closed the connection (EOF or reset) once its answers are read. */
  public boolean closedByServer() throws IOException {
    try {
      return in.read() < 0;
    } catch (java.net.SocketException e) {
      return true;
    }
  }

  public Response read(boolean headRequest) throws IOException {
    String statusLine = readLine();
    int status = Integer.parseInt(statusLine.split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (String line = readLine(); !line.isEmpty(); line = readLine()) {
      int colon = line.indexOf(':');
      headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
    }
    int length = headRequest || status == 204 || status == 304 || status == 100
        ? 0 : Integer.parseInt(headers.getOrDefault("content-length", "0"));
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    byte[] buffer = new byte[64 * 1024];
    boolean complete = true;
    try {
      while (body.size() < length) {
        int n = in.read(buffer, 0, Math.min(buffer.length, length - body.size()));
        if (n < 0) {
          complete = false;
          break;
        }
        body.write(buffer, 0, n);
      }
    } catch (java.net.SocketException e) {
      complete = false;
    }
    return new Response(status, headers, body.toByteArray(), complete);
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        throw new IOException("Connection closed");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.UTF_8);
  }

  public Response exchange(String method, String pathAndQuery, Map<String, String> headers, byte[] body)
      throws IOException {
    send(method, pathAndQuery, headers, body);
    return read(method.equals("HEAD"));
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
