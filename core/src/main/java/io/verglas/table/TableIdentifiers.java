package io.verglas.table;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The one string form of a table identifier, for where levels cannot travel as a list: Flink
 * keys and state, log lines, the CloudEvents subject, HTTP query parameters and command-line
 * arguments.
 *
 * <p>Design: levels are joined by {@code .}, as Iceberg prints them; a level that contains a
 * {@code .} or a backquote, or is empty, is written between backquotes with each backquote in it
 * doubled, as Spark SQL quotes identifiers: {@code demo.`orders.v2`} is the table
 * {@code orders.v2} in namespace {@code demo}, and {@code demo.orders.v2} the table {@code v2} in
 * namespace {@code demo.orders}. Joining without quoting (Iceberg's {@code toString}) and
 * splitting at every dot ({@code TableIdentifier.parse}) cannot tell those two apart, which
 * dropped the rows of tables with a dot in their name.
 *
 * <p>Compatibility: a name without dots and backquotes reads and writes exactly as before
 * (levels joined by dots), so keys and checkpointed state written by earlier builds restore.
 * When reading, a backquote is special only at the start of a level: a bare level with a
 * backquote inside, as an earlier build wrote it, reads as written. {@code parse(toString(x))}
 * is {@code x} for every list of levels.
 */
public final class TableIdentifiers {
  private static final char SEPARATOR = '.';
  private static final char QUOTE = '`';

  private TableIdentifiers() {}

  /** The string form of {@code levels} (namespace levels, then the table name). */
  public static String toString(List<String> levels) {
    StringBuilder text = new StringBuilder();
    for (String level : levels) {
      if (!text.isEmpty()) {
        text.append(SEPARATOR);
      }
      appendLevel(text, level);
    }
    return text.toString();
  }

  public static String toString(TableIdentifier identifier) {
    return toString(levels(identifier));
  }

  /** Namespace levels, then the table name. */
  public static List<String> levels(TableIdentifier identifier) {
    List<String> levels = new ArrayList<>(List.of(identifier.namespace().levels()));
    levels.add(identifier.name());
    return levels;
  }

  /** The identifier of {@code levels}: all but the last are the namespace. */
  public static TableIdentifier identifier(List<String> levels) {
    if (levels.isEmpty()) {
      throw new IllegalArgumentException("Cannot build a table identifier: no levels");
    }
    int last = levels.size() - 1;
    return TableIdentifier.of(Namespace.of(levels.subList(0, last).toArray(String[]::new)),
        levels.get(last));
  }

  /** The identifier written as {@code text} (see the class comment for the form). */
  public static TableIdentifier identifier(String text) {
    return identifier(parse(text));
  }

  /** The levels written as {@code text}; at least one, none of them empty unless quoted. */
  public static List<String> parse(String text) {
    if (text == null || text.isEmpty()) {
      throw new IllegalArgumentException("Cannot parse table name '': it is empty");
    }
    List<String> levels = new ArrayList<>();
    int at = 0;
    while (true) {
      StringBuilder level = new StringBuilder();
      at = text.charAt(at) == QUOTE ? readQuoted(text, at, level) : readBare(text, at, level);
      levels.add(level.toString());
      if (at == text.length()) {
        return levels;
      }
      at++; // the separator
      if (at == text.length()) {
        throw new IllegalArgumentException("Cannot parse table name '" + text
            + "': it ends with '.' (write an empty level as ``)");
      }
    }
  }

  private static void appendLevel(StringBuilder text, String level) {
    if (!level.isEmpty() && level.indexOf(SEPARATOR) < 0 && level.indexOf(QUOTE) < 0) {
      text.append(level);
      return;
    }
    text.append(QUOTE);
    for (int i = 0; i < level.length(); i++) {
      char c = level.charAt(i);
      text.append(c);
      if (c == QUOTE) {
        text.append(QUOTE);
      }
    }
    text.append(QUOTE);
  }

  /** Reads a bare level from {@code start}; returns the index of the '.' after it or the end. */
  private static int readBare(String text, int start, StringBuilder level) {
    int end = text.indexOf(SEPARATOR, start);
    end = end < 0 ? text.length() : end;
    if (end == start) {
      throw new IllegalArgumentException("Cannot parse table name '" + text + "': level "
          + "at position " + start + " is empty (write an empty level as ``)");
    }
    level.append(text, start, end);
    return end;
  }

  /** Reads a quoted level from its opening quote; returns the index after its closing quote. */
  private static int readQuoted(String text, int start, StringBuilder level) {
    int at = start + 1;
    while (true) {
      int quote = text.indexOf(QUOTE, at);
      if (quote < 0) {
        throw new IllegalArgumentException("Cannot parse table name '" + text + "': the "
            + "backquote at position " + start + " is not closed");
      }
      level.append(text, at, quote);
      if (quote + 1 < text.length() && text.charAt(quote + 1) == QUOTE) {
        level.append(QUOTE); // a doubled backquote stands for one
        at = quote + 2;
        continue;
      }
      int next = quote + 1;
      if (next < text.length() && text.charAt(next) != SEPARATOR) {
        throw new IllegalArgumentException("Cannot parse table name '" + text + "': expected "
            + "'.' after the quoted level that ends at position " + quote);
      }
      return next;
    }
  }
}
