package io.verglas.ingest.validation;

import io.verglas.arrow.Ascii;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VariableWidthFieldVector;

/**
 * Checks that string cells hold valid UTF-8, as Arrow's Utf8 type and Iceberg's string type
 * require and Arrow Java does not check: a malformed cell would otherwise be stored and read
 * back as replacement characters, silently changing the value (and, in a primary key, which
 * row it is).
 *
 * <p>Design: a batch whose string bytes are all ASCII, the common case, is cleared in one pass
 * over its data buffer, eight bytes at a time; only otherwise is each cell decoded strictly.
 */
final class Utf8Cells {
  private Utf8Cells() {}

  /** Whether every byte of the vector's cells is ASCII (then every cell is valid UTF-8). */
  static boolean allAscii(FieldVector vector) {
    CellData cells = CellData.of(vector);
    return Ascii.isAscii(vector.getDataBuffer(), cells.start(), cells.end());
  }

  /** What is wrong with the (non-null) cell, or null when it is valid UTF-8. */
  static String problem(FieldVector vector, int row, CharsetDecoder strict) {
    byte[] bytes = ((VariableWidthFieldVector) vector).get(row);
    try {
      strict.reset().decode(ByteBuffer.wrap(bytes));
      return null;
    } catch (CharacterCodingException e) {
      return "value is not valid UTF-8 (" + bytes.length + " bytes, malformed from byte "
          + firstMalformed(bytes, strict) + ")";
    }
  }

  /** A decoder that refuses malformed input instead of replacing it. */
  static CharsetDecoder strictDecoder() {
    return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
  }

  private static int firstMalformed(byte[] bytes, CharsetDecoder strict) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length + 1);
    strict.reset();
    strict.decode(in, out, true);
    return in.position();
  }
}
