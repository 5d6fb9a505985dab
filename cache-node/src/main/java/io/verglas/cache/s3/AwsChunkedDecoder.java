package io.verglas.cache.s3;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Decodes an {@code aws-chunked} request body incrementally, as the bytes arrive:
 *
 * <pre>
 *   hex-size[;chunk-signature=sig] CRLF data CRLF      (repeated)
 *   0[;chunk-signature=sig] CRLF                       (final chunk)
 *   [name:value CRLF]* [x-amz-trailer-signature:sig CRLF]  CRLF   (trailer, optional)
 * </pre>
 *
 * Decoded data is handed to the sink as slices of the input (valid only during the call). With a
 * {@link ChunkSigner} every chunk signature and the trailer signature are verified; data of a chunk
 * reaches the sink before its signature is checked, which is safe because nothing is committed to
 * the origin before {@link #finish()} succeeds. No buffer is retained across calls.
 */
final class AwsChunkedDecoder {
  private static final int MAX_LINE = 8192;
  private static final String CHUNK_SIGNATURE = "chunk-signature=";
  private static final String TRAILER_SIGNATURE = "x-amz-trailer-signature";

  interface Sink {
    void accept(ByteBuf data);
  }

  private enum State { SIZE_LINE, DATA, DATA_CR, DATA_LF, TRAILER, DONE }

  private final ChunkSigner signer;
  private final boolean signedTrailer;
  private final Sink sink;
  private final StringBuilder line = new StringBuilder();
  private final Map<String, String> trailers = new LinkedHashMap<>();
  private final StringBuilder canonicalTrailer = new StringBuilder();
  private State state = State.SIZE_LINE;
  private long remaining;
  private String chunkSignature;
  private MessageDigest chunkDigest;
  private String trailerSignature;
  private boolean lineHasCr;

  /**
   * @param signer verifies chunk signatures, or null for unsigned chunks
   * @param signedTrailer the trailer carries x-amz-trailer-signature (signed streaming + trailer)
   */
  AwsChunkedDecoder(ChunkSigner signer, boolean signedTrailer, Sink sink) {
    this.signer = signer;
    this.signedTrailer = signedTrailer;
    this.sink = sink;
    this.chunkDigest = signer != null ? SigV4Signing.sha256() : null;
  }

  void decode(ByteBuf in) {
    while (in.isReadable()) {
      switch (state) {
        case SIZE_LINE -> {
          if (readLine(in)) {
            startChunk(takeLine());
          }
        }
        case DATA -> {
          int n = (int) Math.min(remaining, in.readableBytes());
          ByteBuf slice = in.readSlice(n);
          if (chunkDigest != null) {
            for (ByteBuffer nio : slice.nioBuffers()) {
              chunkDigest.update(nio);
            }
          }
          sink.accept(slice);
          remaining -= n;
          if (remaining == 0) {
            state = State.DATA_CR;
          }
        }
        case DATA_CR -> {
          expect(in.readByte(), '\r');
          state = State.DATA_LF;
        }
        case DATA_LF -> {
          expect(in.readByte(), '\n');
          endChunk();
          state = State.SIZE_LINE;
        }
        case TRAILER -> {
          if (readLine(in)) {
            String header = takeLine();
            if (header.isEmpty()) {
              state = State.DONE;
            } else {
              addTrailer(header);
            }
          }
        }
        case DONE -> {
          byte b = in.readByte();
          if (b != '\r' && b != '\n') {
            throw malformed("unexpected data after the final chunk");
          }
        }
      }
    }
  }

  /** Checks that the body ended properly and returns the trailing headers (lower-case names). */
  Map<String, String> finish() {
    boolean endedInTrailer = state == State.TRAILER && line.length() == 0;
    if (state != State.DONE && !endedInTrailer) {
      throw new S3Exception(S3ErrorCode.INCOMPLETE_BODY,
          "The aws-chunked body ended before its final chunk");
    }
    if (signer != null && signedTrailer) {
      if (trailerSignature == null) {
        throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH,
            "The signed aws-chunked trailer has no x-amz-trailer-signature");
      }
      signer.verifyTrailer(trailerSignature, canonicalTrailer.toString());
    }
    return Collections.unmodifiableMap(trailers);
  }

  private void startChunk(String sizeLine) {
    String[] parts = sizeLine.split(";");
    long size;
    try {
      size = Long.parseLong(parts[0].trim(), 16);
    } catch (NumberFormatException e) {
      throw malformed("bad chunk size line: " + abbreviate(sizeLine));
    }
    if (size < 0) {
      throw malformed("negative chunk size");
    }
    chunkSignature = null;
    for (int i = 1; i < parts.length; i++) {
      String ext = parts[i].trim();
      if (ext.startsWith(CHUNK_SIGNATURE)) {
        chunkSignature = ext.substring(CHUNK_SIGNATURE.length());
      }
    }
    if (signer != null && chunkSignature == null) {
      throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH,
          "A signed aws-chunked body has a chunk without chunk-signature");
    }
    remaining = size;
    if (size == 0) {
      endChunk();
      state = State.TRAILER;
    } else {
      state = State.DATA;
    }
  }

  private void endChunk() {
    if (signer != null) {
      signer.verifyChunk(chunkSignature, chunkDigest.digest());
    }
  }

  private void addTrailer(String header) {
    int colon = header.indexOf(':');
    if (colon <= 0) {
      throw malformed("bad trailer line: " + abbreviate(header));
    }
    String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
    String value = header.substring(colon + 1).trim();
    if (name.equals(TRAILER_SIGNATURE)) {
      trailerSignature = value;
      return;
    }
    trailers.put(name, value);
    canonicalTrailer.append(name).append(':').append(value).append('\n');
  }

  /** Appends bytes to the current line; true once a full line (LF-terminated) is buffered. */
  private boolean readLine(ByteBuf in) {
    while (in.isReadable()) {
      byte b = in.readByte();
      if (b == '\n') {
        return true;
      }
      if (lineHasCr) {
        line.append('\r');
        lineHasCr = false;
      }
      if (b == '\r') {
        lineHasCr = true;
      } else {
        line.append((char) (b & 0xff));
      }
      if (line.length() > MAX_LINE) {
        throw malformed("a chunk header or trailer line is longer than " + MAX_LINE + " bytes");
      }
    }
    return false;
  }

  private String takeLine() {
    String s = line.toString();
    line.setLength(0);
    lineHasCr = false;
    return new String(s.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
  }

  private static void expect(byte actual, char wanted) {
    if (actual != wanted) {
      throw malformed("chunk data is not followed by CRLF");
    }
  }

  private static String abbreviate(String s) {
    return s.length() > 80 ? s.substring(0, 80) + "..." : s;
  }

  private static S3Exception malformed(String why) {
    return new S3Exception(S3ErrorCode.INVALID_REQUEST, "Malformed aws-chunked body: " + why);
  }
}
