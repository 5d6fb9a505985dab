package io.verglas.config;

import java.util.Objects;

/**
 * One documented setting of a component: its key, the form of its value, its default and what
 * it does, and how it is applied to the component's builder {@code B}. A key ending in '.' is a
 * prefix: it stands for every key that starts with it (for example {@code catalog.} for the
 * Iceberg catalog's properties), and its applier gets the whole key.
 *
 * <p>The same value is what a component parses its configuration with and what the generated
 * configuration reference lists, so the two cannot disagree.
 */
public record Setting<B>(String key, String value, String defaultValue, String description,
    Applier<B> applier) {

  /** Applies a setting's value to a builder; throws IllegalArgumentException for a bad value. */
  @FunctionalInterface
  public interface Applier<B> {
    void apply(B target, String key, String value);
  }

  public Setting {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(defaultValue, "defaultValue");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(applier, "applier");
    if (key.isBlank() || key.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("Cannot declare a setting: invalid key '" + key + "'");
    }
  }

  public boolean isPrefix() {
    return key.endsWith(".");
  }

  boolean matches(String candidate) {
    return isPrefix() ? candidate.startsWith(key) && candidate.length() > key.length()
        : key.equals(candidate);
  }
}
