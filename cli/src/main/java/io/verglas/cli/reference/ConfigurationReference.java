package io.verglas.cli.reference;

import io.verglas.cli.local.LocalSettings;
import io.verglas.config.Setting;
import io.verglas.config.Settings;
import io.verglas.maintenance.job.MaintenanceSettings;
import io.verglas.materializer.MaterializerSettings;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Renders {@code docs/configuration.md} from what the code declares: the options of every
 * {@code ./verglas} command (picocli's model of them) and the settings tables of the local
 * stack and of the Flink jobs ({@link Settings}). Nothing in it is written by hand, so a
 * test can tell when the file is stale.
 */
public final class ConfigurationReference {
  static final String HEADER = "# Configuration reference\n\n"
      + "Generated from the settings the code declares: do not edit by hand; after changing an "
      + "option or a setting run `./verglas config-reference --out docs/configuration.md` "
      + "(a test fails while this file is stale).\n";

  private ConfigurationReference() {}

  /** The reference for {@code root}'s commands and the stack's and jobs' settings. */
  public static String render(CommandLine root) {
    StringBuilder out = new StringBuilder(HEADER);
    out.append("\n## Commands\n");
    for (CommandLine command : commands(root)) {
      appendCommand(out, command.getCommandSpec());
    }
    for (ReferenceSection section : sections()) {
      appendSection(out, section);
    }
    return out.toString();
  }

  static List<ReferenceSection> sections() {
    List<ReferenceSection> sections = new ArrayList<>();
    for (Settings<?> local : LocalSettings.all()) {
      sections.add(new ReferenceSection(local, ""));
    }
    sections.add(new ReferenceSection(MaterializerSettings.settings(), "--"));
    sections.add(new ReferenceSection(MaintenanceSettings.settings(), "--"));
    return sections;
  }

  /** Every command below {@code root}, depth first in declaration order, help aside. */
  private static List<CommandLine> commands(CommandLine root) {
    List<CommandLine> all = new ArrayList<>();
    for (CommandLine sub : root.getSubcommands().values()) {
      if (sub.getCommandSpec().usageMessage().hidden()
          || sub.getCommand() instanceof CommandLine.HelpCommand || all.contains(sub)) {
        continue;
      }
      all.add(sub);
      all.addAll(commands(sub));
    }
    return all;
  }

  private static void appendCommand(StringBuilder out, CommandSpec spec) {
    List<OptionSpec> options = spec.options().stream()
        .filter(o -> !o.usageHelp() && !o.versionHelp() && !o.hidden())
        .toList();
    out.append("\n### `./verglas ").append(spec.qualifiedName(" ").replaceFirst("^\\S+ ", ""))
        .append("`\n\n").append(String.join(" ", spec.usageMessage().description()))
        .append("\n\n```\n").append(synopsis(spec)).append("```\n");
    if (options.isEmpty()) {
      return;
    }
    out.append("\n| Option | Value | Default | Description |\n|---|---|---|---|\n");
    for (OptionSpec option : options) {
      row(out, "`" + String.join("`, `", option.names()) + "`",
          option.typeInfo().isBoolean() ? "" : label(option.paramLabel()),
          option.defaultValue() == null ? "" : option.defaultValue(),
          String.join(" ", option.description()));
    }
  }

  private static String synopsis(CommandSpec spec) {
    return new CommandLine.Help(spec, CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF))
        .synopsis(0).replaceFirst("^Usage: ", "").replaceAll("(?m)[ \\t]+$", "");
  }

  /** A label picocli made from a field's name ({@code <dataDir>}) as the others are: DATA_DIR. */
  private static String label(String paramLabel) {
    if (!paramLabel.startsWith("<")) {
      return paramLabel;
    }
    return paramLabel.substring(1, paramLabel.length() - 1)
        .replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(java.util.Locale.ROOT);
  }

  private static void appendSection(StringBuilder out, ReferenceSection section) {
    Settings<?> settings = section.settings();
    out.append("\n## ").append(settings.title()).append("\n\n").append(settings.summary())
        .append("\n\n| Key | Value | Default | Description |\n|---|---|---|---|\n");
    for (Setting<?> setting : settings.list()) {
      String key = section.keyForm() + setting.key() + (setting.isPrefix() ? "*" : "");
      row(out, "`" + key + "`", setting.value(), setting.defaultValue(), setting.description());
    }
  }

  private static void row(StringBuilder out, String... cells) {
    out.append('|');
    for (String cell : cells) {
      out.append(' ').append(cell.replace("|", "\\|").replace("\n", " ")).append(" |");
    }
    out.append('\n');
  }
}
