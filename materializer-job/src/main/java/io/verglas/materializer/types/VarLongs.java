package io.verglas.materializer.types;

import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Unsigned variable-length longs as the materializer's state formats write them: seven bits per
 * byte, low bits first; the high bit says another byte follows.
 */
public final class VarLongs {
  private VarLongs() {}

  public static void write(long value, DataOutputView out) throws IOException {
    long rest = value;
    while ((rest & ~0x7FL) != 0) {
      out.writeByte((int) (rest & 0x7F) | 0x80);
      rest >>>= 7;
    }
    out.writeByte((int) rest);
  }

  public static long read(DataInputView in) throws IOException {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte b = in.readByte();
      value |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return value;
      }
    }
    throw new IOException("Cannot read key index entry: a varint runs over 10 bytes");
  }
}
