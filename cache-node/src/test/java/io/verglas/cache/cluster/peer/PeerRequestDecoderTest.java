package io.verglas.cache.cluster.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.codec.TooLongFrameException;
import io.verglas.cache.block.BlockId;
import io.verglas.cache.cluster.ClusterSecret;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/** The peer server's frame limits: 8 MiB for write-back requests only, a small limit for every other type. */
class PeerRequestDecoderTest {
  private static final UnpooledByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;
  private static final ClusterSecret SECRET = new ClusterSecret("a-test-cluster-secret");

  @Test
  void aWriteBackFrameOfMegabytesIsReadWhole() {
    EmbeddedChannel channel = new EmbeddedChannel(new PeerRequestDecoder());
    byte[] body = new byte[PeerFrames.MAX_WRITE_BACK_BYTES];
    body[body.length - 1] = 7;
    channel.writeInbound(prefixed(PeerFrames.writeBack(ALLOC, SECRET, 3, body)));
    ByteBuf frame = channel.readInbound();
    try {
      PeerFrames.Request request = PeerFrames.parseRequest(frame, SECRET);
      assertThat(((PeerFrames.WriteBackRequest) request).body()).isEqualTo(body);
    } finally {
      frame.release();
      channel.finishAndReleaseAll();
    }
  }

  @Test
  void aBlockRequestFrameArrivingInPiecesIsReadOnceWhole() {
    EmbeddedChannel channel = new EmbeddedChannel(new PeerRequestDecoder());
    BlockId id = new BlockId("b", "k", "\"e\"", 1 << 20, 0);
    ByteBuf whole = prefixed(PeerFrames.request(ALLOC, SECRET, 5, id, 100));
    channel.writeInbound(whole.readRetainedSlice(5));
    assertThat((Object) channel.readInbound()).isNull();
    channel.writeInbound(whole);
    ByteBuf frame = channel.readInbound();
    try {
      assertThat(PeerFrames.parseRequest(frame, SECRET)).isEqualTo(new PeerFrames.BlockRequest(5, id, 100));
    } finally {
      frame.release();
      channel.finishAndReleaseAll();
    }
  }

  @Test
  void anyOtherTypeBeyondTheSmallLimitIsRefusedFromItsHeaderAlone() {
    for (byte type : new byte[] {PeerFrames.GET_BLOCK, PeerFrames.FORGET, PeerFrames.REPLICATE, 9}) {
      EmbeddedChannel channel = new EmbeddedChannel(new PeerRequestDecoder());
      ByteBuf head = Unpooled.buffer().writeInt(PeerRequestDecoder.MAX_SMALL_REQUEST_FRAME + 1)
          .writeByte(PeerFrames.VERSION).writeByte(type);
      assertThatThrownBy(() -> channel.writeInbound(head)).isInstanceOf(TooLongFrameException.class)
          .hasMessage("Cannot read a peer request: a frame of type " + type + " of "
              + (PeerRequestDecoder.MAX_SMALL_REQUEST_FRAME + 1) + " bytes, at most "
              + PeerRequestDecoder.MAX_SMALL_REQUEST_FRAME + " for that type");
      channel.finishAndReleaseAll();
    }
  }

  @Test
  void theServerAnswersAnOversizedFrameBadRequestAndClosesTheConnection() {
    LongAdder refused = new LongAdder();
    EmbeddedChannel channel = new EmbeddedChannel(new PeerRequestDecoder(), new LengthFieldPrepender(4),
        new PeerServerHandler(SECRET, null, new LongAdder(), refused));
    channel.writeInbound(Unpooled.buffer().writeInt(1 << 20).writeByte(PeerFrames.VERSION)
        .writeByte(PeerFrames.GET_BLOCK).writeZero(1000));
    ByteBuf prefix = channel.readOutbound();
    ByteBuf answer = channel.readOutbound();
    try {
      assertThat(prefix.readInt()).isEqualTo(10);
      assertThat(PeerFrames.Status.of(answer.getByte(1))).isEqualTo(PeerFrames.Status.BAD_REQUEST);
      assertThat(refused.sum()).isEqualTo(1);
      assertThat(channel.isOpen()).isFalse();
    } finally {
      prefix.release();
      answer.release();
      channel.finishAndReleaseAll();
    }
  }

  private static ByteBuf prefixed(ByteBuf frame) {
    return Unpooled.wrappedBuffer(Unpooled.buffer(4).writeInt(frame.readableBytes()), frame);
  }
}
