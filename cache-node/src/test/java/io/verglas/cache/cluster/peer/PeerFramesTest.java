package io.verglas.cache.cluster.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.verglas.cache.block.BlockId;
import io.verglas.cache.cluster.ClusterSecret;
import io.verglas.cache.cluster.peer.PeerFrames.BlockRequest;
import io.verglas.cache.cluster.peer.PeerFrames.ForgetRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The peer protocol's version-1 frames: golden bytes, round trips, refusals. */
class PeerFramesTest {
  private static final UnpooledByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;
  private static final ClusterSecret SECRET = new ClusterSecret("a-test-cluster-secret");
  private static final BlockId ID = new BlockId("warehouse", "db/t/data/00000-0.parquet", "\"9b2cf535f27731c974343645a3985328\"", 2 << 20, 3);

  @Test
  void aBlockRequestOfVersionOneHasTheGoldenBytes() throws IOException {
    ByteBuf frame = PeerFrames.request(ALLOC, SECRET, 42, ID, 1000);
    try {
      assertThat(HexFormat.of().formatHex(ByteBufUtil.getBytes(frame))).isEqualTo(golden("peer-get-block-v1.hex"));
    } finally {
      frame.release();
    }
  }

  @Test
  void requestsRoundTrip() {
    assertThat(parse(PeerFrames.request(ALLOC, SECRET, 7, ID, 1000), SECRET)).isEqualTo(new BlockRequest(7, ID, 1000));
    assertThat(parse(PeerFrames.forget(ALLOC, SECRET, 8, "b", "k/ü"), SECRET)).isEqualTo(new ForgetRequest(8, "b", "k/ü"));
    assertThat(parse(PeerFrames.replicate(ALLOC, SECRET, 9, ID, 1000), SECRET))
        .isEqualTo(new PeerFrames.ReplicateRequest(9, ID, 1000));
  }

  @Test
  void aWriteBackRequestCarriesItsBodyAsItIsAndIsSigned() {
    byte[] body = {9, 0, 0, 0, 0, 0, 0, 0, 1, 'x'};
    PeerFrames.Request parsed = parse(PeerFrames.writeBack(ALLOC, SECRET, 11, body), SECRET);
    assertThat(parsed).isInstanceOfSatisfying(PeerFrames.WriteBackRequest.class, r -> {
      assertThat(r.requestId()).isEqualTo(11);
      assertThat(r.body()).isEqualTo(body);
    });
    assertThatThrownBy(() -> parse(PeerFrames.writeBack(ALLOC, SECRET, 11, body), new ClusterSecret("another-cluster-secret")))
        .isInstanceOf(SecurityException.class);
    assertThatThrownBy(() -> PeerFrames.writeBack(ALLOC, SECRET, 12, new byte[PeerFrames.MAX_WRITE_BACK_BYTES + 1]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most");
  }

  @Test
  void aWrongSecretOrATamperedFrameIsRefused() {
    assertThatThrownBy(() -> parse(PeerFrames.request(ALLOC, SECRET, 7, ID, 1000), new ClusterSecret("another-cluster-secret")))
        .isInstanceOf(SecurityException.class).hasMessageContaining("wrong cluster secret");
    ByteBuf tampered = PeerFrames.request(ALLOC, SECRET, 7, ID, 1000);
    tampered.setByte(20, tampered.getByte(20) ^ 1);
    assertThatThrownBy(() -> parse(tampered, SECRET)).isInstanceOf(SecurityException.class);
  }

  @Test
  void anotherVersionOrALengthBeyondTheBlockIsRefused() {
    ByteBuf future = PeerFrames.request(ALLOC, SECRET, 7, ID, 1000);
    future.setByte(0, 2);
    assertThatThrownBy(() -> parse(future, SECRET)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown version");
    assertThatThrownBy(() -> parse(PeerFrames.request(ALLOC, SECRET, 7, ID, ID.blockSize() + 1), SECRET))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid length");
  }

  private static PeerFrames.Request parse(ByteBuf frame, ClusterSecret secret) {
    try {
      return PeerFrames.parseRequest(frame, secret);
    } finally {
      frame.release();
    }
  }

  private static String golden(String name) throws IOException {
    try (InputStream in = PeerFramesTest.class.getResourceAsStream("/cluster/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
    }
  }
}
