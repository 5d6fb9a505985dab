package io.verglas.cache.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class AwsChunkedDecoderTest {
  /** The multi-chunk example of the AWS SigV4 documentation: 64 KiB + 1 KiB of 'a'. */
  @Test
  void awsDocumentationExampleVerifies() {
    byte[] key = SigV4Signing.signingKey(SigV4VerifierTest.SECRET, "20130524", "us-east-1", "s3");
    ChunkSigner signer = new ChunkSigner(key, "20130524T000000Z", "20130524/us-east-1/s3/aws4_request",
        "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9");
    byte[] body = encode(List.of(
        chunk(65536, "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648"),
        chunk(1024, "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497"),
        chunk(0, "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9")));
    assertThat(body.length).isEqualTo(66824); // Content-Length of the example
    ByteArrayOutputStream decoded = new ByteArrayOutputStream();
    AwsChunkedDecoder decoder = new AwsChunkedDecoder(signer, false, data -> copy(data, decoded));
    decoder.decode(Unpooled.wrappedBuffer(body));
    decoder.finish();
    byte[] expected = new byte[66560];
    Arrays.fill(expected, (byte) 'a');
    assertThat(decoded.toByteArray()).isEqualTo(expected);
  }

  @Test
  void aFlippedDataBitBreaksTheChain() {
    byte[] key = SigV4Signing.signingKey(SigV4VerifierTest.SECRET, "20130524", "us-east-1", "s3");
    ChunkSigner signer = new ChunkSigner(key, "20130524T000000Z", "20130524/us-east-1/s3/aws4_request",
        "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9");
    byte[] body = encode(List.of(
        chunk(65536, "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648")));
    body[200] = 'b';
    AwsChunkedDecoder decoder = new AwsChunkedDecoder(signer, false, data -> { });
    assertThatThrownBy(() -> decoder.decode(Unpooled.wrappedBuffer(body)))
        .isInstanceOfSatisfying(S3Exception.class,
            e -> assertThat(e.code()).isEqualTo(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH));
  }

  private record Chunk(int size, String signature) {}

  private static Chunk chunk(int size, String signature) {
    return new Chunk(size, signature);
  }

  private static byte[] encode(List<Chunk> chunks) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Chunk c : chunks) {
      out.writeBytes((Integer.toHexString(c.size()) + ";chunk-signature=" + c.signature() + "\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      byte[] data = new byte[c.size()];
      Arrays.fill(data, (byte) 'a');
      out.writeBytes(data);
      out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    return out.toByteArray();
  }

  /** An unsigned body with a trailer decodes the same however the bytes are split. */
  @Property(tries = 300)
  void decodingIsIndependentOfHowBytesArrive(
      @ForAll @Size(max = 6) List<@IntRange(min = 1, max = 3000) Integer> chunkSizes,
      @ForAll @Size(min = 1, max = 20) List<@IntRange(min = 1, max = 700) Integer> cuts) {
    ByteArrayOutputStream encoded = new ByteArrayOutputStream();
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    int n = 0;
    for (int size : chunkSizes) {
      byte[] data = new byte[size];
      for (int i = 0; i < size; i++) {
        data[i] = (byte) (n++ * 7);
      }
      encoded.writeBytes((Integer.toHexString(size) + "\r\n").getBytes(StandardCharsets.US_ASCII));
      encoded.writeBytes(data);
      encoded.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
      expected.writeBytes(data);
    }
    encoded.writeBytes("0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    byte[] bytes = encoded.toByteArray();

    ByteArrayOutputStream decoded = new ByteArrayOutputStream();
    AwsChunkedDecoder decoder = new AwsChunkedDecoder(null, false, data -> copy(data, decoded));
    int at = 0;
    for (int i = 0; at < bytes.length; i++) {
      int len = Math.min(cuts.get(i % cuts.size()), bytes.length - at);
      decoder.decode(Unpooled.wrappedBuffer(bytes, at, len));
      at += len;
    }
    Map<String, String> trailers = decoder.finish();
    assertThat(decoded.toByteArray()).isEqualTo(expected.toByteArray());
    assertThat(trailers).containsExactly(Map.entry("x-amz-checksum-crc32", "AAAAAA=="));
  }

  @Test
  void truncatedBodyIsIncomplete() {
    AwsChunkedDecoder decoder = new AwsChunkedDecoder(null, false, data -> { });
    decoder.decode(Unpooled.copiedBuffer("5\r\nabc", StandardCharsets.US_ASCII));
    assertThatThrownBy(decoder::finish).isInstanceOfSatisfying(S3Exception.class,
        e -> assertThat(e.code()).isEqualTo(S3ErrorCode.INCOMPLETE_BODY));
  }

  @Test
  void garbageSizeLineIsRefused() {
    AwsChunkedDecoder decoder = new AwsChunkedDecoder(null, false, data -> { });
    assertThatThrownBy(() -> decoder.decode(Unpooled.copiedBuffer("zz\r\n", StandardCharsets.US_ASCII)))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.code()).isEqualTo(S3ErrorCode.INVALID_REQUEST));
  }

  private static void copy(ByteBuf data, ByteArrayOutputStream out) {
    byte[] bytes = new byte[data.readableBytes()];
    data.getBytes(data.readerIndex(), bytes);
    out.writeBytes(bytes);
  }
}
