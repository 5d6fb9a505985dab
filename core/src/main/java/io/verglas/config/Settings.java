package io.verglas.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;

/**
 * The settings a component accepts, in the order its reference lists them: what parses its
 * configuration (command-line arguments of a job, keys of a properties file) and what the
 * configuration reference is generated from. Immutable.
 */
public final class Settings<B> {
  private final String title;
  private final String summary;
  private final List<Setting<B>> settings;
  private final Map<String, Setting<B>> exact = new LinkedHashMap<>();

  private Settings(String title, String summary, List<Setting<B>> settings) {
    this.title = title;
    this.summary = summary;
    this.settings = List.copyOf(settings);
    for (Setting<B> setting : this.settings) {
      if (!setting.isPrefix() && exact.put(setting.key(), setting) != null) {
        throw new IllegalArgumentException(
            "Cannot declare settings: key " + setting.key() + " is declared twice");
      }
    }
  }

  public static <B> Builder<B> builder(String title, String summary) {
    return new Builder<>(title, summary);
  }

  public String title() {
    return title;
  }

  public String summary() {
    return summary;
  }

  public List<Setting<B>> list() {
    return settings;
  }

  /** The setting {@code key} is, or the prefix setting it falls under. */
  public Optional<Setting<B>> find(String key) {
    Setting<B> setting = exact.get(key);
    if (setting != null) {
      return Optional.of(setting);
    }
    return settings.stream().filter(s -> s.isPrefix() && s.matches(key)).findFirst();
  }

  /** Applies {@code value} to {@code target}; false when no setting has that key. */
  public boolean apply(B target, String key, String value) {
    Optional<Setting<B>> setting = find(key);
    setting.ifPresent(s -> s.applier().apply(target, key, value));
    return setting.isPresent();
  }

  /**
   * Applies every key of {@code props} that starts with {@code prefix} and names one of these
   * settings (the keys in this table carry the prefix); other keys are left for others.
   */
  public void applyProperties(B target, Properties props, String prefix) {
    for (String key : new TreeSet<>(props.stringPropertyNames())) {
      if (key.startsWith(prefix)) {
        apply(target, key, props.getProperty(key).trim());
      }
    }
  }

  /**
   * The keys of {@code props} under {@code prefix} that none of {@code tables} declares: a
   * config file's typo fails instead of being ignored.
   */
  public static List<String> unknownKeys(Properties props, String prefix, Settings<?>... tables) {
    List<String> unknown = new ArrayList<>();
    for (String key : new TreeSet<>(props.stringPropertyNames())) {
      if (key.startsWith(prefix) && Arrays.stream(tables)
          .noneMatch(table -> table.find(key).isPresent())) {
        unknown.add(key);
      }
    }
    return unknown;
  }

  /** Collects settings in the order the reference should list them. */
  public static final class Builder<B> {
    private final String title;
    private final String summary;
    private final List<Setting<B>> settings = new ArrayList<>();

    private Builder(String title, String summary) {
      this.title = title;
      this.summary = summary;
    }

    /**
     * Adds a setting. {@code value} names the form of its value (for example {@code BYTES},
     * {@code DURATION}, {@code true|false}); {@code defaultValue} is how the reference shows the
     * default ("required", "none" and the like where there is none).
     */
    public Builder<B> add(String key, String value, String defaultValue, String description,
        Setting.Applier<B> applier) {
      settings.add(new Setting<>(key, value, defaultValue, description, applier));
      return this;
    }

    public Settings<B> build() {
      return new Settings<>(title, summary, settings);
    }
  }
}
