package io.verglas.table;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a new table's namespace levels and name may be, checked before anything is created so a
 * bad identifier is answered with the rule it breaks instead of failing deep in storage.
 *
 * <p>Why these rules: each level becomes a segment of the table's storage location
 * ({@code warehouse/ns1/ns2/name/...}), so a {@code /} would make {@code ns.a/b} share the
 * location of table {@code b} in namespace {@code ns.a}, and {@code .} or {@code ..} would name a
 * directory itself or its parent. The JDBC catalog stores a namespace as its levels joined by
 * dots, so a namespace level may not hold a dot ({@code a.b} would read back as two levels); a
 * table name may ({@code orders.v2}), and is written {@code demo.`orders.v2`} where a string form
 * is needed ({@link TableIdentifiers}). Control characters (newlines among them) and NUL break
 * log lines, terminals and C-string APIs, and an unpaired surrogate is not Unicode at all (it is
 * written as {@code ?}, so two different names would share one location). Lengths are bounded
 * per level (file systems allow 255 bytes per path segment) and in total (an S3 key holds at
 * most 1024 bytes, and the table's location is only its prefix). Any other Unicode is allowed.
 */
public final class IdentifierRules {
  /** Bytes (UTF-8) one namespace level or the table name may have. */
  public static final int MAX_LEVEL_BYTES = 255;
  /** Namespace levels a table may be nested in. */
  public static final int MAX_NAMESPACE_LEVELS = 16;
  /** Bytes (UTF-8) of all levels with a separator between each two. */
  public static final int MAX_IDENTIFIER_BYTES = 512;
  private static final int QUOTED_CHARS = 100;

  /** A rule an identifier can break; {@link #id()} is the name error messages give it. */
  public enum Rule {
    NO_NAMESPACE("no-namespace", "a table needs a namespace of at least one level"),
    TOO_MANY_LEVELS("too-many-levels", "at most " + MAX_NAMESPACE_LEVELS + " namespace levels"),
    IDENTIFIER_TOO_LONG("identifier-too-long",
        "at most " + MAX_IDENTIFIER_BYTES + " bytes (UTF-8) for all levels together"),
    EMPTY("empty", "a level may not be empty or only white space"),
    TOO_LONG("too-long", "a level has at most " + MAX_LEVEL_BYTES + " bytes (UTF-8)"),
    SLASH("slash", "a level may not contain '/' (it would name a nested storage location)"),
    NUL("nul", "a level may not contain NUL"),
    CONTROL_CHARACTER("control-character",
        "a level may not contain control characters or line breaks"),
    UNPAIRED_SURROGATE("unpaired-surrogate", "a level must be valid Unicode"),
    DOT_SEGMENT("dot-segment", "a level may not be '.' or '..'"),
    DOT_IN_NAMESPACE("dot-in-namespace", "a namespace level may not contain '.' (the catalog "
        + "stores namespaces as levels joined by dots); a table name may");

    private final String id;
    private final String description;

    Rule(String id, String description) {
      this.id = id;
      this.description = description;
    }

    public String id() {
      return id;
    }

    public String description() {
      return description;
    }
  }

  /** An identifier that breaks a rule: which rule, and what broke it. */
  public static final class InvalidIdentifierException extends IllegalArgumentException {
    private final Rule rule;

    InvalidIdentifierException(Rule rule, String message) {
      super(message);
      this.rule = rule;
    }

    public Rule rule() {
      return rule;
    }
  }

  private IdentifierRules() {}

  /**
   * Throws {@link InvalidIdentifierException} ("Cannot create table ...: ... (rule id: why)")
   * for the first rule {@code namespace} and {@code name} break; returns when they break none.
   */
  public static void validate(List<String> namespace, String name) {
    List<String> levels = new ArrayList<>(namespace);
    levels.add(name);
    String table = TableIdentifiers.toString(levels);
    if (namespace.isEmpty()) {
      throw invalid(table, Rule.NO_NAMESPACE, "it has no namespace");
    }
    if (namespace.size() > MAX_NAMESPACE_LEVELS) {
      throw invalid(table, Rule.TOO_MANY_LEVELS, "it has " + namespace.size()
          + " namespace levels");
    }
    for (int i = 0; i < levels.size(); i++) {
      boolean isName = i == levels.size() - 1;
      String what = isName ? "name" : "namespace level " + (i + 1);
      Optional<Breach> broken = breach(levels.get(i), isName);
      if (broken.isPresent()) {
        throw invalid(table, broken.get().rule(), what + " " + quote(broken.get().level()) + " "
            + broken.get().detail());
      }
    }
    int bytes = levels.size() - 1;
    for (String level : levels) {
      bytes += utf8Length(level);
    }
    if (bytes > MAX_IDENTIFIER_BYTES) {
      throw invalid(table, Rule.IDENTIFIER_TOO_LONG, "it has " + bytes + " bytes");
    }
  }

  private record Breach(Rule rule, String level, String detail) {}

  private static Optional<Breach> breach(String level, boolean isName) {
    if (level == null || level.isBlank()) {
      return Optional.of(new Breach(Rule.EMPTY, String.valueOf(level),
          level == null || level.isEmpty() ? "is empty" : "is only white space"));
    }
    if (level.equals(".") || level.equals("..")) {
      return Optional.of(new Breach(Rule.DOT_SEGMENT, level, "is a dot segment"));
    }
    for (int i = 0; i < level.length(); i++) {
      Optional<Breach> bad = breach(level, i, isName);
      if (bad.isPresent()) {
        return bad;
      }
    }
    int bytes = utf8Length(level);
    if (bytes > MAX_LEVEL_BYTES) {
      return Optional.of(new Breach(Rule.TOO_LONG, level, "has " + bytes + " bytes"));
    }
    return Optional.empty();
  }

  /** The rule the character at {@code i} breaks, if any. */
  private static Optional<Breach> breach(String level, int i, boolean isName) {
    char c = level.charAt(i);
    String at = " at index " + i;
    if (c == '/') {
      return Optional.of(new Breach(Rule.SLASH, level, "contains '/'" + at));
    } else if (c == '\0') {
      return Optional.of(new Breach(Rule.NUL, level, "contains NUL" + at));
    } else if (isControl(c)) {
      return Optional.of(new Breach(Rule.CONTROL_CHARACTER, level, "contains " + codePoint(c)
          + at));
    } else if (Character.isSurrogate(c) && !pairedAt(level, i)) {
      return Optional.of(new Breach(Rule.UNPAIRED_SURROGATE, level, "contains the unpaired "
          + "surrogate " + codePoint(c) + at));
    } else if (c == '.' && !isName) {
      return Optional.of(new Breach(Rule.DOT_IN_NAMESPACE, level, "contains '.'" + at));
    }
    return Optional.empty();
  }

  /** C0, DEL and C1 controls, and the Unicode line and paragraph separators. */
  private static boolean isControl(char c) {
    return Character.getType(c) == Character.CONTROL || c == '\u2028' || c == '\u2029';
  }

  private static boolean pairedAt(String level, int i) {
    char c = level.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 < level.length() && Character.isLowSurrogate(level.charAt(i + 1));
    }
    return i > 0 && Character.isHighSurrogate(level.charAt(i - 1));
  }

  private static int utf8Length(String level) {
    return level.getBytes(StandardCharsets.UTF_8).length;
  }

  private static InvalidIdentifierException invalid(String table, Rule rule, String problem) {
    return new InvalidIdentifierException(rule, "Cannot create table " + quote(table) + ": "
        + problem + " (rule " + rule.id() + ": " + rule.description() + ")");
  }

  /**
   * {@code text} in single quotes for a message: control characters and lone surrogates as
   * {@code \\uXXXX}, and cut after {@value #QUOTED_CHARS} characters (a name of a megabyte must
   * not make a message of one).
   */
  static String quote(String text) {
    StringBuilder quoted = new StringBuilder("'");
    int shown = Math.min(text.length(), QUOTED_CHARS);
    for (int i = 0; i < shown; i++) {
      char c = text.charAt(i);
      boolean unsafe = isControl(c) || (Character.isSurrogate(c) && !pairedAt(text, i));
      quoted.append(unsafe ? String.format("\\u%04X", (int) c) : String.valueOf(c));
    }
    if (shown < text.length()) {
      quoted.append("...' (").append(text.length()).append(" characters)");
      return quoted.toString();
    }
    return quoted.append('\'').toString();
  }

  private static String codePoint(char c) {
    return String.format("U+%04X", (int) c);
  }
}
