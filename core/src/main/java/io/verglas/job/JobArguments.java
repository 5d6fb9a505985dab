package io.verglas.job;

import io.verglas.config.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The command-line arguments of the Flink jobs: {@code --key=value} or {@code --key value}, in
 * the order given, and the duration syntax they share.
 */
public final class JobArguments {
  private JobArguments() {}

  /** The arguments as (key, value) pairs in order; a malformed one fails naming it. */
  public static List<Map.Entry<String, String>> parse(String... args) {
    List<Map.Entry<String, String>> pairs = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException("Invalid argument: '" + arg + "' (expected --key=value)");
      }
      int eq = arg.indexOf('=');
      if (eq > 0) {
        pairs.add(Map.entry(arg.substring(2, eq), arg.substring(eq + 1)));
      } else if (i + 1 < args.length) {
        pairs.add(Map.entry(arg.substring(2), args[++i]));
      } else {
        throw new IllegalArgumentException("Invalid argument: " + arg + " has no value");
      }
    }
    return pairs;
  }

  /**
   * Applies each argument to {@code target} through {@code settings}; an argument no setting
   * declares fails naming it.
   */
  public static <B> void apply(Settings<B> settings, B target, String... args) {
    for (Map.Entry<String, String> arg : parse(args)) {
      if (!settings.apply(target, arg.getKey(), arg.getValue())) {
        throw new IllegalArgumentException("Unknown argument: --" + arg.getKey());
      }
    }
  }

  /** A whole number; a bad one fails naming the argument. */
  public static long number(String key, String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Invalid --" + key + ": '" + value + "' is not a number", e);
    }
  }

  /** A whole number that fits an int; a bad one fails naming the argument. */
  public static int count(String key, String value) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Invalid --" + key + ": '" + value + "' is not a number", e);
    }
  }

  /**
   * A duration: milliseconds, or a number with {@code ms}, {@code s}, {@code m} or {@code h}, or
   * ISO-8601 ({@code PT10S}); a bad one fails naming the argument.
   */
  public static Duration duration(String key, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    try {
      if (v.startsWith("pt")) {
        return Duration.parse(value.trim());
      }
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2).trim()));
      }
      char unit = v.isEmpty() ? '0' : v.charAt(v.length() - 1);
      if (Character.isDigit(unit)) {
        return Duration.ofMillis(Long.parseLong(v));
      }
      long n = Long.parseLong(v.substring(0, v.length() - 1).trim());
      return switch (unit) {
        case 's' -> Duration.ofSeconds(n);
        case 'm' -> Duration.ofMinutes(n);
        case 'h' -> Duration.ofHours(n);
        default -> throw new NumberFormatException("unknown unit " + unit);
      };
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Invalid --" + key + ": '" + value
          + "' (expected milliseconds, a number with ms, s, m or h, or ISO-8601 like PT10S)", e);
    }
  }
}
