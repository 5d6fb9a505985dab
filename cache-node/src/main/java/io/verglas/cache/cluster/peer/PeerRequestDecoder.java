package io.verglas.cache.cluster.peer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;

/**
 * Cuts the peer server's input into request frames (4-byte length prefix, see {@link
 * PeerFrames}) with a limit per frame type, checked as soon as a frame's length and type have
 * arrived, before its body is buffered.
 *
 * <p>Why per type: only WRITE_BACK requests carry data (a fragment's cell, up to {@link
 * PeerFrames#MAX_WRITE_BACK_BYTES}); block requests, forgets and offers are a few names and
 * fixed fields. With one limit for every type, any peer could make the server buffer 8 MiB per
 * connection with a frame that is not even a write-back request. An oversized frame fails with
 * {@link TooLongFrameException} ("Cannot read a peer request: ..."), which the handler answers
 * BAD_REQUEST before closing the connection; nothing after it on that connection is read.
 */
final class PeerRequestDecoder extends ByteToMessageDecoder {
  /** The largest request frame of a type other than WRITE_BACK: three S3 names (each at most 1 KiB) and fixed fields. */
  static final int MAX_SMALL_REQUEST_FRAME = 16 * 1024;
  private static final int PREFIX = 4;
  private boolean refused;

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (refused) {
      in.skipBytes(in.readableBytes());
      return;
    }
    if (in.readableBytes() < PREFIX + 2) {
      return;
    }
    long length = in.getUnsignedInt(in.readerIndex());
    byte type = in.getByte(in.readerIndex() + PREFIX + 1);
    int limit = limit(type);
    if (length > limit) {
      refused = true;
      in.skipBytes(in.readableBytes());
      throw new TooLongFrameException("Cannot read a peer request: a frame of type " + type + " of " + length
          + " bytes, at most " + limit + " for that type");
    }
    if (in.readableBytes() < PREFIX + length) {
      return;
    }
    in.skipBytes(PREFIX);
    out.add(in.readRetainedSlice((int) length));
  }

  /** The largest frame of {@code type}: a write-back request's, or a small one for any other (or unknown) type. */
  static int limit(byte type) {
    return type == PeerFrames.WRITE_BACK ? PeerFrames.MAX_REQUEST_FRAME : MAX_SMALL_REQUEST_FRAME;
  }
}
